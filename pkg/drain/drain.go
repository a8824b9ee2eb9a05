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

// Package drain holds the rules of the drain-diagnosis informer: whether a
// node is draining for an update, what holds its drain (a pod covered by a
// PodDisruptionBudget that allows no disruption, a pod stuck terminating, the
// drain failure the MachineConfigNode reports), and the health insight that
// names them. It performs no I/O and never reads the wall clock: the caller
// passes the objects and the instant. The rules are in
// docs/runbooks/drain-blocked.md.
package drain

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// DefaultTimeout is how long a drain may take before its insight is an
// Error: the machine-config controller's drain timeout.
const DefaultTimeout = time.Hour

// Runbook is the remediation reference of every insight.
const Runbook = "https://github.com/update-status/apiserver/blob/main/docs/runbooks/drain-blocked.md"

// MasterPool is the MachineConfigPool whose nodes are the control plane's:
// their insights are control-plane insights.
const MasterPool = "master"

// mirrorPodAnnotation marks the API mirror of a static pod.
const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// Limits of the API's fields.
const (
	maxResources   = 16
	maxSummary     = 256
	maxDescription = 4096
)

// IsDraining tells whether node is draining for an update: the
// machine-config daemon asked for a drain it has not completed (the
// annotation machineconfiguration.openshift.io/desiredDrain starts with
// "drain-" and differs from lastAppliedDrain) and the node is cordoned; or
// its MachineConfigNode (nil when there is none) says so (MCNDraining).
func IsDraining(node *corev1.Node, mcn *mcfgv1.MachineConfigNode) bool {
	if node == nil {
		return false
	}
	if MCNDraining(mcn) {
		return true
	}
	desired := node.Annotations[insights.DesiredDrainAnnotation]
	applied := node.Annotations[insights.LastAppliedDrainAnnotation]
	return node.Spec.Unschedulable && strings.HasPrefix(desired, "drain-") && desired != applied
}

// How the machine-config operator writes a MachineConfigNode's conditions
// (its drain controller and upgrade monitor): every condition type is
// present from the object's creation, False with reason NotYetOccurred;
// cordoning sets Cordoned True; a drain sets Drained Unknown ("Draining
// node. …"), and every failed attempt rewrites it Unknown with a message
// that starts with "Error: " and carries the eviction error; a finished
// drain sets Drained True; Updated True at the end resets every other
// condition to False.
const (
	// mcnErrorPrefix starts the message of a failed step.
	mcnErrorPrefix = "Error: "
	// mcnDrainErrorMarker precedes the drainer's own error in the message
	// of a failed drain, and mcnDrainErrorTail follows it.
	mcnDrainErrorMarker = "Error is: "
	mcnDrainErrorTail   = " The drain will not be complete until"
)

// MachineConfigNodeConditions are the conditions of a MachineConfigNode
// that the rules read; a cache may drop the others.
var MachineConfigNodeConditions = []mcfgv1.StateProgress{
	mcfgv1.MachineConfigNodeUpdateCordoned, mcfgv1.MachineConfigNodeUpdateDrained, mcfgv1.MachineConfigNodeNodeDegraded,
}

// MCNDraining tells whether the MachineConfigNode reports a drain that has
// not finished: Drained Unknown (the drain controller is at it), or the
// node Cordoned with Drained still False (the drain is about to start).
func MCNDraining(mcn *mcfgv1.MachineConfigNode) bool {
	if mcn == nil {
		return false
	}
	drained := meta.FindStatusCondition(mcn.Status.Conditions, string(mcfgv1.MachineConfigNodeUpdateDrained))
	if drained == nil {
		return false
	}
	switch drained.Status {
	case metav1.ConditionUnknown:
		return true
	case metav1.ConditionFalse:
		return meta.IsStatusConditionTrue(mcn.Status.Conditions, string(mcfgv1.MachineConfigNodeUpdateCordoned))
	}
	return false
}

