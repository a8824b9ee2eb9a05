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
	"testing"

	"github.com/google/go-cmp/cmp"
	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestNewerFields(t *testing.T) {
	started := metav1.Unix(1700000000, 0).Rfc3339Copy()
	cpv := &ControlPlaneVersionStatus{
		Desired:            configv1.Release{Version: "4.20.1", Image: "quay.io/r:4.20.1"},
		History:            []ControlPlaneUpdateHistory{{State: configv1.PartialUpdate, StartedTime: started, Version: "4.20.1", Image: "quay.io/r:4.20.1"}},
		ObservedGeneration: 2,
	}
	info := &NodePoolNodesInfo{NodeVersions: []NodeVersionCount{{OCPVersion: "4.20.1", KubeletVersion: "v1.33.2", ReadyNodeCount: 2, UnreadyNodeCount: 1}}}
	tests := []struct {
		name    string
		obj     map[string]any
		wantCPV *ControlPlaneVersionStatus
		wantNI  *NodePoolNodesInfo
		wantErr bool
	}{
		{name: "absent", obj: map[string]any{"status": map[string]any{}}},
		{name: "no status", obj: map[string]any{}},
		{name: "present", obj: map[string]any{}, wantCPV: cpv, wantNI: info},
		{name: "malformed", obj: map[string]any{"status": map[string]any{"controlPlaneVersion": "x", "nodesInfo": map[string]any{"nodeVersions": "y"}}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: tt.obj}
			if tt.wantCPV != nil {
				if err := SetControlPlaneVersion(u, tt.wantCPV); err != nil {
					t.Fatal(err)
				}
				if err := SetNodesInfo(u, tt.wantNI); err != nil {
					t.Fatal(err)
				}
			}
			gotCPV, err1 := ControlPlaneVersion(u)
			gotNI, err2 := NodesInfo(u)
			if tt.wantErr {
				if err1 == nil || err2 == nil {
					t.Fatalf("errors %v, %v; want both", err1, err2)
				}
				return
			}
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if d := cmp.Diff(tt.wantCPV, gotCPV); d != "" {
				t.Errorf("controlPlaneVersion (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantNI, gotNI); d != "" {
				t.Errorf("nodesInfo (-want +got):\n%s", d)
			}
		})
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if err := SetNodesInfo(u, &NodePoolNodesInfo{}); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "nodesInfo"); found {
		t.Error("empty nodesInfo written; the schema wants at least one version")
	}
}

func TestControlPlaneNamespace(t *testing.T) {
	for _, tt := range []struct{ ns, name, want string }{
		{"clusters", "alpha", "clusters-alpha"},
		{"clusters", "a.b", "clusters-a-b"},
	} {
		if got := ControlPlaneNamespace(tt.ns, tt.name); got != tt.want {
			t.Errorf("ControlPlaneNamespace(%q, %q) = %q, want %q", tt.ns, tt.name, got, tt.want)
		}
	}
}
