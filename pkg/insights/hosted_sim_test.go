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

package insights_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
	"github.com/update-status/apiserver/pkg/hypershift"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// storeSink keeps the current state of every object the hosted simulator
// writes, as an API server would: resource versions, UIDs and creation
// times on create, a deletionTimestamp while finalizers hold a deleted
// object.
type storeSink struct {
	rv      int
	objects map[string]*unstructured.Unstructured
}

func objectKey(u *unstructured.Unstructured) string {
	return u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
}

func (s *storeSink) Write(_ context.Context, b *simulator.Batch) error {
	for _, ch := range b.Changes {
		u, ok := ch.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		key := objectKey(u)
		old := s.objects[key]
		s.rv++
		u.SetResourceVersion(strconv.Itoa(s.rv))
		if old == nil {
			u.SetUID(types.UID(fmt.Sprintf("uid-%d", s.rv)))
			u.SetCreationTimestamp(metav1.NewTime(b.Time))
		} else {
			u.SetUID(old.GetUID())
			u.SetCreationTimestamp(old.GetCreationTimestamp())
			if u.GetDeletionTimestamp() == nil {
				u.SetDeletionTimestamp(old.GetDeletionTimestamp())
			}
		}
		if ch.Delete {
			u.SetDeletionTimestamp(&metav1.Time{Time: b.Time})
		}
		if u.GetDeletionTimestamp() != nil && len(u.GetFinalizers()) == 0 {
			delete(s.objects, key)
			continue
		}
		s.objects[key] = u.DeepCopy()
	}
	return nil
}

// sources reads the hosted cluster ns/name from the store as the server's
// informers would hand it to the engine.
func (s *storeSink) sources(t testing.TB, ns, name string) *insights.HostedSources {
	t.Helper()
	cpNS := hypershift.ControlPlaneNamespace(ns, name)
	src := &insights.HostedSources{}
	keys := make([]string, 0, len(s.objects))
	for k := range s.objects {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		u := s.objects[k].DeepCopy()
		switch {
		case u.GetKind() == "HostedCluster" && u.GetNamespace() == ns && u.GetName() == name:
			src.HostedCluster = mustConvert(t, hypershift.HostedClusterFrom, u)
		case u.GetKind() == "NodePool" && u.GetNamespace() == ns:
			if np := mustConvert(t, hypershift.NodePoolFrom, u); np.Spec.ClusterName == name {
				src.NodePools = append(src.NodePools, np)
			}
		case u.GetNamespace() != cpNS:
		case u.GetKind() == "HostedControlPlane":
			src.HostedControlPlane = mustConvert(t, hypershift.HostedControlPlaneFrom, u)
		case u.GetKind() == "ControlPlaneComponent":
			src.Components = append(src.Components, mustConvert(t, hypershift.ControlPlaneComponentFrom, u))
		case u.GetKind() == "Machine":
			src.Machines = append(src.Machines, mustConvert(t, hypershift.MachineFrom, u))
		case u.GetKind() == "MachineSet":
			src.MachineSets = append(src.MachineSets, mustConvert(t, hypershift.MachineSetFrom, u))
		case u.GetKind() == "MachineDeployment":
			src.MachineDeployments = append(src.MachineDeployments, mustConvert(t, hypershift.MachineDeploymentFrom, u))
		}
	}
	return src
}

