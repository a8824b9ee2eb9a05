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

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/update-status/apiserver/internal/localstack"
	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	updatev1alpha1 "github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/contribute"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
)

// contributionsSpec is -contributions: how many external informers, each
// with how many Health insights on the worker pool. The zero value skips the
// cell.
type contributionsSpec struct {
	Informers, Insights int
}

func (s contributionsSpec) String() string {
	if s.Informers == 0 {
		return ""
	}
	return fmt.Sprintf("%dx%d", s.Informers, s.Insights)
}

// parseContributions reads "<informers>x<insights>" ("16x1024"); an empty
// string is the zero spec.
func parseContributions(s string) (contributionsSpec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return contributionsSpec{}, nil
	}
	a, b, ok := strings.Cut(s, "x")
	informers, err1 := strconv.Atoi(a)
	insights, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return contributionsSpec{}, fmt.Errorf("%q is not <informers>x<insights>, such as 16x1024", s)
	}
	if informers < 1 || informers > 100 {
		return contributionsSpec{}, fmt.Errorf("%q: between 1 and 100 informers", s)
	}
	if insights < 1 || insights > informersv1alpha1.MaxWorkerPoolInsights {
		return contributionsSpec{}, fmt.Errorf("%q: between 1 and %d insights per informer (the API's cap)", s, informersv1alpha1.MaxWorkerPoolInsights)
	}
	return contributionsSpec{Informers: informers, Insights: insights}, nil
}

// contributionPool is the worker pool the contributions are about: the
// simulator's cluster has one worker pool, "worker" (besides "master", the
// control plane's, which takes no pool contributions).
const contributionPool = "worker"

// contributionLease is the lease of the cell's informers: long enough that
// it does not lapse between the storm's last renewal and the end of the
// watch cell after it, in which nothing renews.
const contributionLease = 5 * time.Minute

// contributorName is the name of every UpdateInformer of the cell, one per
// namespace.
const contributorName = "bench"

// contributionResult is what the contributions cell measured.
type contributionResult struct {
	Spec contributionsSpec
	Pool string
	// CreateTime is the time to create the objects (concurrently) and get
	// a verdict in the status of each.
	CreateTime time.Duration
	// Accepted counts the objects whose Accepted condition is True, Refused
	// the others by reason; Insights is the sum of their status.insights
	// (the insights merged).
	Accepted int
	Refused  map[string]int
	Insights int
	// HealthInsights counts the healthinsights the server served before and
	// after the contributions.
	HealthInsightsBefore, HealthInsightsAfter int
	// MemBefore and MemAfter are the server's memory without and with the
	// contributions (after forced GCs).
	MemBefore, MemAfter memory
	// Storm is the renewal storm through the companion Leases (the way
	// pkg/contribute renews), ObjectStorm the same through the objects
	// themselves (spec.renewTime), for comparison.
	Storm, ObjectStorm stormResult
	// Without, With and After are the same watch cell of
	// nodeprogressinsights, measured just before the contributions exist,
	// while they do, and once they are withdrawn.
	Without, With, After *watchResult
}

// HeapPerInsight is the server's Go heap in use that the contributions
// added, per insight merged; LivePerInsight the same for live objects.
func (r *contributionResult) HeapPerInsight() (inuse, live float64) {
	if r.Insights == 0 {
		return 0, 0
	}
	n := float64(r.Insights)
	return (r.MemAfter.HeapInuse - r.MemBefore.HeapInuse) / n, (r.MemAfter.HeapAlloc - r.MemBefore.HeapAlloc) / n
}

// stormResult is the renewal storm: every informer renewing every second.
type stormResult struct {
	Duration         time.Duration
	Renewals, Errors int64
	// Events received by one watcher of each resource during the storm and
	// a grace period after it: updatestatuses/cluster (revisions),
	// healthinsights and nodeprogressinsights (the whole collections).
	UpdateStatusEvents, HealthEvents, NodeEvents int
	// Published is the server's revisions (recomputations that changed
	// the result); SourceComputations and TimeComputations count the
	// recomputations a change of the sources and the clock triggered (the
	// engine looks again when a lease it knows would lapse).
	Published, SourceComputations, TimeComputations float64
	// ServerCores and KubeAPIServerCores are their CPU during the storm,
	// IdleCores the server's just before it, nothing written.
	ServerCores, KubeAPIServerCores, IdleCores float64
}

