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
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/hypershift"
)

// hostedPool is one NodePool as the adapter reads its Machines.
type hostedPool struct {
	np  *hypershift.NodePool
	ref *v1alpha1.ResourceRef
	// labels are the labels of the pool's nodes, shared by them.
	labels NodeLabels
	// inPlace says the pool updates in place; otherwise it replaces.
	inPlace bool
	// target is the release version the pool rolls out, "" when unknown.
	target string
	// inPlaceUpdating says an InPlace pool's MachineSet has not reached its
	// target config; failedNode is the node its upgrader reports degraded,
	// failure the report.
	inPlaceUpdating     bool
	failedNode, failure string
	drainTimeout        time.Duration
}

// targetVersionRE finds the target in the UpdatingVersion message
// ("Updating version in progress. Target version: X").
var targetVersionRE = regexp.MustCompile(`Target version: ?([^\s,;]+)`)

// failedNodeRE finds the node in the upgrader's failure report ("Node X in
// nodepool degraded: ...").
var failedNodeRE = regexp.MustCompile(`Node (\S+) in nodepool degraded`)

// hostedPools adds one pool per NodePool and one node per Machine
// (docs/insights.md#hosted-node-pools).
func hostedPools(src *HostedSources, c *Cluster) {
	pools := map[string]*hostedPool{} // by "namespace/name"
	byName := map[string]*hostedPool{}
	var order []*hostedPool
	for _, np := range src.NodePools {
		if np == nil || np.Name == "" {
			continue
		}
		key := np.Namespace + "/" + np.Name
		if pools[key] != nil {
			continue
		}
		hp := &hostedPool{np: np, ref: hostedRef(hostedGroup, "nodepools", &np.ObjectMeta),
			labels: NodeLabelsOf(map[string]string{hostedPoolLabel: np.Name}, nil)}
		pools[key] = hp
		if byName[np.Name] == nil {
			byName[np.Name] = hp
		}
		order = append(order, hp)
	}
	// The NodePool of a MachineDeployment or MachineSet: its annotation,
	// else its name (HyperShift names them after the NodePool).
	owner := func(m *metav1.ObjectMeta) *hostedPool {
		if v, ok := m.Annotations[hypershift.NodePoolAnnotation]; ok {
			if hp := pools[v]; hp != nil {
				return hp
			}
			if !strings.Contains(v, "/") {
				return byName[v]
			}
			return nil
		}
		return byName[m.Name]
	}
	mds := map[string]*capiv1.MachineDeployment{}
	for _, md := range src.MachineDeployments {
		if md != nil {
			mds[md.Name] = md
		}
	}
	mss := map[string]*capiv1.MachineSet{}
	for _, ms := range src.MachineSets {
		if ms != nil {
			mss[ms.Name] = ms
		}
	}
	for _, hp := range order {
		hp.read(src, owner)
	}
	for _, hp := range order {
		np := hp.np
		p := &Pool{Name: np.Name, UID: np.UID, Resource: hp.ref, TargetConfig: hp.target, Changed: metaChangeTime(&np.ObjectMeta),
			NodeSelector: &metav1.LabelSelector{MatchLabels: map[string]string{hostedPoolLabel: np.Name}}}
		for i := range np.Status.Conditions {
			p.Changed = latest(p.Changed, np.Status.Conditions[i].LastTransitionTime.Time)
		}
		c.Pools = append(c.Pools, p)
		hp.signals(c, p.Changed)
	}

	var unassigned []string
	for _, m := range src.Machines {
		if m == nil {
			continue
		}
		hp := machinePool(m, pools, byName, mds, mss, owner)
		if hp == nil {
			unassigned = append(unassigned, m.Name)
			continue
		}
		n, sig := hp.node(m)
		c.Nodes = append(c.Nodes, n)
		if sig != nil {
			c.Signals = append(c.Signals, *sig)
		}
	}
	if len(unassigned) > 0 {
		sort.Strings(unassigned)
		list := unassigned
		if len(list) > 20 {
			list = append(list[:20:20], fmt.Sprintf("and %d more", len(unassigned)-20))
		}
		c.Signals = append(c.Signals, Signal{Kind: v1alpha1.HealthMachinesNoPool, Subject: "machines",
			Level: v1alpha1.InfoImpactLevel, Impact: v1alpha1.UnknownImpactType,
			Summary: fmt.Sprintf("%d Machines of the control plane's namespace belong to no known NodePool", len(unassigned)),
			Description: "Neither the Machine, its MachineSet nor its MachineDeployment names a NodePool of this hosted cluster " +
				"(annotation " + hypershift.NodePoolAnnotation + "), so they are not counted: " + strings.Join(list, ", "),
			Reference: refHostedNodePools})
	}
}

