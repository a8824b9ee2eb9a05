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

package informer

import (
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

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
	since := metav1.NewTime(time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC))
	mcn := &mcfgv1.MachineConfigNode{
		ObjectMeta: metav1.ObjectMeta{Name: "w", ManagedFields: managed},
		Spec: mcfgv1.MachineConfigNodeSpec{Node: mcfgv1.MCOObjectReference{Name: "w"}, Pool: mcfgv1.MCOObjectReference{Name: "infra"},
			ConfigVersion: mcfgv1.MachineConfigNodeSpecMachineConfigVersion{Desired: "rendered-infra-2"}},
		Status: mcfgv1.MachineConfigNodeStatus{Conditions: []metav1.Condition{
			{Type: string(mcfgv1.MachineConfigNodeUpdatePrepared), Status: metav1.ConditionTrue},
			{Type: string(mcfgv1.MachineConfigNodeUpdateExecuted), Status: metav1.ConditionUnknown},
			{Type: string(mcfgv1.MachineConfigNodeUpdateCordoned), Status: metav1.ConditionTrue, LastTransitionTime: since},
			{Type: string(mcfgv1.MachineConfigNodeUpdateDrained), Status: metav1.ConditionUnknown, Message: "Error: cannot evict"},
			{Type: string(mcfgv1.MachineConfigNodeUpdateRebooted), Status: metav1.ConditionFalse},
			{Type: string(mcfgv1.MachineConfigNodeNodeDegraded), Status: metav1.ConditionFalse},
		}},
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", ManagedFields: managed, Labels: map[string]string{"app": "db"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "db-1", Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: "w", Containers: []corev1.Container{{Name: "db", Image: "quay.io/db"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "db", Ready: true}}},
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
		{"machineconfignode: what the rules read stays", mcn.DeepCopy(), func(o any) bool {
			m := o.(*mcfgv1.MachineConfigNode)
			return drain.MCNDraining(m) && drain.DrainStartedAt(m).Equal(since.Time) && drain.PoolOf(node, m, nil) == "infra" &&
				meta.FindStatusCondition(m.Status.Conditions, string(mcfgv1.MachineConfigNodeUpdateDrained)).Message == "Error: cannot evict"
		}},
		{"machineconfignode: other conditions, the rest of the spec and managed fields go", mcn.DeepCopy(), func(o any) bool {
			m := o.(*mcfgv1.MachineConfigNode)
			return len(m.Status.Conditions) == 3 && m.Spec.Node.Name == "" && m.Spec.ConfigVersion.Desired == "" && m.ManagedFields == nil
		}},
		{"pod: what the rules read stays", pod.DeepCopy(), func(o any) bool {
			p := o.(*corev1.Pod)
			return !drain.Ignored(p) && drain.PodReady(p) && p.Labels["app"] == "db"
		}},
		{"pod: spec, container statuses and managed fields go", pod.DeepCopy(), func(o any) bool {
			p := o.(*corev1.Pod)
			return len(p.Spec.Containers) == 0 && len(p.Status.ContainerStatuses) == 0 && p.ManagedFields == nil
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
