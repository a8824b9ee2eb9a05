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

package conventions

import (
	"reflect"
	"testing"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

func TestDrainBlockOf(t *testing.T) {
	node := v1alpha1.ResourceRef{Resource: "nodes", Name: "worker-a"}
	pod := v1alpha1.ResourceRef{Resource: "pods", Namespace: "shop", Name: "db-0"}
	pdb := v1alpha1.ResourceRef{Group: "policy", Resource: "poddisruptionbudgets", Namespace: "shop", Name: "db"}
	for _, tc := range []struct {
		name      string
		informer  string
		resources []v1alpha1.ResourceRef
		want      DrainBlock
		ok        bool
	}{
		{name: "node, pod and budget", informer: "drain.update-status-drain", resources: []v1alpha1.ResourceRef{node, pod, pdb},
			want: DrainBlock{Nodes: []string{"worker-a"}, Budgets: []string{"shop/db"}, Pods: []string{"shop/db-0"}}, ok: true},
		{name: "any external informer, repeats dropped, sorted", informer: "x.other",
			resources: []v1alpha1.ResourceRef{node, pdb, {Group: "policy", Resource: "poddisruptionbudgets", Namespace: "a", Name: "z"}, pdb},
			want:      DrainBlock{Nodes: []string{"worker-a"}, Budgets: []string{"a/z", "shop/db"}}, ok: true},
		{name: "the server's own informer", informer: v1alpha1.InformerNodes, resources: []v1alpha1.ResourceRef{node, pdb}},
		{name: "no informer named", resources: []v1alpha1.ResourceRef{node, pdb}},
		{name: "node without budget", informer: "x.other", resources: []v1alpha1.ResourceRef{node, pod}},
		{name: "budget without node", informer: "x.other", resources: []v1alpha1.ResourceRef{pod, pdb}},
		{name: "budgets of another group", informer: "x.other",
			resources: []v1alpha1.ResourceRef{node, {Group: "example.com", Resource: "poddisruptionbudgets", Namespace: "shop", Name: "db"}}},
		{name: "nodes of another group", informer: "x.other",
			resources: []v1alpha1.ResourceRef{{Group: "example.com", Resource: "nodes", Name: "worker-a"}, pdb}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &v1alpha1.HealthStatusInsight{Scope: v1alpha1.InsightScope{Type: v1alpha1.WorkerPoolScope, Resources: tc.resources}}
			got, ok := DrainBlockOf(tc.informer, h)
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("DrainBlockOf = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	if _, ok := DrainBlockOf("x.other", nil); ok {
		t.Error("a nil insight holds a drain")
	}
}
