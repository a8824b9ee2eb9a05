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
	"hash/fnv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Reasons a node is unavailable (the MCO's own notion,
// docs/insights.md#node-availability).
const (
	reasonNotReady      = "Not ready"
	reasonDiskPressure  = "Disk pressure"
	reasonNetwork       = "Network unavailable"
	reasonUnschedulable = "Node is marked unschedulable"
	reasonMCDWorking    = "Machine Config Daemon is processing the node"
	notReadySerious     = 5 * time.Minute
	pressureSerious     = time.Minute
	estimateDraining    = 10 * time.Minute
	estimateUpdating    = 5 * time.Minute
)

// Reasons of the Node Available condition that the project constants lack.
const (
	NodeAvailableReasonDiskPressure       = "DiskPressure"
	NodeAvailableReasonNetworkUnavailable = "NetworkUnavailable"
	NodeAvailableReasonMCDProcessing      = "MachineConfigDaemonProcessing"
)

// nodePhase is a node's update phase; the order is oc's sort order.
type nodePhase int

const (
	phaseDraining nodePhase = iota
	phaseUpdating
	phaseRebooting
	phasePaused
	phasePending
	phaseUpdated
)

// NodePhase is a node's update phase as an adapter that reads no
// machine-config daemon states it (MachineState.Phase).
type NodePhase = nodePhase

// The phases an adapter may state.
const (
	// NodePhasePending: the node has not started to update.
	NodePhasePending = phasePending
	// NodePhaseDraining: the node is being drained.
	NodePhaseDraining = phaseDraining
	// NodePhaseUpdating: the node is updating (or, for a node that replaces
	// another, provisioning).
	NodePhaseUpdating = phaseUpdating
	// NodePhaseRebooting: the node is rebooting into the update.
	NodePhaseRebooting = phaseRebooting
	// NodePhaseUpdated: the node runs the target.
	NodePhaseUpdated = phaseUpdated
)

// updatingReason is the reason of the node's Updating condition for a phase.
var updatingReason = [...]v1alpha1.NodeUpdatingReason{
	phaseDraining:  v1alpha1.NodeDraining,
	phaseUpdating:  v1alpha1.NodeUpdating,
	phaseRebooting: v1alpha1.NodeRebooting,
	phasePaused:    v1alpha1.NodePaused,
	phasePending:   v1alpha1.NodeUpdatePending,
	phaseUpdated:   v1alpha1.NodeCompleted,
}

var updatingMessage = [...]string{
	phaseDraining:  "The node is draining",
	phaseUpdating:  "The node is updating",
	phaseRebooting: "The node is rebooting",
	phasePaused:    "The update of the node is paused",
	phasePending:   "The update of the node is pending",
	phaseUpdated:   "The node is updated",
}

// badCondition is one reason why a node is unavailable.
type badCondition struct {
	reason, message string
	since           time.Time
}

// nodeFacts is everything the engine concludes about one node that does not
// depend on the clock. It is computed once per node version and reused.
type nodeFacts struct {
	name       string
	uid        string
	changed    time.Time
	acquiredAt metav1.Time

	isUpdated, isUpdating, isUnavailable, isDegraded bool
	phase                                            nodePhase
	// bad are the unavailability reasons when isUnavailable.
	bad []badCondition
	// rank orders nodes by importance when an informer must be truncated.
	rank int

	// insight is nil when the node cannot be represented (invalid name).
	insight *v1alpha1.NodeStatusInsight
	// unavailable is the row-7 insight, shown only while the node is
	// seriously unavailable (which depends on the clock); nil when the node
	// is not unavailable, is updating, or the insight would be incomplete.
	unavailable *healthItem
	// degraded is the row-8 insight, nil unless shown.
	degraded *healthItem
	// unrepresentable explains why insight is nil.
	unrepresentable *healthItem
}