// DrainStartedAt is when the MachineConfigNode says the drain began: the
// transition of Cordoned to True (written once per drain; the drain
// controller rewrites Drained, and its transition time, on every attempt).
// It is zero when the MachineConfigNode does not report a drain.
func DrainStartedAt(mcn *mcfgv1.MachineConfigNode) time.Time {
	if !MCNDraining(mcn) {
		return time.Time{}
	}
	if c := meta.FindStatusCondition(mcn.Status.Conditions, string(mcfgv1.MachineConfigNodeUpdateCordoned)); c != nil && c.Status == metav1.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

// Input is what the rules need to know about one node.
type Input struct {
	// Node is the node.
	Node *corev1.Node
	// Pool is the MachineConfigPool of the node; MasterPool makes the
	// insight a control-plane insight.
	Pool string
	// MCN is the node's MachineConfigNode, nil when there is none.
	MCN *mcfgv1.MachineConfigNode
	// Pods are the pods bound to the node.
	Pods []*corev1.Pod
	// Budgets are the PodDisruptionBudgets of the pods' namespaces (others
	// are ignored).
	Budgets []*policyv1.PodDisruptionBudget
	// Protected are, per budget ("namespace/name"), the pods it selects
	// anywhere in the cluster, to name the unhealthy ones; optional.
	Protected map[string][]*corev1.Pod
	// DrainStarted is when the drain began (DrainStartedAt of the
	// MachineConfigNode, or when the caller first saw the node draining).
	DrainStarted time.Time
}

// BlockerKind is what holds a drain.
type BlockerKind string

// Blocker kinds.
const (
	// BlockedByBudget: an evictable pod whose PodDisruptionBudget allows no
	// disruption; the eviction API refuses it with 429.
	BlockedByBudget BlockerKind = "PodDisruptionBudget"
	// BlockedByTermination: a pod deleted whose grace period is over and
	// that is still there (finalizers, a kubelet that does not confirm).
	BlockedByTermination BlockerKind = "Terminating"
	// BlockedByDrainFailure: the MachineConfigNode reports the drain failed.
	BlockedByDrainFailure BlockerKind = "DrainFailure"
)

// Blocker is one reason a drain cannot finish.
type Blocker struct {
	Kind BlockerKind
	// Pod is the pod held (not for BlockedByDrainFailure).
	Pod *corev1.Pod
	// Budget is the budget that holds Pod (BlockedByBudget only).
	Budget *policyv1.PodDisruptionBudget
	// Message is the MachineConfigNode's message (BlockedByDrainFailure).
	Message string
}

// Blockers applies the rules to in at now, in a stable order: budgets, then
// terminating pods, each by pod namespace/name, then the drain failure.
func Blockers(in *Input, now time.Time) []Blocker {
	var out []Blocker
	pods := slices.Clone(in.Pods)
	slices.SortFunc(pods, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	var terminating []Blocker
	for _, p := range pods {
		if p == nil || Ignored(p) {
			continue
		}
		if p.DeletionTimestamp != nil {
			if !now.Before(p.DeletionTimestamp.Time) {
				terminating = append(terminating, Blocker{Kind: BlockedByTermination, Pod: p})
			}
			continue
		}
		if b := holdingBudget(p, in.Budgets); b != nil {
			out = append(out, Blocker{Kind: BlockedByBudget, Pod: p, Budget: b})
		}
	}
	out = append(out, terminating...)
	if msg := drainFailure(in.MCN); msg != "" {
		out = append(out, Blocker{Kind: BlockedByDrainFailure, Message: msg})
	}
	return out
}

// Ignored tells whether a drain leaves p alone, as kubectl drain and the
// machine-config drainer do: pods of DaemonSets, mirror (static) pods and
// pods that have finished.
func Ignored(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	if _, ok := p.Annotations[mirrorPodAnnotation]; ok {
		return true
	}
	if c := metav1.GetControllerOfNoCopy(p); c != nil && c.Kind == "DaemonSet" {
		return true
	}
	return false
}

// holdingBudget is the first budget (by name) selecting p that refuses its
// eviction. The eviction API ignores budgets for pods that are pending, and
// lets an unready pod go when the budget's unhealthyPodEvictionPolicy is
// AlwaysAllow or the budget is met.
func holdingBudget(p *corev1.Pod, budgets []*policyv1.PodDisruptionBudget) *policyv1.PodDisruptionBudget {
	if p.Status.Phase == corev1.PodPending {
		return nil
	}
	var held *policyv1.PodDisruptionBudget
	for _, b := range budgets {
		if b == nil || b.Namespace != p.Namespace || !selects(b, p) || b.Status.DisruptionsAllowed > 0 {
			continue
		}
		if !PodReady(p) {
			if b.Spec.UnhealthyPodEvictionPolicy != nil && *b.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow {
				continue
			}
			if b.Status.CurrentHealthy >= b.Status.DesiredHealthy {
				continue
			}
		}
		if held == nil || b.Name < held.Name {
			held = b
		}
	}
	return held
}

// selects tells whether the budget's selector matches p: a nil selector
// matches nothing, an empty one every pod of the namespace.
func selects(b *policyv1.PodDisruptionBudget, p *corev1.Pod) bool {
	sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(p.Labels))
}

// PodReady tells whether p's Ready condition is True.
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// drainFailure is the MachineConfigNode's report of a failed drain
// attempt: the Drained condition not True with an error message (the
// drainer's error when the message carries it), or NodeDegraded True with
// its message.
func drainFailure(mcn *mcfgv1.MachineConfigNode) string {
	if mcn == nil {
		return ""
	}
	conds := mcn.Status.Conditions
	if d := meta.FindStatusCondition(conds, string(mcfgv1.MachineConfigNodeUpdateDrained)); d != nil &&
		d.Status != metav1.ConditionTrue && strings.HasPrefix(d.Message, mcnErrorPrefix) {
		return DrainError(d.Message)
	}
	if d := meta.FindStatusCondition(conds, string(mcfgv1.MachineConfigNodeNodeDegraded)); d != nil && d.Status == metav1.ConditionTrue && d.Message != "" {
		return d.Message
	}
	return ""
}

// DrainError is the drainer's error in the message of a failed drain
// (between "Error is: " and " The drain will not be complete until"), or
// the message without its "Error: " prefix when it has another shape.
func DrainError(msg string) string {
	if _, after, ok := strings.Cut(msg, mcnDrainErrorMarker); ok {
		if before, _, ok := strings.Cut(after, mcnDrainErrorTail); ok {
			after = before
		}
		if e := strings.TrimSpace(after); e != "" {
			return e
		}
	}
	return strings.TrimSpace(strings.TrimPrefix(msg, mcnErrorPrefix))
}

// UID is the stable uid of the insight about node: a DNS label.
func UID(node string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(node))
	return fmt.Sprintf("drain-%016x", h.Sum64())
}

