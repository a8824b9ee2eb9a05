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
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Node cell states, as the page colours and labels them. One node has
// exactly one: the most urgent of its assessment and phase.
const (
	StateUpdated     = "updated"
	StateUpdating    = "updating"
	StateDraining    = "draining"
	StateRebooting   = "rebooting"
	StateDegraded    = "degraded"
	StateUnavailable = "unavailable"
	StatePaused      = "paused"
	StateOutdated    = "outdated"
	StateUnknown     = "unknown"
)

// States lists every cell state in the order of the page's legend.
var States = []string{StateUpdated, StateUpdating, StateDraining, StateRebooting, StateDegraded,
	StateUnavailable, StatePaused, StateOutdated, StateUnknown}

// Node is one cell of a pool's grid.
type Node struct {
	Name       string `json:"n"`
	Pool       string `json:"p"`
	State      string `json:"s"`
	Assessment string `json:"a,omitempty"`
	Phase      string `json:"ph,omitempty"`
	Message    string `json:"m,omitempty"`
	Version    string `json:"v,omitempty"`
	Est        string `json:"e,omitempty"`
	// BlockedBy are the PodDisruptionBudgets ("namespace/name", sorted)
	// that external informers' Health insights say hold the node's drain
	// (conventions.DrainBlockOf), and BlockingPods the pods those insights
	// name; both empty without such an insight.
	BlockedBy    []string `json:"bb,omitempty"`
	BlockingPods []string `json:"bp,omitempty"`
	// controlPlane is the node's scope, for a pool without its own insight.
	controlPlane bool
}

// NodeState is the cell state of a Node insight: the most urgent of its
// assessment and phase as `oc adm upgrade status` derives them.
func NodeState(n *v1alpha1.NodeStatusInsight) string {
	return stateOf(conventions.NodeStateOf(n.Name, n.Conditions, n.EstimatedToComplete))
}

// phaseStates is the cell state of each node phase.
var phaseStates = map[string]string{
	conventions.NodePhaseDraining:  StateDraining,
	conventions.NodePhaseUpdating:  StateUpdating,
	conventions.NodePhaseRebooting: StateRebooting,
	conventions.NodePhasePaused:    StatePaused,
	conventions.NodePhasePending:   StateOutdated,
	conventions.NodePhaseUpdated:   StateUpdated,
}

func stateOf(st conventions.NodeState) string {
	switch st.Assessment {
	case conventions.NodeAssessmentDegraded:
		return StateDegraded
	case conventions.NodeAssessmentUnavailable:
		return StateUnavailable
	}
	if state, ok := phaseStates[st.Phase]; ok {
		return state
	}
	return StateUnknown
}

// nodeOf derives the cell of a Node insight.
func nodeOf(n *v1alpha1.NodeStatusInsight) Node {
	st := conventions.NodeStateOf(n.Name, n.Conditions, n.EstimatedToComplete)
	state := stateOf(st)
	msg := n.Message
	if st.Message != "" {
		msg = st.Message
	}
	return Node{Name: n.Name, Pool: n.PoolResource.Name, State: state, Assessment: st.Assessment, Phase: st.Phase,
		Message: msg, Version: n.Version, Est: st.Est, controlPlane: n.Scope == v1alpha1.ControlPlaneScope}
}

// Pool is the summary of one pool: its insight's assessment and completion,
// and the node count by cell state from the cells the page holds.
type Pool struct {
	Name         string         `json:"name"`
	ControlPlane bool           `json:"controlPlane"`
	Assessment   string         `json:"assessment"`
	Completion   int32          `json:"completion"`
	Nodes        int            `json:"nodes"`
	Counts       map[string]int `json:"counts"`
	// Summaries are the insight's node summaries (Total, Available, ...).
	Summaries map[string]int32 `json:"summaries,omitempty"`
}

