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

package insights

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

const (
	poolMaster = "master"
	poolWorker = "worker"
)

// selector matches node labels; nil matches nothing.
type selector = labels.Selector

// poolSet is the snapshot's MachineConfigPools, ready for node assignment.
type poolSet struct {
	byName map[string]*poolInfo
	// order is the assignment order of docs/insights.md#pool-assignment:
	// master, the custom pools by name, worker.
	order []*poolInfo
	// workers are every pool but master, by name.
	workers []*poolInfo
	// selectorKey changes whenever any node's assignment could change.
	selectorKey string
	health      []*healthItem
}

// poolFingerprint is what a node's facts depend on in its pool.
func poolFingerprint(p *poolInfo) string {
	return strings.Join([]string{p.name, strconv.FormatBool(p.paused), p.config, strconv.FormatBool(p.layered), p.osImage,
		p.ref.Group, p.ref.Resource, p.ref.Namespace}, "\x00")
}

// newPoolSet builds the pool set. Pools are sorted by name, duplicates (by
// name) are dropped, and pools whose selector cannot be parsed match no node
// and get a health insight (oc aborts instead).
func newPoolSet(mcps []*Pool) *poolSet {
	sorted := sortedByName(mcps, func(m *Pool) (string, types.UID) { return m.Name, m.UID })
	ps := &poolSet{byName: make(map[string]*poolInfo, len(sorted))}
	var custom []*poolInfo
	var key strings.Builder
	for _, m := range sorted {
		if _, dup := ps.byName[m.Name]; dup || m.Name == "" {
			continue
		}
		p := &poolInfo{
			name:    m.Name,
			master:  m.Resource == nil && m.Name == poolMaster,
			ref:     m.ref(),
			paused:  m.Paused,
			config:  m.TargetConfig,
			changed: m.Changed,
			layered: m.Layered,
			osImage: m.TargetImageConfig,
		}
		sel, err := metav1.LabelSelectorAsSelector(m.NodeSelector)
		if err != nil {
			scope := v1alpha1.WorkerPoolScope
			if p.master {
				scope = v1alpha1.ControlPlaneScope
			}
			ref := p.ref
			if h := newHealth(v1alpha1.HealthPoolBadSelector, m.Name, &ref, scope, p.changed,
				v1alpha1.ErrorImpactLevel, v1alpha1.UnknownImpactType,
				"failed to get label selector from the pool: "+m.Name,
				fmt.Sprintf("The node selector of MachineConfigPool %s cannot be parsed (%v), so no node is counted in it.", m.Name, err),
				refMCO); h != nil {
				h.acquired = p.changed
				h.pool = m.Name
				ps.health = append(ps.health, h)
			}
		} else {
			p.selector = sel
		}
		ps.byName[m.Name] = p
		switch p.name {
		case poolMaster, poolWorker:
		default:
			custom = append(custom, p)
		}
		if !p.master {
			ps.workers = append(ps.workers, p)
		}
	}
	if m := ps.byName[poolMaster]; m != nil {
		ps.order = append(ps.order, m)
	}
	ps.order = append(ps.order, custom...)
	if w := ps.byName[poolWorker]; w != nil {
		ps.order = append(ps.order, w)
	}
	for _, p := range ps.order {
		key.WriteString(p.name)
		key.WriteByte(0)
		if p.selector != nil {
			key.WriteString(p.selector.String())
		} else {
			key.WriteString("\x01invalid")
		}
		key.WriteByte(0)
	}
	ps.selectorKey = key.String()
	return ps
}

// assign returns the pool a node with these labels belongs to, or nil.
func (ps *poolSet) assign(nodeLabels labels.Labels) *poolInfo {
	for _, p := range ps.order {
		if p.selector != nil && p.selector.Matches(nodeLabels) {
			return p
		}
	}
	return nil
}

// poolCounters are the counters of docs/insights.md#pool-counters.
type poolCounters struct {
	total, available, degraded, excluded, draining, progressing, outdated, updated, pending, moving int
	// acquired is the latest change of a member, in Unix seconds.
	acquired int64
}

func (c *poolCounters) add(ent *nodeEntry) {
	c.total++
	if ent.changed > c.acquired {
		c.acquired = ent.changed
	}
	if !ent.unavailable {
		c.available++
	}
	if ent.degraded {
		c.degraded++
	}
	switch ent.phase {
	case phasePaused:
		c.excluded++
		c.outdated++
	case phasePending:
		c.pending++
		c.outdated++
	case phaseDraining, phaseUpdating, phaseRebooting:
		if ent.phase == phaseDraining {
			c.draining++
		}
		c.outdated++
		c.moving++
		if !ent.degraded {
			c.progressing++
		}
	case phaseUpdated:
		c.updated++
	}
}