// machinePool finds the NodePool of a Machine: the NodePool annotation of
// the Machine, of its owning MachineSet or of that MachineSet's
// MachineDeployment, else the MachineSet or MachineDeployment its Cluster
// API labels name.
func machinePool(m *capiv1.Machine, pools, byName map[string]*hostedPool, mds map[string]*capiv1.MachineDeployment,
	mss map[string]*capiv1.MachineSet, owner func(*metav1.ObjectMeta) *hostedPool) *hostedPool {
	if v, ok := m.Annotations[hypershift.NodePoolAnnotation]; ok {
		if hp := pools[v]; hp != nil {
			return hp
		}
		if hp := byName[v]; hp != nil && !strings.Contains(v, "/") {
			return hp
		}
	}
	msName := m.Labels[capiv1.MachineSetNameLabel]
	for _, o := range m.OwnerReferences {
		if o.Kind == "MachineSet" {
			msName = o.Name
		}
	}
	mdName := m.Labels[capiv1.MachineDeploymentNameLabel]
	if ms := mss[msName]; ms != nil {
		if _, ok := ms.Annotations[hypershift.NodePoolAnnotation]; ok {
			return owner(&ms.ObjectMeta)
		}
		for _, o := range ms.OwnerReferences {
			if o.Kind == "MachineDeployment" {
				mdName = o.Name
			}
		}
		if mdName == "" {
			return owner(&ms.ObjectMeta)
		}
	}
	if md := mds[mdName]; md != nil {
		return owner(&md.ObjectMeta)
	}
	if mdName != "" {
		return byName[mdName]
	}
	if msName != "" {
		return byName[msName]
	}
	return nil
}

// read finds the pool's upgrade type, target and in-place state from the
// NodePool and its MachineDeployment or MachineSet.
func (hp *hostedPool) read(src *HostedSources, owner func(*metav1.ObjectMeta) *hostedPool) {
	np := hp.np
	hp.inPlace = np.Spec.Management.UpgradeType == hyperv1.UpgradeTypeInPlace
	if d := np.Spec.NodeDrainTimeout; d != nil {
		hp.drainTimeout = d.Duration
	}
	var tmpl *capiv1.MachineTemplateSpec
	for _, md := range src.MachineDeployments {
		if md != nil && owner(&md.ObjectMeta) == hp {
			tmpl = &md.Spec.Template
			break
		}
	}
	for _, ms := range src.MachineSets {
		if ms == nil || owner(&ms.ObjectMeta) != hp || !hp.inPlace {
			continue
		}
		if tmpl == nil {
			tmpl = &ms.Spec.Template
		}
		target, current := ms.Annotations[hypershift.NodePoolTargetConfigVersionAnnotation], ms.Annotations[hypershift.NodePoolCurrentConfigVersionAnnotation]
		hp.inPlaceUpdating = target != "" && target != current
		if f := ms.Annotations[hypershift.NodePoolUpgradeInProgressFalseAnnotation]; f != "" {
			hp.failure = f
		}
		break
	}
	uv := poolCondition(np, hyperv1.NodePoolUpdatingVersionConditionType)
	switch {
	case tmpl != nil && tmpl.Spec.Version != nil && *tmpl.Spec.Version != "":
		hp.target = *tmpl.Spec.Version
	case tmpl != nil && tmpl.Annotations[hypershift.ReleaseVersionAnnotation] != "":
		hp.target = tmpl.Annotations[hypershift.ReleaseVersionAnnotation]
	case uv != nil && uv.Status == corev1.ConditionTrue && targetVersionRE.MatchString(uv.Message):
		hp.target = targetVersionRE.FindStringSubmatch(uv.Message)[1]
	default:
		hp.target = np.Status.Version
	}
	if hp.inPlace && hp.failure == "" {
		for _, t := range []string{hyperv1.NodePoolUpdatingVersionConditionType, hyperv1.NodePoolUpdatingConfigConditionType} {
			if c := poolCondition(np, t); c != nil && c.Status == corev1.ConditionFalse && c.Reason == hypershift.NodePoolInplaceUpgradeFailedReason {
				hp.failure = conditionText(c.Message, "The in-place update of a node failed.")
			}
		}
	}
	if m := failedNodeRE.FindStringSubmatch(hp.failure); m != nil {
		hp.failedNode = m[1]
	}
}

