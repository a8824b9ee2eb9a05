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

package hosted

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"
	clocktesting "k8s.io/utils/clock/testing"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/install"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/hypershift"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
	"github.com/update-status/apiserver/pkg/sources"
)

var scheme = install.NewScheme()

// fakeSource holds the snapshots a test sets.
type fakeSource struct {
	mu        sync.Mutex
	snaps     map[string]sources.HostedSnapshot
	listeners []func(string)
}

func (s *fakeSource) AddListener(f func(string)) { s.listeners = append(s.listeners, f) }
func (s *fakeSource) InitialSyncDone() bool      { return true }

func (s *fakeSource) HostedClusterKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := slices.Collect(maps.Keys(s.snaps))
	sort.Strings(keys)
	return keys
}

func (s *fakeSource) Snapshot(key string) sources.HostedSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, ok := s.snaps[key]
	if !ok {
		return sources.HostedSnapshot{Key: key, Sources: &insights.HostedSources{}, InitialSyncDone: true}
	}
	return snap
}

func (s *fakeSource) set(snap sources.HostedSnapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snaps[snap.Key] = snap
}

func (s *fakeSource) remove(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.snaps, key)
}

// hostedSnapshot is the snapshot of the hosted cluster clusters/name with
// a NodePool named pool and the Machines machines, at resourceVersion rv.
func hostedSnapshot(name string, rv uint64, pool string, machines ...string) sources.HostedSnapshot {
	src := &insights.HostedSources{
		HostedCluster: &hypershift.HostedCluster{HostedCluster: hyperv1.HostedCluster{ObjectMeta: metav1.ObjectMeta{
			Namespace: "clusters", Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.Unix(1000, 0),
		}}},
		NodePools: []*hypershift.NodePool{{NodePool: hyperv1.NodePool{ObjectMeta: metav1.ObjectMeta{Namespace: "clusters", Name: pool}}}},
	}
	for _, m := range machines {
		src.Machines = append(src.Machines, &capiv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: "clusters-" + name, Name: m}})
	}
	return sources.HostedSnapshot{Key: "clusters/" + name, Sources: src, Exists: true, MaxResourceVersion: rv, InitialSyncDone: true}
}

// countingComputer gives one Node insight per Machine and one Health
// insight, counts its computations by hosted cluster, and panics for the
// hosted cluster named panicOn.
type countingComputer struct {
	mu      *sync.Mutex
	counts  map[string]int
	panicOn string
}

func (c countingComputer) ComputeHosted(src *insights.HostedSources, _ time.Time) insights.Result {
	name := src.HostedCluster.Name
	c.mu.Lock()
	c.counts[name]++
	c.mu.Unlock()
	if name == c.panicOn {
		panic("boom")
	}
	pool := src.NodePools[0].Name
	var res insights.Result
	for _, m := range src.Machines {
		res.Insights = append(res.Insights, &insights.Insight{UID: "n-" + m.Name, Scope: v1alpha1.WorkerPoolScope, Pool: pool, Informer: "hosted",
			Node: &v1alpha1.NodeStatusInsight{Name: m.Name, Resource: v1alpha1.ResourceRef{Resource: "machines", Name: m.Name}}})
	}
	res.Insights = append(res.Insights, &insights.Insight{UID: "h-" + name, Scope: v1alpha1.ControlPlaneScope, Informer: "hosted",
		Health: &v1alpha1.HealthStatusInsight{Impact: v1alpha1.InsightImpact{Level: v1alpha1.WarningImpactLevel}}})
	return res
}

type fixture struct {
	source *fakeSource
	pub    *Publisher
	mu     sync.Mutex
	counts map[string]int
}

func newFixture(t *testing.T, panicOn string, snaps ...sources.HostedSnapshot) *fixture {
	t.Helper()
	f := &fixture{source: &fakeSource{snaps: map[string]sources.HostedSnapshot{}}, counts: map[string]int{}}
	for _, s := range snaps {
		f.source.set(s)
	}
	pub, err := NewPublisher(f.source, scheme, Options{
		Clock:     clocktesting.NewFakeClock(time.Unix(5000, 0)),
		FoldDelay: testFoldDelay, QuietGap: testQuietGap,
		NewComputer: func() Computer { return countingComputer{mu: &f.mu, counts: f.counts, panicOn: panicOn} },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.pub = pub
	return f
}

func (f *fixture) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[name]
}

// list returns the objects of store by "namespace/name", with their
// resourceVersions.
func list(t *testing.T, store *virtualstore.Store, newList runtime.Object) map[string]runtime.Object {
	t.Helper()
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{})
	if err := store.GetList(ctx, "/", storage.ListOptions{Predicate: storage.Everything, Recursive: true}, newList); err != nil {
		t.Fatal(err)
	}
	items, err := meta.ExtractList(newList)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]runtime.Object{}
	for _, item := range items {
		m := item.(metav1.Object)
		out[m.GetNamespace()+"/"+m.GetName()] = item
	}
	return out
}