// nodeInputs are the inputs shared by every node's facts.
type nodeInputs struct {
	// mcVersions maps a MachineConfig name to its release version.
	mcVersions map[string]string
	// versionOK says which of those versions the API can carry.
	versionOK map[string]bool
	// latest is history[0].version.
	latest    string
	multiArch bool
}

// evaluateNode applies docs/insights.md#node-rules to one node of pool.
func evaluateNode(n *Node, pool *poolInfo, in *nodeInputs) *nodeFacts {
	f := &nodeFacts{name: n.Name, changed: n.Changed}
	f.acquiredAt = wire(f.changed)
	ref := nodeRef(n.Name)
	if m := n.Machine; m != nil {
		ref = m.Resource
	}
	f.uid = refUID(uidPrefixNode, ref)

	var currentVersion, mcReason string
	if m := n.Machine; m != nil {
		// The adapter states the phase (docs/insights.md#hosted-node-phases).
		f.phase = m.Phase
		f.isUpdated = m.Phase == phaseUpdated
		f.isUpdating = m.Phase == phaseDraining || m.Phase == phaseUpdating || m.Phase == phaseRebooting
		f.isDegraded = m.Failed != ""
		currentVersion, mcReason = m.Version, m.Failed
	} else {
		currentVersion, mcReason = mcdState(f, n, pool, in)
	}
	f.bad, f.isUnavailable = unavailability(n, pool)

	// EST (docs/insights.md#node-insights): none is "?", zero is "-".
	var est *time.Duration
	switch f.phase {
	case phaseDraining:
		d := estimateDraining
		est = &d
	case phaseUpdating, phaseRebooting:
		d := estimateUpdating
		est = &d
	case phasePaused, phaseUpdated:
		d := time.Duration(0)
		est = &d
	}
	var message string
	if f.isUnavailable && !f.isUpdating {
		message = reasonList(f.bad)
		est = nil
		if f.isUpdated {
			d := time.Duration(0)
			est = &d
		}
	}
	if f.isDegraded {
		message = mcReason
		est = nil
		if f.isUpdated {
			d := time.Duration(0)
			est = &d
		}
	}

	switch {
	case f.isDegraded:
		f.rank = 0
	case f.isUnavailable && !f.isUpdating:
		f.rank = 1
	case f.phase == phaseUpdating:
		f.rank = 2
	case f.phase == phaseDraining || f.phase == phaseRebooting:
		f.rank = 3
	case f.phase == phasePaused:
		f.rank = 4
	case f.phase == phasePending:
		f.rank = 5
	default:
		f.rank = 6
	}

	scope := v1alpha1.WorkerPoolScope
	if pool.master {
		scope = v1alpha1.ControlPlaneScope
	}
	if !conventions.IsDNSSubdomain(n.Name) || (n.Machine != nil && !conventions.IsDNSSubdomain(ref.Name)) {
		f.unrepresentable = newHealth(v1alpha1.HealthUnrepresentable, n.Name, nil, scope, time.Time{},
			v1alpha1.InfoImpactLevel, v1alpha1.UnknownImpactType,
			"A node has a name the API cannot carry, it is left out",
			fmt.Sprintf("Node %q is not a valid resource name, so no insight describes it.", conventions.Short(n.Name, 300)),
			refAPIIntro)
		if f.unrepresentable != nil {
			f.unrepresentable.acquired = f.changed
		}
		return f
	}

	reference := refMCO
	if n.Machine != nil {
		reference = refHostedNodePools
	}
	if f.isUnavailable && !f.isUpdating {
		desc := unavailableDescription(f.bad)
		if f.isDegraded {
			desc = mcReason
		}
		f.unavailable = newHealth(v1alpha1.HealthNodeUnavailable, n.Name, &ref, scope, unavailableSince(f.bad),
			v1alpha1.WarningImpactLevel, v1alpha1.UpdateSpeedImpactType, unavailableSummary(n.Name, f.bad), desc, reference)
		if f.unavailable != nil {
			f.unavailable.acquired = f.changed
		}
	}
	// A machine's failure is its adapter's health signal
	// (docs/insights.md#hosted-health-rules), not a daemon's degraded state.
	if f.isDegraded && n.Machine == nil {
		f.degraded = newHealth(v1alpha1.HealthNodeDegraded, n.Name, &ref, scope, time.Time{},
			v1alpha1.ErrorImpactLevel, v1alpha1.UpdateStalledImpactType, fmt.Sprintf("Node %s is degraded", n.Name), mcReason, refMCO)
		if f.degraded != nil {
			f.degraded.acquired = f.changed
		}
	}

	ni := &v1alpha1.NodeStatusInsight{
		Name:         n.Name,
		Resource:     ref,
		PoolResource: v1alpha1.PoolResourceRef{ResourceRef: pool.ref},
		Scope:        scope,
		Message:      conventions.Short(message, maxNodeMessage),
	}
	if ok, known := in.versionOK[currentVersion]; (known && ok) || (!known && isVersion(currentVersion)) {
		ni.Version = currentVersion
	}
	if est != nil {
		ni.EstimatedToComplete = &metav1.Duration{Duration: *est}
	}
	updStatus := metav1.ConditionFalse
	if f.isUpdating {
		updStatus = metav1.ConditionTrue
	}
	updMsg := updatingMessage[f.phase]
	switch {
	case n.Machine != nil && n.Machine.Message != "":
		updMsg = n.Machine.Message
	case f.isUpdating && f.phase == phaseUpdated:
		updMsg = "The node is about to update: its desired configuration is the target, but the machine-config daemon still reports Done"
	}
	ni.Conditions = []metav1.Condition{
		condition(string(v1alpha1.NodeStatusInsightUpdating), updStatus, string(updatingReason[f.phase]), updMsg, f.changed),
		availableCondition(n, f),
		degradedCondition(f, mcReason),
	}
	f.insight = ni
	return f
}

