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
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/simulator"
)

// verdictDeadline bounds the time from a source change to the matching
// verdict in the served object ("within a second or two").
const verdictDeadline = 2 * time.Second

// faultAge is how old an injected fault claims to be: older than every
// threshold of the insight rules (5 minutes for a degraded operator or a node
// that is not ready), so the verdict is due at once.
const faultAge = 10 * time.Minute

// healthSummarySays returns a verdict check: a health insight about the
// resource name (e.g. "clusteroperators", "dns") whose summary contains
// word.
func healthSummarySays(resource, name, word string) func(us *v1alpha1.UpdateStatus) bool {
	return func(us *v1alpha1.UpdateStatus) bool {
		h := healthInsightAbout(us, resource, name)
		return h != nil && strings.Contains(h.Impact.Summary, word)
	}
}

// TestFaultVerdicts injects the faults of a troubled update one at a time and
// checks that the engine's verdict on each shows up in the served object
// within verdictDeadline, and goes away once the fault is removed.
func TestFaultVerdicts(t *testing.T) {
	ensureUpdating(t)
	tests := []struct {
		name    string
		inject  func(t *testing.T) (restore func())
		verdict string
		present func(us *v1alpha1.UpdateStatus) bool
	}{
		{
			name:    "degraded operator",
			inject:  func(t *testing.T) func() { return degradeOperator(t, "dns") },
			verdict: "a health insight: Cluster Operator dns is degraded",
			present: healthSummarySays("clusteroperators", "dns", "degraded"),
		},
		{
			name:    "unavailable operator",
			inject:  func(t *testing.T) func() { return makeOperatorUnavailable(t, "console") },
			verdict: "a health insight: Cluster Operator console is unavailable",
			present: healthSummarySays("clusteroperators", "console", "unavailable"),
		},
		{
			name:    "drain blocked by a PodDisruptionBudget",
			inject:  func(t *testing.T) func() { return blockDrain(t, workerNode(0)) },
			verdict: "the first worker node Degraded and a health insight about it",
			present: func(us *v1alpha1.UpdateStatus) bool {
				n := nodeInsight(us, workerNode(0))
				return n != nil && conditionStatus(n.Conditions, "Degraded") == "True" &&
					healthInsightAbout(us, "nodes", workerNode(0)) != nil
			},
		},
		{
			name:    "paused pool",
			inject:  func(t *testing.T) func() { return pausePool(t, "worker") },
			verdict: "pool worker Excluded and a health insight about it",
			present: func(us *v1alpha1.UpdateStatus) bool {
				p := poolInsight(us, "worker")
				return p != nil && p.Assessment == v1alpha1.PoolExcluded &&
					healthInsightAbout(us, "machineconfigpools", "worker") != nil
			},
		},
		{
			name:    "node not ready outside the update",
			inject:  func(t *testing.T) func() { return makeNodeNotReady(t, workerNode(1)) },
			verdict: "the second worker node unavailable",
			present: func(us *v1alpha1.UpdateStatus) bool {
				n := nodeInsight(us, workerNode(1))
				return n != nil && conditionStatus(n.Conditions, "Available") == "False"
			},
		},
		{
			name:    "failing ClusterVersion",
			inject:  failClusterVersion,
			verdict: "a health insight: Cluster Version version is failing",
			present: healthSummarySays("clusterversions", "version", "failing"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.present(getStatus(ctx, t)) {
				t.Fatalf("%s is served before the fault is injected", tt.verdict)
			}
			restore := tt.inject(t)
			_, d := waitForStatus(ctx, t, verdictDeadline, tt.verdict, tt.present)
			t.Logf("%s served %v after the fault", tt.verdict, d.Round(time.Millisecond))
			restore()
			_, d = waitForStatus(ctx, t, verdictDeadline, "no "+tt.verdict, func(us *v1alpha1.UpdateStatus) bool { return !tt.present(us) })
			t.Logf("verdict gone %v after the fault was removed", d.Round(time.Millisecond))
		})
	}
}

// ensureUpdating makes sure an update is in progress with outdated worker
// nodes: after a completed update it starts the next one (which stays at
// its start: the simulated cluster moves only when a test runs it).
func ensureUpdating(t *testing.T) {
	t.Helper()
	if cluster.Phase() != simulator.PhaseCompleted {
		return
	}
	next, err := simulator.NextPatch(cluster.Options().ToVersion)
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.StartNextUpdate(t.Context(), next); err != nil {
		t.Fatal(err)
	}
}

// once wraps restore so that it runs at most once, and registers it with
// t.Cleanup so that a failing test still undoes its fault.
func once(t *testing.T, restore func(ctx context.Context) error) func() {
	var o sync.Once
	f := func() {
		o.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := restore(ctx); err != nil {
				t.Errorf("undo the fault: %v", err)
			}
		})
	}
	t.Cleanup(f)
	return f
}

func mutateOperator(ctx context.Context, name string, typ configv1.ClusterStatusConditionType, status configv1.ConditionStatus, reason, message string, since time.Time) error {
	return mutateObject(ctx, clusterOperators, name, true, func(co *configv1.ClusterOperator) bool {
		for i := range co.Status.Conditions {
			if c := &co.Status.Conditions[i]; c.Type == typ {
				c.Status, c.Reason, c.Message, c.LastTransitionTime = status, reason, message, metav1.NewTime(since)
				return true
			}
		}
		co.Status.Conditions = append(co.Status.Conditions, configv1.ClusterOperatorStatusCondition{
			Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(since)})
		return true
	})
}

