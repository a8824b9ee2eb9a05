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

package sources

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	mcfgfake "github.com/openshift/client-go/machineconfiguration/clientset/versioned/fake"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/insights"
)

// fakeDiscovery serves the resources the test sets, safely while the poll
// reads them.
type fakeDiscovery struct {
	mu     sync.Mutex
	served map[string][]string // group/version -> resources
	fail   bool
}

func newFakeDiscovery() *fakeDiscovery {
	return &fakeDiscovery{served: map[string][]string{
		"config.openshift.io/v1":               {"clusterversions", "clusteroperators"},
		"machineconfiguration.openshift.io/v1": {"machineconfigpools", "machineconfigs"},
	}}
}

func (d *fakeDiscovery) set(gv string, resources ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if resources == nil {
		delete(d.served, gv)
		return
	}
	d.served[gv] = resources
}

func (d *fakeDiscovery) setFail(fail bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fail = fail
}

func (d *fakeDiscovery) ServerResourcesForGroupVersion(gv string) (*metav1.APIResourceList, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail {
		return nil, apierrors.NewServiceUnavailable("discovery is down")
	}
	resources, ok := d.served[gv]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{}, gv)
	}
	list := &metav1.APIResourceList{GroupVersion: gv}
	for _, r := range resources {
		list.APIResources = append(list.APIResources, metav1.APIResource{Name: r})
	}
	return list, nil
}

func (d *fakeDiscovery) ServerResourcesForGroupVersionWithContext(_ context.Context, gv string) (*metav1.APIResourceList, error) {
	return d.ServerResourcesForGroupVersion(gv)
}

func (d *fakeDiscovery) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	return nil, nil, nil
}

func (d *fakeDiscovery) ServerGroupsAndResourcesWithContext(context.Context) ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	return nil, nil, nil
}

func (d *fakeDiscovery) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	return nil, nil
}

func (d *fakeDiscovery) ServerPreferredResourcesWithContext(context.Context) ([]*metav1.APIResourceList, error) {
	return nil, nil
}

func (d *fakeDiscovery) ServerPreferredNamespacedResources() ([]*metav1.APIResourceList, error) {
	return nil, nil
}

func (d *fakeDiscovery) ServerPreferredNamespacedResourcesWithContext(context.Context) ([]*metav1.APIResourceList, error) {
	return nil, nil
}

func objMeta(name, rv string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, ResourceVersion: rv}
}

type fixture struct {
	set       *Set
	clock     *clocktesting.FakeClock
	discovery *fakeDiscovery
	kube      *kubefake.Clientset
	config    *configfake.Clientset
	mcfg      *mcfgfake.Clientset
	notified  atomic.Int64
	changed   sync.Map     // "source object" of every notification
	polls     atomic.Int64 // discovery polls run to their end
	ticks     int64        // discovery intervals stepped
	cancel    context.CancelFunc
}

// newFixture returns sources over fake clients holding a small cluster.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	// The OpenShift fake clientsets do not declare that they lack WatchList
	// semantics, so the reflectors would wait for a bookmark that never comes.
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	f := &fixture{
		clock:     clocktesting.NewFakeClock(time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)),
		discovery: newFakeDiscovery(),
		kube: kubefake.NewClientset(
			&corev1.Node{ObjectMeta: objMeta("worker-1", "40"), Status: corev1.NodeStatus{Images: []corev1.ContainerImage{{Names: []string{"big"}}}}},
			&corev1.Node{ObjectMeta: objMeta("worker-2", "41")},
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: insights.MCODeploymentName, Namespace: insights.MCONamespace, ResourceVersion: "30"}},
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "machine-config-controller", Namespace: insights.MCONamespace, ResourceVersion: "31"}},
		),
		config: configfake.NewClientset(
			&configv1.ClusterVersion{ObjectMeta: objMeta("version", "10")},
			&configv1.ClusterOperator{ObjectMeta: objMeta("etcd", "11")},
			&configv1.ClusterOperator{ObjectMeta: objMeta("machine-config", "12")},
		),
		mcfg: mcfgfake.NewClientset(
			&mcfgv1.MachineConfigPool{ObjectMeta: objMeta("master", "20")},
			&mcfgv1.MachineConfigPool{ObjectMeta: objMeta("worker", "21")},
			&mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-1", ResourceVersion: "22",
				Annotations: map[string]string{insights.ReleaseImageVersionAnnotation: "4.17.5"}}},
			&mcfgv1.MachineConfig{ObjectMeta: objMeta("00-worker", "23")},
		),
	}
	set, err := New(Clients{Kube: f.kube, Config: f.config, MachineConfiguration: f.mcfg},
		Options{Clock: f.clock, DiscoveryInterval: time.Minute, Discovery: f.discovery})
	if err != nil {
		t.Fatal(err)
	}
	set.AddListener(func(source, object string) {
		f.changed.Store(source+" "+object, true)
		f.notified.Add(1)
	})
	set.discovered = func() { f.polls.Add(1) }
	f.set = set
	return f
}

