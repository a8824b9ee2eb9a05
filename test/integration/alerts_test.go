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
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/view"
)

const (
	// alertsInterval is the server's --alerts-interval in this test.
	alertsInterval = 2 * time.Second
	// alertsKeep is the server's --alerts-keep: with Prometheus stopped, the
	// last alerts stay this long, then their insights go.
	alertsKeep = 4 * time.Second
	// alertsFoldDelay bounds the time from a read of the alerts to the served
	// UpdateStatus: the view's fold delay, plus slack for the read itself,
	// the recomputation and this test's 250ms polling on a loaded machine.
	alertsFoldDelay = view.MaxFoldDelay + 2*time.Second
	// alertsInformer is the informer of alert insights (docs/insights.md#alerts).
	alertsInformer = "alerts"
)

// The alerts of artifacts/local/prometheus/rules.yaml this test follows,
// by their summary annotation, which the insight's summary carries.
var (
	pdbAtLimitSummary = "The pod disruption budget is preventing further disruption to pods."
	nodeNotReadySum   = "Node is not ready."
	// Never insights: an info alert and an alert that stays pending.
	neverShownSummaries = map[string]string{
		"NodeCordoned":        "Node is cordoned.",
		"NodeCordonedForLong": "Node has been cordoned for a long time.",
	}
)