// Finding is the insight about one blocked node.
type Finding struct {
	// Pool is the node's pool; ControlPlane when it is MasterPool.
	Pool         string
	ControlPlane bool
	UID          string
	Health       v1alpha1.HealthStatusInsight
	Blockers     []Blocker
}

// Evaluate returns the finding about in at now, or nil when the node is
// not draining or nothing holds its drain. A drain older than timeout is an
// Error, a younger one a Warning.
func Evaluate(in *Input, now time.Time, timeout time.Duration) *Finding {
	if in == nil || in.Node == nil || !IsDraining(in.Node, in.MCN) {
		return nil
	}
	blockers := Blockers(in, now)
	if len(blockers) == 0 {
		return nil
	}
	started := in.DrainStarted
	if started.IsZero() || started.After(now) {
		started = now
	}
	level := v1alpha1.WarningImpactLevel
	if now.Sub(started) >= timeout {
		level = v1alpha1.ErrorImpactLevel
	}
	scope := v1alpha1.WorkerPoolScope
	if in.Pool == MasterPool {
		scope = v1alpha1.ControlPlaneScope
	}
	return &Finding{
		Pool:         in.Pool,
		ControlPlane: in.Pool == MasterPool,
		UID:          UID(in.Node.Name),
		Blockers:     blockers,
		Health: v1alpha1.HealthStatusInsight{
			StartedAt: metav1.NewTime(started),
			Scope:     v1alpha1.InsightScope{Type: scope, Resources: resources(in.Node.Name, blockers)},
			Impact: v1alpha1.InsightImpact{
				Level:       level,
				Type:        v1alpha1.UpdateStalledImpactType,
				Summary:     truncate(summary(in.Node.Name, blockers), maxSummary),
				Description: truncate(description(in, blockers, started, timeout), maxDescription),
			},
			Remediation: v1alpha1.InsightRemediation{Reference: Runbook},
		},
	}
}

