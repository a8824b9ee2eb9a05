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

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// demoInformer reads the UpdateInformer of artifacts/examples/informers.
func demoInformer(t *testing.T) *informersv1alpha1.UpdateInformer {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cp.RepoRoot, "artifacts", "examples", "informers", "updateinformer-demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var ui informersv1alpha1.UpdateInformer
	if err := yaml.UnmarshalStrict(data, &ui); err != nil {
		t.Fatalf("updateinformer-demo.yaml: %v", err)
	}
	return &ui
}

// TestUpdateInformerSchema creates UpdateInformers through the kube-apiserver
// that serves the CRD of artifacts/deploy/crds (installed by localstack.Start,
// which fails if the kube-apiserver refuses the CRD, for instance for the
// estimated cost of its CEL rules): the example is accepted, and each object
// that breaks a rule of the schema is refused with that rule's message.
func TestUpdateInformerSchema(t *testing.T) {
	ctx := t.Context()
	client := updateClient(t, &cp.Users.Admin).InformersV1alpha1().UpdateInformers("default")

	tests := []struct {
		name   string
		mutate func(*informersv1alpha1.UpdateInformer)
		want   string // "" when the object is valid
	}{
		{name: "the example", mutate: func(*informersv1alpha1.UpdateInformer) {}},
		{
			name: "no lease duration: defaulted",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				ui.Spec.LeaseDurationSeconds = nil
			},
		},
		{
			name: "a full pool",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				p := &ui.Spec.WorkerPools[0]
				p.Insights = repeatInsights(p.Insights[0], informersv1alpha1.MaxWorkerPoolInsights)
			},
		},
		{
			name: "built-in name",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				ui.Name = v1alpha1.InformerNodes
			},
			want: "metadata.name must not be cpi, nodes or alerts",
		},
		{
			name: "union member does not match the type",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				ui.Spec.ControlPlane.Insights[0].Insight.Type = v1alpha1.ClusterOperatorStatusInsightType
			},
			want: "clusterOperator must be set if and only if type is ClusterOperator",
		},
		{
			name: "control-plane-only type in a pool",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				ui.Spec.WorkerPools[0].Insights[0].Insight.Type = v1alpha1.ClusterVersionStatusInsightType
			},
			want: "type must be one of MachineConfigPool, Node, Health",
		},
		{
			name: "unknown insight type",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				ui.Spec.ControlPlane.Insights[0].Insight.Type = "Rumour"
			},
			want: `spec.controlPlane.insights[0].insight.type: Unsupported value: "Rumour"`,
		},
		{
			name: "bad uid",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				ui.Spec.ControlPlane.Insights[0].UID = "Not_A_UID"
			},
			want: "spec.controlPlane.insights[0].uid: Invalid value",
		},
		{
			name: "duplicate uid",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				p := &ui.Spec.WorkerPools[0]
				p.Insights = append(p.Insights, p.Insights[0])
			},
			want: "spec.workerPools[0].insights[1]: Duplicate value",
		},
		{
			name: "too many control-plane insights",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				cp := ui.Spec.ControlPlane
				cp.Insights = repeatInsights(cp.Insights[0], informersv1alpha1.MaxControlPlaneInsights+1)
			},
			want: "spec.controlPlane.insights: Too many: 129: must have at most 128 items",
		},
		{
			name: "too many insights in a pool",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				p := &ui.Spec.WorkerPools[0]
				p.Insights = repeatInsights(p.Insights[0], informersv1alpha1.MaxWorkerPoolInsights+1)
			},
			want: "spec.workerPools[0].insights: Too many: 1025: must have at most 1024 items",
		},
		{
			name: "too many pools",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				pool := ui.Spec.WorkerPools[0]
				ui.Spec.WorkerPools = nil
				for i := range informersv1alpha1.MaxWorkerPools + 1 {
					pool.Name = fmt.Sprintf("pool-%d", i)
					ui.Spec.WorkerPools = append(ui.Spec.WorkerPools, *pool.DeepCopy())
				}
			},
			want: "spec.workerPools: Too many: 17: must have at most 16 items",
		},
		{
			name: "lease too short",
			mutate: func(ui *informersv1alpha1.UpdateInformer) {
				ui.Spec.LeaseDurationSeconds = ptr.To[int32](0)
			},
			want: "spec.leaseDurationSeconds: Invalid value: 0: spec.leaseDurationSeconds in body should be greater than or equal to 1",
		},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ui := demoInformer(t)
			ui.Name = fmt.Sprintf("schema-%d", i)
			tc.mutate(ui)
			got, err := client.Create(ctx, ui, metav1.CreateOptions{})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				t.Cleanup(func() {
					if err := client.Delete(ctx, got.Name, metav1.DeleteOptions{}); err != nil {
						t.Errorf("delete: %v", err)
					}
				})
				if got.Spec.LeaseDurationSeconds == nil || (ui.Spec.LeaseDurationSeconds == nil && *got.Spec.LeaseDurationSeconds != informersv1alpha1.DefaultLeaseDurationSeconds) {
					t.Errorf("leaseDurationSeconds = %v, want the default %d when unset", got.Spec.LeaseDurationSeconds, informersv1alpha1.DefaultLeaseDurationSeconds)
				}
				return
			}
			if err == nil {
				_ = client.Delete(ctx, got.Name, metav1.DeleteOptions{})
				t.Fatalf("create succeeded, want an error with %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// anyInsight is an insight of either list.
type anyInsight interface {
	v1alpha1.ControlPlaneInsight | v1alpha1.WorkerPoolInsight
}

// repeatInsights returns n copies of in with distinct uids.
func repeatInsights[T anyInsight](in T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = in
		switch x := any(&out[i]).(type) {
		case *v1alpha1.ControlPlaneInsight:
			x.UID = fmt.Sprintf("insight-%d", i)
		case *v1alpha1.WorkerPoolInsight:
			x.UID = fmt.Sprintf("insight-%d", i)
		}
	}
	return out
}