// TestAlertInsights runs a real Prometheus over the metrics of a simulated
// cluster, on a control plane of its own, with the server reading its
// /api/v1/alerts every alertsInterval. During the update a
// PodDisruptionBudget holds a worker's drain: PodDisruptionBudgetAtLimit
// fires in Prometheus and must appear as a health insight (informer
// "alerts" under the control plane, in UpdateStatus and as a HealthInsight)
// within one poll plus the fold delay; a NotReady master adds KubeNodeNotReady,
// an alert that started during the update. The info alert NodeCordoned
// fires and NodeCordonedForLong stays pending: neither may ever appear. With
// Prometheus stopped the server keeps serving and its Available condition
// says alerts are unavailable; restarted, the alert insights come back. When
// the update goes on the alerts resolve and their insights disappear.
func TestAlertInsights(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	cpA, sim, clk := ownSimulatedCluster(ctx, t, "alerts", simulator.Options{Nodes: 6, Seed: 11})
	prom := startPrometheusOver(ctx, t, cpA, sim)
	serverOpts := localstack.ServerOptions{AlertsURL: prom.AlertsURL(), AlertsInterval: alertsInterval, AlertsKeep: alertsKeep}
	startServerOf(ctx, t, cpA, serverOpts)
	client := updateClientOf(t, cpA, &cpA.Users.Admin)

	drain, err := sim.StallOnDrain(ctx, clk, "worker")
	if err != nil {
		t.Fatal(err)
	}

	// Watch everything served for the alerts that must never show.
	var (
		mu        sync.Mutex
		neverSeen []string
	)
	stopWatch := sampleEvery(250*time.Millisecond, func() {
		us, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
		his, err2 := client.UpdateV1alpha1().HealthInsights().List(ctx, metav1.ListOptions{})
		mu.Lock()
		if err == nil {
			for _, h := range alertInsights(us) {
				for name, summary := range neverShownSummaries {
					if strings.Contains(h.Impact.Summary, summary) {
						neverSeen = append(neverSeen, name+" in UpdateStatus")
					}
				}
			}
		}
		if err2 == nil {
			for _, h := range his.Items {
				for name, summary := range neverShownSummaries {
					if strings.Contains(h.Status.Impact.Summary, summary) {
						neverSeen = append(neverSeen, name+" as HealthInsight "+h.Name)
					}
				}
			}
		}
		mu.Unlock()
	})

	pdb := map[string]string{"namespace": "openshift-ingress", "poddisruptionbudget": "router-default"}
	bound := alertsInterval + alertsFoldDelay

	// PodDisruptionBudgetAtLimit: firing in Prometheus, then an insight.
	firedAt := waitPrometheus(ctx, t, prom, "PodDisruptionBudgetAtLimit firing", 30*time.Second, func(a []localstack.Alert) bool {
		return alertState(a, "PodDisruptionBudgetAtLimit", pdb) == "firing" && alertState(a, "NodeCordoned", nil) == "firing"
	})
	if a, _ := prom.Alerts(ctx); alertState(a, "NodeCordonedForLong", nil) != "pending" {
		t.Errorf("NodeCordonedForLong is not pending: %+v", a)
	}
	h := waitInsight(ctx, t, client, pdbAtLimitSummary, true, firedAt, bound)
	if !strings.HasPrefix(h.Impact.Description, "Alert known to affect updates started firing during the update.") ||
		!strings.Contains(h.Impact.Description, "The number of current healthy pods is equal to the desired healthy pods.") {
		t.Errorf("PodDisruptionBudgetAtLimit insight description: %q", h.Impact.Description)
	}
	if h.Impact.Level != v1alpha1.WarningImpactLevel {
		t.Errorf("PodDisruptionBudgetAtLimit insight level %q, want Warning", h.Impact.Level)
	}
	waitHealthInsightObject(ctx, t, client, pdbAtLimitSummary, true, bound)

	// KubeNodeNotReady: started during the update.
	notReady, err := sim.MakeNodeNotReady(ctx, "master", 0)
	if err != nil {
		t.Fatal(err)
	}
	firedAt = waitPrometheus(ctx, t, prom, "KubeNodeNotReady firing", 30*time.Second, func(a []localstack.Alert) bool {
		return alertState(a, "KubeNodeNotReady", nil) == "firing"
	})
	h = waitInsight(ctx, t, client, nodeNotReadySum, true, firedAt, bound)
	if !strings.HasPrefix(h.Impact.Description, "Alert started firing during the update.") {
		t.Errorf("KubeNodeNotReady insight description: %q", h.Impact.Description)
	}

	// Prometheus stopped: the server keeps serving and says why alerts are
	// missing; restarted: the alert insights come back.
	prom.Stop()
	if _, err := prom.Alerts(ctx); err == nil {
		t.Fatal("a stopped Prometheus answers")
	}
	stoppedAt := time.Now()
	var cond *metav1.Condition
	if err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 3*alertsInterval+alertsFoldDelay+10*time.Second, true, func(context.Context) (bool, error) {
		us, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("GET with Prometheus stopped: %w", err)
		}
		if cvInsight(us) == nil {
			return false, fmt.Errorf("no ClusterVersion insight with Prometheus stopped:\n%s", dump(us))
		}
		cond = meta.FindStatusCondition(us.Status.Conditions, "Available")
		return cond != nil && strings.Contains(cond.Message, "Alerts are unavailable"), nil
	}); err != nil && !wait.Interrupted(err) {
		t.Fatal(err)
	}
	if cond == nil || !strings.Contains(cond.Message, "Alerts are unavailable") {
		t.Fatalf("Available condition does not mention alerts %v after Prometheus stopped: %+v", time.Since(stoppedAt), cond)
	}
	t.Logf("Prometheus stopped: Available=%s %s: %s", cond.Status, cond.Reason, cond.Message)
	// After --alerts-keep the last alerts are dropped, not shown as
	// current; everything else is still served.
	waitInsight(ctx, t, client, pdbAtLimitSummary, false, stoppedAt, alertsKeep+3*alertsInterval+alertsFoldDelay)
	us, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
	if err != nil || cvInsight(us) == nil {
		t.Fatalf("not serving after the alerts were dropped: %v", err)
	}
	if err := prom.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	firedAt = waitPrometheus(ctx, t, prom, "alerts firing after the restart", 30*time.Second, func(a []localstack.Alert) bool {
		return alertState(a, "PodDisruptionBudgetAtLimit", pdb) == "firing" && alertState(a, "KubeNodeNotReady", nil) == "firing"
	})
	// After failed reads the server backs off up to five intervals.
	waitInsight(ctx, t, client, pdbAtLimitSummary, true, firedAt, 5*alertsInterval+alertsFoldDelay)
	waitInsight(ctx, t, client, nodeNotReadySum, true, firedAt, 5*alertsInterval+alertsFoldDelay)

	// The update goes on: the alerts resolve, their insights go.
	for _, id := range []simulator.FaultID{notReady, drain} {
		if err := sim.Clear(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := sim.RunVirtual(ctx, clk, 0); err != nil {
		t.Fatalf("RunVirtual after clearing the faults: %v", err)
	}
	// The update precheck alerts (budgets that allow one disruption) are
	// the cluster's steady state, not a fault's.
	resolvedAt := waitPrometheus(ctx, t, prom, "every fault's alert resolved", 30*time.Second, func(a []localstack.Alert) bool {
		for _, alert := range a {
			if alert.Labels["openShiftUpdatePrecheck"] != "true" {
				return false
			}
		}
		return true
	})
	waitInsight(ctx, t, client, pdbAtLimitSummary, false, resolvedAt, bound)
	waitInsight(ctx, t, client, nodeNotReadySum, false, resolvedAt, bound)
	waitHealthInsightObject(ctx, t, client, pdbAtLimitSummary, false, bound)

	stopWatch()
	mu.Lock()
	defer mu.Unlock()
	if len(neverSeen) > 0 {
		t.Errorf("alerts that must never show were served: %v", neverSeen)
	}
}

func alertState(alerts []localstack.Alert, name string, labels map[string]string) string {
	if a := localstack.FindAlert(alerts, name, labels); a != nil {
		return a.State
	}
	return ""
}

// waitPrometheus polls Prometheus's alerts every 100 ms until cond holds,
// for up to bound, and returns when it first did.
func waitPrometheus(ctx context.Context, t *testing.T, prom *localstack.Prometheus, what string, bound time.Duration,
	cond func([]localstack.Alert) bool) time.Time {
	t.Helper()
	var last []localstack.Alert
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, bound, true, func(context.Context) (bool, error) {
		a, err := prom.Alerts(ctx)
		if err != nil {
			return false, nil
		}
		last = a
		return cond(a), nil
	}); err != nil {
		t.Fatalf("Prometheus: %s: not within %v; alerts: %+v", what, bound, last)
	}
	return time.Now()
}