// mcdState applies docs/insights.md#node-rules to the machine-config daemon's
// annotations of n: it sets f's phase and flags and returns the node's
// version and the daemon's reason.
func mcdState(f *nodeFacts, n *Node, pool *poolInfo, in *nodeInputs) (currentVersion, mcReason string) {
	mcVersions, latestVersion, multiArchInProgress := in.mcVersions, in.latest, in.multiArch
	ann := n.Annotations
	current := ann[CurrentConfigAnnotation]
	desired, desiredSet := ann[DesiredConfigAnnotation]
	currentVersion, foundCurrent := mcVersion(mcVersions, current)
	desiredVersion, foundDesired := mcVersion(mcVersions, desired)

	matched := current == desired
	desiredIsTarget := desired == pool.config
	f.isUpdated = foundCurrent && latestVersion != "" && currentVersion == latestVersion &&
		(!multiArchInProgress || !desiredSet || (matched && desiredIsTarget))
	f.isUpdating = !f.isUpdated && foundCurrent && foundDesired && latestVersion != "" && desiredVersion == latestVersion &&
		!matched && desiredIsTarget

	state := ann[MCDStateAnnotation]
	switch {
	case f.isUpdating && isDraining(ann, f.isUpdating):
		f.phase = phaseDraining
	case f.isUpdating:
		switch state {
		case MCDStateRebooting:
			f.phase = phaseRebooting
		case MCDStateDone:
			f.phase = phaseUpdated
		default:
			f.phase = phaseUpdating
		}
	case f.isUpdated:
		f.phase = phaseUpdated
	case pool.paused:
		f.phase = phasePaused
	default:
		f.phase = phasePending
	}
	f.isDegraded = desired != "" && (state == MCDStateDegraded || state == MCDStateUnreconcilable)
	return currentVersion, ann[MCDReasonAnnotation]
}

