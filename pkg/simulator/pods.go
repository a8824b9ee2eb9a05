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
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The workload of Options.RouterPods: the default ingress router, whose
// PodDisruptionBudget is the one that most often holds a drain.
const (
	// MaxRouterPods bounds Options.RouterPods.
	MaxRouterPods = 100

	routerNamespace = "openshift-ingress"
	routerName      = "router-default"
	routerLabel     = "ingresscontroller.operator.openshift.io/deployment-ingresscontroller"
)

// workload is the router's pods and budget, kept as the ReplicaSet, the
// disruption and the eviction controllers would: evicted pods are deleted
// and recreated on another schedulable worker, and the budget's status
// follows the pods.
type workload struct {
	ns         *corev1.Namespace
	budget     *policyv1.PodDisruptionBudget
	replicaSet string
	rsUID      string
	pods       []*workloadPod
}

type workloadPod struct {
	obj  *corev1.Pod
	node *nodeState
}

// createWorkload builds the router with opts.RouterPods replicas spread
// over the worker nodes (none without workers).
func (s *Simulator) createWorkload(now time.Time) {
	workers := s.workerNodes(nil)
	if s.opts.RouterPods <= 0 || len(workers) == 0 {
		return
	}
	w := &workload{replicaSet: fmt.Sprintf("%s-%08x", routerName, s.rng.Uint32()), rsUID: string(s.newUID())}
	w.ns = &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: routerNamespace}}
	w.budget = &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Namespace: routerNamespace, Name: routerName, UID: s.newUID(), CreationTimestamp: metav1.NewTime(s.installedAt)},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: ptr.To(intstr.FromString("50%")),
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{routerLabel: "default"}},
		},
	}
	s.work = w
	s.changes.mark(w.ns, true, false, false)
	for i := range s.opts.RouterPods {
		s.placePod(workers[i%len(workers)], now)
	}
	s.updateBudget(now)
	s.changes.mark(w.budget, true, true, true)
}

// workerNodes are the nodes of the worker pools that take pods (not
// cordoned), except skip, fewest router pods first.
func (s *Simulator) workerNodes(skip *nodeState) []*nodeState {
	var out []*nodeState
	for _, n := range s.nodes {
		if n.pool.name != "master" && n != skip && !n.obj.Spec.Unschedulable {
			out = append(out, n)
		}
	}
	if s.work != nil {
		count := func(n *nodeState) int {
			c := 0
			for _, p := range s.work.pods {
				if p.node == n {
					c++
				}
			}
			return c
		}
		slices.SortStableFunc(out, func(a, b *nodeState) int { return count(a) - count(b) })
	}
	return out
}

// placePod creates a ready router pod on n, as the scheduler and the
// kubelet would.
func (s *Simulator) placePod(n *nodeState, now time.Time) {
	w := s.work
	started := metav1.NewTime(now)
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: routerNamespace, Name: fmt.Sprintf("%s-%05x", w.replicaSet, s.rng.IntN(1<<20)), UID: s.newUID(),
			Labels: map[string]string{routerLabel: "default", "pod-template-hash": w.replicaSet[len(routerName)+1:]},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: w.replicaSet,
				UID: types.UID(w.rsUID), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
			CreationTimestamp: started,
		},
		Spec: corev1.PodSpec{
			NodeName:                     n.obj.Name,
			AutomountServiceAccountToken: ptr.To(false),
			Containers:                   []corev1.Container{{Name: "router", Image: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0000000000000000000000000000000000000000000000000000000000000000"}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "router", Started: ptr.To(true),
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}},
	}
	setPodReady(pod, true, now)
	w.pods = append(w.pods, &workloadPod{obj: pod, node: n})
	s.changes.mark(pod, true, true, true)
}