func rvOf(obj runtime.Object) uint64 {
	rv, _ := strconv.ParseUint(obj.(metav1.Object).GetResourceVersion(), 10, 64)
	return rv
}

func sortedKeys[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	sort.Strings(keys)
	return keys
}

func TestPublishRecomputesOnlyTheChangedHostedCluster(t *testing.T) {
	f := newFixture(t, "", hostedSnapshot("a", 10, "a-workers", "m1"), hostedSnapshot("b", 20, "b-workers", "m1", "m2"))
	nodes := f.pub.Insights[resources.NodeInsights]
	f.pub.Publish(nil, true)

	statuses := list(t, f.pub.Status, &update.HostedClusterUpdateStatusList{})
	if got, want := sortedKeys(statuses), []string{"clusters/a", "clusters/b"}; !slices.Equal(got, want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	first := list(t, nodes, &update.HostedNodeProgressInsightList{})
	if got, want := sortedKeys(first), []string{"clusters/a.m1", "clusters/b.m1", "clusters/b.m2"}; !slices.Equal(got, want) {
		t.Fatalf("node objects %v, want %v", got, want)
	}
	n := first["clusters/b.m2"].(*update.HostedNodeProgressInsight)
	if n.Labels[v1alpha1.LabelHostedCluster] != "b" || n.Labels[v1alpha1.LabelPool] != "b-workers" || n.Status.Name != "m2" || n.UID == "" {
		t.Errorf("node object b.m2: labels %v, status name %q, uid %q", n.Labels, n.Status.Name, n.UID)
	}
	// Objects of a hosted cluster with the same labels share one map.
	b := f.pub.clusters["clusters/b"].objects
	m1, m2 := b[objectKey{resources.NodeInsights, "b.m1"}], b[objectKey{resources.NodeInsights, "b.m2"}]
	if m1 == nil || m2 == nil {
		t.Fatalf("b's node objects: %v", b)
	}
	if l1, l2 := m1.(metav1.Object).GetLabels(), m2.(metav1.Object).GetLabels(); reflect.ValueOf(l1).UnsafePointer() != reflect.ValueOf(l2).UnsafePointer() {
		t.Errorf("b.m1 and b.m2 have the labels %v and %v in two maps", l1, l2)
	}
	if rv := rvOf(n); rv != 20_000_000 {
		t.Errorf("first revision %d, want the highest input resourceVersion times 1e6", rv)
	}
	if c := list(t, f.pub.Insights[resources.HealthInsights], &update.HostedHealthInsightList{}); len(c) != 2 {
		t.Errorf("health objects %v, want one per hosted cluster", sortedKeys(c))
	}
	if f.count("a") != 1 || f.count("b") != 1 {
		t.Fatalf("computations a %d, b %d; want 1 each", f.count("a"), f.count("b"))
	}

	// a gains a Machine: only a is computed again, b's objects keep their
	// resourceVersions, a's new object gets a larger one.
	f.source.set(hostedSnapshot("a", 11, "a-workers", "m1", "m3"))
	f.pub.Publish(map[string]bool{"clusters/a": true}, false)
	if f.count("a") != 2 || f.count("b") != 1 {
		t.Errorf("computations a %d, b %d; want 2 and 1", f.count("a"), f.count("b"))
	}
	second := list(t, nodes, &update.HostedNodeProgressInsightList{})
	for _, key := range []string{"clusters/a.m1", "clusters/b.m1", "clusters/b.m2"} {
		if rvOf(second[key]) != rvOf(first[key]) {
			t.Errorf("%s: resourceVersion %d, was %d: it did not change", key, rvOf(second[key]), rvOf(first[key]))
		}
	}
	added, ok := second["clusters/a.m3"]
	if !ok || rvOf(added) <= 20_000_000 {
		t.Fatalf("a.m3: %v; want a resourceVersion past the first revision", added)
	}
	// a's inputs are older than b's: the revision is the previous one plus one.
	if rvOf(added) != 20_000_001 {
		t.Errorf("second revision %d, want 20000001", rvOf(added))
	}

	// Nothing changed: no revision.
	rv, _ := f.pub.Status.Current()
	f.pub.Publish(map[string]bool{"clusters/a": true}, false)
	if again, _ := f.pub.Status.Current(); again != rv {
		t.Errorf("an unchanged recomputation published revision %d after %d", again, rv)
	}

	// b's HostedCluster is deleted: its objects go, a's stay.
	f.source.remove("clusters/b")
	f.pub.Publish(map[string]bool{"clusters/b": true}, false)
	if got, want := sortedKeys(list(t, nodes, &update.HostedNodeProgressInsightList{})), []string{"clusters/a.m1", "clusters/a.m3"}; !slices.Equal(got, want) {
		t.Errorf("node objects after the deletion %v, want %v", got, want)
	}
	if got := sortedKeys(list(t, f.pub.Status, &update.HostedClusterUpdateStatusList{})); !slices.Equal(got, []string{"clusters/a"}) {
		t.Errorf("statuses after the deletion %v", got)
	}
	if after, _ := f.pub.Status.Current(); after <= rv {
		t.Errorf("the deletion's revision %d does not follow %d", after, rv)
	}
}

// TestPublishSurvivesBadHostedClusters: a hosted cluster whose rules panic
// and one whose HostedCluster cannot be read get a condition saying so,
// and the others are served.
func TestPublishSurvivesBadHostedClusters(t *testing.T) {
	malformed := sources.HostedSnapshot{Key: "clusters/bad", Sources: &insights.HostedSources{}, Exists: true, InitialSyncDone: true,
		Malformed: []string{"HostedCluster clusters/bad: spec.release: expected a map"}}
	good := hostedSnapshot("good", 5, "good-workers", "m1")
	good.Malformed = []string{"Machine clusters-good/x: status.phase: expected a string"}
	f := newFixture(t, "boom", hostedSnapshot("boom", 3, "boom-workers", "m1"), good, malformed)
	f.pub.Publish(nil, true)
	statuses := list(t, f.pub.Status, &update.HostedClusterUpdateStatusList{})
	tests := []struct {
		key        string
		wantStatus metav1.ConditionStatus
		wantReason string
		wantInMsg  string
	}{
		{"clusters/boom", metav1.ConditionUnknown, v1alpha1.AvailableReasonCannotDetermine, "the rules panicked: boom"},
		{"clusters/bad", metav1.ConditionUnknown, v1alpha1.AvailableReasonCannotDetermine, "the HostedCluster cannot be read"},
		{"clusters/good", metav1.ConditionTrue, v1alpha1.AvailableReasonAsExpected, "Objects left out because they cannot be read (1): Machine clusters-good/x"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			obj, ok := statuses[tt.key].(*update.HostedClusterUpdateStatus)
			if !ok {
				t.Fatalf("no HostedClusterUpdateStatus %s among %v", tt.key, sortedKeys(statuses))
			}
			if len(obj.Status.Conditions) != 1 {
				t.Fatalf("conditions %v", obj.Status.Conditions)
			}
			c := obj.Status.Conditions[0]
			if c.Type != v1alpha1.UpdateStatusAvailable || c.Status != tt.wantStatus || c.Reason != tt.wantReason || !strings.Contains(c.Message, tt.wantInMsg) {
				t.Errorf("condition %+v; want %s/%s with %q", c, tt.wantStatus, tt.wantReason, tt.wantInMsg)
			}
		})
	}
	if got := sortedKeys(list(t, f.pub.Insights[resources.NodeInsights], &update.HostedNodeProgressInsightList{})); !slices.Equal(got, []string{"clusters/good.m1"}) {
		t.Errorf("node objects %v, want only the good hosted cluster's", got)
	}
}

