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

package virtualstore

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/update-status/apiserver/pkg/apis/update"
)

func TestTypesOf(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := update.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gv := update.SchemeGroupVersion
	tests := []struct {
		name      string
		gv        schema.GroupVersion
		kind      string
		wantError bool
	}{
		{name: "kind and list", gv: gv, kind: "NodeProgressInsight"},
		{name: "unknown kind", gv: gv, kind: "Pod", wantError: true},
		{name: "a list's list", gv: gv, kind: "NodeProgressInsightList", wantError: true},
		{name: "unknown version", gv: schema.GroupVersion{Group: gv.Group, Version: "v9"}, kind: "NodeProgressInsight", wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			types, err := TypesOf(scheme, tt.gv, tt.kind)
			if tt.wantError {
				if err == nil {
					t.Fatalf("TypesOf(%s) succeeded", tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			a, b := types.New(), types.New()
			if _, ok := a.(*update.NodeProgressInsight); !ok || a == b {
				t.Errorf("New() = %T, twice the same object: %v", a, a == b)
			}
			if _, ok := types.NewList().(*update.NodeProgressInsightList); !ok {
				t.Errorf("NewList() = %T", types.NewList())
			}
		})
	}
}
