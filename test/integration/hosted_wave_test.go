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
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/informers/externalversions"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// pastClock is the real clock set back by ago.
type pastClock struct {
	clock.RealClock
	ago time.Duration
}

func (c pastClock) Now() time.Time                  { return c.RealClock.Now().Add(-c.ago) }
func (c pastClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// fleetView keeps what a client saw of each hosted cluster of a fleet:
// whether its control plane was Completed at the target, and whether a
// Health insight reported its stuck component as stalling the update.
type fleetView struct {
	mu                  sync.Mutex
	ns, target, stuckCP string
	completed, stalled  map[string]bool
}

func newFleetView(ns, target, stuckComponent string) *fleetView {
	return &fleetView{ns: ns, target: target, stuckCP: stuckComponent, completed: map[string]bool{}, stalled: map[string]bool{}}
}

func (f *fleetView) record(s *v1alpha1.HostedClusterUpdateStatus) {
	if s.Namespace != f.ns {
		return
	}
	cv := hostedControlPlane(&s.Status)
	h := healthInsightAbout(&v1alpha1.UpdateStatus{Status: s.Status}, "controlplanecomponents", f.stuckCP)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.completed[s.Name] = cv != nil && cv.Assessment == v1alpha1.ControlPlaneAssessmentCompleted && cv.Versions.Target.Version == f.target
	f.stalled[s.Name] = h != nil && h.Impact.Type == v1alpha1.UpdateStalledImpactType
}

// settled reports whether every cluster of done is Completed at the
// target, not stalled, and every one of stuck is stalled, not Completed.
func (f *fleetView) settled(done, stuck []string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, name := range done {
		if !f.completed[name] || f.stalled[name] {
			return false
		}
	}
	for _, name := range stuck {
		if f.completed[name] || !f.stalled[name] {
			return false
		}
	}
	return true
}

// counts returns how many clusters are Completed and stalled.
func (f *fleetView) counts() (completed, stalled int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ok := range f.completed {
		if ok {
			completed++
		}
	}
	for _, ok := range f.stalled {
		if ok {
			stalled++
		}
	}
	return completed, stalled
}

// TestHostedWave updates a fleet of hosted clusters on a management cluster
// of its own in waves, 5% of them with a control-plane component
// that never rolls out. The generated informer and `kubectl get hcus -A -w`
// see every other one Completed and the stuck ones stalled; a watch of one
// hosted cluster's node insights sees only that hosted cluster's. The
// simulator's clock runs 15 minutes behind the server's, so that a stuck
// component has been stuck past the 10 minutes after which the server
// reports it. The fleet has a control plane of its own, which goes with it,
// so that the other tests neither carry nor see it.
func TestHostedWave(t *testing.T) {
	const (
		ns       = "hosted-wave"
		fleet    = 100
		waveSize = 10
	)
	ctx, cancel := context.WithTimeout(t.Context(), 7*time.Minute)
	defer cancel()
	own := ownControlPlaneWith(ctx, t, "wave", localstack.Options{HostedCRDs: true})
	startServerOf(ctx, t, own, localstack.ServerOptions{})
	clusters := hosted.NewClusters(fleet)
	for i := range clusters {
		clusters[i].Nodes = 1
	}
	stuck, err := hosted.ShareFault(clusters, hosted.FaultStuckComponent, 5)
	if err != nil {
		t.Fatal(err)
	}
	var done []string
	for _, c := range clusters {
		if !slices.Contains(stuck, c.Name) {
			done = append(done, c.Name)
		}
	}
	var waves atomic.Int32
	// Speed 60: a control plane rolls in about 8 s, a node in about 5, a
	// wave starts every 5 s.
	sim := newHostedSim(t, own.RESTConfig(&own.Users.Admin), 16, hosted.Options{Namespace: ns, Clusters: clusters, Speed: 60,
		Clock: pastClock{ago: 15 * time.Minute}, WaveSize: waveSize, WaveInterval: 5 * time.Minute,
		OnWave: func(int, []string) { waves.Add(1) }})
	begin := time.Now()
	if err := sim.Create(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d hosted clusters created in %s", fleet, time.Since(begin).Round(time.Millisecond))

	client := updateClientOf(t, own, &own.Users.Admin)
	stuckComponent := hosted.Components[len(hosted.Components)/2]
	// (a) The generated informer of every namespace.
	informed := newFleetView(ns, simulator.DefaultToVersion, stuckComponent)
	idle := newFleetView(ns, simulator.DefaultFromVersion, stuckComponent)
	onStatus := func(obj any) {
		if s, ok := obj.(*v1alpha1.HostedClusterUpdateStatus); ok {
			informed.record(s)
			idle.record(s)
		}
	}
	factory := externalversions.NewSharedInformerFactory(client, 0)
	if _, err := factory.Update().V1alpha1().HostedClusterUpdateStatuses().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onStatus, UpdateFunc: func(_, obj any) { onStatus(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	startAndSync(ctx, t, factory)
	// (b) kubectl get hcus -A -w.
	kubectlCtx, stopKubectl := context.WithCancel(ctx)
	defer stopKubectl()
	stdout, stderr := startKubectlOf(kubectlCtx, t, own, stopKubectl, "get", "hcus", "-A", "-w", "-o", "json", "--output-watch-events")
	kubectlEvents := decodeEvents(stdout)
	// (c) A watch of one hosted cluster's node insights, by label.
	const one = "hosted-1"
	w, err := client.UpdateV1alpha1().HostedNodeProgressInsights(ns).Watch(ctx, metav1.ListOptions{LabelSelector: v1alpha1.LabelHostedCluster + "=" + one})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	nodes := &nodePhases{phases: map[string][]string{}}
	var foreign []string
	var events atomic.Int32
	var stopping atomic.Bool
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for ev := range w.ResultChan() {
			n, ok := ev.Object.(*v1alpha1.HostedNodeProgressInsight)
			switch {
			case ev.Type == watch.Error && !stopping.Load():
				foreign = append(foreign, fmt.Sprintf("error event %v", dump(ev.Object)))
			case ok && (n.Namespace != ns || n.Labels[v1alpha1.LabelHostedCluster] != one):
				foreign = append(foreign, n.Namespace+"/"+n.Name)
			case ok:
				events.Add(1)
				nodes.record(n)
			}
		}
	}()

	// The fleet is served, idle, before the update starts.
	waitFor(ctx, t, fmt.Sprintf("%d hosted clusters Completed at %s", fleet, simulator.DefaultFromVersion), 2*time.Minute, func() bool {
		return idle.settled(append(slices.Clone(done), stuck...), nil)
	})
	t.Logf("the fleet is served, idle, %s after its creation began", time.Since(begin).Round(time.Millisecond))

	// The nodes of hosted-1 before the update (the watch's initial
	// events): the ones it replaces.
	waitFor(ctx, t, "the watch's initial events of "+one+"'s nodes", time.Minute, func() bool { return len(nodes.of(ns)) > 0 })
	before := nodes.of(ns)
	begin = time.Now()
	if err := sim.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- sim.Run(ctx) }()
	defer func() {
		if t.Failed() {
			completed, stalled := informed.counts()
			t.Logf("the informer saw %d Completed and %d stalled; %d waves started", completed, stalled, waves.Load())
		}
	}()

	// (b) kubectl -w follows the wave as it goes (a watcher that stops
	// reading is dropped by the server) until every hosted cluster is
	// Completed but the stuck ones, reported stalled.
	watched2 := newFleetView(ns, simulator.DefaultToVersion, stuckComponent)
	awaitWatch(t, kubectlEvents, stderr, "the wave settled", 5*time.Minute, func(ev watchEvent) bool {
		if ev.Type != string(watch.Added) && ev.Type != string(watch.Modified) {
			t.Fatalf("kubectl event %s: %s", ev.Type, ev.Object)
		}
		var s v1alpha1.HostedClusterUpdateStatus
		if err := json.Unmarshal(ev.Object, &s); err != nil {
			t.Fatalf("kubectl event: %v", err)
		}
		watched2.record(&s)
		return watched2.settled(done, stuck)
	})
	t.Logf("kubectl -w saw the wave settle %s after it started", time.Since(begin).Round(time.Millisecond))

	// (a) So does the informer.
	waitFor(ctx, t, "the informer to see the wave settle", time.Minute, func() bool { return informed.settled(done, stuck) })

	// The simulator ends with the stuck clusters stalled.
	select {
	case err := <-ran:
		var stalled *hosted.StalledError
		want := make([]string, len(stuck))
		for i, name := range stuck {
			want[i] = ns + "/" + name
		}
		if !errors.As(err, &stalled) || !slices.Equal(stalled.Clusters, want) {
			t.Fatalf("the simulator ended with %v, want the stall of %v", err, want)
		}
	case <-ctx.Done():
		t.Fatal("the simulator did not end")
	}
	if got := int(waves.Load()); got != fleet/waveSize {
		t.Errorf("%d waves, want %d", got, fleet/waveSize)
	}

	// (c) The watch of hosted-1's node insights saw its node replaced (a
	// node it had not seen before the update, Completed; the states in
	// between may be folded away under the wave), and nothing of any other
	// hosted cluster.
	waitFor(ctx, t, one+"'s new node Completed", time.Minute, func() bool {
		for key, seq := range nodes.of(ns) {
			if _, old := before[key]; !old && seq[len(seq)-1] == string(v1alpha1.NodeCompleted) {
				return true
			}
		}
		return false
	})
	stopping.Store(true)
	w.Stop()
	<-watched
	if len(foreign) > 0 {
		t.Errorf("the watch of %s's node insights saw %v", one, foreign)
	}
	t.Logf("the watch of %s's node insights saw %d events: %v", one, events.Load(), nodes.of(ns))
}