// mustConvert returns u converted by from, failing the test when it cannot
// be.
func mustConvert[T any](t testing.TB, from func(*unstructured.Unstructured) (T, error), u *unstructured.Unstructured) T {
	t.Helper()
	v, err := from(u)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// simRun is what the engine concluded about each simulated hosted cluster
// while the simulator updated it.
type simRun struct {
	// seen[cluster][node] are the Updating reasons each node showed, in
	// order.
	seen map[string]map[string][]string
	// health[cluster] are the kinds of the Health insights ever shown.
	health map[string]map[v1alpha1.HealthKind]bool
	// last[cluster] is the last result.
	last map[string]insights.Result
}

// simStart is when the simulated hosted clusters are created.
var simStart = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// startUpdate creates the simulated hosted clusters in a storeSink, on a
// fake clock at simStart, and requests their update.
func startUpdate(tb testing.TB, clusters []hosted.ClusterOptions) (*hosted.Simulator, *clocktesting.FakeClock, *storeSink) {
	tb.Helper()
	fc := clocktesting.NewFakeClock(simStart)
	sink := &storeSink{objects: map[string]*unstructured.Unstructured{}}
	sim, err := hosted.New(hosted.Options{Clusters: clusters, Clock: fc, Sink: sink})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	if err := sim.Create(ctx); err != nil {
		tb.Fatal(err)
	}
	if err := sim.StartUpdate(ctx); err != nil {
		tb.Fatal(err)
	}
	return sim, fc, sink
}

// simulate runs the hosted simulator's update of clusters on a virtual
// clock and evaluates each hosted cluster, with one Engine each, after
// every step and at every NextChange between steps; every object must be
// valid. When the update stalls (a fault), it evaluates once more an hour
// later and returns.
func simulate(t *testing.T, clusters []hosted.ClusterOptions) *simRun {
	t.Helper()
	sim, fc, sink := startUpdate(t, clusters)
	ctx := context.Background()
	engines := map[string]*insights.Engine{}
	run := &simRun{seen: map[string]map[string][]string{}, health: map[string]map[v1alpha1.HealthKind]bool{}}
	evaluate := func() {
		run.last = map[string]insights.Result{}
		for _, c := range clusters {
			e := engines[c.Name]
			if e == nil {
				e = insights.NewEngine()
				engines[c.Name] = e
			}
			res := e.ComputeHosted(sink.sources(t, "clusters", c.Name), fc.Now())
			obj := &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: resources.UpdateStatusName}, Status: res.Status}
			if errs := validation.ValidateUpdateStatus(obj); len(errs) > 0 {
				t.Fatalf("%s at %s: invalid object: %v", c.Name, fc.Now().Sub(simStart), errs.ToAggregate())
			}
			run.last[c.Name] = res
			if run.seen[c.Name] == nil {
				run.seen[c.Name], run.health[c.Name] = map[string][]string{}, map[v1alpha1.HealthKind]bool{}
			}
			for _, in := range res.Insights {
				switch {
				case in.Node != nil:
					r := ""
					for _, cond := range in.Node.Conditions {
						if cond.Type == string(v1alpha1.NodeStatusInsightUpdating) {
							r = cond.Reason
						}
					}
					if p := run.seen[c.Name][in.Node.Name]; len(p) == 0 || p[len(p)-1] != r {
						run.seen[c.Name][in.Node.Name] = append(p, r)
					}
				case in.Health != nil:
					run.health[c.Name][conventions.KindOf(in.UID)] = true
				}
			}
		}
	}
	evaluate()
	for i := 0; ; i++ {
		if i > 2000 {
			t.Fatal("the simulated updates did not finish")
		}
		res, err := sim.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		evaluate()
		if res.Done {
			return run
		}
		if res.Next.IsZero() {
			fc.SetTime(fc.Now().Add(time.Hour))
			evaluate()
			return run
		}
		// Evaluate between transitions too, where time alone changes the
		// answer (a drain passing its timeout).
		for _, r := range run.last {
			if n := r.NextChange; !n.IsZero() && n.Before(res.Next) {
				fc.SetTime(n)
				evaluate()
				break
			}
		}
		if res.Next.After(fc.Now()) {
			fc.SetTime(res.Next)
		}
	}
}

// TestComputeHostedFollowsSimulator evaluates the simulator's updates: each
// node passes through the phases of its upgrade type, a held drain yields
// its health insight, and each update ends Completed.
func TestComputeHostedFollowsSimulator(t *testing.T) {
	clusters := []hosted.ClusterOptions{
		{Name: "replace", UpgradeType: hyperv1.UpgradeTypeReplace},
		{Name: "inplace", UpgradeType: hyperv1.UpgradeTypeInPlace},
		{Name: "held", UpgradeType: hyperv1.UpgradeTypeReplace, Faults: []hosted.Fault{hosted.FaultHeldDrain}},
	}
	run := simulate(t, clusters)
	seen, health, last := run.seen, run.health, run.last
	// follows reports whether p passes through want in that order.
	follows := func(p []string, want ...v1alpha1.NodeUpdatingReason) bool {
		for _, r := range p {
			if len(want) > 0 && r == string(want[0]) {
				want = want[1:]
			}
		}
		return len(want) == 0
	}
	for _, c := range clusters {
		var replaced, replacing, inPlace int
		for node, p := range seen[c.Name] {
			t.Logf("%s: node %s: %v", c.Name, node, p)
			switch {
			case c.UpgradeType == hyperv1.UpgradeTypeInPlace && follows(p, v1alpha1.NodeUpdatePending, v1alpha1.NodeRebooting, v1alpha1.NodeCompleted) &&
				p[len(p)-1] == string(v1alpha1.NodeCompleted):
				inPlace++
			case c.UpgradeType == hyperv1.UpgradeTypeReplace && follows(p, v1alpha1.NodeUpdatePending, v1alpha1.NodeDraining):
				replaced++
			case c.UpgradeType == hyperv1.UpgradeTypeReplace && follows(p, v1alpha1.NodeUpdating, v1alpha1.NodeCompleted) &&
				p[len(p)-1] == string(v1alpha1.NodeCompleted):
				replacing++
			default:
				t.Errorf("%s: node %s went through %v", c.Name, node, p)
			}
		}
		if c.UpgradeType == hyperv1.UpgradeTypeInPlace && inPlace != 3 || c.UpgradeType == hyperv1.UpgradeTypeReplace && (replaced != 3 || replacing != 3) {
			t.Errorf("%s: %d nodes updated in place, %d replaced, %d replacing", c.Name, inPlace, replaced, replacing)
		}
		if got := health[c.Name][v1alpha1.HealthMachineDrain]; got != slices.Contains(c.Faults, hosted.FaultHeldDrain) {
			t.Errorf("%s: drain insight seen %v", c.Name, got)
		}
		res := last[c.Name]
		var cv *v1alpha1.ClusterVersionStatusInsight
		var pool *v1alpha1.MachineConfigPoolStatusInsight
		for _, in := range res.Insights {
			if in.ClusterVersion != nil {
				cv = in.ClusterVersion
			}
			if in.MachineConfigPool != nil {
				pool = in.MachineConfigPool
			}
		}
		if cv == nil || cv.Assessment != v1alpha1.ControlPlaneAssessmentCompleted || cv.Completion != 100 {
			t.Errorf("%s: control plane at the end: %+v", c.Name, cv)
		}
		if pool == nil || pool.Assessment != v1alpha1.PoolCompleted {
			t.Errorf("%s: pool at the end: %+v", c.Name, pool)
		}
	}
}

