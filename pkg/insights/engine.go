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

// Package insights turns a snapshot of cluster objects and a clock reading into
// the status of an UpdateStatus, judging the cluster as `oc adm upgrade status`
// does. It does no I/O and never reads the wall clock.
//
// The rules read a Cluster (model.go); an adapter fills it from the objects of
// one shape of cluster, the standalone adapter (standalone.go) from Sources.
//
// The rules are described in docs/insights.md; where the API
// cannot say what oc concludes, the object follows the conventions of package
// encoding (documented in docs/api-decisions.md), so that a client such as
// pkg/report can print oc's text from the object alone.
package insights

import (
	"hash/fnv"
	"slices"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Alert is one Prometheus alert, as listed by /api/v1/alerts.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
	ActiveAt    time.Time         `json:"activeAt"`
}

// Result is the outcome of one evaluation.
//
// Status shares memoized parts (insight structs) with the Engine and with
// earlier results: treat it as read-only, and DeepCopy it before changing
// anything in it.
type Result struct {
	// Status is the computed status, without the outer conditions (those
	// describe the server, not the cluster, and are the server's to add).
	Status v1alpha1.UpdateStatusStatus
	// NextChange is the earliest moment after now at which the result would
	// change by the passing of time alone (a threshold crossing, an estimate
	// rolling over); zero when nothing time-dependent is pending.
	NextChange time.Time
	// Truncations lists the informers whose insights did not fit the API's
	// limits, so that a server can mention them in its Available condition.
	// Each is also reported by a Health insight in the object.
	Truncations []Truncation
	// Insights lists every insight, without the limits of Status, for the
	// per-insight resources.
	Insights []*Insight
	// Verdicts are the engine's verdicts on Sources.UpdateInformers, one per
	// object, sorted by namespace and name: what the server writes into
	// their status.
	Verdicts []Verdict
}

// Truncation says that an informer (or the list of worker pools) left out
// insights to stay within a limit of the API.
type Truncation struct {
	// Where names the list: "controlPlane/<informer>",
	// "workerPools/<pool>/<informer>" or "workerPools".
	Where string
	// Omitted is the number of insights (or pools) left out.
	Omitted int
}

// Engine computes results and remembers per-object work between calls, so that
// a change to one object does not redo the work for all the others. An Engine
// is not safe for concurrent use.
type Engine struct {
	gen uint64

	nodes map[string]*nodeEntry
	// objects finds the entry of an unchanged object without hashing its
	// name: informer caches hand out the same pointer until an object
	// changes.
	objects objectTable
	cos     map[string]*coEntry
	pools   map[string]*poolState
	// contribs remembers each UpdateInformer by namespace/name.
	contribs map[string]*contributionEntry

	// standalone fills the model from Sources.
	standalone standalone

	// lastPools are the pools lastPoolSet was built from.
	lastPools   []*Pool
	lastPoolSet *poolSet

	mcVersions map[string]string
	// versionOK says which MachineConfig versions are valid API versions.
	versionOK map[string]bool
	mcGen     uint64
	// sharedGen changes whenever an input every node depends on changes:
	// the MachineConfig versions, the target version, the multi-arch flag.
	sharedGen   uint64
	sharedKey   sharedInputs
	selectorKey string
	selGen      uint64
	poolGenSeq  uint64
}

// The Engine keeps the memory of a Node or ClusterOperator under its name,
// the object's unique key in the API. The memory is valid for one UID and
// resourceVersion; a recreated object (new UID) starts afresh.

// nodeEntry is the memory kept for one Node: its pool assignment, valid for
// one resourceVersion and one set of pool selectors, and its facts, valid as
// long as the shared inputs they were derived from are unchanged too.
type nodeEntry struct {
	// The fields read for every node in every evaluation come first.
	object    *Node
	seen      uint64
	rv        string
	rvEmpty   bool // the object has no resourceVersion: never trust the memory
	selGen    uint64
	state     *poolState // the node's pool, nil when none
	poolGen   uint64
	sharedGen uint64
	hash      uint64
	// A copy of what the pool counters read from facts, kept here so that an
	// evaluation touches one allocation per unchanged node.
	phase                                      nodePhase
	unavailable, degraded, hasHealth, updating bool
	rank                                       int
	changed                                    int64 // Unix seconds

	name  string
	uid   types.UID
	facts *nodeFacts
	// flat is the node's entry of Result.Insights for pool flatPool, built
	// from facts when first needed; nil whenever facts change.
	flat      *Insight
	flatPool  string
	collected uint64 // the evaluation that last listed it among its pool's members
	// pos is the entry's index in its pool's sorted list, -1 when unlisted.
	pos int
}

