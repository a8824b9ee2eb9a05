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

package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

var fleetNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// hcStatus is the shape of a hosted cluster's status the fleet tests vary.
type hcStatus struct {
	assessment v1alpha1.ControlPlaneAssessment // empty: no ClusterVersion insight
	completion int32
	// estimate is the estimated completion relative to fleetNow; zero: none.
	estimate  time.Duration
	cpUpdate  bool
	poolAsmt  v1alpha1.PoolAssessment
	nodes     [2]int32 // total, outdated
	health    []v1alpha1.InsightImpact
	external  *v1alpha1.HealthStatusInsight // an external informer's insight
	completed bool
}

func (s hcStatus) status() *v1alpha1.UpdateStatusStatus {
	st := &v1alpha1.UpdateStatusStatus{ControlPlane: &v1alpha1.ControlPlane{}}
	upd := metav1.ConditionFalse
	if s.cpUpdate {
		upd = metav1.ConditionTrue
	}
	st.ControlPlane.Conditions = []metav1.Condition{{Type: string(v1alpha1.ControlPlaneUpdating), Status: upd}}
	var ins []v1alpha1.ControlPlaneInsight
	if s.assessment != "" {
		cv := &v1alpha1.ClusterVersionStatusInsight{Assessment: s.assessment, Completion: s.completion,
			StartedAt: metav1.NewTime(fleetNow.Add(-time.Hour))}
		cv.Versions.Previous.Version, cv.Versions.Target.Version = "4.18.1", "4.18.2"
		if s.estimate != 0 {
			t := metav1.NewTime(fleetNow.Add(s.estimate))
			cv.EstimatedCompletedAt = &t
		}
		if s.completed {
			t := metav1.NewTime(fleetNow)
			cv.CompletedAt = &t
		}
		ins = append(ins, v1alpha1.ControlPlaneInsight{UID: "cv", Insight: v1alpha1.ControlPlaneInsightUnion{ClusterVersionStatusInsight: cv}})
	}
	for i, im := range s.health {
		ins = append(ins, v1alpha1.ControlPlaneInsight{UID: fmt.Sprintf("health-%d", i),
			Insight: v1alpha1.ControlPlaneInsightUnion{HealthInsight: &v1alpha1.HealthStatusInsight{Impact: im}}})
	}
	st.ControlPlane.Informers = []v1alpha1.ControlPlaneInformer{{Name: "hosted", Insights: ins}}
	if s.external != nil {
		st.ControlPlane.Informers = append(st.ControlPlane.Informers, v1alpha1.ControlPlaneInformer{Name: "drain.example.com",
			Insights: []v1alpha1.ControlPlaneInsight{{UID: "pdb", Insight: v1alpha1.ControlPlaneInsightUnion{HealthInsight: s.external}}}})
	}
	if s.poolAsmt != "" {
		mcp := &v1alpha1.MachineConfigPoolStatusInsight{Name: "workers", Assessment: s.poolAsmt,
			Summaries: []v1alpha1.NodeSummary{{Type: v1alpha1.NodesTotal, Count: s.nodes[0]}, {Type: v1alpha1.NodesOutdated, Count: s.nodes[1]}}}
		st.WorkerPools = []v1alpha1.Pool{{Name: "workers", Informers: []v1alpha1.WorkerPoolInformer{{Name: "hosted",
			Insights: []v1alpha1.WorkerPoolInsight{{UID: "mcp", Insight: v1alpha1.WorkerPoolInsightUnion{MachineConfigPoolStatusInsight: mcp}}}}}}}
	}
	return st
}

func impact(level v1alpha1.InsightImpactLevel, typ v1alpha1.InsightImpactType, summary string) v1alpha1.InsightImpact {
	return v1alpha1.InsightImpact{Level: level, Type: typ, Summary: summary}
}