// ControlPlane is the control plane's summary.
type ControlPlane struct {
	// Assessment is the ClusterVersion insight's, or Unknown without one.
	Assessment string `json:"assessment"`
	// Display is oc's word for it: Progressing - Slow and Stalled when the
	// update is behind its projection.
	Display    string `json:"display"`
	Completion int32  `json:"completion"`
	Target     string `json:"target,omitempty"`
	Previous   string `json:"previous,omitempty"`
	// Edge is oc's "Target Version" text.
	Edge                 string     `json:"edge,omitempty"`
	StartedAt            *time.Time `json:"startedAt,omitempty"`
	CompletedAt          *time.Time `json:"completedAt,omitempty"`
	EstimatedCompletedAt *time.Time `json:"estimatedCompletedAt,omitempty"`
	// Updating are the operators updating now, by name.
	Updating  []string       `json:"updating"`
	Operators OperatorCounts `json:"operators"`
}

// OperatorCounts count the ClusterOperator insights.
type OperatorCounts struct {
	Total       int `json:"total"`
	Updated     int `json:"updated"`
	Waiting     int `json:"waiting"`
	Degraded    int `json:"degraded"`
	Unavailable int `json:"unavailable"`
}

// Health is one health insight.
type Health struct {
	UID         string     `json:"uid"`
	Level       string     `json:"level"`
	Type        string     `json:"type"`
	Summary     string     `json:"summary"`
	Description string     `json:"description,omitempty"`
	Reference   string     `json:"reference,omitempty"`
	Link        bool       `json:"link"`
	StartedAt   *time.Time `json:"startedAt,omitempty"`
	Scope       string     `json:"scope"`
	Resources   []string   `json:"resources,omitempty"`
	// Informer names the external informer that reports the insight
	// (docs/insights.md#external-informers); empty for the server's own.
	Informer string `json:"informer,omitempty"`
	// drain is what the insight says holds node drains, nil when it says
	// nothing of it.
	drain *conventions.DrainBlock
}

// APIError is a refusal or failure of the cluster API, shown on the page.
type APIError struct {
	// Resource is what was being read (e.g. nodeprogressinsights).
	Resource string `json:"resource"`
	// Reason is Forbidden, Unauthorized, NotFound or Failed.
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Snapshot is the whole picture, sent to a browser when it connects.
type Snapshot struct {
	Seq uint64 `json:"seq"`
	// HostedCluster is the hosted cluster the page follows; absent for a
	// standalone cluster.
	HostedCluster *HostedCluster `json:"hostedCluster,omitempty"`
	// Now is the server's clock, so the page measures durations with it.
	Now          time.Time     `json:"now"`
	Source       string        `json:"source"`
	Synced       bool          `json:"synced"`
	ControlPlane *ControlPlane `json:"controlPlane"`
	Pools        []Pool        `json:"pools"`
	Nodes        []Node        `json:"nodes"`
	Health       []Health      `json:"health"`
	Errors       []APIError    `json:"errors"`
}

// HostedCluster names a hosted cluster: its HostedCluster's namespace and
// name.
type HostedCluster struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Delta is what changed since the previous event; absent fields did not.
type Delta struct {
	Seq          uint64        `json:"seq"`
	Now          time.Time     `json:"now"`
	Source       string        `json:"source,omitempty"`
	Synced       *bool         `json:"synced,omitempty"`
	ControlPlane *ControlPlane `json:"controlPlane,omitempty"`
	Pools        []Pool        `json:"pools,omitempty"`
	RemovedPools []string      `json:"removedPools,omitempty"`
	Nodes        []Node        `json:"nodes,omitempty"`
	Removed      []string      `json:"removed,omitempty"`
	Health       []Health      `json:"health,omitempty"`
	// HealthChanged says Health is the new list (it may be empty).
	HealthChanged bool `json:"healthChanged,omitempty"`
}

// poolState is what the model keeps of one pool.
type poolState struct {
	insight *v1alpha1.MachineConfigPoolStatusInsight
	counts  map[string]int
	nodes   int
	cpNodes int
}

// model is the picture the page shows, kept from the watched resources,
// with what changed since the last flush.
type model struct {
	// hostedCluster is the hosted cluster followed, nil for a standalone
	// cluster; set once, before the model is used.
	hostedCluster *HostedCluster

	mu        sync.Mutex
	seq       uint64
	source    string
	synced    bool
	cv        *v1alpha1.ClusterVersionStatusInsight
	operators map[string]*v1alpha1.ClusterOperatorStatusInsight
	pools     map[string]*poolState
	nodes     map[string]Node
	health    map[string]Health
	// drains are the health insights that hold node drains, by key.
	drains map[string]*conventions.DrainBlock
	errors map[string]APIError

	dirtyNodes   map[string]struct{}
	dirtyPools   map[string]struct{}
	cpDirty      bool
	healthDirty  bool
	errorsDirty  bool
	syncedDirty  bool
	sourceDirty  bool
	healthSorted []Health
}

func newModel() *model {
	return &model{
		operators:  map[string]*v1alpha1.ClusterOperatorStatusInsight{},
		pools:      map[string]*poolState{},
		nodes:      map[string]Node{},
		health:     map[string]Health{},
		drains:     map[string]*conventions.DrainBlock{},
		errors:     map[string]APIError{},
		dirtyNodes: map[string]struct{}{},
		dirtyPools: map[string]struct{}{},
	}
}

func (m *model) pool(name string) *poolState {
	p := m.pools[name]
	if p == nil {
		p = &poolState{counts: map[string]int{}}
		m.pools[name] = p
	}
	return p
}

// dropPoolIfEmpty forgets a pool without insight and nodes.
func (m *model) dropPoolIfEmpty(name string) {
	if p := m.pools[name]; p != nil && p.insight == nil && p.nodes == 0 {
		delete(m.pools, name)
	}
	m.dirtyPools[name] = struct{}{}
}

func (m *model) setSource(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.source != s {
		m.source, m.sourceDirty = s, true
	}
}

// timePassed marks the control plane changed while an update runs: its
// Slow and Stalled depend on the time.
func (m *model) timePassed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cv != nil && m.cv.CompletedAt == nil {
		m.cpDirty = true
	}
}