func (f *fixture) run(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.set.Run(ctx); close(done) }()
	f.cancel = cancel
	t.Cleanup(func() { cancel(); <-done })
}

// poll steps the clock by one discovery interval and returns once the
// poll it starts has run to its end. Run polls once at the start, then at
// each tick.
func (f *fixture) poll(t *testing.T) {
	t.Helper()
	testio.Eventually(t, "the previous discovery poll", func() bool { return f.polls.Load() == f.ticks+1 })
	f.clock.Step(time.Minute)
	f.ticks++
	testio.Eventually(t, "the discovery poll", func() bool { return f.polls.Load() == f.ticks+1 })
}

func names[T interface{ GetName() string }](objs []T) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	sort.Strings(out)
	return out
}

func TestSnapshot(t *testing.T) {
	f := newFixture(t)
	if err := f.set.SyncCheck(); err == nil || !strings.Contains(err.Error(), "waiting for discovery") {
		t.Fatalf("SyncCheck before Run = %v", err)
	}
	f.run(t)
	testio.Eventually(t, "initial sync", func() bool { return f.set.SyncCheck() == nil })

	snap := f.set.Snapshot()
	in := snap.Inputs
	if !snap.InitialSyncDone || len(snap.Unsynced) != 0 || len(snap.Unavailable) != 0 {
		t.Fatalf("state: synced %v, unsynced %v, unavailable %v", snap.InitialSyncDone, snap.Unsynced, snap.Unavailable)
	}
	if snap.MaxResourceVersion != 41 {
		t.Errorf("MaxResourceVersion = %d, want 41", snap.MaxResourceVersion)
	}
	if in.ClusterVersion == nil || in.ClusterVersion.Name != "version" {
		t.Errorf("ClusterVersion = %v", in.ClusterVersion)
	}
	if got := names(in.ClusterOperators); fmt.Sprint(got) != "[etcd machine-config]" {
		t.Errorf("ClusterOperators = %v", got)
	}
	if got := names(in.MachineConfigPools); fmt.Sprint(got) != "[master worker]" {
		t.Errorf("MachineConfigPools = %v", got)
	}
	if got := fmt.Sprint(in.MachineConfigVersions); got != "map[00-worker: rendered-worker-1:4.17.5]" {
		t.Errorf("MachineConfigVersions = %v", got)
	}
	var nodeNames []string
	for _, n := range in.Nodes {
		nodeNames = append(nodeNames, n.Name)
	}
	if sort.Strings(nodeNames); fmt.Sprint(nodeNames) != "[worker-1 worker-2]" {
		t.Errorf("Nodes = %v", nodeNames)
	}
	// The cache holds the engine's Nodes (the transform ran): another
	// snapshot hands in the same objects, which the engine knows by pointer.
	cached := map[*insights.Node]bool{}
	for _, n := range in.Nodes {
		cached[n] = true
	}
	for _, n := range f.set.Snapshot().Inputs.Nodes {
		if !cached[n] {
			t.Errorf("node %s is a new object in the next snapshot: the cache does not hold insights.Nodes", n.Name)
		}
	}
	if in.MCODeployment == nil || in.MCODeployment.Name != insights.MCODeploymentName {
		t.Errorf("MCODeployment = %v", in.MCODeployment)
	}
	if f.notified.Load() == 0 {
		t.Error("listeners were never notified")
	}
}