func TestFleetCell(t *testing.T) {
	drain := &v1alpha1.HealthStatusInsight{Impact: impact(v1alpha1.WarningImpactLevel, v1alpha1.UpdateSpeedImpactType, "drain of n1 blocked by pdb"),
		Scope: v1alpha1.InsightScope{Resources: []v1alpha1.ResourceRef{{Resource: "nodes", Name: "n1"},
			{Group: "policy", Resource: "poddisruptionbudgets", Namespace: "app", Name: "pdb"}}}}
	for _, tc := range []struct {
		name       string
		in         hcStatus
		class      string
		assessment string
		updating   bool
		stalled    string
		health     string
		nodes      [2]int32 // updated, total
	}{
		{name: "no insight", in: hcStatus{}, class: FleetUnknown, assessment: "Unknown"},
		{name: "idle", in: hcStatus{assessment: v1alpha1.ControlPlaneAssessmentCompleted, completion: 100, completed: true,
			poolAsmt: v1alpha1.PoolCompleted, nodes: [2]int32{3, 0}}, class: FleetIdle, assessment: "Completed", nodes: [2]int32{3, 3}},
		{name: "progressing", in: hcStatus{assessment: v1alpha1.ControlPlaneAssessmentProgressing, completion: 45, cpUpdate: true, estimate: time.Hour},
			class: FleetUpdating, assessment: "Progressing", updating: true},
		{name: "slow", in: hcStatus{assessment: v1alpha1.ControlPlaneAssessmentProgressing, cpUpdate: true, estimate: -5 * time.Minute},
			class: FleetSlow, assessment: "Progressing - Slow", updating: true},
		{name: "overdue is stalled", in: hcStatus{assessment: v1alpha1.ControlPlaneAssessmentProgressing, cpUpdate: true, estimate: -time.Hour},
			class: FleetSlow, assessment: "Stalled", updating: true, stalled: stalledOverdue},
		{name: "nodes after the control plane", in: hcStatus{assessment: v1alpha1.ControlPlaneAssessmentCompleted, completion: 100, completed: true,
			poolAsmt: v1alpha1.PoolProgressing, nodes: [2]int32{4, 3}}, class: FleetNodes, assessment: "Completed", updating: true, nodes: [2]int32{1, 4}},
		{name: "degraded", in: hcStatus{assessment: v1alpha1.ControlPlaneAssessmentDegraded, cpUpdate: true,
			health: []v1alpha1.InsightImpact{impact(v1alpha1.WarningImpactLevel, v1alpha1.UpdateStalledImpactType, "slow component")}},
			class: FleetDegraded, assessment: "Degraded", updating: true, health: "Warning"},
		{name: "an Update Stalled error stalls", in: hcStatus{assessment: v1alpha1.ControlPlaneAssessmentProgressing, cpUpdate: true,
			health: []v1alpha1.InsightImpact{
				impact(v1alpha1.InfoImpactLevel, v1alpha1.NoneImpactType, "fyi"),
				impact(v1alpha1.ErrorImpactLevel, v1alpha1.UpdateStalledImpactType, "Node n1 has drained for longer than its nodeDrainTimeout"),
			}},
			class: FleetUpdating, assessment: "Progressing", updating: true, health: "Error",
			stalled: "Node n1 has drained for longer than its nodeDrainTimeout"},
		{name: "an error of another type does not", in: hcStatus{assessment: v1alpha1.ControlPlaneAssessmentProgressing, cpUpdate: true,
			health: []v1alpha1.InsightImpact{impact(v1alpha1.CriticalInfoLevel, v1alpha1.ApiAvailabilityImpactType, "api down")}},
			class: FleetUpdating, assessment: "Progressing", updating: true, health: "Critical"},
		{name: "a held drain stalls", in: hcStatus{assessment: v1alpha1.ControlPlaneAssessmentCompleted, completed: true,
			poolAsmt: v1alpha1.PoolProgressing, nodes: [2]int32{2, 1}, external: drain},
			class: FleetNodes, assessment: "Completed", updating: true, health: "Warning", stalled: "drain of n1 blocked by pdb", nodes: [2]int32{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := fleetEntryOf("ns", "hc", tc.in.status())
			c := e.at(fleetNow)
			if c.Class != tc.class || c.Assessment != tc.assessment || c.Updating != tc.updating || c.Stalled != tc.stalled ||
				c.Health != tc.health || c.NodesUpdated != tc.nodes[0] || c.NodesTotal != tc.nodes[1] {
				t.Errorf("got %+v\nwant class %s, assessment %q, updating %v, stalled %q, health %q, nodes %v",
					c, tc.class, tc.assessment, tc.updating, tc.stalled, tc.health, tc.nodes)
			}
			if tc.in.assessment != "" && (c.From != "4.18.1" || c.To != "4.18.2") {
				t.Errorf("versions %s -> %s", c.From, c.To)
			}
		})
	}
}