func (m *model) setSynced() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.synced {
		m.synced, m.syncedDirty = true, true
	}
}

// blockedLocked adds to n what the health insights say holds its drain.
func (m *model) blockedLocked(n Node) Node {
	n.BlockedBy, n.BlockingPods = nil, nil
	for _, b := range m.drains {
		if slices.Contains(b.Nodes, n.Name) {
			n.BlockedBy = append(n.BlockedBy, b.Budgets...)
			n.BlockingPods = append(n.BlockingPods, b.Pods...)
		}
	}
	for _, l := range []*[]string{&n.BlockedBy, &n.BlockingPods} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	return n
}

// setNodeLocked stores a cell with its blockers; it reports whether
// anything changed.
func (m *model) setNodeLocked(n Node) bool {
	n = m.blockedLocked(n)
	old, had := m.nodes[n.Name]
	if had && reflect.DeepEqual(old, n) {
		return false
	}
	if had {
		m.uncountLocked(old)
	}
	m.nodes[n.Name] = n
	p := m.pool(n.Pool)
	p.counts[n.State]++
	p.nodes++
	if n.controlPlane {
		p.cpNodes++
	}
	m.dirtyPools[n.Pool] = struct{}{}
	m.dirtyNodes[n.Name] = struct{}{}
	return true
}

func (m *model) uncountLocked(n Node) {
	p := m.pools[n.Pool]
	if p == nil {
		return
	}
	p.counts[n.State]--
	if p.counts[n.State] == 0 {
		delete(p.counts, n.State)
	}
	p.nodes--
	if n.controlPlane {
		p.cpNodes--
	}
	m.dropPoolIfEmpty(n.Pool)
}

func (m *model) deleteNodeLocked(name string) {
	old, had := m.nodes[name]
	if !had {
		return
	}
	m.uncountLocked(old)
	delete(m.nodes, name)
	m.dirtyNodes[name] = struct{}{}
}

func (m *model) setNode(n *v1alpha1.NodeStatusInsight) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setNodeLocked(nodeOf(n))
}

func (m *model) deleteNode(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.deleteNodeLocked(name)
}