// resources names the node, then the pods and the budgets, without
// repeats, at most maxResources.
func resources(node string, blockers []Blocker) []v1alpha1.ResourceRef {
	refs := []v1alpha1.ResourceRef{{Resource: "nodes", Name: node}}
	seen := map[v1alpha1.ResourceRef]bool{}
	add := func(r v1alpha1.ResourceRef) {
		if !seen[r] && len(refs) < maxResources {
			seen[r] = true
			refs = append(refs, r)
		}
	}
	for _, b := range blockers {
		if b.Pod != nil {
			add(v1alpha1.ResourceRef{Resource: "pods", Namespace: b.Pod.Namespace, Name: b.Pod.Name})
		}
	}
	for _, b := range blockers {
		if b.Budget != nil {
			add(v1alpha1.ResourceRef{Group: policyv1.GroupName, Resource: "poddisruptionbudgets", Namespace: b.Budget.Namespace, Name: b.Budget.Name})
		}
	}
	return refs
}

func summary(node string, blockers []Blocker) string {
	b := blockers[0]
	var s string
	switch b.Kind {
	case BlockedByBudget:
		s = fmt.Sprintf("Drain of %s is blocked by PodDisruptionBudget %s/%s (pod %s/%s)", node, b.Budget.Namespace, b.Budget.Name, b.Pod.Namespace, b.Pod.Name)
	case BlockedByTermination:
		s = fmt.Sprintf("Drain of %s is blocked by pod %s/%s stuck terminating", node, b.Pod.Namespace, b.Pod.Name)
	default:
		s = fmt.Sprintf("Drain of %s failed: %s", node, b.Message)
	}
	if n := len(blockers) - 1; n > 0 {
		s += fmt.Sprintf(" and %d more", n)
	}
	return s
}

// description is one paragraph of sentences, a blocker's after the
// other's: a reader such as oc's report layout prints each line break of a
// description as a continuation line of its own.
func description(in *Input, blockers []Blocker, started time.Time, timeout time.Duration) string {
	var sb strings.Builder
	// The instants, not the durations: the text stays the same from one
	// evaluation to the next, so an unchanged drain is not rewritten.
	fmt.Fprintf(&sb, "Node %s (pool %s) has been draining since %s (drain timeout %s).", in.Node.Name, in.Pool, started.UTC().Format(time.RFC3339), timeout)
	described := map[string]bool{}
	for _, b := range blockers {
		sb.WriteString(" ")
		switch b.Kind {
		case BlockedByBudget:
			key := b.Budget.Namespace + "/" + b.Budget.Name
			fmt.Fprintf(&sb, "Pod %s/%s cannot be evicted: PodDisruptionBudget %s allows 0 disruptions", b.Pod.Namespace, b.Pod.Name, key)
			if described[key] {
				sb.WriteString(".")
				continue
			}
			described[key] = true
			st := b.Budget.Status
			fmt.Fprintf(&sb, " (current healthy %d, desired healthy %d, expected pods %d).", st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods)
			if unhealthy := unhealthyNames(in.Protected[key]); len(unhealthy) > 0 {
				fmt.Fprintf(&sb, " Unhealthy pods it protects: %s.", strings.Join(unhealthy, ", "))
			}
		case BlockedByTermination:
			p := b.Pod
			fmt.Fprintf(&sb, "Pod %s/%s is still terminating after its grace period ended at %s", p.Namespace, p.Name, p.DeletionTimestamp.UTC().Format(time.RFC3339))
			if len(p.Finalizers) > 0 {
				fmt.Fprintf(&sb, "; finalizers: %s", strings.Join(p.Finalizers, ", "))
			}
			sb.WriteString(".")
		case BlockedByDrainFailure:
			fmt.Fprintf(&sb, "MachineConfigNode %s reports the drain has not succeeded: %s", in.Node.Name, sentence(b.Message))
		}
	}
	return sb.String()
}