func keys(cells []FleetCell) []string {
	out := make([]string, 0, len(cells))
	for _, c := range cells {
		out = append(out, c.Key())
	}
	return out
}

// TestFleetModel: the snapshot's order (stalled, then worst class first,
// then by namespace and name), and the deltas of adds, changes, changes
// the cell does not show, and deletes.
func TestFleetModel(t *testing.T) {
	progressing := hcStatus{assessment: v1alpha1.ControlPlaneAssessmentProgressing, completion: 10, cpUpdate: true, estimate: time.Hour}
	idle := hcStatus{assessment: v1alpha1.ControlPlaneAssessmentCompleted, completion: 100, completed: true}
	stuck := progressing
	stuck.health = []v1alpha1.InsightImpact{impact(v1alpha1.ErrorImpactLevel, v1alpha1.UpdateStalledImpactType, "stuck")}
	degraded := hcStatus{assessment: v1alpha1.ControlPlaneAssessmentDegraded, cpUpdate: true}

	f := newFleet(nil)
	type step struct {
		ns, name string
		st       *hcStatus
	}
	for _, tc := range []struct {
		name    string
		steps   []step
		cells   []string // the delta's cells, in order
		removed []string
		order   []string // the snapshot's order after the step
	}{
		{name: "adds", steps: []step{{"b", "idle", &idle}, {"a", "idle", &idle}, {"a", "prog", &progressing}, {"z", "stuck", &stuck}, {"c", "deg", &degraded}},
			cells: []string{"z/stuck", "c/deg", "a/prog", "a/idle", "b/idle"},
			order: []string{"z/stuck", "c/deg", "a/prog", "a/idle", "b/idle"}},
		{name: "a change the cell does not show", steps: []step{{"a", "prog", func() *hcStatus { s := progressing; s.health = []v1alpha1.InsightImpact{}; return &s }()}}},
		{name: "a change", steps: []step{{"a", "prog", &stuck}}, cells: []string{"a/prog"},
			order: []string{"a/prog", "z/stuck", "c/deg", "a/idle", "b/idle"}},
		{name: "a delete", steps: []step{{"c", "deg", nil}, {"q", "never-was", nil}}, removed: []string{"c/deg"},
			order: []string{"a/prog", "z/stuck", "a/idle", "b/idle"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range tc.steps {
				var st *v1alpha1.UpdateStatusStatus
				if s.st != nil {
					st = s.st.status()
				}
				f.set(s.ns, s.name, st, fleetNow)
			}
			d := f.flush(fleetNow)
			if tc.cells == nil && tc.removed == nil {
				if d != nil {
					t.Fatalf("a delta without change: %+v", d)
				}
				return
			}
			if d == nil {
				t.Fatal("no delta")
			}
			if got := keys(d.Cells); !slices.Equal(got, tc.cells) {
				t.Errorf("delta cells %v, want %v", got, tc.cells)
			}
			if !slices.Equal(d.Removed, tc.removed) {
				t.Errorf("removed %v, want %v", d.Removed, tc.removed)
			}
			snap := f.snapshot(fleetNow)
			if snap.Seq != d.Seq {
				t.Errorf("snapshot seq %d, delta %d", snap.Seq, d.Seq)
			}
			if got := keys(snap.Cells); !slices.Equal(got, tc.order) {
				t.Errorf("order %v, want %v", got, tc.order)
			}
		})
	}
}

