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
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
)

// served accumulates the published changes of the per-insight objects, as a
// store would: the objects every revision serves.
type served struct {
	objects [resources.NumInsightKinds]map[string]runtime.Object
	rv      uint64
}

func (s *served) apply(t *testing.T, rev *view.Revision) {
	t.Helper()
	if rev.ResourceVersion <= s.rv {
		t.Fatalf("revision %d does not follow %d", rev.ResourceVersion, s.rv)
	}
	s.rv = rev.ResourceVersion
	for k := range rev.Insights {
		if s.objects[k] == nil {
			s.objects[k] = map[string]runtime.Object{}
		}
		for _, obj := range rev.Insights[k].Changed {
			m, err := meta.Accessor(obj)
			if err != nil {
				t.Fatal(err)
			}
			if m.GetResourceVersion() != formatRV(rev.ResourceVersion) {
				t.Errorf("%s %s changed in revision %d carries resourceVersion %s", resources.InsightKind(k).Kind(), m.GetName(), rev.ResourceVersion, m.GetResourceVersion())
			}
			s.objects[k][m.GetName()] = obj
		}
		for _, name := range rev.Insights[k].Deleted {
			if _, ok := s.objects[k][name]; !ok {
				t.Errorf("%s %s deleted but never published", resources.InsightKind(k).Kind(), name)
			}
			delete(s.objects[k], name)
		}
	}
}

func formatRV(rv uint64) string { return strconv.FormatUint(rv, 10) }

// engineView is a view over a synthetic cluster computed by the real engine.
type engineView struct {
	view   *view.View
	source *viewtest.Snapshotter
	src    *insights.Sources
	rec    *recorder
	maxRV  uint64
}

func newEngineView(t testing.TB, nodes int) *engineView {
	src, now := viewtest.Cluster(nodes-3, 2, 7)
	ev := &engineView{source: viewtest.NewSnapshotter(1000), src: src, rec: &recorder{}, maxRV: 1000}
	ev.source.Set(view.Snapshot{Inputs: src, MaxResourceVersion: ev.maxRV, InitialSyncDone: true})
	v, err := view.New(view.Config{Snapshots: ev.source, Computer: insights.NewEngine(), Clock: clocktesting.NewFakeClock(now), Publish: ev.rec.publish})
	if err != nil {
		t.Fatal(err)
	}
	ev.view = v
	return ev
}

// setNode replaces node i by n, at a new input resourceVersion.
func (ev *engineView) setNode(i int, n *insights.Node) {
	ev.maxRV++
	nodes := append([]*insights.Node(nil), ev.src.Nodes...)
	if n == nil {
		nodes = append(nodes[:i], nodes[i+1:]...)
	} else {
		nodes[i] = n
	}
	src := *ev.src
	src.Nodes = nodes
	ev.src = &src
	ev.source.Set(view.Snapshot{Inputs: ev.src, MaxResourceVersion: ev.maxRV, InitialSyncDone: true})
}

// recompute computes once and returns the revision it published, nil when
// none.
func (ev *engineView) recompute(t testing.TB) *view.Revision {
	t.Helper()
	before := ev.rec.count()
	ev.view.Recompute()
	revs := ev.rec.all()
	if len(revs) == before {
		return nil
	}
	return revs[len(revs)-1]
}

func names(objs []runtime.Object) []string {
	var out []string
	for _, o := range objs {
		m, _ := meta.Accessor(o)
		out = append(out, m.GetName())
	}
	sort.Strings(out)
	return out
}

