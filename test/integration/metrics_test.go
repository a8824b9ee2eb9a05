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
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/monitoring"
	"github.com/update-status/apiserver/pkg/simulator"
)

// TestUpdateMetrics follows a simulated update on a control plane of its
// own, with a real Prometheus scraping the server's /metrics and evaluating
// the update-status alerting rules (pkg/monitoring, with the local stack's
// durations). At every checkpoint the metrics the server exposes must equal
// what the served UpdateStatus says. When the control plane stops
// progressing, UpdateStatusControlPlaneStalled fires; when a
// PodDisruptionBudget holds a worker's drain, UpdateStatusPoolStalled fires
// for pool worker; each resolves when the update moves on.
func TestUpdateMetrics(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	cpM, sim, clk := ownSimulatedCluster(ctx, t, "metrics", simulator.Options{Nodes: 6, Seed: 3})
	prom := startPrometheusOver(ctx, t, cpM, sim)
	startServerOf(ctx, t, cpM, localstack.ServerOptions{})
	client := updateClientOf(t, cpM, &cpM.Users.Admin)
	direct := clientFor(t, kubernetes.NewForConfig, cpM.DirectConfig(cpM.ServerURL, &cpM.Users.Admin))
	scrape := func() ([]byte, error) {
		return direct.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	}

	// Before the update: everything completed.
	us := checkUpdateMetrics(ctx, t, client, scrape, "before the update")
	if cv := cvInsight(us); cv == nil || cv.Assessment != v1alpha1.ControlPlaneAssessmentCompleted {
		t.Fatalf("before the update the control plane is not Completed:\n%s", dump(cvInsight(us)))
	}

	// The control plane updates, then stops moving: stalled.
	if err := sim.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	stepUntil(ctx, t, sim, clk, client, "the control plane progressing past 0%", func(us *v1alpha1.UpdateStatus) bool {
		cv := cvInsight(us)
		return cv != nil && cv.Assessment == v1alpha1.ControlPlaneAssessmentProgressing && cv.Completion > 0
	})
	checkUpdateMetrics(ctx, t, client, scrape, "control plane updating")
	stalledBound := localstack.LocalStallAfter + localstack.LocalAlertFor + 30*time.Second
	pausedAt := time.Now()
	firedAt := waitPrometheus(ctx, t, prom, monitoring.AlertControlPlaneStalled+" firing", stalledBound, func(a []localstack.Alert) bool {
		return alertState(a, monitoring.AlertControlPlaneStalled, nil) == "firing"
	})
	t.Logf("%s fired %v after the control plane stopped moving", monitoring.AlertControlPlaneStalled, firedAt.Sub(pausedAt).Round(time.Second))
	if a, _ := prom.Alerts(ctx); alertState(a, monitoring.AlertPoolStalled, nil) != "" {
		t.Errorf("%s is active while no pool is progressing: %+v", monitoring.AlertPoolStalled, a)
	}

	// A PodDisruptionBudget holds the drain of a worker: once the worker
	// pool is progressing with the drain held, the simulation stops moving
	// (its clock stands still, so the drain never times out) and the pool
	// is stalled.
	drain, err := sim.BlockDrain(ctx, "worker", 0)
	if err != nil {
		t.Fatal(err)
	}
	us = stepUntil(ctx, t, sim, clk, client, "the worker pool progressing with a node draining", func(us *v1alpha1.UpdateStatus) bool {
		p := poolInsight(us, "worker")
		return p != nil && p.Assessment == v1alpha1.PoolProgressing && summaryCount(p, v1alpha1.NodesDraining) > 0
	})
	t.Logf("worker pool: %s, completion %d%%, summaries %v", poolInsight(us, "worker").Assessment, poolInsight(us, "worker").Completion, poolInsight(us, "worker").Summaries)
	checkUpdateMetrics(ctx, t, client, scrape, "worker drain held")
	pausedAt = time.Now()
	firedAt = waitPrometheus(ctx, t, prom, monitoring.AlertPoolStalled+" firing for pool worker", stalledBound, func(a []localstack.Alert) bool {
		return alertState(a, monitoring.AlertPoolStalled, map[string]string{"pool": "worker"}) == "firing"
	})
	t.Logf("%s fired %v after the worker pool stopped moving", monitoring.AlertPoolStalled, firedAt.Sub(pausedAt).Round(time.Second))
	a, err := prom.Alerts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if al := localstack.FindAlert(a, monitoring.AlertPoolStalled, nil); al == nil ||
		!strings.HasSuffix(al.Annotations["runbook_url"], "/docs/runbooks/"+monitoring.AlertPoolStalled+".md") {
		t.Errorf("%s has no runbook_url of docs/runbooks: %+v", monitoring.AlertPoolStalled, al)
	}
	for _, name := range []string{monitoring.AlertServerDown, monitoring.AlertUnavailable, monitoring.AlertAlertsUnreadable} {
		if s := alertState(a, name, nil); s != "" {
			t.Errorf("%s is %s while the server serves", name, s)
		}
	}

	// The drain completes and the update goes on to the end: the stall
	// resolves, and the metrics still match.
	if err := sim.Clear(ctx, drain); err != nil {
		t.Fatal(err)
	}
	if err := sim.RunVirtual(ctx, clk, 0); err != nil {
		t.Fatalf("RunVirtual after the drain was released: %v", err)
	}
	// The server serves the last step within its fold delay.
	completed := func(us *v1alpha1.UpdateStatus) bool {
		cv := cvInsight(us)
		return cv != nil && cv.Assessment == v1alpha1.ControlPlaneAssessmentCompleted
	}
	if servedWithin(ctx, client, 30*time.Second, completed) == nil {
		t.Fatalf("30s after the update completed the control plane is not served as Completed")
	}
	checkUpdateMetrics(ctx, t, client, scrape, "update completed")
	waitPrometheus(ctx, t, prom, "the stall alerts resolved", stalledBound, func(a []localstack.Alert) bool {
		return alertState(a, monitoring.AlertPoolStalled, nil) == "" && alertState(a, monitoring.AlertControlPlaneStalled, nil) == ""
	})
}