// run runs the publisher until the test ends, once hosted clusters a and b
// are computed, and returns its clock.
func (f *fixture) run(t *testing.T) *clocktesting.FakeClock {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.pub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	testio.Eventually(t, "the first computation", func() bool { return f.count("a") == 1 && f.count("b") == 1 })
	return f.pub.clock.(*clocktesting.FakeClock)
}

// change gives hosted cluster name the Machines m1 and m2 at resourceVersion
// rv, and tells the listeners.
func (f *fixture) change(name string, rv uint64) {
	f.source.set(hostedSnapshot(name, rv, name+"-workers", "m1", "m2"))
	for _, l := range f.source.listeners {
		l("clusters/" + name)
	}
}

// The fold rule of the fixture's publisher.
const testFoldDelay, testQuietGap = 100 * time.Millisecond, 35 * time.Millisecond

// TestRunFollowsChanges: the listener's keys reach Run, which recomputes
// the hosted cluster named and only it: an isolated change at once, without
// waiting for the fold window; a burst too.
func TestRunFollowsChanges(t *testing.T) {
	f := newFixture(t, "", hostedSnapshot("a", 1, "a-workers", "m1"), hostedSnapshot("b", 2, "b-workers", "m1"))
	clk := f.run(t)
	change := f.change

	// Isolated, a window after the first computation: at once, the clock
	// standing still.
	clk.Step(time.Second)
	change("b", 3)
	testio.Eventually(t, "b computed again at once", func() bool { return f.count("b") == 2 })
	if f.count("a") != 1 {
		t.Errorf("a computed %d times, want once", f.count("a"))
	}

	// A burst of changes 1 ms apart, of both hosted clusters: each is
	// computed again (the rule's timing is view.Fold's, TestFold).
	for i, name := range []string{"b", "a", "b", "a"} {
		clk.Step(time.Millisecond)
		change(name, uint64(4+i))
	}
	testio.Eventually(t, "the burst computed", func() bool {
		clk.Step(testFoldDelay)
		return f.count("a") >= 2 && f.count("b") >= 3
	})
}