// BenchmarkSnapshot measures what a snapshot of the sources costs the live
// path at 5,000 Nodes (the engine's inputs and their highest resourceVersion),
// before the engine computes anything.
//
//	go test -run XXX -bench BenchmarkSnapshot ./pkg/sources/
func BenchmarkSnapshot(b *testing.B) {
	const nodes = 5000
	f := newFixture(b)
	for i := range nodes {
		n := realisticNode(i)
		n.ResourceVersion = fmt.Sprint(1000000 + i)
		if err := f.kube.Tracker().Add(n); err != nil {
			b.Fatal(err)
		}
	}
	f.run(b)
	testio.Eventually(b, "initial sync", func() bool { return f.set.SyncCheck() == nil })
	testio.Eventually(b, "every node cached", func() bool { return len(f.set.Snapshot().Inputs.Nodes) == nodes+2 })
	// In the server the Nodes lie among a heap of hundreds of MiB, and
	// other work runs between two snapshots: cold evicts the processor's
	// caches before each one, as that work does.
	evict := make([]byte, 64<<20)
	for _, cold := range []bool{false, true} {
		b.Run(fmt.Sprintf("cold=%v", cold), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if cold {
					b.StopTimer()
					for i := 0; i < len(evict); i += 64 {
						evict[i]++
					}
					b.StartTimer()
				}
				if snap := f.set.Snapshot(); snap.MaxResourceVersion != 1000000+nodes-1 {
					b.Fatalf("MaxResourceVersion = %d", snap.MaxResourceVersion)
				}
			}
		})
	}
}

func TestEventsNotifyAndDeletionsKeepTheWatermark(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	testio.Eventually(t, "initial sync", func() bool { return f.set.SyncCheck() == nil })
	before := f.notified.Load()

	ctx := context.Background()
	if _, err := f.kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: objMeta("worker-3", "50")}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testio.Eventually(t, "the new node", func() bool { return len(f.set.Snapshot().Inputs.Nodes) == 3 })
	// The informer's store holds the node before its handler runs: the
	// notification follows the snapshot, it does not precede it.
	testio.Eventually(t, "a notification for the event", func() bool { return f.notified.Load() != before })
	// The notification names the source and the object, for the view's
	// fold rule.
	if _, ok := f.changed.Load("nodes worker-3"); !ok {
		t.Error("no notification named the source nodes and the object worker-3")
	}
	if got := f.set.Snapshot().MaxResourceVersion; got != 50 {
		t.Errorf("MaxResourceVersion = %d, want 50", got)
	}
	// Deleting the newest object must not move the watermark back.
	if err := f.kube.CoreV1().Nodes().Delete(ctx, "worker-3", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testio.Eventually(t, "the deletion", func() bool { return len(f.set.Snapshot().Inputs.Nodes) == 2 })
	if got := f.set.Snapshot().MaxResourceVersion; got != 50 {
		t.Errorf("MaxResourceVersion after deleting the newest object = %d, want 50", got)
	}
}