// TestFleetTimePassed: a running update turns Slow, then Stalled, with
// the clock alone.
func TestFleetTimePassed(t *testing.T) {
	f := newFleet(nil)
	f.set("ns", "hc", hcStatus{assessment: v1alpha1.ControlPlaneAssessmentProgressing, cpUpdate: true, estimate: time.Minute}.status(), fleetNow)
	f.timePassed(fleetNow)
	_ = f.flush(fleetNow)
	for _, tc := range []struct {
		after      time.Duration
		assessment string
		stalled    bool
	}{
		{30 * time.Second, "", false},
		{2 * time.Minute, "Progressing - Slow", false},
		{5 * time.Minute, "", false},
		{20 * time.Minute, "Stalled", true},
	} {
		now := fleetNow.Add(tc.after)
		f.timePassed(now)
		d := f.flush(now)
		if tc.assessment == "" {
			if d != nil {
				t.Errorf("after %v: a delta %+v", tc.after, d)
			}
			continue
		}
		if d == nil || len(d.Cells) != 1 || d.Cells[0].Assessment != tc.assessment || (d.Cells[0].Stalled != "") != tc.stalled {
			t.Errorf("after %v: delta %+v, want %s (stalled %v)", tc.after, d, tc.assessment, tc.stalled)
		}
	}
}

func TestFleetLanding(t *testing.T) {
	pinned := &HostedCluster{Namespace: "ns", Name: "hc"}
	for _, tc := range []struct {
		name   string
		pinned *HostedCluster
		edit   func(f *fleet)
		want   string
	}{
		{"undiscovered", nil, func(*fleet) {}, ""},
		{"not served", nil, func(f *fleet) { f.setDiscovered(false) }, "cluster"},
		{"served, loading", nil, func(f *fleet) { f.setDiscovered(true) }, ""},
		{"served, empty", nil, func(f *fleet) { f.setDiscovered(true); f.setSynced() }, "cluster"},
		{"served, failing", nil, func(f *fleet) {
			f.setDiscovered(true)
			f.setError("hostedclusterupdatestatuses", &APIError{Resource: "hostedclusterupdatestatuses", Reason: "Forbidden"})
		}, "cluster"},
		{"hosted clusters", nil, func(f *fleet) {
			f.setDiscovered(true)
			f.set("ns", "hc", hcStatus{}.status(), fleetNow)
		}, "fleet"},
		{"pinned", pinned, func(f *fleet) {
			f.setDiscovered(true)
			f.set("ns", "hc", hcStatus{}.status(), fleetNow)
		}, "cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleet(tc.pinned)
			tc.edit(f)
			if got := f.snapshot(fleetNow).Landing; got != tc.want {
				t.Errorf("landing %q, want %q", got, tc.want)
			}
		})
	}
}

// fleetState polls /fleet.json until pred holds.
func fleetState(t *testing.T, url string, pred func(*FleetSnapshot) bool) *FleetSnapshot {
	t.Helper()
	var last FleetSnapshot
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		resp, err := http.Get(url + "/fleet.json")
		if err != nil {
			return false, err
		}
		last = FleetSnapshot{}
		err = json.NewDecoder(resp.Body).Decode(&last)
		_ = resp.Body.Close()
		return err == nil && pred(&last), err
	})
	if err != nil {
		b, _ := json.MarshalIndent(last, "", " ")
		t.Fatalf("the fleet never showed what was expected: %v; last:\n%s", err, b)
	}
	return &last
}