// assessment applies docs/insights.md#pool-assessment.
func (c *poolCounters) assessment() v1alpha1.PoolAssessment {
	switch {
	case c.updated == c.total:
		return v1alpha1.PoolCompleted
	case c.pending == c.total:
		return v1alpha1.PoolPending
	case c.degraded > 0:
		return v1alpha1.PoolDegraded
	case c.excluded > 0:
		return v1alpha1.PoolExcluded
	default:
		return v1alpha1.PoolProgressing
	}
}

func clampCount(n int) int32 {
	if n > maxNodeCount {
		return maxNodeCount
	}
	return int32(n)
}

// poolInsight builds the MachineConfigPool status insight and the pool's
// Updating condition (also copied to workerPools[].conditions).
func poolInsight(p *poolInfo, c *poolCounters) (*v1alpha1.MachineConfigPoolStatusInsight, metav1.Condition) {
	typ := v1alpha1.PoolUpdating
	msg := fmt.Sprintf("%d of %d nodes updated", c.updated, c.total)
	var cond metav1.Condition
	switch {
	case c.moving > 0:
		cond = condition(typ, metav1.ConditionTrue, v1alpha1.PoolUpdatingReasonProgressing, msg, p.changed)
	case c.excluded > 0:
		cond = condition(typ, metav1.ConditionFalse, v1alpha1.PoolUpdatingReasonPaused, msg+"; the pool is paused", p.changed)
	case c.updated == c.total:
		cond = condition(typ, metav1.ConditionFalse, v1alpha1.PoolUpdatingReasonUpdated, msg, p.changed)
	default:
		cond = condition(typ, metav1.ConditionFalse, v1alpha1.PoolUpdatingReasonPending, msg, p.changed)
	}
	if !isOperatorNameValid(p.name) {
		return nil, cond
	}
	scope := v1alpha1.WorkerPoolScope
	if p.master {
		scope = v1alpha1.ControlPlaneScope
	}
	return &v1alpha1.MachineConfigPoolStatusInsight{
		Name:       p.name,
		Resource:   v1alpha1.PoolResourceRef{ResourceRef: p.ref},
		Scope:      scope,
		Assessment: c.assessment(),
		Completion: completionPercent(c.updated, c.total),
		Summaries: []v1alpha1.NodeSummary{
			{Type: v1alpha1.NodesTotal, Count: clampCount(c.total)},
			{Type: v1alpha1.NodesAvailable, Count: clampCount(c.available)},
			{Type: v1alpha1.NodesProgressing, Count: clampCount(c.progressing)},
			{Type: v1alpha1.NodesOutdated, Count: clampCount(c.outdated)},
			{Type: v1alpha1.NodesDraining, Count: clampCount(c.draining)},
			{Type: v1alpha1.NodesExcluded, Count: clampCount(c.excluded)},
			{Type: v1alpha1.NodesDegraded, Count: clampCount(c.degraded)},
		},
		Conditions: []metav1.Condition{cond},
	}, cond
}

// pausedHealth applies the paused-pool rule of docs/insights.md#health-rules.
// oc scopes it WorkerPool even for the control-plane pool; here the
// control-plane pool's insight is scoped ControlPlane, because it is filed
// under the control plane.
func pausedHealth(p *poolInfo, c *poolCounters) *healthItem {
	if c.excluded == 0 || !p.paused {
		return nil
	}
	scope := v1alpha1.WorkerPoolScope
	if p.master {
		scope = v1alpha1.ControlPlaneScope
	}
	ref := p.ref
	h := newHealth(v1alpha1.HealthPoolPaused, p.name, &ref, scope, time.Time{}, v1alpha1.WarningImpactLevel,
		v1alpha1.UpdateStalledImpactType,
		fmt.Sprintf("Outdated nodes in a paused pool '%s' will not be updated", p.name),
		"Pool is paused, which stops all changes to the nodes in the pool, including updates. The nodes will not be updated until the pool is unpaused by the administrator.",
		refPaused)
	if h != nil {
		h.acquired = p.changed
		h.pool = p.name
	}
	return h
}