// TestSnapshotReadsTheBoundsOrTheObjects shows the rule of rvBounds: while
// no event is between a cache and its handlers, a snapshot takes the
// highest resourceVersion from the bounds and reads no object; otherwise
// it reads the objects.
func TestSnapshotReadsTheBoundsOrTheObjects(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	testio.Eventually(t, "initial sync", func() bool { return f.set.SyncCheck() == nil })
	var nodes *source
	for _, src := range f.set.sources {
		if src.name == "nodes" {
			nodes = src
		}
	}
	_, _, b := nodes.snapshotState()
	if got, want := [2]uint64{b.transformed.Load(), b.handled.Load()}, [2]uint64{41, 41}; got != want {
		t.Fatalf("bounds of the synced nodes (transformed, handled) = %v, want %v", got, want)
	}
	for _, tt := range []struct {
		name                 string
		transformed, handled uint64
		want                 uint64
	}{
		// Values no Node has: only the bounds can give them.
		{name: "nothing in flight: the bounds", transformed: 99, handled: 99, want: 99},
		{name: "an object between the cache and its handler: the objects", transformed: 99, handled: 98, want: 41},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b.transformed.Store(tt.transformed)
			b.handled.Store(tt.handled)
			if got := f.set.Snapshot().MaxResourceVersion; got != tt.want {
				t.Errorf("MaxResourceVersion = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestSourceAPIComesAndGoes(t *testing.T) {
	const mcp = "machineconfigpools.machineconfiguration.openshift.io"
	const mc = "machineconfigs.machineconfiguration.openshift.io"
	f := newFixture(t)
	f.discovery.set("machineconfiguration.openshift.io/v1", nil...)
	f.run(t)
	testio.Eventually(t, "initial sync without MachineConfig APIs", func() bool { return f.set.SyncCheck() == nil })
	snap := f.set.Snapshot()
	if fmt.Sprint(snap.Unavailable) != fmt.Sprint([]string{mcp, mc}) || len(snap.Inputs.MachineConfigPools) != 0 {
		t.Fatalf("unavailable %v, pools %d", snap.Unavailable, len(snap.Inputs.MachineConfigPools))
	}

	// The CRDs appear: the next poll picks them up.
	f.discovery.set("machineconfiguration.openshift.io/v1", "machineconfigpools", "machineconfigs")
	f.poll(t)
	testio.Eventually(t, "the pools", func() bool {
		s := f.set.Snapshot()
		return len(s.Unavailable) == 0 && len(s.Unsynced) == 0 && len(s.Inputs.MachineConfigPools) == 2
	})

	// A discovery failure changes nothing: once the failed poll has run to
	// its end, the pools are still there.
	f.discovery.setFail(true)
	f.poll(t)
	if s := f.set.Snapshot(); len(s.Inputs.MachineConfigPools) != 2 || len(s.Unavailable) != 0 {
		t.Fatalf("a discovery failure dropped the pools: %d pools, unavailable %v", len(s.Inputs.MachineConfigPools), s.Unavailable)
	}
	f.discovery.setFail(false)

	// Only pools go away.
	f.discovery.set("machineconfiguration.openshift.io/v1", "machineconfigs")
	f.poll(t)
	testio.Eventually(t, "the pools to go", func() bool {
		s := f.set.Snapshot()
		return fmt.Sprint(s.Unavailable) == fmt.Sprint([]string{mcp}) && len(s.Inputs.MachineConfigPools) == 0
	})
	if s := f.set.Snapshot(); len(s.Inputs.MachineConfigVersions) != 2 || !s.InitialSyncDone {
		t.Errorf("machine configs %v, initial sync %v", s.Inputs.MachineConfigVersions, s.InitialSyncDone)
	}
}

func TestSyncCheckNamesUnsyncedSources(t *testing.T) {
	f := newFixture(t)
	f.discovery.setFail(true)
	f.run(t)
	// Every source that needs no discovery (nodes and the MCO Deployment of
	// the core and apps groups) must sync; the four OpenShift ones must not.
	testio.Eventually(t, "core sources to sync", func() bool {
		for _, src := range f.set.sources {
			if !strings.HasPrefix(src.name, "nodes") && !strings.HasPrefix(src.name, "deployments.apps/") {
				continue
			}
			if st, synced, _ := src.status(); st != stateRunning || !synced {
				return false
			}
		}
		return true
	})
	err := f.set.SyncCheck()
	if err == nil {
		t.Fatal("SyncCheck passed while discovery fails")
	}
	for _, want := range []string{"clusterversions.config.openshift.io (waiting for discovery)", "machineconfigpools"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "nodes") {
		t.Errorf("%q names a synced source", err)
	}
	snap := f.set.Snapshot()
	if snap.InitialSyncDone || len(snap.Unsynced) != 4 {
		t.Errorf("snapshot: synced %v, unsynced %v", snap.InitialSyncDone, snap.Unsynced)
	}
}

func TestNewValidates(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	full := Clients{Kube: kubefake.NewClientset(), Config: configfake.NewClientset(), MachineConfiguration: mcfgfake.NewClientset()}
	if _, err := New(Clients{}, Options{Clock: clk}); err == nil {
		t.Error("no clients accepted")
	}
	if _, err := New(full, Options{}); err == nil {
		t.Error("no clock accepted")
	}
	s, err := New(full, Options{Clock: clk})
	if err != nil || s.opts.DiscoveryInterval != DefaultDiscoveryInterval {
		t.Errorf("defaults: %v, %v", err, s)
	}
}
