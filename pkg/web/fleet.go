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
	"cmp"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Fleet cell classes: how the fleet page colours a hosted cluster, from its
// control-plane assessment and whether it updates at all.
const (
	// FleetDegraded: the control-plane assessment is Degraded.
	FleetDegraded = "degraded"
	// FleetSlow: the control plane progresses past its estimated
	// completion (oc's Progressing - Slow, and Stalled).
	FleetSlow = "slow"
	// FleetUpdating: the control plane progresses.
	FleetUpdating = "updating"
	// FleetNodes: the control plane is done; node pools still update.
	FleetNodes = "nodes"
	// FleetUnknown: no control-plane insight, or its assessment is Unknown.
	FleetUnknown = "unknown"
	// FleetIdle: not updating (the last update completed).
	FleetIdle = "idle"
)

// FleetClasses lists the classes, worst first: the order of the fleet
// page's legend and, after the stalled ones, of its cells.
var FleetClasses = []string{FleetDegraded, FleetSlow, FleetUpdating, FleetNodes, FleetUnknown, FleetIdle}

// FleetCell is what the fleet page shows of one hosted cluster: the
// summary of its HostedClusterUpdateStatus, a few hundred bytes.
type FleetCell struct {
	Namespace string `json:"ns"`
	Name      string `json:"n"`
	// Class is one of FleetClasses.
	Class string `json:"c"`
	// Assessment is oc's word for the control plane: its assessment, or
	// Progressing - Slow, or Stalled; Unknown without insight.
	Assessment string `json:"a"`
	// Updating says the control plane or a node pool updates.
	Updating   bool   `json:"u,omitempty"`
	Completion int32  `json:"p"`
	From       string `json:"f,omitempty"`
	To         string `json:"t,omitempty"`
	// NodesUpdated of NodesTotal are the worker pools' nodes at the target.
	NodesUpdated int32 `json:"nu,omitempty"`
	NodesTotal   int32 `json:"nt,omitempty"`
	// Health is the worst health insight's level, HealthSummary its
	// summary, HealthCount how many insights there are.
	Health        string `json:"h,omitempty"`
	HealthSummary string `json:"hs,omitempty"`
	HealthCount   int    `json:"hn,omitempty"`
	// Stalled says why the update is stuck (fleetStalled); empty when it is
	// not.
	Stalled string `json:"s,omitempty"`
}

// Key is the cell's "namespace/name".
func (c *FleetCell) Key() string { return c.Namespace + "/" + c.Name }

// rank orders cells worst first: stalled, then by class.
func (c *FleetCell) rank() int {
	r := slices.Index(FleetClasses, c.Class)
	if r < 0 {
		r = len(FleetClasses)
	}
	if c.Stalled != "" {
		return r
	}
	return len(FleetClasses) + 1 + r
}