// stepUntil moves the simulation one transition at a time until the served
// UpdateStatus meets cond, and returns it.
func stepUntil(ctx context.Context, t *testing.T, sim *simulator.Simulator, clk *clocktesting.FakeClock, client versioned.Interface,
	what string, cond func(*v1alpha1.UpdateStatus) bool) *v1alpha1.UpdateStatus {
	t.Helper()
	for step := 0; step < 400; step++ {
		// Give the server its fold delay to serve the last step.
		if us := servedWithin(ctx, client, 2*time.Second, cond); us != nil {
			return us
		}
		if err := sim.RunVirtual(ctx, clk, 1); err != nil && !errors.Is(err, simulator.ErrStepLimit) {
			t.Fatalf("waiting for %s: RunVirtual: %v", what, err)
		}
	}
	t.Fatalf("400 steps and not %s", what)
	return nil
}

// servedWithin polls the served UpdateStatus for up to bound and returns
// the first that meets cond, or nil.
func servedWithin(ctx context.Context, client versioned.Interface, bound time.Duration, cond func(*v1alpha1.UpdateStatus) bool) *v1alpha1.UpdateStatus {
	var got *v1alpha1.UpdateStatus
	_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, bound, true, func(context.Context) (bool, error) {
		if us, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{}); err == nil && cond(us) {
			got = us
		}
		return got != nil, nil
	})
	return got
}

// checkUpdateMetrics reads the UpdateStatus, the server's /metrics and the
// UpdateStatus again until both reads show the same object and the metrics
// equal what that object says, and returns the object. A mismatch is only
// an error when it lasts: the GET and the scrape may see neighbouring
// revisions.
func checkUpdateMetrics(ctx context.Context, t *testing.T, client versioned.Interface, scrape func() ([]byte, error), when string) *v1alpha1.UpdateStatus {
	t.Helper()
	var lastDiff string
	var matched *v1alpha1.UpdateStatus
	err := wait.PollUntilContextTimeout(ctx, 300*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		before, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		body, err := scrape()
		if err != nil {
			return false, fmt.Errorf("GET /metrics of the server: %w", err)
		}
		after, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if before.ResourceVersion != after.ResourceVersion {
			lastDiff = "the object changed during the scrape"
			return false, nil
		}
		got, err := updateSeries(body)
		if err != nil {
			return false, err
		}
		want := expectedSeries(after)
		if lastDiff = diffSeries(want, got); lastDiff != "" {
			return false, nil
		}
		t.Logf("%s: %d update series match the served object (resourceVersion %s)", when, len(want), after.ResourceVersion)
		matched = after
		return true, nil
	})
	switch {
	case wait.Interrupted(err):
		t.Fatalf("%s: the update metrics do not match the served UpdateStatus:\n%s", when, lastDiff)
	case err != nil:
		t.Fatal(err)
	}
	return matched
}

