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
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/hypershift"
	"github.com/update-status/apiserver/pkg/simulator"
)

// memSink keeps every written state of every object, as the server would
// store it (resource versions counted per write).
type memSink struct {
	mu     sync.Mutex
	rv     int
	writes []written
}

type written struct {
	at     time.Time
	delete bool
	obj    *unstructured.Unstructured
}

func (s *memSink) Write(_ context.Context, b *simulator.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range b.Changes {
		u, ok := ch.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		s.rv++
		u.SetResourceVersion(string(rune('a' + s.rv%26)))
		s.writes = append(s.writes, written{at: b.Time, delete: ch.Delete, obj: u.DeepCopy()})
	}
	return nil
}

// history returns what f extracts from each write of kind/name (prefix
// match on the name), collapsing repeats.
func (s *memSink) history(kind, name string, f func(*unstructured.Unstructured) string) []string {
	var out []string
	for _, w := range s.writes {
		if w.obj.GetKind() != kind || !strings.HasPrefix(w.obj.GetName(), name) {
			continue
		}
		v := f(w.obj)
		if w.delete {
			v = "(deleted)"
		}
		if v != "" && (len(out) == 0 || out[len(out)-1] != v) {
			out = append(out, v)
		}
	}
	return out
}

func cond(typ string) func(*unstructured.Unstructured) string {
	return func(u *unstructured.Unstructured) string {
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			if m, _ := c.(map[string]any); m["type"] == typ {
				status, _ := m["status"].(string)
				reason, _ := m["reason"].(string)
				return status + "/" + reason
			}
		}
		return ""
	}
}

func field(path ...string) func(*unstructured.Unstructured) string {
	return func(u *unstructured.Unstructured) string {
		v, _, _ := unstructured.NestedString(u.Object, path...)
		return v
	}
}