// alertInsights returns the health insights of the control plane's "alerts"
// informer.
func alertInsights(us *v1alpha1.UpdateStatus) []*v1alpha1.HealthStatusInsight {
	if us == nil || us.Status.ControlPlane == nil {
		return nil
	}
	var out []*v1alpha1.HealthStatusInsight
	for _, inf := range us.Status.ControlPlane.Informers {
		if inf.Name != alertsInformer {
			continue
		}
		for _, in := range inf.Insights {
			if in.Insight.HealthInsight != nil {
				out = append(out, in.Insight.HealthInsight)
			}
		}
	}
	return out
}

func findAlertInsight(us *v1alpha1.UpdateStatus, summary string) *v1alpha1.HealthStatusInsight {
	for _, h := range alertInsights(us) {
		if h.Impact.Summary == "Alert is firing: "+summary {
			return h
		}
	}
	return nil
}

// waitInsight waits until the UpdateStatus has (present) or lacks the alert
// insight of summary, and fails when that took more than bound after since.
func waitInsight(ctx context.Context, t *testing.T, client versioned.Interface, summary string, present bool, since time.Time, bound time.Duration) *v1alpha1.HealthStatusInsight {
	t.Helper()
	var us *v1alpha1.UpdateStatus
	var h *v1alpha1.HealthStatusInsight
	if err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Until(since.Add(bound+20*time.Second)), true, func(context.Context) (bool, error) {
		var err error
		if us, err = client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		h = findAlertInsight(us, summary)
		return (h != nil) == present, nil
	}); err != nil {
		t.Fatalf("alert insight %q present=%v: not within %v; served:\n%s", summary, present, bound+20*time.Second, dump(us))
	}
	if took := time.Since(since); took > bound {
		t.Errorf("alert insight %q present=%v after %v, want within %v", summary, present, took.Round(time.Millisecond), bound)
	}
	return h
}

// waitHealthInsightObject waits until a HealthInsight of informer "alerts"
// with the summary exists (present) or not.
func waitHealthInsightObject(ctx context.Context, t *testing.T, client versioned.Interface, summary string, present bool, bound time.Duration) {
	t.Helper()
	var last string
	if wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, bound+10*time.Second, true, func(context.Context) (bool, error) {
		list, err := client.UpdateV1alpha1().HealthInsights().List(ctx, metav1.ListOptions{LabelSelector: "update.openshift.io/informer=" + alertsInformer})
		if err != nil {
			return false, nil
		}
		found := false
		last = ""
		for _, h := range list.Items {
			last += fmt.Sprintf("%s: %s\n", h.Name, h.Status.Impact.Summary)
			if h.Status.Impact.Summary == "Alert is firing: "+summary {
				found = true
			}
		}
		return found == present, nil
	}) == nil {
		return
	}
	t.Fatalf("HealthInsight %q present=%v: not within %v; informer %q has:\n%s", summary, present, bound+10*time.Second, alertsInformer, last)
}