// signals adds the NodePool's own health signals
// (docs/insights.md#hosted-health-rules).
func (hp *hostedPool) signals(c *Cluster, changed time.Time) {
	np := hp.np
	name := np.Name
	add := func(kind v1alpha1.HealthKind, since time.Time, level v1alpha1.InsightImpactLevel, summary, description string) {
		c.Signals = append(c.Signals, Signal{Kind: kind, Resource: hp.ref, Pool: name, Since: since, Level: level,
			Impact: v1alpha1.UpdateStalledImpactType, Summary: summary, Description: description, Reference: refHostedNodePools,
			Changed: changed})
	}
	switch t := np.Spec.Management.UpgradeType; t {
	case hyperv1.UpgradeTypeReplace, hyperv1.UpgradeTypeInPlace:
	default:
		add(v1alpha1.HealthNodePoolUpgradeType, np.CreationTimestamp.Time, v1alpha1.WarningImpactLevel,
			fmt.Sprintf("NodePool %s has an upgrade type this server does not know (%q)", name, conventions.Short(string(t), 40)),
			"spec.management.upgradeType is neither Replace nor InPlace, so the NodePool's Machines are judged as a Replace pool's: "+
				"a Machine is updated when it runs the target release.")
	}
	if v := poolCondition(np, hyperv1.NodePoolValidReleaseImageConditionType); v != nil && v.Status == corev1.ConditionFalse {
		add(v1alpha1.HealthNodePoolReleaseImage, v.LastTransitionTime.Time, v1alpha1.ErrorImpactLevel,
			fmt.Sprintf("The release image of NodePool %s is not valid (%s)", name, v.Reason),
			conditionText(v.Message, np.Spec.Release.Image))
	}
	if s := poolCondition(np, condSupportedVersionSkew); s != nil && s.Status == corev1.ConditionFalse {
		add(v1alpha1.HealthNodePoolVersionSkew, s.LastTransitionTime.Time, v1alpha1.ErrorImpactLevel,
			fmt.Sprintf("NodePool %s has an unsupported version skew to its control plane (%s)", name, s.Reason),
			conditionText(s.Message, "The NodePool's SupportedVersionSkew condition is False."))
	}
	if hp.failure != "" {
		since := changed
		for _, t := range []string{hyperv1.NodePoolUpdatingVersionConditionType, hyperv1.NodePoolUpdatingConfigConditionType} {
			if c := poolCondition(np, t); c != nil && c.Status == corev1.ConditionFalse && c.Reason == hypershift.NodePoolInplaceUpgradeFailedReason {
				since = c.LastTransitionTime.Time
			}
		}
		add(v1alpha1.HealthNodePoolInPlaceFailed, since, v1alpha1.ErrorImpactLevel,
			fmt.Sprintf("The in-place update of NodePool %s failed", name), hp.failure)
	}
}

// poolCondition returns the NodePool condition of type t, nil when absent.
func poolCondition(np *hypershift.NodePool, t string) *hyperv1.NodePoolCondition {
	return findCondition(np.Status.Conditions, func(c *hyperv1.NodePoolCondition) string { return c.Type }, t)
}

// machineCondition returns the Machine condition of type t, nil when absent.
func machineCondition(m *capiv1.Machine, t capiv1.ConditionType) *capiv1.Condition {
	return findCondition(m.Status.Conditions, func(c *capiv1.Condition) capiv1.ConditionType { return c.Type }, t)
}

// Machine phases (capiv1.MachinePhase values) the adapter reads.
const (
	machineRunning  = string(capiv1.MachinePhaseRunning)
	machineDeleting = string(capiv1.MachinePhaseDeleting)
	machineFailed   = string(capiv1.MachinePhaseFailed)
)