// coEntry is the memory kept for one ClusterOperator.
type coEntry struct {
	rv, target string
	pending    bool
	facts      coFacts
	insight    *v1alpha1.ClusterOperatorStatusInsight
	seen       uint64
}

// sharedInputs identifies the inputs every node's facts depend on.
type sharedInputs struct {
	mcGen     uint64
	latest    string
	multiArch bool
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

// NewEngine returns an Engine with empty memory.
func NewEngine() *Engine {
	return &Engine{
		nodes: map[string]*nodeEntry{},
		cos:   map[string]*coEntry{},
		pools: map[string]*poolState{},
	}
}

// Compute evaluates src at the instant now with a fresh Engine.
func Compute(src *Sources, now time.Time) Result {
	return NewEngine().Compute(src, now)
}

// Compute evaluates the standalone cluster src at the instant now.
func (e *Engine) Compute(src *Sources, now time.Time) Result {
	if src == nil {
		src = &Sources{}
	}
	return e.ComputeCluster(e.standalone.cluster(src), now)
}

// ComputeCluster evaluates the cluster c, filled by an adapter, at the
// instant now.
func (e *Engine) ComputeCluster(c *Cluster, now time.Time) Result {
	if c == nil {
		c = &Cluster{}
	}
	e.gen++
	var a assembly
	a.now = now

	cvf := newCVFacts(c.ControlPlane)
	cos := e.operators(c.Components, cvf.target)
	counts := countOperators(cos.facts)
	cvr := evaluateClusterVersion(&cvf, &counts, c.HasComponents, now)
	a.cv = cvr
	a.next = earliest(a.next, cvr.next)
	a.cpHealth = append(a.cpHealth, cvr.health...)
	a.cos = cos.insights
	a.cpHealth = append(a.cpHealth, cos.health...)
	for i := range cos.facts {
		hs, next := coHealth(&cos.facts[i], now)
		a.cpHealth = append(a.cpHealth, hs...)
		a.next = earliest(a.next, next)
	}
	if c.Alerts != nil {
		a.alerts = alertHealth(c.Alerts, cvf.updateStartedAt)
	}

	ps := e.poolSet(c.Pools)
	e.refreshShared(ps, c.ConfigVersions)
	e.evaluateNodes(c.Nodes, ps, &cvf)
	a.poolHealth = ps.health
	a.pools = e.evaluatePools(ps, now, &a)
	e.judgeContributions(c, ps, &a)

	res := a.build(cvf.cp)
	res.Insights = a.flatInsights()
	res.Verdicts = a.verdicts
	return res
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

// operatorSet is the evaluated platform ClusterOperators, by name.
type operatorSet struct {
	facts    []coFacts
	insights []coItem
	health   []*healthItem
}

// coItem is a ClusterOperator insight on its way into the object.
type coItem struct {
	uid      string
	acquired time.Time
	insight  *v1alpha1.ClusterOperatorStatusInsight
}

// operators evaluates the control plane's components, reusing the work for
// components whose resourceVersion and inputs did not change.
func (e *Engine) operators(components []*Component, target string) operatorSet {
	list := make([]*Component, 0, len(components))
	for _, co := range components {
		if co != nil {
			list = append(list, co)
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Name != list[j].Name {
			return list[i].Name < list[j].Name
		}
		return list[i].UID < list[j].UID
	})
	var out operatorSet
	seen := 0
	for i, co := range list {
		if i > 0 && list[i-1].Name == co.Name {
			continue
		}
		key := co.Name
		ent := e.cos[key]
		if ent == nil {
			ent = &coEntry{}
			e.cos[key] = ent
		}
		if ent.seen != e.gen {
			seen++
		}
		ent.seen = e.gen
		if ent.facts.co == nil || ent.facts.co.Name != co.Name || co.ResourceVersion == "" ||
			ent.rv != co.ResourceVersion || ent.target != target || ent.pending != co.RolloutPending {
			ent.rv, ent.target, ent.pending = co.ResourceVersion, target, co.RolloutPending
			ent.facts = newCOFacts(co, target)
			ent.insight = nil
			if isOperatorNameValid(co.Name) {
				ent.insight = coInsight(&ent.facts)
			}
		}
		out.facts = append(out.facts, ent.facts)
		if ent.insight != nil {
			out.insights = append(out.insights, coItem{uid: coUID(co.Name), acquired: ent.facts.changed, insight: ent.insight})
		} else if h := unrepresentableOperator(&ent.facts); h != nil {
			out.health = append(out.health, h)
		}
	}
	if seen != len(e.cos) {
		for k, ent := range e.cos {
			if ent.seen != e.gen {
				delete(e.cos, k)
			}
		}
	}
	return out
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

// evaluateNodes assigns every node to its pool and brings its facts up to
// date, recomputing only what changed. An object seen before (the same
// pointer: objects handed in must not change, as the objects of informer
// caches do not) costs one table lookup and a few comparisons, and writes
// no pointer; another object of a known node costs a lookup by name and a
// resourceVersion comparison.
func (e *Engine) evaluateNodes(nodes []*Node, ps *poolSet, cvf *cvFacts) {
	if k := (sharedInputs{mcGen: e.mcGen, latest: cvf.latest, multiArch: cvf.multiArchInProgress}); k != e.sharedKey || e.sharedGen == 0 {
		e.sharedKey = k
		e.sharedGen++
	}
	if len(e.nodes) == 0 && len(nodes) > 0 {
		e.nodes = make(map[string]*nodeEntry, len(nodes))
	}
	seen := 0
	in := nodeInputs{mcVersions: e.mcVersions, versionOK: e.versionOK, latest: cvf.latest, multiArch: cvf.multiArchInProgress}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		ent := e.objects.get(n)
		same := ent != nil && ent.object == n
		if !same {
			ent = e.entry(n)
		}
		if ent.seen == e.gen {
			continue // the same node listed twice
		}
		ent.seen = e.gen
		seen++
		if !same || ent.rvEmpty || ent.selGen != e.selGen {
			if ent.rv != n.ResourceVersion || n.ResourceVersion == "" || ent.selGen != e.selGen {
				ent.state = nil
				if p := ps.assign(n.Labels); p != nil {
					ent.state = e.pools[p.name]
				}
				ent.rv, ent.rvEmpty, ent.selGen, ent.facts, ent.flat = n.ResourceVersion, n.ResourceVersion == "", e.selGen, nil, nil
			}
		}
		st := ent.state
		if st == nil {
			continue
		}
		if ent.facts == nil || ent.poolGen != st.gen || ent.sharedGen != e.sharedGen {
			f := evaluateNode(n, ps.byName[st.name], &in)
			ent.facts, ent.flat = f, nil
			ent.poolGen, ent.sharedGen = st.gen, e.sharedGen
			ent.phase, ent.rank, ent.changed = f.phase, f.rank, f.acquiredAt.Unix()
			ent.unavailable, ent.degraded, ent.updating = f.isUnavailable, f.isDegraded, f.isUpdating
			ent.hasHealth = f.unavailable != nil || f.degraded != nil || f.unrepresentable != nil
			st.dirty = true
			st.changed = append(st.changed, ent)
		}
		st.memberSum += ent.hash
		st.memberCount++
		st.counters.add(ent)
		if ent.hasHealth {
			st.withHealth = append(st.withHealth, ent)
		}
	}
	if seen != len(e.nodes) {
		for k, ent := range e.nodes {
			if ent.seen != e.gen {
				delete(e.nodes, k)
				if ent.object != nil {
					e.objects.del(ent.object)
				}
			}
		}
	}
	// A pool whose membership changed lists its members again; the common
	// case (nobody joined or left) needs no second pass.
	changed := false
	for _, st := range e.pools {
		if st.seen == e.gen && (st.memberSum != st.sortedSum || st.memberCount != st.sortedCount || st.sorted == nil) {
			st.collect = true
			changed = true
		} else {
			st.collect = false
		}
	}
	if changed {
		for _, n := range nodes {
			if n == nil {
				continue
			}
			if ent := e.objects.get(n); ent != nil && ent.object == n && ent.state != nil && ent.state.collect && ent.collected != e.gen {
				ent.collected = e.gen
				ent.state.members = append(ent.state.members, ent)
			}
		}
	}
}

// entry finds or creates the memory of node n by name and files it under
// n. The memory of another object of the same name and UID is kept (its
// resourceVersion decides whether it still holds); a new UID starts afresh.
func (e *Engine) entry(n *Node) *nodeEntry {
	ent := e.nodes[n.Name]
	if ent == nil {
		ent = &nodeEntry{pos: -1}
		e.nodes[n.Name] = ent
	}
	if ent.seen == e.gen {
		return ent // another object of this name came first: a duplicate
	}
	if ent.object != nil {
		e.objects.del(ent.object)
	}
	if ent.name != n.Name || ent.uid != n.UID {
		*ent = nodeEntry{name: n.Name, uid: n.UID, hash: keyHash(n.UID, n.Name), pos: -1}
	}
	ent.object = n
	e.objects.put(n, ent)
	return ent
}

func keyHash(uid types.UID, name string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(uid))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(name))
	return h.Sum64()
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

// nodeInsight is a node's entry in a worker pool's informer.
func nodeInsight(f *nodeFacts) v1alpha1.WorkerPoolInsight {
	return v1alpha1.WorkerPoolInsight{UID: f.uid, AcquiredAt: f.acquiredAt,
		Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.NodeStatusInsightType, NodeStatusInsight: f.insight}}
}