func (m *model) setPoolLocked(name string, in *v1alpha1.MachineConfigPoolStatusInsight) {
	p := m.pools[name]
	if in == nil {
		if p != nil && p.insight != nil {
			p.insight = nil
			m.dropPoolIfEmpty(name)
		}
		return
	}
	p = m.pool(name)
	if p.insight != nil && apiequality.Semantic.DeepEqual(p.insight, in) {
		return
	}
	p.insight = in
	m.dirtyPools[name] = struct{}{}
}

func (m *model) setPool(name string, in *v1alpha1.MachineConfigPoolStatusInsight) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setPoolLocked(name, in)
}

func (m *model) setClusterVersionLocked(cv *v1alpha1.ClusterVersionStatusInsight) {
	if (m.cv == nil) == (cv == nil) && (cv == nil || apiequality.Semantic.DeepEqual(m.cv, cv)) {
		return
	}
	m.cv, m.cpDirty = cv, true
}

func (m *model) setClusterVersion(cv *v1alpha1.ClusterVersionStatusInsight) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setClusterVersionLocked(cv)
}

func (m *model) setOperatorLocked(name string, co *v1alpha1.ClusterOperatorStatusInsight) {
	old, had := m.operators[name]
	switch {
	case co == nil && !had:
		return
	case co == nil:
		delete(m.operators, name)
	case had && apiequality.Semantic.DeepEqual(old, co):
		return
	default:
		m.operators[name] = co
	}
	m.cpDirty = true
}

func (m *model) setOperator(name string, co *v1alpha1.ClusterOperatorStatusInsight) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setOperatorLocked(name, co)
}

// healthKey is the model's key of a health insight: its uid for the
// server's own informers, "<uid>.<informer>" (the name of its object) for an
// external informer, whose uids are its own choice.
func healthKey(uid, informer string) string {
	if conventions.IsExternalInformer(informer) {
		return uid + "." + informer
	}
	return uid
}

func healthOf(uid, informer string, h *v1alpha1.HealthStatusInsight) Health {
	out := Health{UID: uid, Level: string(h.Impact.Level), Type: string(h.Impact.Type), Summary: h.Impact.Summary,
		Description: h.Impact.Description, Scope: string(h.Scope.Type)}
	if conventions.IsExternalInformer(informer) {
		out.Informer = informer
	}
	if b, ok := conventions.DrainBlockOf(informer, h); ok {
		out.drain = &b
	}
	if !h.StartedAt.IsZero() && !conventions.IsUnknownTime(h.StartedAt.Time) {
		t := h.StartedAt.UTC()
		out.StartedAt = &t
	}
	ref := h.Remediation.Reference
	out.Reference = conventions.ReferenceText(ref)
	out.Link = out.Reference == ref && (strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"))
	for _, r := range h.Scope.Resources {
		s := r.Resource
		if r.Group != "" {
			s += "." + r.Group
		}
		s += "/" + r.Name
		if r.Namespace != "" {
			s = r.Namespace + " " + s
		}
		out.Resources = append(out.Resources, s)
	}
	return out
}

// setHealthLocked sets the health insight of key (healthKey); nil removes
// it. The cells of the nodes whose drain it holds, or held, change with it.
func (m *model) setHealthLocked(key string, n *Health) {
	old := m.health[key]
	if !setEntry(m.health, key, n, func(a, b Health) bool { return reflect.DeepEqual(a, b) }) {
		return
	}
	m.healthDirty = true
	var nodes []string
	if old.drain != nil {
		nodes = append(nodes, old.drain.Nodes...)
	}
	delete(m.drains, key)
	if n != nil && n.drain != nil {
		m.drains[key] = n.drain
		nodes = append(nodes, n.drain.Nodes...)
	}
	for _, name := range nodes {
		if cell, ok := m.nodes[name]; ok {
			m.setNodeLocked(cell)
		}
	}
}

// setHealth sets the health insight uid of informer; nil removes it.
func (m *model) setHealth(uid, informer string, h *v1alpha1.HealthStatusInsight) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n *Health
	if h != nil {
		v := healthOf(uid, informer, h)
		n = &v
	}
	m.setHealthLocked(healthKey(uid, informer), n)
}