// availableCondition carries the MCO's notion of availability. Its message
// is oc's reason list, the text of the node table.
func availableCondition(n *Node, f *nodeFacts) metav1.Condition {
	typ := string(v1alpha1.NodeStatusInsightAvailable)
	if !f.isUnavailable {
		at := f.changed
		for i := range n.Conditions {
			if c := &n.Conditions[i]; c.Type == corev1.NodeReady && !c.LastTransitionTime.IsZero() {
				at = c.LastTransitionTime
			}
		}
		return condition(typ, metav1.ConditionTrue, v1alpha1.NodeAvailableReasonAsExpected, "The node is available", at)
	}
	reason := v1alpha1.NodeAvailableReasonCannotDetermine
	if len(f.bad) > 0 {
		switch f.bad[0].reason {
		case reasonNotReady:
			reason = v1alpha1.NodeAvailableReasonNotReady
		case reasonDiskPressure:
			reason = NodeAvailableReasonDiskPressure
		case reasonNetwork:
			reason = NodeAvailableReasonNetworkUnavailable
		case reasonUnschedulable:
			reason = v1alpha1.NodeAvailableReasonUnschedulable
		case reasonMCDWorking:
			reason = NodeAvailableReasonMCDProcessing
		}
	}
	return condition(typ, metav1.ConditionFalse, reason, reasonList(f.bad), firstSet(unavailableSince(f.bad), f.changed))
}

// degradedCondition carries the full machine-config daemon reason; the
// node's 100-character message holds only its first line.
func degradedCondition(f *nodeFacts, mcReason string) metav1.Condition {
	typ := string(v1alpha1.NodeStatusInsightDegraded)
	if f.isDegraded {
		return condition(typ, metav1.ConditionTrue, v1alpha1.NodeDegradedReasonDegraded, mcReason, f.changed)
	}
	return condition(typ, metav1.ConditionFalse, v1alpha1.NodeDegradedReasonAsExpected, "The node is not degraded", f.changed)
}

// mcVersion is the release version of a rendered MachineConfig
// (docs/insights.md#node-versions).
func mcVersion(versions map[string]string, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	v, ok := versions[name]
	return v, ok && v != ""
}

// isDraining applies the draining rule of docs/insights.md#draining.
func isDraining(ann map[string]string, isUpdating bool) bool {
	desired, applied := ann[DesiredDrainAnnotation], ann[LastAppliedDrainAnnotation]
	if desired == "" || applied == "" {
		return false
	}
	if desired != applied {
		verb, _, _ := strings.Cut(desired, "-")
		if verb == "drain" {
			return true
		}
	}
	return isUpdating && ann[MCDStateAnnotation] == MCDStateDone
}

// unavailability applies docs/insights.md#node-availability: the reasons a node
// is unavailable and whether it is.
func unavailability(n *Node, pool *poolInfo) ([]badCondition, bool) {
	var bad []badCondition
	for i := range n.Conditions {
		c := &n.Conditions[i]
		b := badCondition{message: c.Message, since: c.LastTransitionTime}
		switch {
		case c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue:
			b.reason = reasonNotReady
		case c.Type == corev1.NodeDiskPressure && c.Status != corev1.ConditionFalse:
			b.reason = reasonDiskPressure
		case c.Type == corev1.NodeNetworkUnavailable && c.Status != corev1.ConditionFalse:
			b.reason = reasonNetwork
		default:
			continue
		}
		bad = append(bad, b)
	}
	if n.Unschedulable {
		bad = append(bad, badCondition{reason: reasonUnschedulable})
	}
	ann := n.Annotations
	if len(bad) == 0 {
		if n.Machine != nil || isNodeDone(ann) {
			return nil, false
		}
		if s := ann[MCDStateAnnotation]; s == MCDStateDegraded || s == MCDStateUnreconcilable {
			return nil, false
		}
		bad = append(bad, badCondition{reason: reasonMCDWorking})
	}
	// The pool image check: a layered pool expects its image, any other
	// pool none.
	desiredImage := ann[DesiredImageAnnotation]
	if pool.layered && pool.osImage != "" {
		if desiredImage != pool.osImage {
			return nil, false
		}
	} else if desiredImage != "" {
		return nil, false
	}
	return bad, true
}

