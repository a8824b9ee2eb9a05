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

package apitypes_test

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/internal/apitypes"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

func TestKindsAndStructs(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	kinds := apitypes.Kinds(scheme, v1alpha1.SchemeGroupVersion, &v1alpha1.UpdateStatus{})
	for _, want := range []string{"UpdateStatus", "UpdateStatusList", "NodeProgressInsight", "HealthInsightList"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("kinds %v lack %s", kinds, want)
		}
	}
	for _, meta := range []string{"WatchEvent", "ListOptions", "Status"} {
		if slices.Contains(kinds, meta) {
			t.Errorf("kinds %v include the meta type %s", kinds, meta)
		}
	}
	var names []string
	for _, s := range apitypes.Structs(scheme, v1alpha1.SchemeGroupVersion, &v1alpha1.UpdateStatus{}) {
		names = append(names, s.Name())
	}
	// Reached only through pointers, slices and other structs of the API.
	for _, want := range []string{"UpdateStatus", "ClusterVersionStatusInsight", "VersionMetadata", "WorkerPoolInsightUnion", "NodeSummary"} {
		if !slices.Contains(names, want) {
			t.Errorf("struct types %v lack %s", names, want)
		}
	}
	if slices.Contains(names, "ObjectMeta") || slices.Contains(names, "Condition") {
		t.Errorf("struct types %v include types of other packages", names)
	}
	if !slices.IsSorted(names) {
		t.Errorf("struct types %v are not sorted", names)
	}
	t.Logf("%d kinds, %d struct types", len(kinds), len(names))
}