// operatorFault sets the condition fault.Type of the ClusterOperator name to
// fault, faultAge old, and returns what sets it back to healthy's status,
// reason and message, once.
func operatorFault(t *testing.T, name string, fault, healthy configv1.ClusterOperatorStatusCondition) func() {
	t.Helper()
	if err := mutateOperator(t.Context(), name, fault.Type, fault.Status, fault.Reason, fault.Message, time.Now().Add(-faultAge)); err != nil {
		t.Fatal(err)
	}
	return once(t, func(ctx context.Context) error {
		return mutateOperator(ctx, name, fault.Type, healthy.Status, healthy.Reason, healthy.Message, time.Now())
	})
}

func degradeOperator(t *testing.T, name string) func() {
	t.Helper()
	return operatorFault(t, name, configv1.ClusterOperatorStatusCondition{Type: configv1.OperatorDegraded, Status: configv1.ConditionTrue,
		Reason: "DNSDegraded", Message: "DNS default is degraded: 1 of 6 pods are not ready"},
		configv1.ClusterOperatorStatusCondition{Status: configv1.ConditionFalse, Reason: "AsExpected"})
}

func makeOperatorUnavailable(t *testing.T, name string) func() {
	t.Helper()
	return operatorFault(t, name, configv1.ClusterOperatorStatusCondition{Type: configv1.OperatorAvailable, Status: configv1.ConditionFalse,
		Reason: "RouteHealth_FailedGet", Message: "RouteHealthAvailable: failed to GET route: EOF"},
		configv1.ClusterOperatorStatusCondition{Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well"})
}

func failClusterVersion(t *testing.T) func() {
	t.Helper()
	set := func(ctx context.Context, status configv1.ConditionStatus, reason, message string) error {
		return mutateObject(ctx, clusterVersions, insights.ClusterVersionName, true, func(cv *configv1.ClusterVersion) bool {
			for i := range cv.Status.Conditions {
				if c := &cv.Status.Conditions[i]; c.Type == cvFailing {
					c.Status, c.Reason, c.Message, c.LastTransitionTime = status, reason, message, metav1.Now()
				}
			}
			return true
		})
	}
	if err := set(t.Context(), configv1.ConditionTrue, "ClusterOperatorDegraded", "Cluster operator dns is degraded"); err != nil {
		t.Fatal(err)
	}
	return once(t, func(ctx context.Context) error { return set(ctx, configv1.ConditionFalse, "", "") })
}

func mutateNode(ctx context.Context, name string, meta func(*corev1.Node), status func(*corev1.Node)) error {
	nodes := cp.Kube.CoreV1().Nodes()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := nodes.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if meta != nil {
			meta(n)
			if n, err = nodes.Update(ctx, n, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		if status != nil {
			status(n)
			_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
		}
		return err
	})
}

func setReady(n *corev1.Node, status corev1.ConditionStatus, reason, message string, since time.Time) {
	for i := range n.Status.Conditions {
		if c := &n.Status.Conditions[i]; c.Type == corev1.NodeReady {
			c.Status, c.Reason, c.Message = status, reason, message
			c.LastTransitionTime, c.LastHeartbeatTime = metav1.NewTime(since), metav1.Now()
		}
	}
}

func makeNodeNotReady(t *testing.T, name string) func() {
	t.Helper()
	err := mutateNode(t.Context(), name, nil, func(n *corev1.Node) {
		setReady(n, corev1.ConditionFalse, "KubeletNotReady", "PLEG is not healthy: pleg was last seen active 3m0s ago", time.Now().Add(-faultAge))
	})
	if err != nil {
		t.Fatal(err)
	}
	return once(t, func(ctx context.Context) error {
		return mutateNode(ctx, name, nil, func(n *corev1.Node) {
			setReady(n, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", time.Now())
		})
	})
}

func blockDrain(t *testing.T, name string) func() {
	t.Helper()
	var oldState, oldReason string
	err := mutateNode(t.Context(), name, func(n *corev1.Node) {
		oldState, oldReason = n.Annotations[insights.MCDStateAnnotation], n.Annotations[insights.MCDReasonAnnotation]
		n.Annotations[insights.MCDStateAnnotation] = insights.MCDStateDegraded
		n.Annotations[insights.MCDReasonAnnotation] = "failed to drain node: " + name + " after 1 hour. Please see machine-config-controller logs for more information: " +
			"error when evicting pods/\"checkout-6d8f7b9c4-x2kqp\" -n \"shop\": Cannot evict pod as it would violate the pod's disruption budget."
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return once(t, func(ctx context.Context) error {
		return mutateNode(ctx, name, func(n *corev1.Node) {
			n.Annotations[insights.MCDStateAnnotation], n.Annotations[insights.MCDReasonAnnotation] = oldState, oldReason
		}, nil)
	})
}

func pausePool(t *testing.T, pool string) func() {
	t.Helper()
	set := func(ctx context.Context, paused bool) error {
		return mutateObject(ctx, machineConfigPools, pool, false, func(p *mcfgv1.MachineConfigPool) bool {
			p.Spec.Paused = paused
			return true
		})
	}
	if err := set(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	return once(t, func(ctx context.Context) error { return set(ctx, false) })
}

// cvFailing is the ClusterVersion condition the cluster-version operator sets
// when it cannot make progress (openshift/api has no constant for it).
const cvFailing configv1.ClusterStatusConditionType = "Failing"
