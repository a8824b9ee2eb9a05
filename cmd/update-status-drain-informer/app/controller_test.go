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

package app

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/drain"
	"github.com/update-status/apiserver/pkg/insights"
)

func TestSlimObject(t *testing.T) {
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "w", ManagedFields: managed, Labels: map[string]string{"node-role.kubernetes.io/worker": ""},
			Annotations: map[string]string{insights.DesiredDrainAnnotation: "drain-x", insights.LastAppliedDrainAnnotation: "uncordon-y"}},
		Spec: corev1.NodeSpec{Unschedulable: true, ProviderID: "aws:///us-east-2a/i-0"},
		Status: corev1.NodeStatus{Images: []corev1.ContainerImage{{Names: []string{"quay.io/x"}, SizeBytes: 1}},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	budget := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "b", ManagedFields: managed},
		Status: policyv1.PodDisruptionBudgetStatus{DesiredHealthy: 2}}
	for _, tc := range []struct {
		name  string
		obj   any
		check func(any) bool
	}{
		{"node: what the rules read stays", node.DeepCopy(), func(o any) bool {
			n := o.(*corev1.Node)
			return drain.IsDraining(n, nil) && n.Labels["node-role.kubernetes.io/worker"] == "" && len(n.Labels) == 1
		}},
		{"node: status, spec and managed fields go", node.DeepCopy(), func(o any) bool {
			n := o.(*corev1.Node)
			return len(n.Status.Images) == 0 && len(n.Status.Conditions) == 0 && n.Spec.ProviderID == "" && n.ManagedFields == nil
		}},
		{"budget: only managed fields go", budget.DeepCopy(), func(o any) bool {
			b := o.(*policyv1.PodDisruptionBudget)
			return b.ManagedFields == nil && b.Status.DesiredHealthy == 2
		}},
		{"not an object", "x", func(o any) bool { return o == "x" }},
	} {
		got, err := slimObject(tc.obj)
		if err != nil || !tc.check(got) {
			t.Errorf("%s: %+v, %v", tc.name, got, err)
		}
	}
}