// isNodeDone reports whether the daemon finished: configs set and equal,
// image annotations absent or equal, state Done.
func isNodeDone(ann map[string]string) bool {
	c, d := ann[CurrentConfigAnnotation], ann[DesiredConfigAnnotation]
	if c == "" || d == "" || c != d {
		return false
	}
	di, dok := ann[DesiredImageAnnotation]
	ci, cok := ann[CurrentImageAnnotation]
	if dok || cok {
		if di == "" || ci == "" || di != ci {
			return false
		}
	}
	return ann[MCDStateAnnotation] == MCDStateDone
}

func reasonList(bad []badCondition) string {
	parts := make([]string, len(bad))
	for i, b := range bad {
		parts[i] = b.reason
	}
	return strings.Join(parts, " | ")
}

func unavailableSummary(name string, bad []badCondition) string {
	parts := make([]string, len(bad))
	for i, b := range bad {
		switch b.reason {
		case reasonNotReady:
			parts[i] = fmt.Sprintf("Node %s is not ready", name)
		case reasonDiskPressure:
			parts[i] = fmt.Sprintf("Node %s has disk pressure", name)
		case reasonNetwork:
			parts[i] = fmt.Sprintf("Node %s has unavailable network", name)
		default:
			parts[i] = b.reason
		}
	}
	return strings.Join(parts, " | ")
}

func unavailableDescription(bad []badCondition) string {
	parts := make([]string, len(bad))
	for i, b := range bad {
		switch b.reason {
		case reasonNotReady:
			parts[i] = fmt.Sprintf("Node has a Ready!=True condition with Reason %q and message %q", b.reason, b.message)
		case reasonDiskPressure:
			parts[i] = fmt.Sprintf("Node has a DiskPressure!=False condition with Reason %q and message %q", b.reason, b.message)
		case reasonNetwork:
			parts[i] = fmt.Sprintf("Node has a NetworkUnavailable!=False condition with Reason %q and message %q", b.reason, b.message)
		default:
			parts[i] = b.reason
		}
	}
	return strings.Join(parts, " | ")
}

func unavailableSince(bad []badCondition) time.Time {
	var out time.Time
	for _, b := range bad {
		if b.since.IsZero() {
			continue
		}
		if out.IsZero() || b.since.Before(out) {
			out = b.since
		}
	}
	return out
}

// seriouslyUnavailable applies the age rule of
// docs/insights.md#node-availability at now and returns the next instant at
// which the answer changes (zero if never).
func seriouslyUnavailable(bad []badCondition, now time.Time) (bool, time.Time) {
	var next time.Time
	for _, b := range bad {
		var after time.Duration
		switch b.reason {
		case reasonUnschedulable, reasonMCDWorking:
			continue
		case reasonNotReady:
			after = notReadySerious
		case reasonDiskPressure, reasonNetwork:
			after = pressureSerious
		default:
			return true, time.Time{}
		}
		at := b.since.Add(after)
		if !now.Before(at) {
			return true, time.Time{}
		}
		next = earliest(next, at)
	}
	return false, next
}

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

// sharedInputs identifies the inputs every node's facts depend on.
type sharedInputs struct {
	mcGen     uint64
	latest    string
	multiArch bool
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

// nodeInsight is a node's entry in a worker pool's informer.
func nodeInsight(f *nodeFacts) v1alpha1.WorkerPoolInsight {
	return v1alpha1.WorkerPoolInsight{UID: f.uid, AcquiredAt: f.acquiredAt,
		Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.NodeStatusInsightType, NodeStatusInsight: f.insight}}
}