// updateSeries parses the update_status_* gauges of a /metrics body, keyed
// by name and labels.
func updateSeries(body []byte) (map[string]float64, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse /metrics: %w", err)
	}
	out := map[string]float64{}
	for _, name := range monitoring.Names() {
		f := families[name]
		if f.GetType() != dto.MetricType_GAUGE {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			out[seriesKey(name, labels...)] = m.GetGauge().GetValue()
		}
	}
	return out, nil
}

func seriesKey(name string, labels ...string) string {
	sort.Strings(labels)
	return name + "{" + strings.Join(labels, ",") + "}"
}

// expectedSeries is what the update metrics must say about us, read from
// the object as `kubectl get updatestatus -o yaml` shows it.
func expectedSeries(us *v1alpha1.UpdateStatus) map[string]float64 {
	out := map[string]float64{}
	one := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	for _, c := range us.Status.Conditions {
		if c.Type == "Available" {
			out[seriesKey(monitoring.MetricAvailable, "reason="+c.Reason)] = one(c.Status == metav1.ConditionTrue)
		}
	}
	health := map[v1alpha1.InsightImpactLevel]float64{}
	for _, l := range []v1alpha1.InsightImpactLevel{v1alpha1.UnknownImpactLevel, v1alpha1.InfoImpactLevel,
		v1alpha1.WarningImpactLevel, v1alpha1.ErrorImpactLevel, v1alpha1.CriticalInfoLevel} {
		health[l] = 0
	}
	pool := func(p *v1alpha1.MachineConfigPoolStatusInsight) {
		out[seriesKey(monitoring.MetricPoolCompletion, "pool="+p.Name)] = float64(p.Completion) / 100
		for _, a := range []v1alpha1.PoolAssessment{v1alpha1.PoolPending, v1alpha1.PoolProgressing, v1alpha1.PoolCompleted,
			v1alpha1.PoolDegraded, v1alpha1.PoolExcluded} {
			out[seriesKey(monitoring.MetricPoolAssessment, "pool="+p.Name, "assessment="+string(a))] = one(p.Assessment == a)
		}
		for _, s := range []v1alpha1.NodeSummaryType{v1alpha1.NodesTotal, v1alpha1.NodesAvailable, v1alpha1.NodesProgressing,
			v1alpha1.NodesOutdated, v1alpha1.NodesDraining, v1alpha1.NodesExcluded, v1alpha1.NodesDegraded} {
			out[seriesKey(monitoring.MetricPoolNodes, "pool="+p.Name, "state="+strings.ToLower(string(s)))] = float64(summaryCount(p, s))
		}
	}
	levels := []v1alpha1.InsightImpactLevel{v1alpha1.UnknownImpactLevel, v1alpha1.InfoImpactLevel,
		v1alpha1.WarningImpactLevel, v1alpha1.ErrorImpactLevel, v1alpha1.CriticalInfoLevel}
	perInformer := func(informer string, h *v1alpha1.HealthStatusInsight) {
		key := seriesKey(monitoring.MetricInformerInsights, "informer="+informer)
		if _, ok := out[key]; !ok {
			for _, l := range levels {
				out[seriesKey(monitoring.MetricInformerHealthInsights, "informer="+informer, "impact_level="+string(l))] = 0
			}
		}
		out[key]++
		if h != nil {
			out[seriesKey(monitoring.MetricInformerHealthInsights, "informer="+informer, "impact_level="+string(h.Impact.Level))]++
		}
	}
	for in := range allInsights(us) {
		perInformer(in.informer, in.health)
		switch {
		case conventions.IsExternalInformer(in.informer) && in.health == nil:
			// An external informer's progress insights are not the server's.
		case in.cv != nil:
			out[seriesKey(monitoring.MetricCompletion)] = float64(in.cv.Completion) / 100
			for _, a := range []v1alpha1.ControlPlaneAssessment{v1alpha1.ControlPlaneAssessmentUnknown, v1alpha1.ControlPlaneAssessmentProgressing,
				v1alpha1.ControlPlaneAssessmentCompleted, v1alpha1.ControlPlaneAssessmentDegraded} {
				out[seriesKey(monitoring.MetricAssessment, "assessment="+string(a))] = one(in.cv.Assessment == a)
			}
			out[seriesKey(monitoring.MetricStarted)] = float64(in.cv.StartedAt.Unix())
			if in.cv.EstimatedCompletedAt != nil {
				out[seriesKey(monitoring.MetricEstimatedCompletion)] = float64(in.cv.EstimatedCompletedAt.Unix())
			}
			out[seriesKey(monitoring.MetricInfo, "target_version="+in.cv.Versions.Target.Version, "previous_version="+in.cv.Versions.Previous.Version)] = 1
		case in.mcp != nil:
			pool(in.mcp)
		case in.health != nil:
			health[in.health.Impact.Level]++
		}
	}
	for l, n := range health {
		out[seriesKey(monitoring.MetricHealthInsights, "impact_level="+string(l))] = n
	}
	return out
}

