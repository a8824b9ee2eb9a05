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

package crds

import (
	"testing"

	"github.com/update-status/apiserver/internal/testio"
)

func TestLoad(t *testing.T) {
	crds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	// Each CRD's served version and the newer status fields it must carry.
	want := map[string]struct {
		version string
		fields  []string
	}{
		"controlplanecomponents.hypershift.openshift.io": {"v1beta1", []string{"observedGeneration", "version", "conditions"}},
		"hostedclusters.hypershift.openshift.io":         {"v1beta1", []string{"controlPlaneVersion", "version", "conditions"}},
		"hostedcontrolplanes.hypershift.openshift.io":    {"v1beta1", []string{"controlPlaneVersion", "versionStatus"}},
		"nodepools.hypershift.openshift.io":              {"v1beta1", []string{"nodesInfo", "version", "conditions"}},
		"machines.cluster.x-k8s.io":                      {"v1beta1", []string{"phase", "nodeRef", "nodeInfo", "deletion"}},
		"machinesets.cluster.x-k8s.io":                   {"v1beta1", []string{"replicas", "availableReplicas"}},
		"machinedeployments.cluster.x-k8s.io":            {"v1beta1", []string{"updatedReplicas", "availableReplicas"}},
	}
	for crd, w := range testio.ByName(t, crds, want) {
		for k := range crd.Annotations {
			if k == "feature-gate.release.openshift.io/" {
				t.Errorf("%s keeps the empty-named feature-gate annotation", crd.Name)
			}
		}
		served := 0
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			served++
			if v.Name != w.version || !v.Storage || v.Subresources == nil || v.Subresources.Status == nil {
				t.Errorf("%s: served version %s (storage %v) without the status subresource", crd.Name, v.Name, v.Storage)
				continue
			}
			status := v.Schema.OpenAPIV3Schema.Properties["status"]
			for _, f := range w.fields {
				if _, ok := status.Properties[f]; !ok {
					t.Errorf("%s: no status.%s", crd.Name, f)
				}
			}
		}
		if served != 1 {
			t.Errorf("%s: %d served versions, want 1 (no conversion webhook here)", crd.Name, served)
		}
	}
}