// TestRunDropsIdleComputers: a hosted cluster keeps its Computer between
// computations until it has not been computed for computerIdle; then Run
// drops it, and the next computation has a new one.
func TestRunDropsIdleComputers(t *testing.T) {
	f := newFixture(t, "", hostedSnapshot("a", 1, "a-workers", "m1"), hostedSnapshot("b", 2, "b-workers", "m1"))
	var made atomic.Int32
	newComputer := f.pub.newComputer
	f.pub.newComputer = func() Computer { made.Add(1); return newComputer() }
	clk := f.run(t)
	change := func(rv uint64) {
		clk.Step(time.Second) // isolated: computed at once
		f.change("b", rv)
	}
	change(3)
	testio.Eventually(t, "b computed again", func() bool { return f.count("b") == 2 })
	if got := made.Load(); got != 2 {
		t.Fatalf("%d Computers made, want 2: b's kept", got)
	}
	// Idle for computerIdle after b's last computation (a's ended a second
	// earlier): Run wakes to drop both Computers and computes nothing; the
	// next change of b, even if Run takes it before that wake, gets a new
	// one.
	clk.Step(computerIdle)
	testio.Eventually(t, "Run idle without a timer", func() bool { return !clk.HasWaiters() })
	if f.count("a") != 1 || f.count("b") != 2 {
		t.Errorf("computed a %d and b %d times, want 1 and 2", f.count("a"), f.count("b"))
	}
	change(10)
	testio.Eventually(t, "b computed again", func() bool { return f.count("b") == 3 })
	if got := made.Load(); got != 3 {
		t.Errorf("%d Computers made, want 3: b's was dropped", got)
	}
}

// withControlPlane adds a control plane to the status of its Computer's
// results.
type withControlPlane struct{ Computer }

func (c withControlPlane) ComputeHosted(src *insights.HostedSources, now time.Time) insights.Result {
	res := c.Computer.ComputeHosted(src, now)
	res.Status.ControlPlane = &v1alpha1.ControlPlane{Conditions: []metav1.Condition{{Type: "Updating", Status: metav1.ConditionFalse, Reason: "Completed"}}}
	return res
}

// panicking is a Computer whose rules panic.
type panicking struct{}

func (panicking) ComputeHosted(*insights.HostedSources, time.Time) insights.Result { panic("boom") }