// CPUPerRenewal is the server's CPU seconds per renewal above its idle CPU.
func (s stormResult) CPUPerRenewal() float64 {
	if s.Renewals == 0 {
		return 0
	}
	return (s.ServerCores - s.IdleCores) * s.Duration.Seconds() / float64(s.Renewals)
}

// CoresAt is the server's CPU at rate renewals per second, from its idle
// CPU and its CPU per renewal.
func (s stormResult) CoresAt(rate float64) float64 {
	return s.IdleCores + rate*max(0, s.CPUPerRenewal())
}

// RenewalRate is the renewals per second the storm achieved.
func (s stormResult) RenewalRate() float64 {
	if s.Duration <= 0 {
		return 0
	}
	return float64(s.Renewals) / s.Duration.Seconds()
}

// Revisions is every revision the storm caused, by any count.
func (s stormResult) Revisions() int {
	return s.UpdateStatusEvents + s.HealthEvents + s.NodeEvents + int(s.Published)
}

// contributedPools is what informer i asserts: n Health insights about the
// worker pool.
func contributedPools(i, n int, at time.Time) []informersv1alpha1.WorkerPoolContribution {
	pool := informersv1alpha1.WorkerPoolContribution{Name: contributionPool}
	for j := range n {
		pool.Insights = append(pool.Insights, updatev1alpha1.WorkerPoolInsight{
			UID: fmt.Sprintf("finding-%04d", j), AcquiredAt: metav1.NewTime(at),
			Insight: updatev1alpha1.WorkerPoolInsightUnion{Type: updatev1alpha1.HealthInsightType, HealthInsight: &updatev1alpha1.HealthStatusInsight{
				StartedAt: metav1.NewTime(at),
				Scope:     updatev1alpha1.InsightScope{Type: updatev1alpha1.WorkerPoolScope},
				Impact: updatev1alpha1.InsightImpact{Level: updatev1alpha1.WarningImpactLevel, Type: updatev1alpha1.UpdateSpeedImpactType,
					Summary: fmt.Sprintf("Benchmark informer %d, finding %d", i, j), Description: "A finding of a benchmark informer."},
				Remediation: updatev1alpha1.InsightRemediation{Reference: "https://example.com/runbook"},
			}},
		})
	}
	return []informersv1alpha1.WorkerPoolContribution{pool}
}