// setError records a failure to read resource; nil clears it.
func (m *model) setError(resource string, e *APIError) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if setAPIError(m.errors, resource, e) {
		m.errorsDirty = true
	}
}

// setAPIError records in errors e, the failure to read resource, or
// clears it when e is nil, and reports whether errors changed.
func setAPIError(errors map[string]APIError, resource string, e *APIError) bool {
	return setEntry(errors, resource, e, func(a, b APIError) bool { return a == b })
}

// setEntry stores *v in m as key, or deletes key when v is nil, and
// reports whether m changed; same says whether two values are alike.
func setEntry[K comparable, V any](m map[K]V, key K, v *V, same func(a, b V) bool) bool {
	old, had := m[key]
	switch {
	case v == nil && !had:
		return false
	case v == nil:
		delete(m, key)
	case had && same(old, *v):
		return false
	default:
		m[key] = *v
	}
	return true
}

func (m *model) erroring() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.errors))
	for r := range m.errors {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// setStatus replaces everything with the insights of one UpdateStatus.
func (m *model) setStatus(st *v1alpha1.UpdateStatusStatus) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var cv *v1alpha1.ClusterVersionStatusInsight
	operators := map[string]*v1alpha1.ClusterOperatorStatusInsight{}
	pools := map[string]*v1alpha1.MachineConfigPoolStatusInsight{}
	nodes := map[string]*v1alpha1.NodeStatusInsight{}
	health := map[string]Health{}
	// The update's progress is the server's assessment: an external
	// informer adds health, it does not replace the cluster version,
	// operator, pool or node of the server's informers.
	add := func(informer, uid string, cvi *v1alpha1.ClusterVersionStatusInsight, co *v1alpha1.ClusterOperatorStatusInsight,
		mcp *v1alpha1.MachineConfigPoolStatusInsight, n *v1alpha1.NodeStatusInsight, h *v1alpha1.HealthStatusInsight) {
		switch {
		case h != nil:
			health[healthKey(uid, informer)] = healthOf(uid, informer, h)
		case conventions.IsExternalInformer(informer):
		case cvi != nil:
			if cv == nil {
				cv = cvi
			}
		case co != nil:
			operators[co.Name] = co
		case mcp != nil:
			pools[mcp.Name] = mcp
		case n != nil:
			nodes[n.Name] = n
		}
	}
	if cp := st.ControlPlane; cp != nil {
		for _, inf := range cp.Informers {
			for i := range inf.Insights {
				in := &inf.Insights[i].Insight
				add(inf.Name, inf.Insights[i].UID, in.ClusterVersionStatusInsight, in.ClusterOperatorStatusInsight,
					in.MachineConfigPoolStatusInsight, in.NodeStatusInsight, in.HealthInsight)
			}
		}
	}
	for _, wp := range st.WorkerPools {
		for _, inf := range wp.Informers {
			for i := range inf.Insights {
				in := &inf.Insights[i].Insight
				add(inf.Name, inf.Insights[i].UID, nil, nil, in.MachineConfigPoolStatusInsight, in.NodeStatusInsight, in.HealthInsight)
			}
		}
	}
	m.setClusterVersionLocked(cv)
	for name := range m.operators {
		if operators[name] == nil {
			m.setOperatorLocked(name, nil)
		}
	}
	for name, co := range operators {
		m.setOperatorLocked(name, co)
	}
	for name := range m.nodes {
		if nodes[name] == nil {
			m.deleteNodeLocked(name)
		}
	}
	for _, n := range nodes {
		m.setNodeLocked(nodeOf(n))
	}
	for name, p := range m.pools {
		if p.insight != nil && pools[name] == nil {
			m.setPoolLocked(name, nil)
		}
	}
	for name, p := range pools {
		m.setPoolLocked(name, p)
	}
	for key := range m.health {
		if _, ok := health[key]; !ok {
			m.setHealthLocked(key, nil)
		}
	}
	for key, h := range health {
		m.setHealthLocked(key, &h)
	}
}

