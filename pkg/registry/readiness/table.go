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

package readiness

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
)

// table renders one kind's objects for kubectl: its columns and the cells
// of one object, false when the object is not of the kind.
type table struct {
	columns []metav1.TableColumnDefinition
	cells   func(obj runtime.Object) ([]interface{}, bool)
}

var nameColumn = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: "Name of the object."}

var candidateTable = table{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		{Name: "Version", Type: "string", Description: "Version of the release."},
		{Name: "Recommended", Type: "string", Description: "True when no known risk applies to this cluster, False when one does, Unknown when the cluster could not tell."},
		{Name: "Issues", Type: "string", Description: "The known risks that apply to this cluster (? when the cluster could not evaluate one)."},
		{Name: "Reason", Type: "string", Priority: 1, Description: "Reason of the verdict when not recommended."},
		{Name: "Image", Type: "string", Priority: 1, Description: "Pull spec of the release image."},
	},
	cells: func(obj runtime.Object) ([]interface{}, bool) {
		o, ok := obj.(*update.UpdateCandidate)
		if !ok {
			return nil, false
		}
		var issues []string
		for _, r := range o.Status.Risks {
			switch r.Applies {
			case metav1.ConditionTrue:
				issues = append(issues, r.Name)
			case metav1.ConditionUnknown:
				issues = append(issues, r.Name+"?")
			}
		}
		return []interface{}{o.Name, o.Status.Version, cells.OrUnknown(string(o.Status.Recommended)), orNone(issues), o.Status.Reason, o.Status.Image}, true
	},
}

var readinessTable = table{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		{Name: "Version", Type: "string", Description: "Version the cluster runs or is updating to."},
		{Name: "Channel", Type: "string", Description: "Update channel."},
		{Name: "Prechecks", Type: "string", Description: "Precheck groups without cause for concern / all."},
		{Name: "Issues", Type: "string", Description: "Issues that apply to any update (the names --accept takes)."},
	},
	cells: func(obj runtime.Object) ([]interface{}, bool) {
		o, ok := obj.(*update.UpdateReadiness)
		if !ok {
			return nil, false
		}
		happy := 0
		for _, p := range o.Status.Prechecks {
			if p.Status == metav1.ConditionTrue {
				happy++
			}
		}
		prechecks := fmt.Sprintf("%d/%d", happy, len(o.Status.Prechecks))
		if o.Status.PrechecksIncomplete != "" {
			prechecks += " (incomplete)"
		}
		return []interface{}{o.Name, cells.OrUnknown(o.Status.Version), o.Status.Channel, prechecks, orNone(o.Status.Issues)}, true
	},
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}

// ConvertToTable implements rest.TableConvertor for an object of the kind
// or a list of them; anything else gives no row.
func (c table) ConvertToTable(_ context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return cells.Table(object, tableOptions, c.columns, c.cells), nil
}