// node is the model's node of the Machine m of this pool, with the phase of
// docs/insights.md#hosted-node-phases, and the Machine's health signal.
func (hp *hostedPool) node(m *capiv1.Machine) (*Node, *Signal) {
	name := m.Name
	if r := m.Status.NodeRef; r != nil && r.Name != "" {
		name = r.Name
	}
	n := &Node{Name: name, UID: m.UID, ResourceVersion: hp.nodeVersion(m), Changed: metaChangeTime(&m.ObjectMeta),
		Labels: hp.labels}
	if t := m.Status.LastUpdated; t != nil {
		n.Changed = latest(n.Changed, t.Time)
	}
	for i := range m.Status.Conditions {
		n.Changed = latest(n.Changed, m.Status.Conditions[i].LastTransitionTime.Time)
	}
	// NodeHealthy is the node's readiness as Cluster API reads it.
	if h := machineCondition(m, capiv1.MachineNodeHealthyCondition); h != nil {
		msg := h.Message
		if msg == "" {
			msg = h.Reason
		}
		n.Conditions = []NodeCondition{{Type: corev1.NodeReady, Status: h.Status, Message: msg, LastTransitionTime: h.LastTransitionTime.Time}}
	}

	st := &MachineState{Resource: *hostedRef(capiGroup, "machines", &m.ObjectMeta)}
	n.Machine = st
	st.Version = m.Annotations[hypershift.ReleaseVersionAnnotation]
	switch {
	case st.Version != "":
	case hp.inPlace && !hp.inPlaceUpdating && hp.target != "" && m.Status.NodeRef != nil:
		// Machines older than the release-version annotation: an InPlace
		// pool at its target config runs its target.
		st.Version = hp.target
	case m.Spec.Version != nil:
		st.Version = *m.Spec.Version
	}

	phase := m.Status.Phase
	deleting := m.DeletionTimestamp != nil || phase == machineDeleting
	drained := machineCondition(m, capiv1.DrainingSucceededCondition)
	var drainStart time.Time
	if d := m.Status.Deletion; d != nil && d.NodeDrainStartTime != nil {
		drainStart = d.NodeDrainStartTime.Time
	} else if drained != nil && drained.Status == corev1.ConditionFalse {
		drainStart = drained.LastTransitionTime.Time
	}
	// A deleted Machine drains its node first (after any pre-drain hook):
	// it is draining until DrainingSucceeded is True.
	draining := deleting && (drained == nil || drained.Status != corev1.ConditionTrue)
	infra := machineCondition(m, capiv1.InfrastructureReadyCondition)
	failure := machineFailure(m, infra)
	running := phase == machineRunning
	atTarget := hp.target != "" && st.Version == hp.target
	pool := hp.np.Name

	var sig *Signal
	switch {
	case draining:
		st.Phase = NodePhaseDraining
		st.Message = "The node is draining before its Machine is deleted"
		sig = hp.drainSignal(m, &st.Resource, name, drainStart, drained, n.Changed)
	case deleting:
		st.Phase = NodePhaseUpdating
		st.Message = "The node is drained; its Machine is being deleted"
	case failure != "":
		st.Phase, st.Failed = NodePhasePending, failure
		if atTarget {
			st.Phase = NodePhaseUpdating
		}
		since := n.Changed
		if infra != nil && infra.Status == corev1.ConditionFalse {
			since = infra.LastTransitionTime.Time
		}
		what := "failed to provision"
		if m.Status.NodeRef != nil {
			what = "failed"
		}
		sig = &Signal{Kind: v1alpha1.HealthMachineProvision, Resource: &st.Resource, Pool: pool, Since: since,
			Level: v1alpha1.ErrorImpactLevel, Impact: v1alpha1.UpdateStalledImpactType, Changed: n.Changed,
			Summary:     fmt.Sprintf("Machine %s of NodePool %s %s", m.Name, pool, what),
			Description: failure, Reference: refHostedNodePools}
	case atTarget && running:
		st.Phase = NodePhaseUpdated
	case atTarget:
		st.Phase = NodePhaseUpdating
		st.Message = "The Machine is provisioning (phase " + conventions.Short(orUnknown(phase), 20) + ")"
		sig = &Signal{Kind: v1alpha1.HealthMachineProvision, Resource: &st.Resource, Pool: pool,
			Since: m.CreationTimestamp.Time, After: machineProvisionWarn,
			Level: v1alpha1.WarningImpactLevel, Impact: v1alpha1.UpdateSpeedImpactType, Changed: n.Changed,
			Summary: fmt.Sprintf("Machine %s of NodePool %s has been provisioning for more than %s", m.Name, pool, machineProvisionWarn),
			Description: fmt.Sprintf("The Machine is in phase %s; its infrastructure is %s.", orUnknown(phase),
				capiConditionText(infra, "not reported")),
			Reference: refHostedNodePools}
	case hp.inPlace && hp.failedNode != "" && hp.failedNode == name:
		st.Phase, st.Failed = NodePhasePending, conventions.Truncate(hp.failure, hostedConditionLength)
	case hp.inPlace && hp.inPlaceUpdating && len(n.Conditions) > 0 && n.Conditions[0].Status != corev1.ConditionTrue:
		st.Phase = NodePhaseRebooting
		st.Message = "The node is rebooting into the update"
	case hp.target == "":
		st.Phase = NodePhasePending
		st.Message = "The NodePool's target version is not known"
	default:
		st.Phase = NodePhasePending
	}
	return n, sig
}