// poolState is the memory kept for one MachineConfigPool.
type poolState struct {
	name        string
	fingerprint string
	gen         uint64
	seen        uint64

	// members are this evaluation's nodes (scratch space), listed only when
	// collect says the membership changed.
	members []*nodeEntry
	collect bool
	// withHealth are this evaluation's members that may have health insights.
	withHealth []*nodeEntry
	counters   poolCounters
	// memberSum and memberCount identify this evaluation's membership.
	memberSum   uint64
	memberCount int

	// sorted is the last membership in uid order; sortedSum and sortedCount
	// identify that membership. tmpl holds their insights and ranks their
	// importance, index by index, in contiguous memory.
	sorted []*nodeEntry
	tmpl   []v1alpha1.WorkerPoolInsight
	ranks  []int8
	// changed are the members whose facts were recomputed in this evaluation.
	changed     []*nodeEntry
	sortedSum   uint64
	sortedCount int

	// dirty says that a member's facts or the membership changed in this
	// evaluation.
	dirty bool
	// The last pool insight and the inputs it was built from.
	mcp        *v1alpha1.MachineConfigPoolStatusInsight
	mcpCond    metav1.Condition
	mcpInputs  poolCounters
	mcpGen     uint64
	mcpChanged time.Time
	paused     *healthItem
	// The last informer list, the health insights and the truncation it was
	// built with; reused while nothing changed.
	out       []v1alpha1.WorkerPoolInsight
	outMCP    *v1alpha1.MachineConfigPoolStatusInsight
	outHealth []*healthItem
	outTrunc  *Truncation
}

// poolSet returns the pool set of mcps, reusing the last one when the pools
// are the same ones (in any order).
func (e *Engine) poolSet(mcps []*Pool) *poolSet {
	if e.lastPoolSet != nil && len(mcps) == len(e.lastPools) && len(mcps) <= 64 {
		same := true
		for i := range mcps {
			if !slices.Contains(e.lastPools, mcps[i]) || !slices.Contains(mcps, e.lastPools[i]) {
				same = false
				break
			}
		}
		if same {
			return e.lastPoolSet
		}
	}
	ps := newPoolSet(mcps)
	e.lastPools, e.lastPoolSet = append(e.lastPools[:0], mcps...), ps
	return ps
}

// refreshShared bumps the generations of the inputs node facts share: the
// MachineConfig versions, the pool selectors and each pool's settings.
func (e *Engine) refreshShared(ps *poolSet, mcVersions map[string]string) {
	if !sameVersions(e.mcVersions, mcVersions) {
		e.mcGen++
		e.mcVersions = make(map[string]string, len(mcVersions))
		e.versionOK = map[string]bool{}
		for k, v := range mcVersions {
			e.mcVersions[k] = v
			e.versionOK[v] = isVersion(v)
		}
	}
	if ps.selectorKey != e.selectorKey {
		e.selectorKey = ps.selectorKey
		e.selGen++
	}
	for name, p := range ps.byName {
		st := e.pools[name]
		if st == nil {
			st = &poolState{name: name}
			e.pools[name] = st
		}
		st.seen = e.gen
		if fp := poolFingerprint(p); fp != st.fingerprint || st.gen == 0 {
			st.fingerprint = fp
			e.poolGenSeq++
			st.gen = e.poolGenSeq
		}
		p.gen = st.gen
		st.members = st.members[:0]
		st.withHealth = st.withHealth[:0]
		st.counters = poolCounters{}
		st.changed = st.changed[:0]
		st.memberSum, st.memberCount = 0, 0
		st.dirty = false
	}
	if len(e.pools) != len(ps.byName) {
		for name, st := range e.pools {
			if st.seen != e.gen {
				delete(e.pools, name)
			}
		}
	}
}