// TestFleetHandler: the fleet of a management cluster's every namespace
// on /fleet.json and /fleet/events, and a hosted cluster's page by URL from
// the same handler.
func TestFleetHandler(t *testing.T) {
	us, _ := computed(t)
	objs := []runtime.Object{&v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: resources.UpdateStatusName}, Status: us.Status}}
	var want []string
	for i := range 6 {
		ns, name := fmt.Sprintf("clusters-%d", i%2), fmt.Sprintf("hc-%d", i)
		objs = append(objs, &v1alpha1.HostedClusterUpdateStatus{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Status: us.Status})
		want = append(want, ns+"/"+name)
	}
	slices.Sort(want)
	client := newHostedFake(false, objs...)
	client.Resources[0].APIResources = append(client.Resources[0].APIResources,
		metav1.APIResource{Name: resources.UpdateStatus.Resource, Kind: resources.UpdateStatus.Kind})
	h, srv := started(t, Options{Client: client})

	snap := fleetState(t, srv.URL, func(s *FleetSnapshot) bool { return s.Synced && s.Standalone && len(s.Cells) == 6 })
	got := keys(snap.Cells)
	slices.Sort(got)
	if !slices.Equal(got, want) || snap.Landing != "fleet" || !snap.Served || len(snap.Errors) != 0 {
		t.Errorf("cells %v, landing %q, served %v, errors %v; want %v, fleet, true, none", got, snap.Landing, snap.Served, snap.Errors, want)
	}
	if c := snap.Cells[0]; c.To != "4.14.1" || c.Class == "" {
		t.Errorf("cell %+v", c)
	}

	// The stream: a snapshot, then a delta with the one cell that changed.
	s := openStreamAt(t, srv.URL+"/fleet/events", "")
	if first := decode[FleetSnapshot](t, s.next(t, "snapshot")); len(first.Cells) != 6 {
		t.Fatalf("snapshot of %d cells", len(first.Cells))
	}
	changed := &v1alpha1.HostedClusterUpdateStatus{ObjectMeta: metav1.ObjectMeta{Namespace: "clusters-1", Name: "hc-3"}}
	if err := client.Tracker().Update(v1alpha1.SchemeGroupVersion.WithResource(resources.HostedClusterUpdateStatus.Resource), changed, "clusters-1"); err != nil {
		t.Fatal(err)
	}
	// (A delta of the header alone may come first.)
	d := decode[FleetDelta](t, s.next(t, "delta"))
	for len(d.Cells) == 0 && len(d.Removed) == 0 {
		d = decode[FleetDelta](t, s.next(t, "delta"))
	}
	if got := keys(d.Cells); !slices.Equal(got, []string{"clusters-1/hc-3"}) || d.Cells[0].Class != FleetUnknown {
		t.Errorf("delta cells %+v, want clusters-1/hc-3 unknown", d.Cells)
	}

	// A hosted cluster's page, by URL, from the same handler.
	st := stateAt(t, srv.URL+"/state.json?hosted=clusters-0/hc-2", "the hosted cluster synced", func(s *Snapshot) bool { return s.Synced && len(s.Nodes) > 0 })
	if st.HostedCluster == nil || *st.HostedCluster != (HostedCluster{Namespace: "clusters-0", Name: "hc-2"}) || st.Source != SourceHostedStatus {
		t.Errorf("hosted page: cluster %+v, source %q", st.HostedCluster, st.Source)
	}
	// The handler's own page is still the standalone cluster.
	if own := stateAt(t, srv.URL+"/state.json", "synced", func(s *Snapshot) bool { return s.Synced }); own.HostedCluster != nil {
		t.Errorf("the handler's page follows %+v", own.HostedCluster)
	}
	h.clusters.mu.Lock()
	pages := len(h.clusters.pages)
	h.clusters.mu.Unlock()
	if pages != 1 {
		t.Errorf("%d other pages followed, want 1", pages)
	}
	// Without browser, the page is stopped after clusterPageIdle.
	for _, step := range []struct {
		idle time.Duration
		want int
	}{{0, 1}, {clusterPageIdle - time.Second, 1}, {clusterPageIdle, 0}} {
		h.clusters.reap(fleetNow.Add(step.idle))
		h.clusters.mu.Lock()
		pages = len(h.clusters.pages)
		h.clusters.mu.Unlock()
		if pages != step.want {
			t.Errorf("after %v idle: %d pages, want %d", step.idle, pages, step.want)
		}
	}
	for _, bad := range []string{"hosted=nope", "hosted=a/b/c", "hosted=UPPER/x", "hosted="} {
		resp, err := http.Get(srv.URL + "/events?" + bad)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "NAMESPACE/NAME") {
			t.Errorf("%s: %d %s", bad, resp.StatusCode, body)
		}
	}
}

// TestFleetPinned: with a hosted cluster given, `/` lands on its page and
// the fleet is still listed.
func TestFleetPinned(t *testing.T) {
	us, _ := computed(t)
	client := newHostedFake(false, &v1alpha1.HostedClusterUpdateStatus{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "hc"}, Status: us.Status})
	_, srv := started(t, Options{Client: client, HostedCluster: types.NamespacedName{Namespace: "ns", Name: "hc"}})
	snap := fleetState(t, srv.URL, func(s *FleetSnapshot) bool { return s.Synced && len(s.Cells) == 1 })
	if snap.Landing != "cluster" || snap.Pinned == nil || snap.Pinned.Name != "hc" || snap.Standalone {
		t.Errorf("landing %q, pinned %+v, standalone %v", snap.Landing, snap.Pinned, snap.Standalone)
	}
}