// nodeVersion is the resourceVersion of the Machine m's node: the Machine's
// and a digest of what of its pool its phase depends on, so that the
// engine's memory of the node holds exactly while neither changed; "" (never
// trusted) when the Machine has none.
func (hp *hostedPool) nodeVersion(m *capiv1.Machine) string {
	if m.ResourceVersion == "" {
		return ""
	}
	h := fnv.New64a()
	for _, part := range []string{hp.np.Namespace, hp.np.Name, hp.target, strconv.FormatBool(hp.inPlace),
		strconv.FormatBool(hp.inPlaceUpdating), hp.failedNode, hp.failure} {
		_, _ = h.Write([]byte(part))
		_, _ = h.Write([]byte{0})
	}
	return m.ResourceVersion + "-" + strconv.FormatUint(h.Sum64(), 36)
}

// drainSignal reports a drain past the NodePool's nodeDrainTimeout (the
// Machine's own, copied from it, first), or past drainWithoutTimeout when
// the NodePool sets none.
func (hp *hostedPool) drainSignal(m *capiv1.Machine, ref *v1alpha1.ResourceRef, node string, start time.Time, drained *capiv1.Condition,
	changed time.Time) *Signal {
	if start.IsZero() {
		return nil
	}
	timeout := hp.drainTimeout
	if d := m.Spec.NodeDrainTimeout; d != nil {
		timeout = d.Duration
	}
	pool := hp.np.Name
	s := &Signal{Kind: v1alpha1.HealthMachineDrain, Resource: ref, Pool: pool, Since: start, Changed: changed,
		Impact: v1alpha1.UpdateStalledImpactType, Reference: refHostedNodePools}
	detail := capiConditionText(drained, "")
	if timeout > 0 {
		s.After, s.Level = timeout, v1alpha1.ErrorImpactLevel
		s.Summary = fmt.Sprintf("Node %s of NodePool %s has drained for longer than its nodeDrainTimeout (%s)", node, pool, timeout)
		s.Description = "Cluster API stops waiting for the drain at the timeout and deletes the Machine with the pods left on it. " + detail
	} else {
		s.After, s.Level = drainWithoutTimeout, v1alpha1.WarningImpactLevel
		s.Summary = fmt.Sprintf("Node %s of NodePool %s has drained for more than %s", node, pool, drainWithoutTimeout)
		s.Description = "The NodePool sets no nodeDrainTimeout, so Cluster API waits for the drain as long as it takes: " +
			"a PodDisruptionBudget or a pod that does not terminate holds the update. " + detail
	}
	s.Description = strings.TrimSpace(s.Description)
	return s
}

// machineFailure is why the Machine failed, "" when it has not: phase
// Failed, a failure reason or message, or (before it has a node) its
// infrastructure reported not ready with severity Warning or Error.
func machineFailure(m *capiv1.Machine, infra *capiv1.Condition) string {
	var parts []string
	// Deprecated in v1beta1, still what a v1beta1 Machine carries.
	if r := m.Status.FailureReason; r != nil && *r != "" { //nolint:staticcheck // read while v1beta1 is served
		parts = append(parts, string(*r))
	}
	if msg := m.Status.FailureMessage; msg != nil && *msg != "" { //nolint:staticcheck // read while v1beta1 is served
		parts = append(parts, *msg)
	}
	if len(parts) == 0 && m.Status.NodeRef == nil && infra != nil && infra.Status == corev1.ConditionFalse &&
		slices.Contains([]capiv1.ConditionSeverity{capiv1.ConditionSeverityWarning, capiv1.ConditionSeverityError}, infra.Severity) {
		parts = append(parts, capiConditionText(infra, "InfrastructureReady is False"))
	}
	if len(parts) == 0 && m.Status.Phase == machineFailed {
		parts = append(parts, "The Machine is in phase Failed")
	}
	return conventions.Truncate(strings.Join(parts, ": "), hostedConditionLength)
}

// capiConditionText is "(Reason) message" of a Cluster API condition, or
// fallback.
func capiConditionText(c *capiv1.Condition, fallback string) string {
	if c == nil || (c.Reason == "" && c.Message == "") {
		return fallback
	}
	return conventions.Truncate(conventions.EncodeReasonMessage(c.Reason, strings.TrimSpace(c.Message)), hostedConditionLength)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