// TestComputeHostedSimulatorFaults: each fault that stalls the simulated
// update yields its health insight.
func TestComputeHostedSimulatorFaults(t *testing.T) {
	for _, tt := range []struct {
		fault   hosted.Fault
		upgrade hyperv1.UpgradeType
		want    v1alpha1.HealthKind
	}{
		{hosted.FaultStuckComponent, hyperv1.UpgradeTypeInPlace, v1alpha1.HealthComponentRollout},
		{hosted.FaultNoProvision, hyperv1.UpgradeTypeReplace, v1alpha1.HealthMachineProvision},
		{hosted.FaultBadImage, hyperv1.UpgradeTypeReplace, v1alpha1.HealthHostedReleaseImage},
	} {
		t.Run(string(tt.fault), func(t *testing.T) {
			run := simulate(t, []hosted.ClusterOptions{{Name: "faulty", UpgradeType: tt.upgrade, Faults: []hosted.Fault{tt.fault}}})
			var kinds []v1alpha1.HealthKind
			for _, in := range run.last["faulty"].Insights {
				if in.Health != nil {
					kinds = append(kinds, conventions.KindOf(in.UID))
				}
			}
			if !slices.Contains(kinds, tt.want) {
				t.Errorf("health insights %v, want %s among them", kinds, tt.want)
			}
		})
	}
}

// BenchmarkComputeHosted computes one simulated hosted cluster (2 NodePools
// of 25 Machines and its control plane's components) in the middle of its
// update, one Machine changed before each computation: by the Engine that
// computed it before (memo) or by a new one (fresh). retained reports the
// heap an Engine keeps between two computations of that hosted cluster.
func BenchmarkComputeHosted(b *testing.B) {
	sim, fc, sink := startUpdate(b, []hosted.ClusterOptions{{Name: "bench", UpgradeType: hyperv1.UpgradeTypeReplace, Nodes: 25, NodePools: 2}})
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		res, err := sim.Step(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if res.Next.After(fc.Now()) {
			fc.SetTime(res.Next)
		}
	}
	src := sink.sources(b, "clusters", "bench")
	if len(src.Machines) < 50 || len(src.Components) == 0 {
		b.Fatalf("%d Machines, %d components", len(src.Machines), len(src.Components))
	}
	now := fc.Now()
	// change replaces a Machine with a copy at a new resourceVersion, as an
	// informer hands a changed object.
	change := func(i int) {
		k := i % len(src.Machines)
		m := src.Machines[k].DeepCopy()
		m.ResourceVersion = strconv.Itoa(1_000_000 + i)
		src.Machines[k] = m
	}
	b.Run("memo", func(b *testing.B) {
		e := insights.NewEngine()
		e.ComputeHosted(src, now)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			change(i)
			e.ComputeHosted(src, now)
		}
	})
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			change(i)
			insights.NewEngine().ComputeHosted(src, now)
		}
	})
	b.Run("retained", func(b *testing.B) {
		const n = 100
		for b.Loop() {
			engines := make([]*insights.Engine, n)
			results := make([]insights.Result, n)
			var before, both, result runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := range engines {
				engines[i] = insights.NewEngine()
				results[i] = engines[i].ComputeHosted(src, now)
			}
			runtime.GC()
			runtime.ReadMemStats(&both)
			runtime.KeepAlive(engines)
			clear(engines)
			runtime.GC()
			runtime.ReadMemStats(&result)
			runtime.KeepAlive(results)
			b.ReportMetric(float64(both.HeapAlloc-before.HeapAlloc)/n, "B/engine+result")
			b.ReportMetric(float64(result.HeapAlloc-before.HeapAlloc)/n, "B/result")
		}
	})
}
