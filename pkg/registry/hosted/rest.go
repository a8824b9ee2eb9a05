// Copyright The update-status-apiserver Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package hosted

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/registry/insightobjects"
	"github.com/update-status/apiserver/pkg/registry/updatestatus"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
)

// NewREST returns the read-only, namespaced storage of
// hostedclusterupdatestatuses and of the hosted per-insight kinds (indexed
// by the resources.InsightKind of their standalone twins) over the
// publisher's stores. scheme and codec are the server's scheme and storage
// codec; clock gives the ages and estimates in tables.
func (p *Publisher) NewREST(scheme *runtime.Scheme, codec runtime.Codec, clock clock.PassiveClock) (*virtualstore.REST, [resources.NumInsightKinds]*virtualstore.REST, error) {
	var none [resources.NumInsightKinds]*virtualstore.REST
	types, err := virtualstore.TypesOf(scheme, update.SchemeGroupVersion, resources.HostedClusterUpdateStatus.Kind)
	if err != nil {
		return nil, none, err
	}
	status, err := virtualstore.NewREST(virtualstore.RESTConfig{
		Store: p.Status, Codec: codec, Typer: scheme,
		Singular: resources.HostedClusterUpdateStatus.Singular, ShortNames: []string{resources.HostedClusterUpdateStatus.ShortName},
		New: types.New, NewList: types.NewList,
		Table:      updatestatus.NewHostedTable(clock),
		Namespaced: true,
	})
	if err != nil {
		return nil, none, err
	}
	insightRESTs, err := insightobjects.NewHostedREST(p.Insights, scheme, codec, clock)
	if err != nil {
		status.Destroy()
		return nil, none, err
	}
	return status, insightRESTs, nil
}