func TestInsightObjectsFollowTheCluster(t *testing.T) {
	ev := newEngineView(t, 60)
	var s served
	first := ev.recompute(t)
	if first == nil {
		t.Fatal("no first revision")
	}
	s.apply(t, first)
	if got, want := len(s.objects[resources.NodeInsights]), len(ev.src.Nodes); got != want {
		t.Fatalf("first revision has %d node objects, want %d", got, want)
	}
	if got := len(s.objects[resources.ClusterVersionInsights]); got != 1 {
		t.Errorf("first revision has %d ClusterVersion objects, want 1", got)
	}
	if got, want := len(s.objects[resources.MachineConfigPoolInsights]), len(ev.src.MachineConfigPools); got != want {
		t.Errorf("first revision has %d pool objects, want %d", got, want)
	}
	if len(s.objects[resources.ClusterOperatorInsights]) == 0 {
		t.Error("first revision has no operator objects")
	}
	before := map[string]runtime.Object{}
	for name, obj := range s.objects[resources.NodeInsights] {
		before[name] = obj
	}

	t.Run("a node with a new resourceVersion and the same state produces no event", func(t *testing.T) {
		n := ev.src.Nodes[10].DeepCopy()
		n.ResourceVersion = "999999"
		ev.setNode(10, n)
		if rev := ev.recompute(t); rev != nil {
			s.apply(t, rev)
			if c := rev.Insights[resources.NodeInsights]; len(c.Changed)+len(c.Deleted) != 0 {
				t.Errorf("node changes %v, deleted %v; want none", names(c.Changed), c.Deleted)
			}
		}
	})

	t.Run("one node changes: one node object changes", func(t *testing.T) {
		changed := ev.src.Nodes[20]
		ev.setNode(20, viewtest.Changed(changed, 1000001))
		rev := ev.recompute(t)
		if rev == nil {
			t.Fatal("no revision after a node changed state")
		}
		s.apply(t, rev)
		if got := names(rev.Insights[resources.NodeInsights].Changed); !reflect.DeepEqual(got, []string{changed.Name}) {
			t.Fatalf("changed node objects %v, want [%s]", got, changed.Name)
		}
		for name, obj := range s.objects[resources.NodeInsights] {
			if name != changed.Name && obj != before[name] {
				t.Errorf("node object %s was republished though its node did not change", name)
			}
		}
		if s.objects[resources.NodeInsights][changed.Name] == before[changed.Name] {
			t.Error("the changed node's object is the old one")
		}
	})

	t.Run("a node leaves: DELETED", func(t *testing.T) {
		gone := ev.src.Nodes[30].Name
		ev.setNode(30, nil)
		rev := ev.recompute(t)
		if rev == nil {
			t.Fatal("no revision after a node left")
		}
		s.apply(t, rev)
		if got := rev.Insights[resources.NodeInsights].Deleted; !reflect.DeepEqual(got, []string{gone}) {
			t.Fatalf("deleted node objects %v, want [%s]", got, gone)
		}
	})

	t.Run("six views of one revision agree", func(t *testing.T) {
		us := ev.view.Current().Object
		checkConsistent(t, us, &s)
	})
}

