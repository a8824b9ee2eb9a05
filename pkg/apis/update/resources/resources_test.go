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

package resources

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/internal/apitypes"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// TestNamesCoverTheScheme checks that every kind v1alpha1 registers, lists
// aside, has names here and that every name here is a registered kind with
// its list: the table cannot drift from the types.
func TestNamesCoverTheScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	registered := apitypes.Kinds(scheme, v1alpha1.SchemeGroupVersion, &v1alpha1.UpdateStatus{})
	var want []string
	for _, kind := range registered {
		if !strings.HasSuffix(kind, "List") {
			want = append(want, kind)
		}
	}
	var got []string
	for _, n := range All() {
		got = append(got, n.Kind)
		if !slices.Contains(registered, n.Kind+"List") {
			t.Errorf("%s: no %sList in the scheme", n.Kind, n.Kind)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("kinds named here = %v, registered = %v", got, want)
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		kind                          InsightKind
		wantResource, wantSingular    string
		wantShortName, wantKindString string
	}{
		{ClusterVersionInsights, "clusterversionprogressinsights", "clusterversionprogressinsight", "cvpi", "ClusterVersionProgressInsight"},
		{ClusterOperatorInsights, "clusteroperatorprogressinsights", "clusteroperatorprogressinsight", "copi", "ClusterOperatorProgressInsight"},
		{MachineConfigPoolInsights, "machineconfigpoolprogressinsights", "machineconfigpoolprogressinsight", "mcppi", "MachineConfigPoolProgressInsight"},
		{NodeInsights, "nodeprogressinsights", "nodeprogressinsight", "npi", "NodeProgressInsight"},
		{HealthInsights, "healthinsights", "healthinsight", "hi", "HealthInsight"},
		{NumInsightKinds, "", "", "", ""},
		{-1, "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.wantKindString, func(t *testing.T) {
			n := tt.kind.Names()
			if n.Resource != tt.wantResource || n.Singular != tt.wantSingular || n.ShortName != tt.wantShortName || tt.kind.String() != tt.wantKindString {
				t.Errorf("names of %d = %+v (String %q)", tt.kind, n, tt.kind.String())
			}
			if tt.kind.Resource() != n.Resource || tt.kind.ShortName() != n.ShortName || tt.kind.Kind() != n.Kind {
				t.Errorf("accessors of %d disagree with %+v", tt.kind, n)
			}
		})
	}
	if gr := UpdateStatus.GroupResource(); gr.Group != v1alpha1.GroupName || gr.Resource != "updatestatuses" {
		t.Errorf("UpdateStatus.GroupResource() = %v", gr)
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		in       string
		want     Names
		wantKind InsightKind
		wantOK   bool
	}{
		{in: "npi", want: NodeInsights.Names(), wantKind: NodeInsights, wantOK: true},
		{in: "NodeProgressInsights", want: NodeInsights.Names(), wantKind: NodeInsights, wantOK: true},
		{in: "healthinsight", want: HealthInsights.Names(), wantKind: HealthInsights, wantOK: true},
		{in: "MCPPI", want: MachineConfigPoolInsights.Names(), wantKind: MachineConfigPoolInsights, wantOK: true},
		{in: "updatestatus", want: UpdateStatus, wantKind: NumInsightKinds, wantOK: true},
		{in: "us", want: UpdateStatus, wantKind: NumInsightKinds, wantOK: true},
		{in: "nodes", wantKind: NumInsightKinds},
		{in: "", wantKind: NumInsightKinds},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := Find(tt.in)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Find(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
			k, ok := InsightKindOf(got.Kind)
			if k != tt.wantKind || ok != (tt.wantKind != NumInsightKinds) {
				t.Errorf("InsightKindOf(%q) = %v, %v; want %v", got.Kind, k, ok, tt.wantKind)
			}
		})
	}
}
