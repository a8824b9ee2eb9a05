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

package hypershift

import (
	"encoding/json"
	"fmt"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"
)

// Scheme knows the HyperShift (hypershift.openshift.io/v1beta1) and Cluster
// API (cluster.x-k8s.io/v1beta1) types of the linked modules.
var Scheme = runtime.NewScheme()

func init() {
	utilruntime.Must(hyperv1.AddToScheme(Scheme))
	utilruntime.Must(capiv1.AddToScheme(Scheme))
}

// ToUnstructured converts a typed HyperShift or Cluster API object into an
// unstructured one with its apiVersion and kind set.
func ToUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	gvks, _, err := Scheme.ObjectKinds(obj)
	if err != nil {
		return nil, err
	}
	// Through JSON, so that the types' own marshalers (HyperShift's
	// ipnet.IPNet) apply.
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%T: %w", obj, err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("%T: %w", obj, err)
	}
	u.SetGroupVersionKind(gvks[0])
	return u, nil
}