// benchContributions is the contributions cell: the nodeprogressinsights
// watch cell without contributions, the server's memory, spec.Informers
// UpdateInformers created through pkg/contribute (one namespace each) and
// their verdicts, the memory again, the renewal storm, and the watch cell
// again with the contributions present. The informers withdraw at the end.
func benchContributions(ctx context.Context, c config, cp *localstack.ControlPlane, admin *httpClient, ch *churn, profDir string) (*contributionResult, error) {
	spec := c.contributions
	res := &contributionResult{Spec: spec, Pool: contributionPool, Refused: map[string]int{}}
	k := c.contributionWatchers
	var err error
	if res.Without, err = benchWatch(ctx, c, cp, admin, ch, profDir, resourceNodeInsights, k, routeAggregated, formatJSON, "", nil); err != nil {
		return res, err
	}
	pid := cp.Server.Pid()
	if res.HealthInsightsBefore, err = countItems(ctx, admin, cp.ServerURL+apiPrefix+"healthinsights"); err != nil {
		return res, err
	}
	if res.MemBefore, err = measureMemory(ctx, admin, cp.ServerURL, pid); err != nil {
		return res, err
	}

	cs, err := newClientsets(cp.RESTConfig(&cp.Users.Admin))
	if err != nil {
		return res, err
	}
	begin := time.Now()
	contributors := make([]*contribute.Contributor, spec.Informers)
	namespaces := make([]string, spec.Informers)
	for i := range contributors {
		ns := fmt.Sprintf("bench-informers-%02d", i)
		namespaces[i] = ns
		if _, err := cp.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return res, err
		}
		if contributors[i], err = contribute.New(cs.updates.InformersV1alpha1(), cp.Kube, ns, contributorName, contribute.WithLease(contributionLease)); err != nil {
			return res, err
		}
		contributors[i].Set(nil, contributedPools(i, spec.Insights, begin))
	}
	if err := forEach(contributors, func(con *contribute.Contributor) error { return con.Write(ctx) }); err != nil {
		return res, err
	}
	if err := tallyVerdicts(ctx, cs.updates, namespaces, res); err != nil {
		return res, err
	}
	res.CreateTime = time.Since(begin)
	klog.InfoS("Contributions judged", "informers", spec.Informers, "accepted", res.Accepted, "refused", res.Refused, "insights", res.Insights, "elapsed", res.CreateTime.Round(time.Millisecond))
	if res.Accepted == 0 {
		return res, fmt.Errorf("no UpdateInformer accepted: %v", res.Refused)
	}
	// The server serves the merged insights as healthinsights, then the
	// object settles. A verdict can change once the server has seen every
	// contribution (the first ones written are judged before the last
	// arrive, and the room of a worker pool goes to the earlier ones), so
	// the verdicts are read again until the served insights match them.
	want := res.HealthInsightsBefore + res.Insights
	if err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		n, err := countItems(ctx, admin, cp.ServerURL+apiPrefix+"healthinsights")
		res.HealthInsightsAfter = n
		if err != nil {
			return false, nil
		}
		if err := tallyVerdicts(ctx, cs.updates, namespaces, res); err != nil {
			return false, err
		}
		want = res.HealthInsightsBefore + res.Insights
		return n >= want, nil
	}); err != nil {
		return res, fmt.Errorf("the server served %d healthinsights, not at least %d, within 2 minutes (accepted %d, refused %v): %w", res.HealthInsightsAfter, want, res.Accepted, res.Refused, err)
	}
	klog.InfoS("Contributions served", "accepted", res.Accepted, "refused", res.Refused, "insights", res.Insights, "healthInsights", res.HealthInsightsAfter)
	if _, err := settle(ctx, admin, cp.ServerURL+localstack.UpdateStatusPath); err != nil {
		return res, err
	}
	if res.MemAfter, err = measureMemory(ctx, admin, cp.ServerURL, pid); err != nil {
		return res, err
	}
	if err := saveProfile(ctx, admin, cp.ServerURL, "heap", filepath.Join(profDir, "heap-contributions.pprof")); err != nil {
		klog.ErrorS(err, "No heap profile")
	}

	leases, err := createLeases(ctx, cp, namespaces)
	if err != nil {
		return res, err
	}
	if _, err := settle(ctx, admin, cp.ServerURL+localstack.UpdateStatusPath); err != nil {
		return res, err
	}
	for _, st := range []struct {
		name  string
		out   *stormResult
		renew func(ctx context.Context, i int) error
	}{
		{"lease", &res.Storm, leases.renew},
		{"object", &res.ObjectStorm, func(ctx context.Context, i int) error { return contributors[i].Write(ctx) }},
	} {
		if *st.out, err = renewalStorm(ctx, c, cp, admin, len(contributors), st.renew, filepath.Join(profDir, "storm-"+st.name+"-cpu.pprof")); err != nil {
			return res, err
		}
		klog.InfoS("Renewal storm", "through", st.name, "renewals", st.out.Renewals, "errors", st.out.Errors, "revisions", st.out.Revisions(),
			"sourceComputations", st.out.SourceComputations, "timeComputations", st.out.TimeComputations, "serverCores", st.out.ServerCores)
	}

	// The watch cell again, the contributions present. The informers do
	// not write meanwhile (their lease outlasts the cell): a write of
	// objects this large loads the kube-apiserver, which serves the
	// churn's writes too, and that is not the server's cost.
	res.With, err = benchWatch(ctx, c, cp, admin, ch, profDir, resourceNodeInsights, k, routeAggregated, formatJSON, "", nil)
	if err != nil {
		return res, err
	}
	if err := forEach(contributors, func(con *contribute.Contributor) error { return con.Withdraw(ctx) }); err != nil {
		return res, err
	}
	res.After, err = benchWatch(ctx, c, cp, admin, ch, profDir, resourceNodeInsights, k, routeAggregated, formatJSON, "", nil)
	return res, err
}

