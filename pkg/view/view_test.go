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

package view_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
)

var t0 = time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)

// recorder collects published revisions.
type recorder struct {
	mu   sync.Mutex
	revs []*view.Revision
	hook func(*view.Revision)
}

func (r *recorder) publish(rev *view.Revision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.revs = append(r.revs, rev)
	if r.hook != nil {
		r.hook(rev)
	}
}

// onPublish has f called with each later revision, on the view's goroutine
// as it publishes.
func (r *recorder) onPublish(f func(*view.Revision)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hook = f
}

func (r *recorder) all() []*view.Revision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*view.Revision(nil), r.revs...)
}

func (r *recorder) count() int { return len(r.all()) }

type harness struct {
	view     *view.View
	clock    *clocktesting.FakeClock
	source   *viewtest.Snapshotter
	computer *viewtest.Computer
	rec      *recorder
}

// start runs a view with a fake clock, a fake source at input resourceVersion
// 100 and a computer that returns status(now) (empty when nil).
func start(t *testing.T, foldDelay time.Duration, compute func(*insights.Sources, time.Time) insights.Result) *harness {
	t.Helper()
	return startWith(t, view.Config{FoldDelay: foldDelay}, compute)
}

// startWith is start with the view's tuning (FoldDelay, QuietGap) from cfg.
func startWith(t *testing.T, cfg view.Config, compute func(*insights.Sources, time.Time) insights.Result) *harness {
	t.Helper()
	h := &harness{
		clock:    clocktesting.NewFakeClock(t0),
		source:   viewtest.NewSnapshotter(100),
		computer: &viewtest.Computer{Func: compute},
		rec:      &recorder{},
	}
	v, err := view.New(view.Config{
		Snapshots: h.source, Computer: h.computer, Clock: h.clock,
		FoldDelay: cfg.FoldDelay, QuietGap: cfg.QuietGap, Publish: h.rec.publish,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.view = v
	h.source.AddListener(v.Trigger)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { v.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	testio.Eventually(t, "first revision", func() bool { return h.rec.count() == 1 })
	return h
}

// stepWhenWaiting advances the fake clock by d once n timers wait on it.
func (h *harness) stepWhenWaiting(t *testing.T, n int, d time.Duration) {
	t.Helper()
	testio.Eventually(t, fmt.Sprintf("%d clock waiters", n), func() bool { return h.clock.Waiters() >= n })
	h.clock.Step(d)
}

func targetStatus(version string) v1alpha1.UpdateStatusStatus {
	return v1alpha1.UpdateStatusStatus{ControlPlane: &v1alpha1.ControlPlane{
		Informers: []v1alpha1.ControlPlaneInformer{{Name: "cpi", Insights: []v1alpha1.ControlPlaneInsight{{
			UID: "cv-version", AcquiredAt: metav1.NewTime(t0),
			Insight: v1alpha1.ControlPlaneInsightUnion{Type: v1alpha1.ClusterVersionStatusInsightType,
				ClusterVersionStatusInsight: &v1alpha1.ClusterVersionStatusInsight{Versions: v1alpha1.ControlPlaneUpdateVersions{Target: v1alpha1.Version{Version: version}}}},
		}}}},
	}}
}

func TestFirstRevision(t *testing.T) {
	h := start(t, 0, nil)
	rev := h.view.Current()
	if rev == nil || rev != h.rec.all()[0] {
		t.Fatalf("Current() = %v, want the published revision", rev)
	}
	if got, want := rev.ResourceVersion/1_000_000, uint64(100); got != want {
		t.Errorf("resourceVersion %d does not derive from input 100", rev.ResourceVersion)
	}
	if rev.Object.ResourceVersion != fmt.Sprint(rev.ResourceVersion) || rev.Object.Name != "cluster" || !rev.Synced {
		t.Errorf("object meta = %+v, synced %v", rev.Object.ObjectMeta, rev.Synced)
	}
	conds := rev.Object.Status.Conditions
	if len(conds) != 1 || conds[0].Reason != v1alpha1.AvailableReasonAsExpected {
		t.Errorf("conditions = %+v", conds)
	}
}

func TestChangesOnlyWhenContentChanges(t *testing.T) {
	var mu sync.Mutex
	version := "4.17.5"
	computed := make(chan string, 16) // the version each computation read
	h := start(t, 0, func(*insights.Sources, time.Time) insights.Result {
		mu.Lock()
		defer mu.Unlock()
		computed <- version
		return insights.Result{Status: targetStatus(version)}
	})
	first := h.view.Current()
	<-computed

	// Inputs move on but the content stays: a progress revision at input
	// 200, with the first revision's object and no insight change, so the
	// stores move their resourceVersion without a watch event.
	h.source.Update(func(s *view.Snapshot) { s.MaxResourceVersion = 200 })
	if v := receive(t, computed, "the computation of input 200"); v != "4.17.5" {
		t.Fatalf("the computation of input 200 read %s", v)
	}
	testio.Eventually(t, "the progress revision of input 200", func() bool { return h.rec.count() == 2 })
	progress := h.rec.all()[1]
	if progress.ResourceVersion/1_000_000 != 200 || progress.Object != first.Object {
		t.Errorf("progress revision %d, same object %v: want input 200 and the first revision's object", progress.ResourceVersion, progress.Object == first.Object)
	}
	for k, c := range progress.Insights {
		if len(c.Changed)+len(c.Deleted) > 0 {
			t.Errorf("progress revision changes insight kind %d: %+v", k, c)
		}
	}

	// The same inputs computed again (a trigger without a new input):
	// nothing at all.
	h.view.Trigger(viewtest.Source, "")
	receive(t, computed, "the computation of input 200 again")

	// Content changes: a new revision with a larger resourceVersion from
	// input 300. The loop finishes each computation before it starts the
	// next, so once this revision is out, every earlier one would be out.
	mu.Lock()
	version = "4.17.6"
	mu.Unlock()
	h.source.Update(func(s *view.Snapshot) { s.MaxResourceVersion = 300 })
	receive(t, computed, "the computation of input 300")
	testio.Eventually(t, "the revision of input 300", func() bool {
		revs := h.rec.all()
		return revs[len(revs)-1].ResourceVersion/1_000_000 == 300
	})
	revs := h.rec.all()
	if len(revs) != 3 || revs[0] != first || revs[1] != progress {
		for _, r := range revs {
			t.Logf("published resourceVersion %d", r.ResourceVersion)
		}
		t.Fatalf("%d revisions published, want the first, the progress of input 200 and that of input 300", len(revs))
	}
	second := revs[2]
	if h.view.Current() != second {
		t.Errorf("Current() is not the last published revision")
	}
	if second.ResourceVersion <= progress.ResourceVersion {
		t.Errorf("resourceVersions %d then %d", progress.ResourceVersion, second.ResourceVersion)
	}
	if got := second.Object.Status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight.Versions.Target.Version; got != "4.17.6" {
		t.Errorf("target = %q", got)
	}
	// The first revision is untouched.
	if got := first.Object.Status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight.Versions.Target.Version; got != "4.17.5" {
		t.Errorf("the first revision changed: %q", got)
	}
}

// TestLookByTheClockPublishesNoProgress: inputs that triggered nothing (a
// renewed Lease) are newer when the engine looks again by the clock; with
// the content unchanged, that look publishes nothing, not even progress.
func TestLookByTheClockPublishesNoProgress(t *testing.T) {
	lapse := t0.Add(time.Minute)
	h := start(t, 0, func(*insights.Sources, time.Time) insights.Result {
		return insights.Result{Status: targetStatus("4.17.5"), NextChange: lapse}
	})
	before := h.computer.Calls()
	publishedAfter := make(chan int, 4) // computations when each revision came out
	h.rec.onPublish(func(*view.Revision) { publishedAfter <- h.computer.Calls() - before })
	h.source.UpdateSilently(func(s *view.Snapshot) { s.MaxResourceVersion = 200 })
	h.stepWhenWaiting(t, 1, time.Minute)
	testio.Eventually(t, "the look by the clock", func() bool { return h.computer.Calls() > before })
	// A source event at the same inputs afterwards is what publishes.
	h.source.Update(func(*view.Snapshot) {})
	if n := receive(t, publishedAfter, "the progress revision"); n != 2 {
		t.Errorf("a revision came out after %d computations, want after the source event's (2): the look by the clock published", n)
	}
	if rev := h.view.Current(); rev.ResourceVersion/1_000_000 != 200 {
		t.Errorf("resourceVersion %d, want input 200", rev.ResourceVersion)
	}
}

// receive returns the next value of c, failing after 5 s of real time.
func receive[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// startVersioned starts a view tuned by cfg whose computer returns the
// target version 4.17.<i> of the last update(i), which also moves the input
// resourceVersion to 100+i.
func startVersioned(t *testing.T, cfg view.Config) (*harness, func(i int)) {
	h, updateFrom := startSources(t, cfg)
	return h, func(i int) { updateFrom(viewtest.Source, i) }
}

// startSources is startVersioned with the source of each change named.
func startSources(t *testing.T, cfg view.Config) (*harness, func(source string, i int)) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	h := startWith(t, cfg, func(*insights.Sources, time.Time) insights.Result {
		mu.Lock()
		defer mu.Unlock()
		return insights.Result{Status: targetStatus(fmt.Sprintf("4.17.%d", n))}
	})
	return h, func(source string, i int) {
		mu.Lock()
		n = i
		mu.Unlock()
		h.source.UpdateFrom(source, func(s *view.Snapshot) { s.MaxResourceVersion = uint64(100 + i) })
	}
}

// TestBurstsFoldIntoOneComputation sends a burst of source events while the
// view waits out the fold delay. One computation covers them all, and when
// it publishes, nothing is left to wake the loop: no queued trigger and no
// timer on the clock, so no second computation can follow.
func TestBurstsFoldIntoOneComputation(t *testing.T) {
	h, update := startVersioned(t, view.Config{FoldDelay: 200 * time.Millisecond})
	type loopState struct {
		calls, waiters int
		triggerPending bool
	}
	published := make(chan loopState, 16)
	h.rec.onPublish(func(*view.Revision) {
		published <- loopState{calls: h.computer.Calls(), waiters: h.clock.Waiters(), triggerPending: h.view.TriggerPending()}
	})
	before := h.computer.Calls()
	// The first event starts the fold delay; the other 49 arrive while the
	// view waits.
	update(1)
	testio.Eventually(t, "the fold timer", func() bool { return h.clock.Waiters() == 1 })
	for i := 2; i <= 50; i++ {
		update(i)
	}
	h.clock.Step(200 * time.Millisecond)
	st := receive(t, published, "the folded revision")
	if got := st.calls - before; got != 1 {
		t.Errorf("%d computations for a burst of 50 events, want 1", got)
	}
	if st.triggerPending || st.waiters != 0 {
		t.Errorf("after the folded computation the loop still has work: trigger queued %v, %d clock waiters", st.triggerPending, st.waiters)
	}
	if rv := h.view.Current().ResourceVersion; rv/1_000_000 != 150 {
		t.Errorf("resourceVersion %d does not reflect the last input 150", rv)
	}
}

// TestFoldOnTheLeadingEdge drives the fold rule with a fake clock: a change
// after a quiet period is computed at once, without the clock moving; a
// steady stream of changes is computed once per fold window, and no change
// waits longer than the window.
func TestFoldOnTheLeadingEdge(t *testing.T) {
	const fold = 200 * time.Millisecond
	h, update := startVersioned(t, view.Config{FoldDelay: fold})
	var mu sync.Mutex // guards shownAt
	// changed is when each input first showed in a published revision.
	shownAt := map[int]time.Time{}
	h.rec.onPublish(func(r *view.Revision) {
		mu.Lock()
		defer mu.Unlock()
		shownAt[int(r.ResourceVersion/1_000_000)-100] = h.clock.Now()
	})

	// A lone change after a quiet period: computed with the clock standing
	// still, so it waited for no window.
	h.clock.Step(fold)
	update(1)
	testio.Eventually(t, "the lone change's revision", func() bool { return h.rec.count() == 2 })
	if w := h.clock.Waiters(); w != 0 {
		t.Errorf("%d clock waiters after the lone change", w)
	}

	// A steady stream, one change every 50 ms for a second, starting right
	// after that computation: each waits for the window after the previous
	// computation, so one computation per window.
	const every, events = 50 * time.Millisecond, 20
	before := h.computer.Calls()
	sent := map[int]time.Time{}
	for i := 2; i < 2+events; i++ {
		published := h.rec.count()
		sent[i] = h.clock.Now()
		update(i)
		// Settled: the loop computed the change or waits out the window.
		testio.Eventually(t, fmt.Sprintf("the loop to take change %d", i), func() bool {
			return h.clock.Waiters() == 1 || (h.rec.count() > published && !h.view.TriggerPending())
		})
		h.clock.Step(every)
	}
	testio.Eventually(t, "the last change's revision", func() bool {
		if h.clock.Waiters() == 1 {
			h.clock.Step(every)
		}
		mu.Lock()
		defer mu.Unlock()
		_, ok := shownAt[1+events]
		return ok
	})
	// 20 changes over 1 s with a 200 ms window: every window holds one
	// computation, the stream's first change (after the lone change's
	// window) waits for the rest of it.
	if got, want := h.computer.Calls()-before, int(events*every/fold); got != want {
		t.Errorf("%d computations for %d changes over %v, want %d (one per %v window)", got, events, events*every, want, fold)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, at := range sent {
		var shown time.Time
		for j := i; j < 2+events; j++ { // a later revision covers i too
			if s, ok := shownAt[j]; ok {
				shown = s
				break
			}
		}
		if d := shown.Sub(at); shown.IsZero() || d > fold {
			t.Errorf("change %d sent at %v shown after %v, want at most the window %v", i, at.Sub(t0), d, fold)
		}
	}
}

// TestQuietGap drives the isolation rule with a fake clock: changes that
// come at least the quiet gap apart are each computed at once, with the
// clock standing still, however soon after the last computation; so is a
// change that comes sooner after one that came late (one short gap, the
// jitter of a steady stream); two short gaps in a row (a burst) fold, one
// computation per window.
func TestQuietGap(t *testing.T) {
	const fold, gap = 200 * time.Millisecond, 30 * time.Millisecond
	isolated0, isolatedSum0 := view.ChangesToRevision(t, "isolated")
	burst0, burstSum0 := view.ChangesToRevision(t, "burst")
	h, update := startVersioned(t, view.Config{FoldDelay: fold, QuietGap: gap})
	// atOnce sends change i after step and waits for its own revision,
	// computed with the clock standing still.
	atOnce := func(i int, step time.Duration, why string) {
		t.Helper()
		h.clock.Step(step)
		published := h.rec.count()
		update(i)
		testio.Eventually(t, fmt.Sprintf("change %d's own revision (%s)", i, why), func() bool { return h.rec.count() == published+1 })
		if w := h.clock.Waiters(); w != 0 {
			t.Fatalf("change %d, %v after the one before (%s): %d clock waiters, want it computed at once", i, step, why, w)
		}
	}

	// A steady stream slower than the gap, well within the fold window
	// after each computation: every change has its own revision, and none
	// waits.
	stream := 3 * gap / 2
	for i := 1; i <= 10; i++ {
		atOnce(i, stream, "a stream slower than the gap")
	}
	// A stream with jitter: a change late by two thirds of the gap, then
	// the next on time, that much sooner.
	atOnce(11, stream+2*gap/3, "late")
	atOnce(12, stream-2*gap/3, "on time after a late one")
	atOnce(13, stream, "the stream again")

	// A burst: changes 1 ms apart. The first is isolated (the gap since the
	// stream's last change) and so are the second and third (one and two
	// short gaps counted); from the fourth on they wait for one window.
	before := h.computer.Calls()
	atOnce(100, gap, "the burst's first")
	atOnce(101, time.Millisecond, "the burst's second")
	atOnce(102, time.Millisecond, "the burst's third")
	for i := 103; i < 120; i++ {
		h.clock.Step(time.Millisecond)
		update(i)
	}
	testio.Eventually(t, "the fold timer", func() bool { return h.clock.Waiters() == 1 })
	if got := h.computer.Calls() - before; got != 3 {
		t.Errorf("%d computations before the window ended, want 3 (the burst's first three changes)", got)
	}
	h.clock.Step(fold)
	testio.Eventually(t, "the folded revision", func() bool { return h.view.Current().ResourceVersion/1_000_000 == 219 })
	if got := h.computer.Calls() - before; got != 4 {
		t.Errorf("%d computations for a burst of 20 changes, want 4 (the first three, then the rest folded)", got)
	}

	// The metric: 16 isolated changes published with the clock standing
	// still, and one burst whose first folded change (103, 1 ms after the
	// third) waited until the clock passed the window: 17 ms of changes,
	// then the window's 200 ms.
	testio.Eventually(t, "the burst's observation", func() bool {
		n, _ := view.ChangesToRevision(t, "burst")
		return n > burst0
	})
	isolated, isolatedSum := view.ChangesToRevision(t, "isolated")
	burst, burstSum := view.ChangesToRevision(t, "burst")
	if isolated-isolated0 != 16 || isolatedSum != isolatedSum0 {
		t.Errorf("isolated changes: %d observed, %v s in all; want 16 and 0 s", isolated-isolated0, isolatedSum-isolatedSum0)
	}
	if want := (fold + 16*time.Millisecond).Seconds(); burst-burst0 != 1 || math.Abs(burstSum-burstSum0-want) > 1e-9 {
		t.Errorf("bursts: %d observed, %v s in all; want 1 and %v s", burst-burst0, burstSum-burstSum0, want)
	}
}

// TestSourcesJudgedApart: another source's burst neither folds a stream's
// changes nor makes them wait: a change isolated in its own source's
// stream ends the wait for the window under way.
func TestSourcesJudgedApart(t *testing.T) {
	const fold, gap = 200 * time.Millisecond, 30 * time.Millisecond
	h, update := startSources(t, view.Config{FoldDelay: fold, QuietGap: gap})
	publishedAt := func(i int) func() bool {
		return func() bool { return h.view.Current().ResourceVersion/1_000_000 == uint64(100+i) }
	}
	// The node stream's first change, then the operators' burst: its
	// fourth change waits for the window.
	h.clock.Step(fold)
	update("nodes", 1)
	testio.Eventually(t, "the stream's first change", publishedAt(1))
	for i := 2; i <= 5; i++ {
		h.clock.Step(time.Millisecond)
		update("clusteroperators", i)
		if i < 5 {
			testio.Eventually(t, fmt.Sprintf("the operators' change %d computed at once", i), publishedAt(i))
		}
	}
	testio.Eventually(t, "the operators' fourth change waiting for the window", func() bool { return h.clock.Waiters() == 1 })
	if h.view.Current().ResourceVersion/1_000_000 == 105 {
		t.Fatal("the operators' fourth change was computed at once")
	}
	// The stream's next change, 10 ms after its last: a short gap in the
	// stream of all changes, not in the nodes'. It is computed with the
	// clock standing still, and takes the operators' change with it.
	h.clock.Step(10 * time.Millisecond)
	before := h.computer.Calls()
	update("nodes", 6)
	testio.Eventually(t, "the stream's change computed without the window", publishedAt(6))
	if got := h.computer.Calls() - before; got != 1 {
		t.Errorf("%d computations for the stream's change, want 1", got)
	}
}

func TestTimeOnlyChange(t *testing.T) {
	threshold := t0.Add(10 * time.Minute)
	h := start(t, 0, func(_ *insights.Sources, now time.Time) insights.Result {
		if now.Before(threshold) {
			return insights.Result{Status: targetStatus("4.17.5"), NextChange: threshold}
		}
		return insights.Result{Status: targetStatus("4.17.5-overdue")}
	})
	first := h.view.Current()
	h.stepWhenWaiting(t, 1, 10*time.Minute)
	testio.Eventually(t, "time-based revision", func() bool { return h.rec.count() == 2 })
	second := h.view.Current()
	// Same inputs, newer version: the step part grows.
	if second.ResourceVersion <= first.ResourceVersion || second.ResourceVersion/1_000_000 != first.ResourceVersion/1_000_000 {
		t.Errorf("resourceVersions %d then %d", first.ResourceVersion, second.ResourceVersion)
	}
	// No time-dependent change is pending any more: the last step.
	if step := second.ResourceVersion % 1_000_000 / 1000; step != 499 {
		t.Errorf("step = %d, want 499", step)
	}
}

// TestReplicasAgree runs two views over the same inputs: one through a change
// by time alone, one started after it. They publish the same object with the
// same resourceVersion.
func TestReplicasAgree(t *testing.T) {
	thresholds := []time.Time{t0.Add(5 * time.Minute), t0.Add(20 * time.Minute)}
	compute := func(_ *insights.Sources, now time.Time) insights.Result {
		passed := 0
		for _, th := range thresholds {
			if !now.Before(th) {
				passed++
			}
		}
		res := insights.Result{Status: targetStatus(fmt.Sprintf("4.17.%d", passed))}
		if passed < len(thresholds) {
			res.NextChange = thresholds[passed]
		}
		return res
	}
	created := metav1.NewTime(t0.Add(-time.Hour))
	inputs := &insights.Sources{ClusterVersion: &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version", UID: "u", CreationTimestamp: created}}}

	a := start(t, 0, compute)
	a.source.Update(func(s *view.Snapshot) { s.Inputs = inputs })
	testio.Eventually(t, "A's revision with inputs", func() bool { return a.rec.count() == 2 })
	a.stepWhenWaiting(t, 1, 6*time.Minute) // past the first threshold
	testio.Eventually(t, "A's time-only revision", func() bool { return a.rec.count() == 3 })

	b := &harness{clock: clocktesting.NewFakeClock(t0.Add(6 * time.Minute)), source: viewtest.NewSnapshotter(100), rec: &recorder{}}
	b.source.Update(func(s *view.Snapshot) { s.Inputs = inputs })
	vb, err := view.New(view.Config{Snapshots: b.source, Computer: view.ComputerFunc(compute), Clock: b.clock, Publish: b.rec.publish})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go vb.Run(ctx)
	testio.Eventually(t, "B's revision", func() bool { return b.rec.count() == 1 })

	ra, rb := a.view.Current(), vb.Current()
	if ra.ResourceVersion != rb.ResourceVersion {
		t.Fatalf("replicas disagree: A %d, B %d", ra.ResourceVersion, rb.ResourceVersion)
	}
	ja, _ := json.Marshal(ra.Object)
	jb, _ := json.Marshal(rb.Object)
	if string(ja) != string(jb) {
		t.Fatalf("same resourceVersion, different content:\nA %s\nB %s", ja, jb)
	}
}

func TestEnginePanicKeepsTheLastLayers(t *testing.T) {
	var mu sync.Mutex
	fail := false
	h := start(t, 0, func(*insights.Sources, time.Time) insights.Result {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			panic("engine bug")
		}
		return insights.Result{Status: targetStatus("4.17.5")}
	})
	mu.Lock()
	fail = true
	mu.Unlock()
	h.view.Trigger(viewtest.Source, "")
	testio.Eventually(t, "revision after the panic", func() bool { return h.rec.count() == 2 })
	obj := h.view.Current().Object
	if c := obj.Status.Conditions[0]; c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.AvailableReasonCannotDetermine || !strings.Contains(c.Message, "engine bug") {
		t.Errorf("condition = %+v", c)
	}
	if obj.Status.ControlPlane == nil || len(obj.Status.ControlPlane.Informers) != 1 {
		t.Errorf("layers of the last good computation are gone: %+v", obj.Status.ControlPlane)
	}
}

func TestSyncProgress(t *testing.T) {
	h := &harness{clock: clocktesting.NewFakeClock(t0), source: viewtest.NewSnapshotter(5), computer: &viewtest.Computer{}, rec: &recorder{}}
	h.source.Set(view.Snapshot{Unsynced: []string{"nodes"}, Unavailable: []string{"machineconfigpools.machineconfiguration.openshift.io"}})
	v, err := view.New(view.Config{Snapshots: h.source, Computer: h.computer, Clock: h.clock, Publish: h.rec.publish})
	if err != nil {
		t.Fatal(err)
	}
	h.source.AddListener(v.Trigger)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go v.Run(ctx)
	testio.Eventually(t, "first revision", func() bool { return h.rec.count() == 1 })
	first := h.rec.all()[0]
	if first.Synced || first.Object.Status.Conditions[0].Reason != v1alpha1.AvailableReasonCachesNotSynced {
		t.Fatalf("first revision: synced %v, condition %+v", first.Synced, first.Object.Status.Conditions[0])
	}
	h.source.Set(view.Snapshot{Unavailable: []string{"machineconfigpools.machineconfiguration.openshift.io"}, InitialSyncDone: true, MaxResourceVersion: 5})
	testio.Eventually(t, "synced revision", func() bool { return h.rec.count() == 2 })
	second := h.rec.all()[1]
	if !second.Synced || second.Object.Status.Conditions[0].Reason != v1alpha1.AvailableReasonSourceUnavailable {
		t.Fatalf("second revision: synced %v, condition %+v", second.Synced, second.Object.Status.Conditions[0])
	}
}

func TestMetadataFromClusterVersion(t *testing.T) {
	h := start(t, 0, nil)
	created := metav1.NewTime(t0.Add(-24 * time.Hour))
	h.source.Update(func(s *view.Snapshot) {
		s.Inputs = &insights.Sources{ClusterVersion: &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version", UID: "cv-uid", CreationTimestamp: created}}}
	})
	testio.Eventually(t, "revision with metadata", func() bool { return h.rec.count() == 2 })
	m := h.view.Current().Object.ObjectMeta
	if m.UID == "" || m.UID == "cv-uid" || !m.CreationTimestamp.Equal(&created) {
		t.Errorf("metadata = %+v", m)
	}
}

func TestCheckLive(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	clk := clocktesting.NewFakeClock(t0)
	computing := make(chan struct{}, 1)
	v, err := view.New(view.Config{
		Snapshots: viewtest.NewSnapshotter(1), Clock: clk, StuckAfter: time.Minute,
		Computer: view.ComputerFunc(func(*insights.Sources, time.Time) insights.Result {
			computing <- struct{}{}
			<-release
			return insights.Result{}
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.CheckLive(); err != nil {
		t.Fatalf("before Run: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { v.Run(ctx); close(done) }()
	defer once.Do(func() { close(release) })
	<-computing
	if err := v.CheckLive(); err != nil {
		t.Fatalf("computing briefly: %v", err)
	}
	clk.Step(2 * time.Minute)
	if err := v.CheckLive(); err == nil || !strings.Contains(err.Error(), "running for") {
		t.Fatalf("stuck computation: %v", err)
	}
	once.Do(func() { close(release) })
	cancel()
	<-done
	if err := v.CheckLive(); err == nil {
		t.Fatal("stopped loop reported live")
	}
}

func TestNewValidates(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	src, comp := viewtest.NewSnapshotter(1), &viewtest.Computer{}
	tests := []struct {
		name    string
		cfg     view.Config
		wantErr string
	}{
		{name: "valid", cfg: view.Config{Snapshots: src, Computer: comp, Clock: clk, FoldDelay: view.MaxFoldDelay}},
		{name: "no snapshots", cfg: view.Config{Computer: comp, Clock: clk}, wantErr: "Snapshots is required"},
		{name: "no computer", cfg: view.Config{Snapshots: src, Clock: clk}, wantErr: "Computer is required"},
		{name: "no clock", cfg: view.Config{Snapshots: src, Computer: comp}, wantErr: "Clock is required"},
		{name: "fold delay too long", cfg: view.Config{Snapshots: src, Computer: comp, Clock: clk, FoldDelay: time.Second}, wantErr: "FoldDelay"},
		{name: "negative fold delay", cfg: view.Config{Snapshots: src, Computer: comp, Clock: clk, FoldDelay: -1}, wantErr: "FoldDelay"},
		{name: "quiet gap too long", cfg: view.Config{Snapshots: src, Computer: comp, Clock: clk, QuietGap: time.Second}, wantErr: "QuietGap"},
		{name: "negative quiet gap", cfg: view.Config{Snapshots: src, Computer: comp, Clock: clk, QuietGap: -1}, wantErr: "QuietGap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := view.New(tt.cfg)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}
