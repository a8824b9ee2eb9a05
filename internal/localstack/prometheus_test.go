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

package localstack_test

import (
	"context"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/simulator"
)

const installPrometheus = "run hack/ensure-prometheus.sh (Debian: apt-get install --no-install-recommends prometheus)"

// TestAlertingRules checks the rules of the local Prometheus with promtool
// and runs their unit tests (rules_test.yaml next to them).
func TestAlertingRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skipf("promtool is not installed: %s", installPrometheus)
	}
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, filepath.Dir(localstack.RulesFile))
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, {"test", "rules", "rules_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestPrometheusAlerts runs a real Prometheus over a simulated cluster's
// metrics: a blocked drain makes PodDisruptionBudgetAtLimit and the info
// alert fire and leaves the long alert pending; a NotReady master makes
// KubeNodeNotReady fire; the alerts survive a restart of Prometheus and
// resolve when the update goes on.
func TestPrometheusAlerts(t *testing.T) {
	if _, err := localstack.PrometheusBinary(); err != nil {
		t.Skipf("%v (%s)", err, installPrometheus)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	clk := clocktesting.NewFakeClock(time.Now())
	sim, err := simulator.New(simulator.Options{Nodes: 6, Seed: 5, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Create(ctx); err != nil {
		t.Fatal(err)
	}
	drain, err := sim.StallOnDrain(ctx, clk, "worker")
	if err != nil {
		t.Fatal(err)
	}
	metrics := httptest.NewServer(sim.MetricsHandler())
	defer metrics.Close()

	prom, err := localstack.StartPrometheus(ctx, t.TempDir(), localstack.PrometheusOptions{
		Targets: []string{strings.TrimPrefix(metrics.URL, "http://")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer prom.Stop()

	pdb := map[string]string{"namespace": "openshift-ingress", "poddisruptionbudget": "router-default"}
	waitAlert := func(what string, cond func([]localstack.Alert) bool) []localstack.Alert {
		t.Helper()
		var alerts []localstack.Alert
		if wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			var err error
			alerts, err = prom.Alerts(ctx)
			return err == nil && cond(alerts), nil
		}) == nil {
			return alerts
		}
		t.Fatalf("%s: not within 30s; alerts: %+v\n%s", what, alerts, prom.Process.LogTail(20))
		return nil
	}
	state := func(alerts []localstack.Alert, name string, labels map[string]string) string {
		if a := localstack.FindAlert(alerts, name, labels); a != nil {
			return a.State
		}
		return ""
	}
	alerts := waitAlert("PodDisruptionBudgetAtLimit firing", func(a []localstack.Alert) bool {
		return state(a, "PodDisruptionBudgetAtLimit", pdb) == "firing" && state(a, "NodeCordoned", nil) == "firing"
	})
	// The scrape that made the alerts fire is there to query.
	if up, err := prom.Query(ctx, `up{job="`+localstack.ScrapeJob+`"}`); err != nil || up != 1 {
		t.Errorf("Query(up) = %v, %v; want 1", up, err)
	}
	if v, err := prom.Query(ctx, `up{job="no-such-job"}`); err == nil {
		t.Errorf("Query of an empty result = %v, want an error", v)
	}
	if got := state(alerts, "NodeCordonedForLong", nil); got != "pending" {
		t.Errorf("NodeCordonedForLong is %q, want pending", got)
	}
	a := localstack.FindAlert(alerts, "PodDisruptionBudgetAtLimit", pdb)
	if a.Labels["severity"] != "warning" || a.Annotations["summary"] == "" || a.Annotations["description"] == "" {
		t.Errorf("PodDisruptionBudgetAtLimit: labels %v annotations %v", a.Labels, a.Annotations)
	}
	if state(alerts, "PodDisruptionBudgetAtLimit", map[string]string{"poddisruptionbudget": "etcd-guard-pdb"}) != "" {
		t.Errorf("etcd-guard-pdb alerts although the masters are done: %+v", alerts)
	}

	notReady, err := sim.MakeNodeNotReady(ctx, "master", 0)
	if err != nil {
		t.Fatal(err)
	}
	waitAlert("KubeNodeNotReady firing", func(a []localstack.Alert) bool {
		return state(a, "KubeNodeNotReady", nil) == "firing"
	})

	prom.Stop()
	if _, err := prom.Alerts(ctx); err == nil {
		t.Fatal("a stopped Prometheus answers")
	}
	if err := prom.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	waitAlert("alerts back after a restart", func(a []localstack.Alert) bool {
		return state(a, "PodDisruptionBudgetAtLimit", pdb) == "firing" && state(a, "KubeNodeNotReady", nil) == "firing"
	})

	for _, id := range []simulator.FaultID{notReady, drain} {
		if err := sim.Clear(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := sim.RunVirtual(ctx, clk, 0); err != nil {
		t.Fatalf("RunVirtual after clearing the faults: %v", err)
	}
	// The update precheck alert (a budget that allows one disruption) is
	// the cluster's steady state, not a fault's.
	waitAlert("every fault's alert resolved", func(a []localstack.Alert) bool {
		for _, alert := range a {
			if alert.Labels["openShiftUpdatePrecheck"] != "true" {
				return false
			}
		}
		return true
	})
}