// forEach runs f on every contributor concurrently and joins the errors.
func forEach(cs []*contribute.Contributor, f func(*contribute.Contributor) error) error {
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, con := range cs {
		wg.Go(func() { errs[i] = f(con) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// tallyVerdicts waits until the server has judged the current generation
// of the UpdateInformer contributorName in each of namespaces (its Accepted
// condition observes it) and counts the verdicts into res.
func tallyVerdicts(ctx context.Context, client versioned.Interface, namespaces []string, res *contributionResult) error {
	judged := make([]*informersv1alpha1.UpdateInformer, len(namespaces))
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		done := true
		for i, ns := range namespaces {
			if judged[i] != nil {
				continue
			}
			o, err := client.InformersV1alpha1().UpdateInformers(ns).Get(ctx, contributorName, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if cond := meta.FindStatusCondition(o.Status.Conditions, informersv1alpha1.ConditionAccepted); cond != nil && cond.ObservedGeneration == o.Generation {
				judged[i] = o
			} else {
				done = false
			}
		}
		return done, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the verdicts on the UpdateInformers: %w", err)
	}
	res.Accepted, res.Insights, res.Refused = 0, 0, map[string]int{}
	for _, o := range judged {
		cond := meta.FindStatusCondition(o.Status.Conditions, informersv1alpha1.ConditionAccepted)
		if cond.Status == metav1.ConditionTrue {
			res.Accepted++
			if o.Status.Insights != nil {
				res.Insights += int(*o.Status.Insights)
			}
		} else {
			res.Refused[cond.Reason]++
		}
	}
	return nil
}

// benchLeases are the companion Leases of the contributors, as pkg/contribute
// keeps them, and the latest version of each written.
type benchLeases struct {
	kube   kubernetes.Interface
	mu     sync.Mutex
	latest []*coordinationv1.Lease
}

// createLeases creates the companion Lease of the UpdateInformer
// contributorName in each of namespaces.
func createLeases(ctx context.Context, cp *localstack.ControlPlane, namespaces []string) (*benchLeases, error) {
	cs, err := newClientsets(cp.RESTConfig(&cp.Users.Admin))
	if err != nil {
		return nil, err
	}
	ls := &benchLeases{kube: cs.kube, latest: make([]*coordinationv1.Lease, len(namespaces))}
	for i, ns := range namespaces {
		l := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: contributorName, Labels: map[string]string{informersv1alpha1.LeaseLabel: contributorName}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(informersv1alpha1.InformerName(ns, contributorName)),
				LeaseDurationSeconds: ptr.To(int32(contributionLease.Seconds())), RenewTime: ptr.To(metav1.NowMicro())},
		}
		if ls.latest[i], err = ls.kube.CoordinationV1().Leases(ns).Create(ctx, l, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
	}
	return ls, nil
}

// renew renews the Lease of contributor i as the lease controller of
// pkg/contribute does: an UPDATE of the version it wrote last with a new
// renewTime.
func (ls *benchLeases) renew(ctx context.Context, i int) error {
	ls.mu.Lock()
	l := ls.latest[i].DeepCopy()
	ls.mu.Unlock()
	l.Spec.RenewTime = ptr.To(metav1.NowMicro())
	updated, err := ls.kube.CoordinationV1().Leases(l.Namespace).Update(ctx, l, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	ls.mu.Lock()
	ls.latest[i] = updated
	ls.mu.Unlock()
	return nil
}

// stormGrace is how long after the storm the watchers keep counting: a
// revision the last renewals caused would reach them within the fold delay.
const stormGrace = 2 * time.Second

// renewalStorm makes each of n contributors renew (renew(ctx, i)) every
// second (staggered over the second) for c.stormDuration (a write that takes
// longer than a second delays the next: the renewals achieved are counted)
// while one watcher of each of
// updatestatuses/cluster, healthinsights and nodeprogressinsights counts
// the events, and measures the server's CPU and recomputations; the
// server's idle CPU is measured first, with the watchers connected.
func renewalStorm(ctx context.Context, c config, cp *localstack.ControlPlane, admin *httpClient, n int, renew func(context.Context, int) error, profile string) (stormResult, error) {
	var res stormResult
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	type counted struct {
		w   *watcher
		out *int
	}
	watched := []counted{
		{&watcher{synced: make(chan struct{})}, &res.UpdateStatusEvents},
		{&watcher{synced: make(chan struct{}), collection: true}, &res.HealthEvents},
		{&watcher{synced: make(chan struct{}), collection: true}, &res.NodeEvents},
	}
	urls := []string{
		apiPrefix + resourceUpdateStatuses + "?watch=1&fieldSelector=metadata.name%3Dcluster",
		apiPrefix + "healthinsights?watch=1",
		apiPrefix + resourceNodeInsights + "?watch=1",
	}
	h := newHTTPClient(cp.PKI.CAPEM, cp.Users.Admin.Token)
	for i, cw := range watched {
		wg.Go(func() { cw.w.watch(wctx, h, cp.ServerURL+urls[i]) })
	}
	for i, cw := range watched {
		select {
		case <-cw.w.synced:
		case <-time.After(time.Minute):
			return res, fmt.Errorf("watch %s: no start within a minute", urls[i])
		}
		if cw.w.err != nil {
			return res, fmt.Errorf("watch %s: %w", urls[i], cw.w.err)
		}
	}
	pids := []int{cp.Server.Pid(), cp.KubeAPIServer.Process.Pid()}
	// The server's CPU with nothing written, the watchers connected: what
	// the storm's CPU is compared with.
	idle := max(5*time.Second, c.stormDuration/3)
	cpuIdle, m0, err := cpuThenMetrics(ctx, pids, idle, admin, cp.ServerURL)
	if err != nil {
		return res, err
	}
	cpu0, err := cpuSecondsOf(pids)
	if err != nil {
		return res, err
	}
	res.IdleCores = (cpu0[0] - cpuIdle[0]) / idle.Seconds()
	for _, cw := range watched {
		cw.w.mu.Lock()
		cw.w.events = nil
		cw.w.mu.Unlock()
	}
	go func() {
		if err := saveProfile(ctx, admin, cp.ServerURL, fmt.Sprintf("profile?seconds=%d", max(1, int(c.stormDuration.Seconds())-1)), profile); err != nil {
			klog.ErrorS(err, "No renewal storm CPU profile")
		}
	}()
	begin := time.Now()
	sctx, stop := context.WithTimeout(ctx, c.stormDuration)
	defer stop()
	var renewals, errs atomic.Int64
	var storm sync.WaitGroup
	for i := range n {
		storm.Go(func() {
			// Staggered over the second, as independent components are.
			select {
			case <-sctx.Done():
				return
			case <-time.After(time.Duration(i) * time.Second / time.Duration(n)):
			}
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				// A write in flight when the storm ends completes: a
				// renewal may take longer than the storm's period.
				if err := renew(ctx, i); err != nil {
					errs.Add(1)
					klog.V(2).ErrorS(err, "Renewal failed", "contributor", i)
				} else {
					renewals.Add(1)
				}
				select {
				case <-sctx.Done():
					return
				case <-tick.C:
				}
			}
		})
	}
	storm.Wait()
	res.Duration = time.Since(begin)
	cpu1, m1, err := cpuThenMetrics(ctx, pids, stormGrace, admin, cp.ServerURL)
	if err != nil {
		return res, err
	}
	for _, cw := range watched {
		cw.w.mu.Lock()
		*cw.out = len(cw.w.events)
		cw.w.mu.Unlock()
	}
	cancel()
	res.Renewals, res.Errors = renewals.Load(), errs.Load()
	secs := res.Duration.Seconds()
	res.ServerCores, res.KubeAPIServerCores = (cpu1[0]-cpu0[0])/secs, (cpu1[1]-cpu0[1])/secs
	const recomputations = "update_status_recomputations_total"
	res.Published = sumSeries(m1, recomputations, `result="changed"`) - sumSeries(m0, recomputations, `result="changed"`)
	res.SourceComputations = sumSeries(m1, recomputations, `trigger="sources"`) - sumSeries(m0, recomputations, `trigger="sources"`)
	res.TimeComputations = sumSeries(m1, recomputations, `trigger="time"`) - sumSeries(m0, recomputations, `trigger="time"`)
	return res, nil
}

// countItems LISTs rawURL and returns the number of items.
func countItems(ctx context.Context, h *httpClient, rawURL string) (int, error) {
	body, err := h.get(ctx, rawURL)
	if err != nil {
		return 0, err
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return 0, fmt.Errorf("decoding the LIST of %s: %w", rawURL, err)
	}
	return len(list.Items), nil
}