func TestSimulator(t *testing.T) {
	tests := []struct {
		name    string
		cluster ClusterOptions
		wantErr error
		check   func(t *testing.T, s *memSink, start time.Time)
	}{{
		name:    "replace",
		cluster: ClusterOptions{Name: "a", UpgradeType: hyperv1.UpgradeTypeReplace, Nodes: 2},
		check: func(t *testing.T, s *memSink, _ time.Time) {
			phases := s.history("Machine", "a-workers-", field("status", "phase"))
			if len(phases) == 0 {
				t.Fatal("no Machine written")
			}
			var surge, gone int
			for _, w := range s.writes {
				if w.obj.GetKind() == "Machine" && w.delete {
					gone++
				}
				if w.obj.GetKind() == "Machine" && field("status", "phase")(w.obj) == "Pending" {
					surge++
				}
			}
			if surge != 2 || gone != 2 {
				t.Errorf("%d surge Machines and %d deletions, want 2 each", surge, gone)
			}
			if got, want := s.history("NodePool", "a-workers", cond("UpdatingVersion")), []string{"False/AsExpected", "True/AsExpected", "False/AsExpected"}; !slices.Equal(got, want) {
				t.Errorf("UpdatingVersion %v, want %v", got, want)
			}
		},
	}, {
		name:    "inplace",
		cluster: ClusterOptions{Name: "b", UpgradeType: hyperv1.UpgradeTypeInPlace, Nodes: 2},
		check: func(t *testing.T, s *memSink, _ time.Time) {
			names := map[string]bool{}
			for _, w := range s.writes {
				if w.obj.GetKind() == "Machine" {
					names[w.obj.GetName()] = true
					if w.delete {
						t.Errorf("in-place Machine %s deleted", w.obj.GetName())
					}
				}
			}
			if len(names) != 2 {
				t.Errorf("%d Machines, want the same 2 throughout", len(names))
			}
			got := s.history("MachineSet", "b-workers", func(u *unstructured.Unstructured) string {
				return u.GetAnnotations()[hypershift.NodePoolCurrentConfigVersionAnnotation] + "->" + u.GetAnnotations()[hypershift.NodePoolTargetConfigVersionAnnotation]
			})
			if want := []string{configHash(simulator.DefaultFromVersion) + "->" + configHash(simulator.DefaultFromVersion),
				configHash(simulator.DefaultFromVersion) + "->" + configHash(simulator.DefaultToVersion),
				configHash(simulator.DefaultToVersion) + "->" + configHash(simulator.DefaultToVersion)}; !slices.Equal(got, want) {
				t.Errorf("MachineSet config versions %v, want %v", got, want)
			}
		},
	}, {
		name:    "stuck component",
		cluster: ClusterOptions{Name: "c", UpgradeType: hyperv1.UpgradeTypeReplace, Faults: []Fault{FaultStuckComponent}},
		wantErr: ErrStalled,
		check: func(t *testing.T, s *memSink, _ time.Time) {
			stuck := Components[len(Components)/2]
			if got := s.history("ControlPlaneComponent", stuck, cond("RolloutComplete")); !slices.Equal(got, []string{"True/AsExpected", "False/WaitingForRolloutComplete"}) {
				t.Errorf("%s RolloutComplete %v, want it stuck waiting", stuck, got)
			}
			if got := s.history("Machine", "c-workers-", field("status", "phase")); !slices.Equal(got, []string{"Running"}) {
				t.Errorf("Machines %v, want none rolled before the control plane", got)
			}
		},
	}, {
		name:    "no provision",
		cluster: ClusterOptions{Name: "d", UpgradeType: hyperv1.UpgradeTypeReplace, Faults: []Fault{FaultNoProvision}},
		wantErr: ErrStalled,
		check: func(t *testing.T, s *memSink, _ time.Time) {
			last := s.writes[len(s.writes)-1]
			for _, w := range s.writes {
				if w.obj.GetKind() == "Machine" && field("status", "phase")(w.obj) == "Provisioning" {
					last = w
				}
			}
			if got := cond("InfrastructureReady")(last.obj); got != "False/InstanceProvisionFailed" {
				t.Errorf("stuck Machine InfrastructureReady %q", got)
			}
			if got := s.history("HostedCluster", "d", func(u *unstructured.Unstructured) string { return cond("ClusterVersionProgressing")(u) }); got[len(got)-1] != "False/FromClusterVersion" {
				t.Errorf("the CVO does not wait for the nodes: ClusterVersionProgressing %v", got)
			}
		},
	}, {
		name:    "held drain",
		cluster: ClusterOptions{Name: "e", UpgradeType: hyperv1.UpgradeTypeReplace, Faults: []Fault{FaultHeldDrain}},
		check: func(t *testing.T, s *memSink, start time.Time) {
			var began, ended time.Time
			for _, w := range s.writes {
				if w.obj.GetKind() != "Machine" {
					continue
				}
				switch c := cond("DrainingSucceeded")(w.obj); {
				case c == "False/Draining" && began.IsZero():
					began = w.at
				case c == "True/" && !began.IsZero() && ended.IsZero():
					ended = w.at
				}
			}
			if d := ended.Sub(began); d <= 5*time.Minute {
				t.Errorf("held drain lasted %v, want past the nodeDrainTimeout of 5m", d)
			}
		},
	}, {
		name:    "bad image",
		cluster: ClusterOptions{Name: "f", UpgradeType: hyperv1.UpgradeTypeInPlace, Faults: []Fault{FaultBadImage}},
		wantErr: ErrStalled,
		check: func(t *testing.T, s *memSink, _ time.Time) {
			if got := s.history("HostedCluster", "f", cond("ValidReleaseImage")); !slices.Equal(got, []string{"True/AsExpected", "False/InvalidImage"}) {
				t.Errorf("ValidReleaseImage %v", got)
			}
			if got := s.history("HostedCluster", "f", cond("Progressing")); got[len(got)-1] != "False/Blocked" {
				t.Errorf("Progressing %v, want Blocked", got)
			}
			if got := s.history("NodePool", "f-workers", cond("ValidReleaseImage")); got[len(got)-1] != "False/ValidationFailed" {
				t.Errorf("NodePool ValidReleaseImage %v", got)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			clk := clocktesting.NewFakeClock(start)
			sink := &memSink{}
			sim, err := New(Options{Clusters: []ClusterOptions{tt.cluster}, Clock: clk, Sink: sink})
			if err != nil {
				t.Fatal(err)
			}
			if err := sim.RunVirtual(ctx, clk, 1000); !errors.Is(err, tt.wantErr) {
				t.Fatalf("RunVirtual: %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil {
				if got := s0(sink.history("HostedCluster", tt.cluster.Name, field("status", "version", "desired", "version"))); got != simulator.DefaultToVersion {
					t.Errorf("desired %q", got)
				}
			}
			tt.check(t, sink, start)
		})
	}
}

func s0(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func TestOptionsErrors(t *testing.T) {
	sink := &memSink{}
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"no clusters", Options{Sink: sink}, "no hosted clusters"},
		{"no sink", Options{Clusters: NewClusters(1)}, "no sink"},
		{"duplicate", Options{Sink: sink, Clusters: []ClusterOptions{{Name: "a", UpgradeType: hyperv1.UpgradeTypeReplace}, {Name: "a", UpgradeType: hyperv1.UpgradeTypeReplace}}}, "duplicate"},
		{"upgrade type", Options{Sink: sink, Clusters: []ClusterOptions{{Name: "a", UpgradeType: "Sideways"}}}, "unknown upgrade type"},
		{"fault", Options{Sink: sink, Clusters: []ClusterOptions{{Name: "a", UpgradeType: hyperv1.UpgradeTypeReplace, Faults: []Fault{"meteor"}}}}, "unknown fault"},
		{"drain in place", Options{Sink: sink, Clusters: []ClusterOptions{{Name: "a", UpgradeType: hyperv1.UpgradeTypeInPlace, Faults: []Fault{FaultHeldDrain}}}}, "needs a Replace NodePool"},
		{"same versions", Options{Sink: sink, Clusters: NewClusters(1), FromVersion: "4.20.1", ToVersion: "4.20.1"}, "both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestAddFaults(t *testing.T) {
	for _, tt := range []struct {
		specs   []string
		want    []Fault
		wantErr string
	}{
		{specs: []string{"hosted-1=held-drain", "hosted-1=bad-image"}, want: []Fault{FaultHeldDrain, FaultBadImage}},
		{specs: []string{"hosted-1"}, wantErr: "want NAME=FAULT"},
		{specs: []string{"hosted-1=meteor"}, wantErr: "want NAME=FAULT"},
		{specs: []string{"hosted-9=held-drain"}, wantErr: `no hosted cluster "hosted-9"`},
	} {
		clusters := NewClusters(2)
		err := AddFaults(clusters, tt.specs)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("AddFaults(%v): %v, want %q", tt.specs, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(clusters[0].Faults, tt.want) {
			t.Errorf("AddFaults(%v): %v, %v; want %v", tt.specs, clusters[0].Faults, err, tt.want)
		}
	}
}

// newTestSim is a simulator of clusters on a fake clock writing to a
// memSink; mod adjusts the options.
func newTestSim(t *testing.T, clusters []ClusterOptions, mod func(*Options)) (*Simulator, *memSink, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	sink := &memSink{}
	o := Options{Clusters: clusters, Clock: clk, Sink: sink}
	if mod != nil {
		mod(&o)
	}
	sim, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return sim, sink, clk
}

func TestWaves(t *testing.T) {
	type wave struct {
		at    time.Duration
		names []string
	}
	for _, tt := range []struct {
		name     string
		size     int
		interval time.Duration
		speed    float64
		want     []wave
	}{
		{name: "all at once", want: []wave{{0, []string{"hosted-1", "hosted-2", "hosted-3", "hosted-4", "hosted-5"}}}},
		{name: "two by two", size: 2, interval: 10 * time.Minute, want: []wave{
			{0, []string{"hosted-1", "hosted-2"}}, {10 * time.Minute, []string{"hosted-3", "hosted-4"}}, {20 * time.Minute, []string{"hosted-5"}}}},
		{name: "scaled by speed", size: 3, interval: 10 * time.Minute, speed: 10, want: []wave{
			{0, []string{"hosted-1", "hosted-2", "hosted-3"}}, {time.Minute, []string{"hosted-4", "hosted-5"}}}},
		{name: "no interval", size: 4, want: []wave{{0, []string{"hosted-1", "hosted-2", "hosted-3", "hosted-4"}}, {0, []string{"hosted-5"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []wave
			var clk *clocktesting.FakeClock
			start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
			sim, sink, clk := newTestSim(t, NewClusters(5), func(o *Options) {
				o.WaveSize, o.WaveInterval, o.Speed = tt.size, tt.interval, tt.speed
				o.OnWave = func(i int, names []string) {
					if i != len(got) {
						t.Errorf("wave %d after %d waves", i, len(got))
					}
					got = append(got, wave{clk.Now().Sub(start), names})
				}
			})
			if err := sim.RunVirtual(context.Background(), clk, 10000); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("waves %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i].at != tt.want[i].at || !slices.Equal(got[i].names, tt.want[i].names) {
					t.Errorf("wave %d: %v, want %v", i, got[i], tt.want[i])
				}
			}
			// Each HostedCluster is pointed at the target when its wave starts.
			for _, w := range tt.want {
				for _, name := range w.names {
					for _, wr := range sink.writes {
						if wr.obj.GetKind() == "HostedCluster" && wr.obj.GetName() == name && field("spec", "release", "image")(wr.obj) == ReleaseImage(simulator.DefaultToVersion) {
							if at := wr.at.Sub(start); at != w.at {
								t.Errorf("%s started at +%v, want +%v", name, at, w.at)
							}
							break
						}
					}
				}
			}
		})
	}
}

func TestShareFault(t *testing.T) {
	for _, tt := range []struct {
		name    string
		n       int
		specs   []string
		want    []string
		wantErr string
	}{
		{name: "5% of 200", n: 200, specs: []string{"stuck-component=5"},
			want: []string{"hosted-20", "hosted-40", "hosted-60", "hosted-80", "hosted-100", "hosted-120", "hosted-140", "hosted-160", "hosted-180", "hosted-200"}},
		{name: "a share rounds up", n: 3, specs: []string{"stuck-component=5"}, want: []string{"hosted-3"}},
		{name: "Replace only", n: 20, specs: []string{"held-drain=10%"}, want: []string{"hosted-9", "hosted-19"}},
		{name: "shares do not overlap", n: 10, specs: []string{"bad-image=20", "stuck-component=20"}, want: []string{"hosted-5", "hosted-10", "hosted-4", "hosted-9"}},
		{name: "too few Replace pools", n: 4, specs: []string{"no-provision=75"}, wantErr: "3 hosted clusters wanted, 2 of 4 can carry it"},
		{name: "no percent", n: 4, specs: []string{"stuck-component"}, wantErr: "want FAULT=PERCENT"},
		{name: "unknown fault", n: 4, specs: []string{"meteor=5"}, wantErr: "want FAULT=PERCENT"},
		{name: "zero", n: 4, specs: []string{"stuck-component=0"}, wantErr: "above 0 and at most 100"},
		{name: "above 100", n: 4, specs: []string{"stuck-component=101"}, wantErr: "above 0 and at most 100"},
		{name: "not a number", n: 4, specs: []string{"stuck-component=many"}, wantErr: "above 0 and at most 100"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clusters := NewClusters(tt.n)
			got, err := AddFaultShares(clusters, tt.specs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("AddFaultShares(%v): %v, want %q", tt.specs, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("AddFaultShares(%v): %v, %v; want %v", tt.specs, got, err, tt.want)
			}
			faulted := 0
			for _, c := range clusters {
				faulted += len(c.Faults)
			}
			if faulted != len(tt.want) {
				t.Errorf("%d faults given, want %d", faulted, len(tt.want))
			}
			if _, err := New(Options{Clusters: clusters, Sink: &memSink{}}); err != nil {
				t.Errorf("the faulted fleet is invalid: %v", err)
			}
		})
	}
}

func TestNodePools(t *testing.T) {
	for _, upgrade := range []hyperv1.UpgradeType{hyperv1.UpgradeTypeReplace, hyperv1.UpgradeTypeInPlace} {
		t.Run(string(upgrade), func(t *testing.T) {
			sim, sink, clk := newTestSim(t, []ClusterOptions{{Name: "a", UpgradeType: upgrade, Nodes: 2, NodePools: 2}}, nil)
			if err := sim.RunVirtual(context.Background(), clk, 10000); err != nil {
				t.Fatal(err)
			}
			rolled := map[string]time.Time{}
			for _, np := range []string{"a-workers-1", "a-workers-2"} {
				if got, want := sink.history("NodePool", np, cond("UpdatingVersion")), []string{"False/AsExpected", "True/AsExpected", "False/AsExpected"}; !slices.Equal(got, want) {
					t.Errorf("%s UpdatingVersion %v, want %v", np, got, want)
				}
				if got := s0(sink.history("NodePool", np, field("status", "version"))); got != simulator.DefaultToVersion {
					t.Errorf("%s version %q", np, got)
				}
				machines := map[string]bool{}
				for _, w := range sink.writes {
					if w.obj.GetKind() == "Machine" && strings.HasPrefix(w.obj.GetName(), np+"-") {
						machines[w.obj.GetName()] = true
						if w.obj.GetAnnotations()[hypershift.NodePoolAnnotation] != "clusters/"+np {
							t.Errorf("Machine %s of NodePool %q", w.obj.GetName(), w.obj.GetAnnotations()[hypershift.NodePoolAnnotation])
						}
					}
					if _, seen := rolled[np]; !seen && w.obj.GetKind() == "NodePool" && w.obj.GetName() == np && cond("UpdatingVersion")(w.obj) == "True/AsExpected" {
						rolled[np] = w.at
					}
				}
				want := 2
				if upgrade == hyperv1.UpgradeTypeReplace {
					want = 4
				}
				if len(machines) != want {
					t.Errorf("%s: %d Machines, want %d", np, len(machines), want)
				}
			}
			// Both roll at once, as HyperShift's NodePools do.
			if len(rolled) != 2 || !rolled["a-workers-1"].Equal(rolled["a-workers-2"]) {
				t.Errorf("the NodePools started rolling at %v", rolled)
			}
		})
	}
}

func TestComponents(t *testing.T) {
	sim, sink, clk := newTestSim(t, []ClusterOptions{{Name: "a", UpgradeType: hyperv1.UpgradeTypeReplace, Faults: []Fault{FaultStuckComponent}}},
		func(o *Options) { o.Components = 40 })
	if err := sim.RunVirtual(context.Background(), clk, 10000); !errors.Is(err, ErrStalled) {
		t.Fatalf("RunVirtual: %v, want stalled", err)
	}
	names := map[string]bool{}
	for _, w := range sink.writes {
		if w.obj.GetKind() == "ControlPlaneComponent" {
			names[w.obj.GetName()] = true
		}
	}
	if len(names) != 40 || !names["etcd"] || !names["cluster-autoscaler"] || !names["component-40"] {
		t.Errorf("%d components: %v", len(names), names)
	}
	if got := s0(sink.history("ControlPlaneComponent", ComponentNames(40)[20], cond("RolloutComplete"))); got != "False/WaitingForRolloutComplete" {
		t.Errorf("the middle component of 40: RolloutComplete %q", got)
	}
}

func TestStalled(t *testing.T) {
	clusters := NewClusters(6)
	if _, err := ShareFault(clusters, FaultStuckComponent, 20); err != nil {
		t.Fatal(err)
	}
	want := []string{"clusters/hosted-3", "clusters/hosted-6"}
	check := func(t *testing.T, err error) {
		t.Helper()
		var stalled *StalledError
		if !errors.As(err, &stalled) || !errors.Is(err, ErrStalled) || !slices.Equal(stalled.Clusters, want) {
			t.Fatalf("%v, want the stall of %v", err, want)
		}
	}
	t.Run("virtual", func(t *testing.T) {
		sim, sink, clk := newTestSim(t, slices.Clone(clusters), func(o *Options) { o.WaveSize, o.WaveInterval = 2, time.Minute })
		check(t, sim.RunVirtual(context.Background(), clk, 10000))
		for _, name := range []string{"hosted-1", "hosted-2", "hosted-4", "hosted-5"} {
			if got := s0(sink.history("NodePool", name+"-workers", field("status", "version"))); got != simulator.DefaultToVersion {
				t.Errorf("%s's NodePool at %q, want the update done", name, got)
			}
		}
	})
	// Run in real time returns too, once nothing is left to do.
	t.Run("real time", func(t *testing.T) {
		sim, err := New(Options{Clusters: slices.Clone(clusters), Sink: &memSink{}, Speed: 1e6, WaveSize: 4, WaveInterval: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		check(t, sim.Run(ctx))
	})
}