func setPodReady(pod *corev1.Pod, ready bool, now time.Time) {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	for i := range pod.Status.ContainerStatuses {
		pod.Status.ContainerStatuses[i].Ready = ready
	}
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			if pod.Status.Conditions[i].Status != status {
				pod.Status.Conditions[i].Status = status
				pod.Status.Conditions[i].LastTransitionTime = metav1.NewTime(now)
			}
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: status, LastTransitionTime: metav1.NewTime(now)})
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// updateBudget computes the budget's status as the disruption controller
// does and marks it when it changed.
func (s *Simulator) updateBudget(now time.Time) {
	w := s.work
	expected := int32(len(w.pods))
	var healthy int32
	for _, p := range w.pods {
		if podReady(p.obj) {
			healthy++
		}
	}
	unavailable, _ := intstr.GetScaledValueFromIntOrPercent(w.budget.Spec.MaxUnavailable, int(expected), true)
	desired := max(expected-int32(unavailable), 0)
	st := policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: w.budget.Generation,
		ExpectedPods:       expected,
		CurrentHealthy:     healthy,
		DesiredHealthy:     desired,
		DisruptionsAllowed: max(healthy-desired, 0),
	}
	old := w.budget.Status
	if old.ExpectedPods == st.ExpectedPods && old.CurrentHealthy == st.CurrentHealthy && old.DesiredHealthy == st.DesiredHealthy &&
		old.DisruptionsAllowed == st.DisruptionsAllowed && len(old.Conditions) > 0 {
		return
	}
	reason, cstatus := policyv1.SufficientPodsReason, metav1.ConditionTrue
	if st.DisruptionsAllowed == 0 {
		reason, cstatus = policyv1.InsufficientPodsReason, metav1.ConditionFalse
	}
	st.Conditions = []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: cstatus, Reason: reason, LastTransitionTime: metav1.NewTime(now)}}
	w.budget.Status = st
	s.changes.mark(w.budget, false, false, true)
}

// evictPods evicts the router pods of a draining node as the drainer does:
// one at a time while the budget allows a disruption; each is deleted and
// the ReplicaSet recreates it on another schedulable worker.
func (s *Simulator) evictPods(n *nodeState, now time.Time) {
	w := s.work
	if w == nil {
		return
	}
	for _, p := range slices.Clone(w.pods) {
		if p.node != n || w.budget.Status.DisruptionsAllowed == 0 {
			continue
		}
		w.pods = slices.DeleteFunc(w.pods, func(q *workloadPod) bool { return q == p })
		s.changes.markDelete(p.obj)
		s.updateBudget(now)
		if targets := s.workerNodes(n); len(targets) > 0 {
			s.placePod(targets[0], now)
			s.updateBudget(now)
		}
	}
}

// holdPods makes the budget hold the drain of n: a router pod runs on n
// (moved there if none does) and enough of the other replicas are unready
// for the budget to allow no disruption, which is usually the real cause of
// a budget at its limit.
func (s *Simulator) holdPods(n *nodeState, now time.Time) {
	w := s.work
	if w == nil || len(w.pods) == 0 {
		return
	}
	if !slices.ContainsFunc(w.pods, func(p *workloadPod) bool { return p.node == n }) {
		moved := w.pods[0]
		w.pods = w.pods[1:]
		s.changes.markDelete(moved.obj)
		s.placePod(n, now)
	}
	s.updateBudget(now)
	for _, p := range w.pods {
		if w.budget.Status.DisruptionsAllowed == 0 {
			break
		}
		if p.node != n && podReady(p.obj) {
			setPodReady(p.obj, false, now)
			s.changes.mark(p.obj, false, false, true)
			s.updateBudget(now)
		}
	}
}

// releasePods ends a hold: the other replicas are ready again; then the
// pods of n are evicted.
func (s *Simulator) releasePods(n *nodeState, now time.Time) {
	w := s.work
	if w == nil {
		return
	}
	for _, p := range w.pods {
		if !podReady(p.obj) {
			setPodReady(p.obj, true, now)
			s.changes.mark(p.obj, false, false, true)
		}
	}
	s.updateBudget(now)
	s.evictPods(n, now)
}