// checkConsistent checks that every insight inside the UpdateStatus is served
// as an object with the same content.
func checkConsistent(t *testing.T, us *update.UpdateStatus, s *served) {
	t.Helper()
	check := func(u update.ControlPlaneInsightUnion, uid string) {
		var k resources.InsightKind
		var name string
		var got any
		switch u.Type {
		case update.InsightType(v1alpha1.ClusterVersionStatusInsightType):
			k, name = resources.ClusterVersionInsights, u.ClusterVersionStatusInsight.Resource.Name
		case update.InsightType(v1alpha1.ClusterOperatorStatusInsightType):
			k, name = resources.ClusterOperatorInsights, u.ClusterOperatorStatusInsight.Name
		case update.InsightType(v1alpha1.MachineConfigPoolStatusInsightType):
			k, name = resources.MachineConfigPoolInsights, u.MachineConfigPoolStatusInsight.Name
		case update.InsightType(v1alpha1.NodeStatusInsightType):
			k, name = resources.NodeInsights, u.NodeStatusInsight.Name
		case update.InsightType(v1alpha1.HealthInsightType):
			k, name = resources.HealthInsights, uid
		}
		obj, ok := s.objects[k][name]
		if !ok {
			if k == resources.HealthInsights {
				return // the notice of a truncated list exists only inside UpdateStatus
			}
			t.Errorf("%s %s is in UpdateStatus but not served", k.Kind(), name)
			return
		}
		var want any
		switch o := obj.(type) {
		case *update.ClusterVersionProgressInsight:
			got, want = u.ClusterVersionStatusInsight, &o.Status.ClusterVersionStatusInsight
		case *update.ClusterOperatorProgressInsight:
			got, want = u.ClusterOperatorStatusInsight, &o.Status.ClusterOperatorStatusInsight
		case *update.MachineConfigPoolProgressInsight:
			got, want = u.MachineConfigPoolStatusInsight, &o.Status.MachineConfigPoolStatusInsight
		case *update.NodeProgressInsight:
			got, want = u.NodeStatusInsight, &o.Status.NodeStatusInsight
		case *update.HealthInsight:
			got, want = u.HealthInsight, &o.Status.HealthStatusInsight
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s differs from its insight in UpdateStatus", k.Kind(), name)
		}
	}
	n := 0
	for _, inf := range us.Status.ControlPlane.Informers {
		for _, in := range inf.Insights {
			check(in.Insight, in.UID)
			n++
		}
	}
	for _, p := range us.Status.WorkerPools {
		for _, inf := range p.Informers {
			for _, in := range inf.Insights {
				u := in.Insight
				check(update.ControlPlaneInsightUnion{Type: u.Type, MachineConfigPoolStatusInsight: u.MachineConfigPoolStatusInsight,
					NodeStatusInsight: u.NodeStatusInsight, HealthInsight: u.HealthInsight}, in.UID)
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("the UpdateStatus has no insights")
	}
}

// TestInsightObjectsHaveNoCap checks that every node of a pool larger than
// UpdateStatus's limit is served as an object, while UpdateStatus keeps its
// limit.
func TestInsightObjectsHaveNoCap(t *testing.T) {
	ev := newEngineView(t, 2100)
	rev := ev.recompute(t)
	if rev == nil {
		t.Fatal("no revision")
	}
	var s served
	s.apply(t, rev)
	if got, want := len(s.objects[resources.NodeInsights]), len(ev.src.Nodes); got != want {
		t.Errorf("%d node objects, want one per node (%d)", got, want)
	}
	inUpdateStatus := 0
	for _, p := range rev.Object.Status.WorkerPools {
		for _, inf := range p.Informers {
			if len(inf.Insights) > 1024 {
				t.Errorf("pool %s lists %d insights in UpdateStatus, over its limit of 1,024", p.Name, len(inf.Insights))
			}
			for _, in := range inf.Insights {
				if in.Insight.NodeStatusInsight != nil {
					inUpdateStatus++
				}
			}
		}
	}
	if inUpdateStatus >= len(ev.src.Nodes)-3 {
		t.Errorf("UpdateStatus lists %d worker nodes: the cluster is too small to test the cap", inUpdateStatus)
	}
	checkConsistent(t, rev.Object, &s)
	for k := range s.objects {
		for name, obj := range s.objects[k] {
			if errs := validation.Validate(obj); len(errs) > 0 {
				t.Errorf("%s %s is invalid: %v", resources.InsightKind(k).Kind(), name, errs.ToAggregate())
			}
		}
	}
}

// TestRevisionsDoNotDependOnHistory checks that the incremental work of the
// view (insight objects kept, worker pool lists fingerprinted from the
// previous list's digests) gives the revision a view computing the same
// inputs from scratch gives: the same resourceVersion and content, as two
// replicas with different histories must.
func TestRevisionsDoNotDependOnHistory(t *testing.T) {
	a := newEngineView(t, 300)
	if a.recompute(t) == nil {
		t.Fatal("no first revision")
	}
	// Changes at the start, middle and end of the pool lists, one node
	// removed, and one changed back to what it was.
	orig := a.src.Nodes[150]
	for step, i := range []int{0, 150, 299, 7, 150} {
		a.setNode(i, viewtest.Changed(a.src.Nodes[i], 5000+step))
		if a.recompute(t) == nil {
			t.Fatalf("step %d: node %d changed, no revision", step, i)
		}
	}
	a.setNode(42, nil)
	a.recompute(t)
	a.setNode(149, orig) // node 150 is at 149 now
	a.recompute(t)

	b := newEngineView(t, 300)
	b.src = a.src
	b.maxRV = a.maxRV
	b.source.Set(view.Snapshot{Inputs: b.src, MaxResourceVersion: b.maxRV, InitialSyncDone: true})
	if b.recompute(t) == nil {
		t.Fatal("no revision from scratch")
	}
	ra, rb := a.view.Current(), b.view.Current()
	if ra.ResourceVersion != rb.ResourceVersion {
		t.Errorf("resourceVersion after the history %d, from scratch %d", ra.ResourceVersion, rb.ResourceVersion)
	}
	ja, _ := json.Marshal(ra.Object.Status)
	jb, _ := json.Marshal(rb.Object.Status)
	if string(ja) != string(jb) {
		t.Errorf("status after the history differs from the one from scratch")
	}
}
