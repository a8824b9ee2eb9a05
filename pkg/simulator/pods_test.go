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

package simulator

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/drain"
)

// routerObjects reads the router's pods and budget from the fake API.
func routerObjects(t *testing.T, api *fakeAPI) ([]*corev1.Pod, *policyv1.PodDisruptionBudget) {
	t.Helper()
	ctx := context.Background()
	list, err := api.kube.CoreV1().Pods(routerNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		pods[i] = &list.Items[i]
	}
	pdb, err := api.kube.PolicyV1().PodDisruptionBudgets(routerNamespace).Get(ctx, routerName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pods, pdb
}

func TestRouterPodsHeldDrain(t *testing.T) {
	ctx := context.Background()
	s, fc, api := startedSimulator(t, Options{Nodes: 6, Seed: 3, RouterPods: 4})
	id, err := s.BlockDrain(ctx, "worker", 0)
	if err != nil {
		t.Fatal(err)
	}
	nodeOf := func(name string) *corev1.Node {
		n, err := api.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Every step: four router pods, none of them on a master; the budget's
	// status follows them.
	check := func(*State) {
		pods, pdb := routerObjects(t, api)
		if len(pods) != 4 || pdb.Status.ExpectedPods != 4 || pdb.Status.DesiredHealthy != 2 {
			t.Fatalf("%d router pods, budget status %+v", len(pods), pdb.Status)
		}
		ready := int32(0)
		for _, p := range pods {
			if _, master := nodeOf(p.Spec.NodeName).Labels["node-role.kubernetes.io/master"]; master {
				t.Fatalf("router pod %s on master %s", p.Name, p.Spec.NodeName)
			}
			if drain.PodReady(p) {
				ready++
			}
		}
		if pdb.Status.CurrentHealthy != ready || pdb.Status.DisruptionsAllowed != max(ready-2, 0) {
			t.Fatalf("budget status %+v with %d ready pods", pdb.Status, ready)
		}
	}
	var held *drain.Finding
	stepUntil(t, s, fc, check, func(*State) bool {
		name := firstHeldNode(s)
		if name == "" {
			return false
		}
		pods, pdb := routerObjects(t, api)
		node := nodeOf(name)
		var onNode []*corev1.Pod
		for _, p := range pods {
			if p.Spec.NodeName == node.Name {
				onNode = append(onNode, p)
			}
		}
		held = drain.Evaluate(&drain.Input{Node: node, Pool: "worker", Pods: onNode, Budgets: []*policyv1.PodDisruptionBudget{pdb}}, fc.Now(), drain.DefaultTimeout)
		return held != nil
	})
	if held == nil || len(held.Blockers) == 0 || held.Blockers[0].Kind != drain.BlockedByBudget ||
		held.Blockers[0].Budget.Name != routerName || held.Blockers[0].Budget.Status.DisruptionsAllowed != 0 {
		t.Fatalf("held drain: %+v", held)
	}

	if err := s.Clear(ctx, id); err != nil {
		t.Fatal(err)
	}
	st := stepUntil(t, s, fc, check, nil)
	// The update done, every node is schedulable again and the budget has
	// room: no router pod was left on a node that drained.
	for _, n := range st.Nodes {
		if n.Spec.Unschedulable {
			t.Errorf("node %s still cordoned", n.Name)
		}
	}
	if _, pdb := routerObjects(t, api); pdb.Status.DisruptionsAllowed != 2 {
		t.Errorf("budget after the update: %+v", pdb.Status)
	}
}

func TestRouterPodsOff(t *testing.T) {
	_, _, api := startedSimulator(t, Options{Nodes: 6, Seed: 3})
	list, err := api.kube.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("pods without RouterPods: %d, %v", len(list.Items), err)
	}
}