// sentence is msg on one line, ending with a full stop unless it ends
// with other closing punctuation.
func sentence(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if msg == "" || strings.ContainsAny(msg[len(msg)-1:], ".!?") {
		return msg
	}
	return msg + "."
}

// unhealthyNames are the names of the pods that are not ready (those the
// budget is short of), sorted.
func unhealthyNames(pods []*corev1.Pod) []string {
	var names []string
	for _, p := range pods {
		if p != nil && p.DeletionTimestamp == nil && !PodReady(p) {
			names = append(names, p.Namespace+"/"+p.Name)
		}
	}
	slices.Sort(names)
	return names
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary, leaving room for the ellipsis.
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Contributions groups findings as the contribute package takes them: the
// control plane's insights and the worker pools', each sorted by uid.
func Contributions(findings []*Finding, now time.Time) ([]v1alpha1.ControlPlaneInsight, []informersv1alpha1.WorkerPoolContribution) {
	var cp []v1alpha1.ControlPlaneInsight
	byPool := map[string][]v1alpha1.WorkerPoolInsight{}
	for _, f := range findings {
		if f.ControlPlane {
			cp = append(cp, v1alpha1.ControlPlaneInsight{UID: f.UID, AcquiredAt: metav1.NewTime(now),
				Insight: v1alpha1.ControlPlaneInsightUnion{Type: v1alpha1.HealthInsightType, HealthInsight: f.Health.DeepCopy()}})
			continue
		}
		byPool[f.Pool] = append(byPool[f.Pool], v1alpha1.WorkerPoolInsight{UID: f.UID, AcquiredAt: metav1.NewTime(now),
			Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.HealthInsightType, HealthInsight: f.Health.DeepCopy()}})
	}
	slices.SortFunc(cp, func(a, b v1alpha1.ControlPlaneInsight) int { return cmp.Compare(a.UID, b.UID) })
	pools := make([]informersv1alpha1.WorkerPoolContribution, 0, len(byPool))
	for name, ins := range byPool {
		slices.SortFunc(ins, func(a, b v1alpha1.WorkerPoolInsight) int { return cmp.Compare(a.UID, b.UID) })
		pools = append(pools, informersv1alpha1.WorkerPoolContribution{Name: name, Insights: ins})
	}
	slices.SortFunc(pools, func(a, b informersv1alpha1.WorkerPoolContribution) int { return cmp.Compare(a.Name, b.Name) })
	return cp, pools
}

// PoolOf is the MachineConfigPool of node: the one its MachineConfigNode
// names; otherwise, among the pools whose node selector matches, master,
// then a custom pool (the first by name), then worker, as the
// machine-config controller prefers them. It is "" when none matches.
func PoolOf(node *corev1.Node, mcn *mcfgv1.MachineConfigNode, pools []*mcfgv1.MachineConfigPool) string {
	if mcn != nil && mcn.Spec.Pool.Name != "" {
		return mcn.Spec.Pool.Name
	}
	var custom []string
	worker := false
	for _, p := range pools {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.NodeSelector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(node.Labels)) {
			continue
		}
		switch p.Name {
		case MasterPool:
			return MasterPool
		case "worker":
			worker = true
		default:
			custom = append(custom, p.Name)
		}
	}
	if len(custom) > 0 {
		return slices.Min(custom)
	}
	if worker {
		return "worker"
	}
	return ""
}