// fleetLess orders cells worst first, then by namespace and name.
func fleetLess(a, b *FleetCell) int {
	return cmp.Or(cmp.Compare(a.rank(), b.rank()), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// fleetEntry is what the fleet model keeps of one hosted cluster: its
// cell, and its control-plane insight for the time-dependent words.
type fleetEntry struct {
	// cv is the control-plane insight while an update runs; nil else.
	cv *v1alpha1.ClusterVersionStatusInsight
	// base is the cell without the time-dependent part.
	base FleetCell
}

// stalledOverdue is what the Stalled marker says of an update past its
// estimate by more than oc's ten minutes.
const stalledOverdue = "the control plane is more than 10 minutes past its estimated completion"

// fleetEntryOf summarises one hosted cluster's status at now.
func fleetEntryOf(ns, name string, st *v1alpha1.UpdateStatusStatus) fleetEntry {
	c := FleetCell{Namespace: ns, Name: name, Assessment: string(v1alpha1.ControlPlaneAssessmentUnknown)}
	var cv *v1alpha1.ClusterVersionStatusInsight
	type health struct {
		uid, informer string
		h             *v1alpha1.HealthStatusInsight
	}
	var healths []health
	var stalledBy *health
	addHealth := func(informer, uid string, h *v1alpha1.HealthStatusInsight) {
		healths = append(healths, health{uid, informer, h})
	}
	if cp := st.ControlPlane; cp != nil {
		if u := findCondition(cp.Conditions, string(v1alpha1.ControlPlaneUpdating)); u != nil && u.Status == metav1.ConditionTrue {
			c.Updating = true
		}
		for _, inf := range cp.Informers {
			conventions.EachInsight(inf.Name, inf.Insights, conventions.ControlPlaneHealth, addHealth, func(in *v1alpha1.ControlPlaneInsight) {
				if u := in.Insight.ClusterVersionStatusInsight; u != nil && cv == nil {
					cv = u
				}
			})
		}
	}
	for _, wp := range st.WorkerPools {
		if u := findCondition(wp.Conditions, v1alpha1.PoolUpdating); u != nil && u.Status == metav1.ConditionTrue {
			c.Updating = true
		}
		for _, inf := range wp.Informers {
			conventions.EachInsight(inf.Name, inf.Insights, conventions.WorkerPoolHealth, addHealth, func(in *v1alpha1.WorkerPoolInsight) {
				p := in.Insight.MachineConfigPoolStatusInsight
				if p == nil {
					return
				}
				if p.Assessment == v1alpha1.PoolProgressing {
					c.Updating = true
				}
				var total, outdated int32
				for _, s := range p.Summaries {
					switch s.Type {
					case v1alpha1.NodesTotal:
						total = s.Count
					case v1alpha1.NodesOutdated:
						outdated = s.Count
					}
				}
				c.NodesTotal += total
				c.NodesUpdated += max(total-outdated, 0)
			})
		}
	}
	// The worst health insight, the oldest uid first among equals; the
	// first that says the update is stuck.
	slices.SortFunc(healths, func(a, b health) int {
		return cmp.Or(cmp.Compare(conventions.LevelRank(b.h.Impact.Level), conventions.LevelRank(a.h.Impact.Level)),
			cmp.Compare(a.uid, b.uid), cmp.Compare(a.informer, b.informer))
	})
	c.HealthCount = len(healths)
	if len(healths) > 0 {
		c.Health, c.HealthSummary = string(healths[0].h.Impact.Level), healths[0].h.Impact.Summary
	}
	for i := range healths {
		h := &healths[i]
		_, drain := conventions.DrainBlockOf(h.informer, h.h)
		if drain || conventions.StallsUpdate(h.h.Impact.Level, h.h.Impact.Type) {
			stalledBy = h
			break
		}
	}
	if stalledBy != nil {
		c.Stalled = stalledBy.h.Impact.Summary
	}
	e := fleetEntry{}
	if cv != nil {
		c.Assessment = string(cv.Assessment)
		c.Completion = cv.Completion
		c.From, c.To = cv.Versions.Previous.Version, cv.Versions.Target.Version
		if cv.Assessment != v1alpha1.ControlPlaneAssessmentCompleted && cv.CompletedAt == nil && cv.EstimatedCompletedAt != nil {
			e.cv = cv.DeepCopy()
		}
	}
	e.base = c
	return e
}

// at returns the entry's cell at now: oc's Slow and Stalled words of an
// update past its estimate, and the class.
func (e *fleetEntry) at(now time.Time) FleetCell {
	c := e.base
	if e.cv != nil {
		switch est, _ := conventions.InsightRemaining(e.cv, now); {
		case est < -10*time.Minute:
			c.Assessment = "Stalled"
			if c.Stalled == "" {
				c.Stalled = stalledOverdue
			}
		case est < 0:
			c.Assessment += " - Slow"
		}
	}
	switch {
	case c.Assessment == string(v1alpha1.ControlPlaneAssessmentDegraded):
		c.Class = FleetDegraded
	case c.Assessment == "Stalled" || c.Assessment == string(v1alpha1.ControlPlaneAssessmentProgressing)+" - Slow":
		c.Class = FleetSlow
	case c.Assessment == string(v1alpha1.ControlPlaneAssessmentProgressing):
		c.Class = FleetUpdating
	case c.Assessment == string(v1alpha1.ControlPlaneAssessmentCompleted) && c.Updating:
		c.Class = FleetNodes
	case c.Assessment == string(v1alpha1.ControlPlaneAssessmentCompleted):
		c.Class = FleetIdle
	default:
		c.Class = FleetUnknown
	}
	return c
}

// FleetSnapshot is the whole fleet, sent to a browser when it connects.
type FleetSnapshot struct {
	FleetHeader
	Cells []FleetCell `json:"cells"`
}

// FleetHeader is what every fleet event carries besides the cells.
type FleetHeader struct {
	Seq uint64    `json:"seq"`
	Now time.Time `json:"now"`
	// Served says the server serves hostedclusterupdatestatuses; false
	// until discovery says so.
	Served bool `json:"served"`
	Synced bool `json:"synced"`
	// Landing is the page `/` opens on: "fleet" when hosted clusters are
	// listed, "cluster" when there is none to list (or the page follows a
	// given cluster); empty until the fleet is known.
	Landing string `json:"landing"`
	// Standalone says updatestatuses/cluster exists: the page links to the
	// standalone cluster's page.
	Standalone bool `json:"standalone"`
	// Pinned is the hosted cluster `update-status web --hosted-cluster`
	// follows; nil without.
	Pinned *HostedCluster `json:"pinned,omitempty"`
	Errors []APIError     `json:"errors"`
}

// FleetDelta is what changed since the previous fleet event.
type FleetDelta struct {
	FleetHeader
	// Cells are the new and changed cells, Removed the keys
	// ("namespace/name") of the hosted clusters gone.
	Cells   []FleetCell `json:"cells,omitempty"`
	Removed []string    `json:"removed,omitempty"`
}

// fleet is the fleet page's model: one cell per hosted cluster listed, and
// what changed since the last flush.
type fleet struct {
	pinned *HostedCluster

	mu         sync.Mutex
	seq        uint64
	discovered bool
	served     bool
	synced     bool
	standalone bool
	entries    map[string]*fleetEntry
	errors     map[string]APIError
	dirty      map[string]struct{}
	// headerDirty says a header field changed.
	headerDirty bool
	// ticked is when timePassed last looked.
	ticked time.Time
}

func newFleet(pinned *HostedCluster) *fleet {
	return &fleet{pinned: pinned, entries: map[string]*fleetEntry{}, errors: map[string]APIError{}, dirty: map[string]struct{}{}}
}

// set replaces the hosted cluster ns/name's status; nil removes it.
func (f *fleet) set(ns, name string, st *v1alpha1.UpdateStatusStatus, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := ns + "/" + name
	old := f.entries[key]
	if st == nil {
		if old != nil {
			delete(f.entries, key)
			f.dirty[key] = struct{}{}
			f.headerDirty = true // the landing may change
		}
		return
	}
	e := fleetEntryOf(ns, name, st)
	if old != nil && old.at(now) == e.at(now) {
		*old = e
		return
	}
	if old == nil {
		f.headerDirty = true
	}
	f.entries[key] = &e
	f.dirty[key] = struct{}{}
}

// timePassed marks changed the cells whose words depend on the time
// (Slow, Stalled) and changed since it last looked.
func (f *fleet) timePassed(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for key, e := range f.entries {
		if e.cv != nil && e.at(f.ticked) != e.at(now) {
			f.dirty[key] = struct{}{}
		}
	}
	f.ticked = now
}

// setDiscovered records whether the server serves the fleet's resource.
func (f *fleet) setDiscovered(served bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.discovered || f.served != served {
		f.discovered, f.served, f.headerDirty = true, served, true
	}
}

func (f *fleet) setSynced() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.synced {
		f.synced, f.headerDirty = true, true
	}
}

func (f *fleet) setStandalone(exists bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.standalone != exists {
		f.standalone, f.headerDirty = exists, true
	}
}

// setError records a failure to read resource; nil clears it.
func (f *fleet) setError(resource string, e *APIError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if setAPIError(f.errors, resource, e) {
		f.headerDirty = true
	}
}

// erroring reports whether reading resource failed last.
func (f *fleet) erroring(resource string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.errors[resource]
	return ok
}

// landingLocked says which page `/` opens on (FleetHeader.Landing).
func (f *fleet) landingLocked() string {
	switch {
	case f.pinned != nil:
		return "cluster"
	case !f.discovered:
		return ""
	case !f.served:
		return "cluster"
	case len(f.entries) > 0:
		return "fleet"
	case f.synced || len(f.errors) > 0:
		return "cluster"
	}
	return ""
}

func (f *fleet) headerLocked(now time.Time) FleetHeader {
	h := FleetHeader{Seq: f.seq, Now: now.UTC(), Served: f.served, Synced: f.synced, Landing: f.landingLocked(),
		Standalone: f.standalone, Pinned: f.pinned, Errors: make([]APIError, 0, len(f.errors))}
	for _, e := range f.errors {
		h.Errors = append(h.Errors, e)
	}
	slices.SortFunc(h.Errors, func(a, b APIError) int { return cmp.Compare(a.Resource, b.Resource) })
	return h
}

// snapshot returns every cell, worst first.
func (f *fleet) snapshot(now time.Time) *FleetSnapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &FleetSnapshot{FleetHeader: f.headerLocked(now), Cells: make([]FleetCell, 0, len(f.entries))}
	for _, e := range f.entries {
		s.Cells = append(s.Cells, e.at(now))
	}
	slices.SortFunc(s.Cells, func(a, b FleetCell) int { return fleetLess(&a, &b) })
	return s
}

// flush returns what changed since the previous flush, with a new sequence
// number; nil when nothing did.
func (f *fleet) flush(now time.Time) *FleetDelta {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.dirty) == 0 && !f.headerDirty {
		return nil
	}
	f.seq++
	d := &FleetDelta{FleetHeader: f.headerLocked(now)}
	for key := range f.dirty {
		if e := f.entries[key]; e != nil {
			d.Cells = append(d.Cells, e.at(now))
		} else {
			d.Removed = append(d.Removed, key)
		}
	}
	slices.SortFunc(d.Cells, func(a, b FleetCell) int { return fleetLess(&a, &b) })
	slices.Sort(d.Removed)
	f.dirty, f.headerDirty = map[string]struct{}{}, false
	return d
}