func sameVersions(a, b map[string]string) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, v := range b {
		if w, ok := a[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// poolResult is one evaluated pool on its way into the object.
type poolResult struct {
	info     *poolInfo
	insight  *v1alpha1.MachineConfigPoolStatusInsight
	updating metav1.Condition
	acquired time.Time
	nodes    []*nodeEntry
	health   []*healthItem
	total    int
	state    *poolState
}

// evaluatePools evaluates every pool from its members' facts.
func (e *Engine) evaluatePools(ps *poolSet, now time.Time, a *assembly) []*poolResult {
	out := make([]*poolResult, 0, len(ps.byName))
	names := make([]string, 0, len(ps.byName))
	for name := range ps.byName {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := ps.byName[name]
		st := e.pools[name]
		r := &poolResult{info: p, total: st.counters.total, state: st}
		if st.mcpGen != p.gen || st.mcpInputs != st.counters || !st.mcpChanged.Equal(p.changed) || st.mcpCond.Type == "" {
			st.mcp, st.mcpCond = poolInsight(p, &st.counters)
			st.paused = pausedHealth(p, &st.counters)
			st.mcpGen, st.mcpInputs, st.mcpChanged = p.gen, st.counters, p.changed
		}
		in := st.mcp
		r.insight, r.updating = in, st.mcpCond
		r.acquired = latest(p.changed, time.Unix(st.counters.acquired, 0))
		r.nodes = st.sortedMembers()
		for _, ent := range st.withHealth {
			f := ent.facts
			if f.unavailable != nil {
				serious, next := seriouslyUnavailable(f.bad, now)
				a.next = earliest(a.next, next)
				if serious {
					r.health = append(r.health, f.unavailable)
				}
			}
			if f.degraded != nil {
				r.health = append(r.health, f.degraded)
			}
			if f.unrepresentable != nil {
				r.health = append(r.health, f.unrepresentable)
			}
		}
		if st.paused != nil {
			r.health = append(r.health, st.paused)
		}
		if in == nil {
			if h := unrepresentablePool(p); h != nil {
				r.health = append(r.health, h)
			}
		}
		out = append(out, r)
	}
	return out
}

// sortedMembers returns this evaluation's members that have a node insight,
// in uid order and without repeated uids (the first node keeps a uid that
// two names share), and keeps tmpl and ranks in step with them. The last
// order is reused when the membership did not change; then only the changed
// members are patched.
func (st *poolState) sortedMembers() []*nodeEntry {
	sum := st.memberSum
	if !st.collect {
		for _, ent := range st.changed {
			if ent.pos >= 0 && ent.pos < len(st.sorted) && st.sorted[ent.pos] == ent {
				st.tmpl[ent.pos] = nodeInsight(ent.facts)
				st.ranks[ent.pos] = int8(ent.rank)
			}
		}
		return st.sorted
	}
	sorted := make([]*nodeEntry, 0, len(st.members))
	for _, ent := range st.members {
		ent.pos = -1
		if ent.facts.insight != nil {
			sorted = append(sorted, ent)
		}
	}
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.facts.uid != b.facts.uid {
			return a.facts.uid < b.facts.uid
		}
		return a.uid < b.uid
	})
	out := sorted[:0]
	for i, ent := range sorted {
		if i > 0 && sorted[i-1].facts.uid == ent.facts.uid {
			continue
		}
		out = append(out, ent)
	}
	st.tmpl = make([]v1alpha1.WorkerPoolInsight, len(out))
	st.ranks = make([]int8, len(out))
	for i, ent := range out {
		ent.pos = i
		st.tmpl[i] = nodeInsight(ent.facts)
		st.ranks[i] = int8(ent.rank)
	}
	st.sorted, st.sortedSum, st.sortedCount = out, sum, st.memberCount
	st.dirty = true
	return out
}

// poolInfo is a MachineConfigPool as the node rules see it.
type poolInfo struct {
	name     string
	master   bool
	paused   bool
	config   string
	layered  bool
	osImage  string
	selector selector
	// ref is the object the pool's insights reference.
	ref     v1alpha1.ResourceRef
	changed time.Time
	gen     uint64
}

// uid is the uid of the pool's status insight.
func (p *poolInfo) uid() string { return refUID(uidPrefixPool, p.ref) }

// unrepresentablePool reports a pool the API cannot describe.
func unrepresentablePool(p *poolInfo) *healthItem {
	scope := v1alpha1.WorkerPoolScope
	if p.master {
		scope = v1alpha1.ControlPlaneScope
	}
	h := newHealth(v1alpha1.HealthUnrepresentable, "mcp/"+p.name, nil, scope, time.Time{},
		v1alpha1.InfoImpactLevel, v1alpha1.UnknownImpactType,
		"A machine config pool has a name the API cannot carry, it is left out",
		fmt.Sprintf("MachineConfigPool %q has no pool insight: insight names must match ^[a-z0-9-]+$ and have at most 64 characters.",
			conventions.Short(p.name, 300)), refAPIIntro)
	if h != nil {
		h.acquired = p.changed
		h.pool = p.name
	}
	return h
}

// sortedByName returns the items that are not nil sorted by name, items of
// the same name by UID; key gives an item's name and UID.
func sortedByName[T any](items []*T, key func(*T) (string, types.UID)) []*T {
	sorted := make([]*T, 0, len(items))
	for _, it := range items {
		if it != nil {
			sorted = append(sorted, it)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool {
		ni, ui := key(sorted[i])
		nj, uj := key(sorted[j])
		if ni != nj {
			return ni < nj
		}
		return ui < uj
	})
	return sorted
}