// diffSeries lists the series that differ, or "".
func diffSeries(want, got map[string]float64) string {
	var d []string
	for k, w := range want {
		if g, ok := got[k]; !ok {
			d = append(d, fmt.Sprintf("missing %s (want %v)", k, w))
		} else if g != w {
			d = append(d, fmt.Sprintf("%s = %v, want %v", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("unexpected %s = %v", k, g))
		}
	}
	sort.Strings(d)
	return strings.Join(d, "\n")
}

func summaryCount(p *v1alpha1.MachineConfigPoolStatusInsight, t v1alpha1.NodeSummaryType) int32 {
	for _, s := range p.Summaries {
		if s.Type == t {
			return s.Count
		}
	}
	return 0
}

// TestEveryGetIsCounted sends 20 GETs of the UpdateStatus through the
// aggregator, half in JSON and half in protobuf, and reads the server's own
// /metrics: the library's request counter and latency histogram count
// every one of them, the GETs of an unchanged revision (whose encoding the
// server keeps) as well as the first.
func TestEveryGetIsCounted(t *testing.T) {
	ctx := t.Context()
	jsonClient := updateClient(t, &cp.Users.Admin)
	pbCfg := cp.RESTConfig(&cp.Users.Admin)
	pbCfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	pbClient := clientFor(t, versioned.NewForConfig, pbCfg)
	direct := clientFor(t, kubernetes.NewForConfig, cp.DirectConfig(cp.ServerURL, &cp.Users.Admin))
	series := map[string]string{"group": "update.openshift.io", "resource": "updatestatuses", "subresource": "", "verb": "GET"}
	count := func() (requests, durations float64) {
		t.Helper()
		body, err := direct.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			t.Fatalf("GET /metrics of the server: %v", err)
		}
		if requests, err = testio.MetricSum(body, "apiserver_request_total", series); err != nil {
			t.Fatal(err)
		}
		if durations, err = testio.MetricSum(body, "apiserver_request_duration_seconds", series); err != nil {
			t.Fatal(err)
		}
		return requests, durations
	}

	requests, durations := count()
	const n = 20
	for i := range n {
		client := jsonClient
		if i%2 == 1 {
			client = pbClient
		}
		if _, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{}); err != nil {
			t.Fatalf("GET %d: %v", i, err)
		}
	}
	r, d := count()
	if r-requests != n || d-durations != n {
		t.Errorf("after %d GETs through the aggregator: apiserver_request_total +%v, apiserver_request_duration_seconds_count +%v; want +%d each",
			n, r-requests, d-durations, n)
	}
}
