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

package apiserver

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// writeVerbs are the verbs UpdateStatus refuses.
var writeVerbs = map[string]bool{
	"create":           true,
	"update":           true,
	"patch":            true,
	"delete":           true,
	"deletecollection": true,
}

// readOnlyResources are the resources of update.openshift.io whose writes
// withReadOnly refuses: all of them.
var readOnlyResources = func() map[string]bool {
	r := map[string]bool{resources.UpdateStatus.Resource: true, resources.HostedClusterUpdateStatus.Resource: true}
	for k := resources.InsightKind(0); k < resources.NumInsightKinds; k++ {
		r[k.Resource()] = true
		r[k.Hosted().Resource] = true
	}
	return r
}()

// withReadOnly answers every write to updatestatuses (and its status
// subresource), to the per-insight resources and to the hosted kinds with 405 MethodNotSupported as a Status object. The storage
// implements no write interface, so the installer registers no write routes;
// without this filter go-restful would answer those requests with a plain
// text 405 that clients cannot decode. It runs after authentication and
// authorization, like the routes it stands in for.
func withReadOnly(handler http.Handler, codecs runtime.NegotiatedSerializer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, ok := request.RequestInfoFrom(req.Context())
		if ok && info.IsResourceRequest && writeVerbs[info.Verb] &&
			info.APIGroup == update.GroupName && info.APIVersion == v1alpha1.SchemeGroupVersion.Version &&
			readOnlyResources[info.Resource] {
			resource := update.Resource(info.Resource)
			if info.Subresource != "" {
				resource.Resource += "/" + info.Subresource
			}
			err := apierrors.NewMethodNotSupported(resource, info.Verb)
			responsewriters.ErrorNegotiated(err, codecs, v1alpha1.SchemeGroupVersion, w, req)
			return
		}
		handler.ServeHTTP(w, req)
	})
}