// TestPublishKeepsObjectsWhenTheRulesPanic: a hosted cluster whose rules
// panic after a good computation keeps the objects of that computation, as
// published, and its status says why.
func TestPublishKeepsObjectsWhenTheRulesPanic(t *testing.T) {
	f := newFixture(t, "", hostedSnapshot("a", 1, "a-workers", "m1", "m2"))
	f.pub.newComputer = func() Computer { return withControlPlane{countingComputer{mu: &f.mu, counts: f.counts}} }
	f.pub.Publish(nil, true)
	nodes := list(t, f.pub.Insights[resources.NodeInsights], &update.HostedNodeProgressInsightList{})
	before := list(t, f.pub.Status, &update.HostedClusterUpdateStatusList{})["clusters/a"].(*update.HostedClusterUpdateStatus)

	f.pub.clusters["clusters/a"].computer = panicking{}
	f.source.set(hostedSnapshot("a", 2, "a-workers", "m1", "m2"))
	f.pub.Publish(map[string]bool{"clusters/a": true}, false)
	after := list(t, f.pub.Insights[resources.NodeInsights], &update.HostedNodeProgressInsightList{})
	if !reflect.DeepEqual(after, nodes) {
		t.Errorf("node objects %v, want them as published before: %v", sortedKeys(after), sortedKeys(nodes))
	}
	st := list(t, f.pub.Status, &update.HostedClusterUpdateStatusList{})["clusters/a"].(*update.HostedClusterUpdateStatus)
	if c := st.Status.Conditions; len(c) != 1 || c[0].Status != metav1.ConditionUnknown || !strings.Contains(c[0].Message, "the rules panicked: boom") {
		t.Errorf("conditions %+v, want Unknown: the rules panicked", c)
	}
	if c := before.Status.Conditions; len(c) != 1 || c[0].Status != metav1.ConditionTrue {
		t.Errorf("the status published before changed: conditions %+v", c)
	}
	st.Status.Conditions, before.Status.Conditions = nil, nil
	if before.Status.ControlPlane == nil || !reflect.DeepEqual(st.Status, before.Status) {
		t.Errorf("status %+v, want the last good computation's %+v", st.Status, before.Status)
	}
}

// timedComputer gives an empty result that changes by time at next.
type timedComputer struct{ next time.Time }

func (c timedComputer) ComputeHosted(*insights.HostedSources, time.Time) insights.Result {
	return insights.Result{NextChange: c.next}
}

// TestPublishUnreadableAwaitsNoTime: once its HostedCluster cannot be read,
// a hosted cluster whose last result was to change by time is not due for
// that change (Run would wake at once for a moment already past).
func TestPublishUnreadableAwaitsNoTime(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(5000, 0))
	source := &fakeSource{snaps: map[string]sources.HostedSnapshot{}}
	source.set(hostedSnapshot("a", 1, "a-workers", "m1"))
	pub, err := NewPublisher(source, scheme, Options{Clock: clk, NewComputer: func() Computer { return timedComputer{next: clk.Now().Add(time.Minute)} }})
	if err != nil {
		t.Fatal(err)
	}
	pub.Publish(nil, true)
	if got, want := pub.nextChange(), clk.Now().Add(time.Minute); !got.Equal(want) {
		t.Fatalf("next change %v, want %v", got, want)
	}
	source.set(sources.HostedSnapshot{Key: "clusters/a", Sources: &insights.HostedSources{}, Exists: true, InitialSyncDone: true,
		Malformed: []string{"HostedCluster clusters/a: spec.release: expected a map"}})
	pub.Publish(map[string]bool{"clusters/a": true}, false)
	if got := pub.clusters["clusters/a"].nextChange; !got.IsZero() {
		t.Errorf("next change %v once the HostedCluster cannot be read, want none", got)
	}
}

// TestStatuses: the metrics read every published HostedClusterUpdateStatus,
// and nothing before the first publication.
func TestStatuses(t *testing.T) {
	f := newFixture(t, "", hostedSnapshot("a", 10, "a-workers", "m1"), hostedSnapshot("b", 20, "b-workers", "m1"))
	if got := f.pub.Statuses(); len(got) != 0 {
		t.Fatalf("before publishing: %d statuses, want none", len(got))
	}
	f.pub.Publish(nil, true)
	var got []string
	for _, s := range f.pub.Statuses() {
		got = append(got, s.Namespace+"/"+s.Name)
	}
	slices.Sort(got)
	if want := []string{"clusters/a", "clusters/b"}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}