// poolLocked returns the summary of pool name.
func (m *model) poolLocked(name string) Pool {
	p := m.pools[name]
	out := Pool{Name: name, Counts: map[string]int{}, Nodes: p.nodes, ControlPlane: p.cpNodes > 0}
	for s, c := range p.counts {
		out.Counts[s] = c
	}
	if in := p.insight; in != nil {
		out.ControlPlane = in.Scope == v1alpha1.ControlPlaneScope
		out.Assessment = string(in.Assessment)
		out.Completion = in.Completion
		out.Summaries = map[string]int32{}
		for _, s := range in.Summaries {
			out.Summaries[string(s.Type)] = s.Count
		}
	} else if p.nodes > 0 {
		out.Completion = int32(p.counts[StateUpdated] * 100 / p.nodes)
	}
	return out
}

// poolsLocked returns every pool summary: the control-plane pool, the
// "worker" pool, then the others by name.
func (m *model) poolsLocked() []Pool {
	out := make([]Pool, 0, len(m.pools))
	for name := range m.pools {
		out = append(out, m.poolLocked(name))
	}
	sort.Slice(out, func(i, j int) bool { return poolLess(out[i], out[j]) })
	return out
}

func poolLess(a, b Pool) bool {
	if a.ControlPlane != b.ControlPlane {
		return a.ControlPlane
	}
	if (a.Name == "worker") != (b.Name == "worker") {
		return a.Name == "worker"
	}
	return a.Name < b.Name
}

// controlPlaneLocked summarises the ClusterVersion and ClusterOperator
// insights as oc's control-plane section does.
func (m *model) controlPlaneLocked(now time.Time) *ControlPlane {
	cp := &ControlPlane{Assessment: string(v1alpha1.ControlPlaneAssessmentUnknown), Display: "Unknown", Updating: []string{}}
	for name, co := range m.operators {
		cp.Operators.Total++
		if u := findCondition(co.Conditions, string(v1alpha1.ClusterOperatorStatusInsightUpdating)); u != nil {
			switch {
			case u.Status == metav1.ConditionTrue:
				cp.Updating = append(cp.Updating, name)
			case u.Reason == string(v1alpha1.ClusterOperatorUpdatingReasonUpdated):
				cp.Operators.Updated++
			case u.Reason == string(v1alpha1.ClusterOperatorUpdatingReasonPending):
				cp.Operators.Waiting++
			}
		}
		h := findCondition(co.Conditions, string(v1alpha1.ClusterOperatorStatusInsightHealthy))
		switch {
		case h != nil && h.Status == metav1.ConditionTrue:
		case h != nil && h.Status == metav1.ConditionFalse && h.Reason == string(v1alpha1.ClusterOperatorHealthyReasonDegraded):
			cp.Operators.Degraded++
		default:
			cp.Operators.Unavailable++
		}
	}
	sort.Strings(cp.Updating)
	cv := m.cv
	if cv == nil {
		return cp
	}
	cp.Assessment, cp.Display = string(cv.Assessment), string(cv.Assessment)
	cp.Completion = cv.Completion
	cp.Target, cp.Previous = cv.Versions.Target.Version, cv.Versions.Previous.Version
	cp.Edge = conventions.VersionText(&cv.Versions)
	ts := func(t *metav1.Time) *time.Time {
		if t == nil || t.IsZero() || conventions.IsUnknownTime(t.Time) {
			return nil
		}
		u := t.UTC()
		return &u
	}
	cp.StartedAt = ts(&cv.StartedAt)
	cp.CompletedAt = ts(cv.CompletedAt)
	cp.EstimatedCompletedAt = ts(cv.EstimatedCompletedAt)
	if cv.Assessment != v1alpha1.ControlPlaneAssessmentUnknown && cv.Assessment != v1alpha1.ControlPlaneAssessmentCompleted &&
		cv.EstimatedCompletedAt != nil && cv.CompletedAt == nil {
		switch est, _ := conventions.InsightRemaining(cv, now); {
		case est < -10*time.Minute:
			cp.Display = "Stalled"
		case est < 0:
			cp.Display = string(cv.Assessment) + " - Slow"
		}
	}
	return cp
}

func findCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// healthLocked returns the health insights, most severe first, then the
// oldest first, then by uid.
func (m *model) healthLocked() []Health {
	if !m.healthDirty && m.healthSorted != nil {
		return m.healthSorted
	}
	out := make([]Health, 0, len(m.health))
	for _, h := range m.health {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := conventions.LevelRank(v1alpha1.InsightImpactLevel(out[i].Level)), conventions.LevelRank(v1alpha1.InsightImpactLevel(out[j].Level))
		if ri != rj {
			return ri > rj
		}
		ti, tj := out[i].StartedAt, out[j].StartedAt
		if (ti == nil) != (tj == nil) {
			return ti != nil
		}
		if ti != nil && !ti.Equal(*tj) {
			return ti.Before(*tj)
		}
		if out[i].UID != out[j].UID {
			return out[i].UID < out[j].UID
		}
		return out[i].Informer < out[j].Informer
	})
	m.healthSorted = out
	return out
}

func (m *model) errorsLocked() []APIError {
	out := make([]APIError, 0, len(m.errors))
	for _, e := range m.errors {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Resource < out[j].Resource })
	return out
}

// snapshot returns the whole picture at the current sequence number.
func (m *model) snapshot(now time.Time) *Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &Snapshot{Seq: m.seq, HostedCluster: m.hostedCluster, Now: now.UTC(), Source: m.source, Synced: m.synced, ControlPlane: m.controlPlaneLocked(now),
		Pools: m.poolsLocked(), Nodes: make([]Node, 0, len(m.nodes)), Health: m.healthLocked(), Errors: m.errorsLocked()}
	for _, n := range m.nodes {
		s.Nodes = append(s.Nodes, n)
	}
	sort.Slice(s.Nodes, func(i, j int) bool { return s.Nodes[i].Name < s.Nodes[j].Name })
	return s
}

// flush returns what changed since the previous flush, with a new sequence
// number, and the current errors when they changed; nil when nothing did.
func (m *model) flush(now time.Time) (*Delta, []APIError, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	changed := len(m.dirtyNodes) > 0 || len(m.dirtyPools) > 0 || m.cpDirty || m.healthDirty || m.syncedDirty || m.sourceDirty
	if !changed && !m.errorsDirty {
		return nil, nil, m.seq
	}
	m.seq++
	var errs []APIError
	if m.errorsDirty {
		errs = m.errorsLocked()
		m.errorsDirty = false
	}
	if !changed {
		return nil, errs, m.seq
	}
	d := &Delta{Seq: m.seq, Now: now.UTC()}
	if m.sourceDirty {
		d.Source = m.source
	}
	if m.syncedDirty {
		synced := m.synced
		d.Synced = &synced
	}
	if m.cpDirty {
		d.ControlPlane = m.controlPlaneLocked(now)
	}
	for name := range m.dirtyPools {
		if m.pools[name] == nil {
			d.RemovedPools = append(d.RemovedPools, name)
		} else {
			d.Pools = append(d.Pools, m.poolLocked(name))
		}
	}
	sort.Strings(d.RemovedPools)
	sort.Slice(d.Pools, func(i, j int) bool { return poolLess(d.Pools[i], d.Pools[j]) })
	for name := range m.dirtyNodes {
		if n, ok := m.nodes[name]; ok {
			d.Nodes = append(d.Nodes, n)
		} else {
			d.Removed = append(d.Removed, name)
		}
	}
	sort.Slice(d.Nodes, func(i, j int) bool { return d.Nodes[i].Name < d.Nodes[j].Name })
	sort.Strings(d.Removed)
	if m.healthDirty {
		d.Health, d.HealthChanged = m.healthLocked(), true
	}
	m.dirtyNodes, m.dirtyPools = map[string]struct{}{}, map[string]struct{}{}
	m.cpDirty, m.healthDirty, m.syncedDirty, m.sourceDirty = false, false, false, false
	return d, errs, m.seq
}
