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
