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
	"strings"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/hypershift"
)

// HostedSources are the objects of one hosted cluster on its management
// cluster: the HostedCluster, its NodePools (in the HostedCluster's
// namespace, spec.clusterName naming it) and the objects of its control-plane
// namespace (hypershift.ControlPlaneNamespace). Like Sources, they are
// read-only; nil or missing objects are allowed.
type HostedSources struct {
	HostedCluster      *hypershift.HostedCluster
	HostedControlPlane *hypershift.HostedControlPlane
	Components         []*hypershift.ControlPlaneComponent
	NodePools          []*hypershift.NodePool
	// Machines, MachineSets and MachineDeployments are those of the
	// control-plane namespace; the adapter assigns each Machine to its
	// NodePool.
	Machines           []*capiv1.Machine
	MachineSets        []*capiv1.MachineSet
	MachineDeployments []*capiv1.MachineDeployment
}

// ComputeHosted evaluates the hosted cluster src at the instant now: the
// hosted adapter (docs/insights.md#hosted-control-planes) fills the cluster
// model from src and the rules judge it as they judge a standalone cluster.
// Use one Engine per hosted cluster.
func (e *Engine) ComputeHosted(src *HostedSources, now time.Time) Result {
	if src == nil {
		src = &HostedSources{}
	}
	return e.ComputeCluster(hostedCluster(src), now)
}

// The names of the hosted cluster's objects, conditions and labels the
// adapter reads or states that the hypershift/api module does not declare.
const (
	// hostedGroup and capiGroup are the API groups of HyperShift and
	// Cluster API.
	hostedGroup = "hypershift.openshift.io"
	capiGroup   = "cluster.x-k8s.io"
	// hostedPoolLabel is the label by which the model's NodePools select
	// their nodes: the label the hosted cluster's config operator puts on
	// the guest Nodes (value: the NodePool's name).
	hostedPoolLabel = hypershift.NodePoolAnnotation
	// condSupportedVersionSkew is the NodePool (and HostedCluster)
	// condition of HyperShift's nodepool_conditions.go at HEAD, newer than
	// the module.
	condSupportedVersionSkew = "SupportedVersionSkew"
	// condProgressing is the ControlPlaneComponent condition of the 2025-11
	// CRD that RolloutComplete replaced.
	condProgressing = "Progressing"
	// reasonBlocked is the HostedCluster Progressing reason of a blocked
	// update.
	reasonBlocked = "Blocked"
	// refHostedUpgrades is HyperShift's reference on updating hosted
	// clusters.
	refHostedUpgrades = "https://github.com/openshift/hypershift/blob/main/docs/content/how-to/upgrades.md"
)

// Thresholds of docs/insights.md#hosted-health-rules.
const (
	componentRolloutWarn  = 10 * time.Minute
	componentRolloutErr   = 30 * time.Minute
	machineProvisionWarn  = 30 * time.Minute
	drainWithoutTimeout   = 30 * time.Minute
	hostedConditionLength = 1024
)

// hostedCluster fills the cluster model from a hosted cluster's objects.
func hostedCluster(src *HostedSources) *Cluster {
	c := &Cluster{}
	hc := src.HostedCluster
	if hc == nil {
		c.ControlPlaneMissing = &Signal{Kind: v1alpha1.HealthHostedClusterMissing, Level: v1alpha1.ErrorImpactLevel,
			Impact:      v1alpha1.UnknownImpactType,
			Summary:     "The HostedCluster of these objects does not exist",
			Description: "No HostedCluster was found for the control plane and NodePools, so the update of the control plane cannot be assessed.",
			Reference:   refHostedUpgrades}
	} else {
		c.ControlPlane = hostedControlPlane(src, &c.Signals)
	}
	hostedComponents(src, c)
	hostedPools(src, c)
	return c
}

// hcRef is the reference of the HostedCluster.
func hcRef(hc *hypershift.HostedCluster) *v1alpha1.ResourceRef {
	return hostedRef(hostedGroup, "hostedclusters", &hc.ObjectMeta)
}

// hostedControlPlane builds the control plane from the HostedCluster
// (docs/insights.md#hosted-control-plane) and adds the HostedCluster's
// health signals.
func hostedControlPlane(src *HostedSources, signals *[]Signal) *ControlPlane {
	hc := src.HostedCluster
	ref := hcRef(hc)
	cp := &ControlPlane{Name: hc.Name, Resource: ref, Changed: metaChangeTime(&hc.ObjectMeta)}
	conds := hc.Status.Conditions
	for i := range conds {
		cp.Changed = latest(cp.Changed, conds[i].LastTransitionTime.Time)
	}
	v := hc.Status.Version
	if v != nil {
		cp.DesiredVersion, cp.DesiredArchitecture = v.Desired.Version, string(v.Desired.Architecture)
	}
	cpv := hc.ControlPlaneVersion
	if cpv != nil && cpv.Desired.Version != "" {
		cp.DesiredVersion = cpv.Desired.Version
	}
	switch {
	case cpv != nil && len(cpv.History) > 0:
		for _, h := range cpv.History {
			cp.History = append(cp.History, Update{Version: h.Version, Image: h.Image, State: UpdateState(h.State),
				StartedAt: h.StartedTime.Time, CompletedAt: h.CompletionTime})
		}
	case v != nil:
		for _, h := range v.History {
			cp.History = append(cp.History, Update{Version: h.Version, Image: h.Image, State: UpdateState(h.State),
				StartedAt: h.StartedTime.Time, CompletedAt: h.CompletionTime})
		}
	}
	for _, h := range cp.History {
		cp.Changed = latest(cp.Changed, h.StartedAt)
		if h.CompletedAt != nil {
			cp.Changed = latest(cp.Changed, h.CompletedAt.Time)
		}
	}

	// Progressing: the control plane's own history when it has one, else
	// the CVO's, else the HostedCluster's.
	switch cvp := metaCondition(conds, string(hyperv1.ClusterVersionProgressing)); {
	case cpv != nil && len(cpv.History) > 0:
		h := cpv.History[0]
		if string(h.State) == string(UpdateCompleted) {
			at := h.StartedTime
			if h.CompletionTime != nil {
				at = *h.CompletionTime
			}
			cp.Progressing = &metav1.Condition{Type: condProgressing, Status: metav1.ConditionFalse, Reason: "AsExpected",
				Message: "The control plane runs " + h.Version, LastTransitionTime: at}
		} else {
			cp.Progressing = &metav1.Condition{Type: condProgressing, Status: metav1.ConditionTrue, Reason: "Progressing",
				Message: "The control plane is updating to " + h.Version, LastTransitionTime: h.StartedTime}
		}
	case cvp != nil:
		cp.Progressing = cvp
	default:
		cp.Progressing = metaCondition(conds, string(hyperv1.HostedClusterProgressing))
	}

	// Failing: the CVO's, copied up as ClusterVersionFailing or inverted
	// as ClusterVersionSucceeding.
	if f := metaCondition(conds, string(hyperv1.ClusterVersionFailing)); f != nil {
		cp.Failing = f
	} else if s := metaCondition(conds, string(hyperv1.ClusterVersionSucceeding)); s != nil {
		cp.Failing = inverted(s, string(hyperv1.ClusterVersionFailing))
	} else if hcp := src.HostedControlPlane; hcp != nil {
		cp.Failing = metaCondition(hcp.Status.Conditions, string(hyperv1.ClusterVersionFailing))
	}

	name := hc.Namespace + "/" + hc.Name
	if v == nil {
		*signals = append(*signals, Signal{Kind: v1alpha1.HealthHostedNoVersion, Resource: ref, Since: hc.CreationTimestamp.Time,
			Level: v1alpha1.WarningImpactLevel, Impact: v1alpha1.UnknownImpactType, Changed: cp.Changed,
			Summary:     fmt.Sprintf("HostedCluster %s reports no version yet", name),
			Description: "The HostedCluster has no status.version: its control plane has not reported the release it runs, so its update cannot be assessed yet.",
			Reference:   refHostedUpgrades})
	}
	vri := metaCondition(conds, string(hyperv1.ValidReleaseImage))
	if vri != nil && vri.Status == metav1.ConditionFalse {
		*signals = append(*signals, Signal{Kind: v1alpha1.HealthHostedReleaseImage, Resource: ref, Since: vri.LastTransitionTime.Time,
			Level: v1alpha1.ErrorImpactLevel, Impact: v1alpha1.UpdateStalledImpactType, Changed: cp.Changed,
			Summary:     fmt.Sprintf("The release image of HostedCluster %s is not valid (%s)", name, vri.Reason),
			Description: conditionText(vri.Message, hc.Spec.Release.Image), Reference: refHostedUpgrades})
	}
	if p := metaCondition(conds, string(hyperv1.HostedClusterProgressing)); p != nil && p.Status == metav1.ConditionFalse &&
		p.Reason == reasonBlocked && (vri == nil || vri.Status != metav1.ConditionFalse) {
		*signals = append(*signals, Signal{Kind: v1alpha1.HealthHostedBlocked, Resource: ref, Since: p.LastTransitionTime.Time,
			Level: v1alpha1.ErrorImpactLevel, Impact: v1alpha1.UpdateStalledImpactType, Changed: cp.Changed,
			Summary:     fmt.Sprintf("The update of HostedCluster %s is blocked", name),
			Description: conditionText(p.Message, "The HostedCluster's Progressing condition is False with reason Blocked."),
			Reference:   refHostedUpgrades})
	}
	if s := metaCondition(conds, condSupportedVersionSkew); s != nil && s.Status == metav1.ConditionFalse {
		*signals = append(*signals, Signal{Kind: v1alpha1.HealthNodePoolVersionSkew, Resource: ref, Since: s.LastTransitionTime.Time,
			Level: v1alpha1.ErrorImpactLevel, Impact: v1alpha1.UpdateStalledImpactType, Changed: cp.Changed,
			Summary:     fmt.Sprintf("HostedCluster %s has an unsupported version skew (%s)", name, s.Reason),
			Description: conditionText(s.Message, "The HostedCluster's SupportedVersionSkew condition is False."),
			Reference:   refHostedUpgrades})
	}
	return cp
}

// hostedComponents adds the ControlPlaneComponents
// (docs/insights.md#hosted-components).
func hostedComponents(src *HostedSources, c *Cluster) {
	for _, cpc := range src.Components {
		if cpc == nil {
			continue
		}
		c.HasComponents = true
		co := &Component{Name: cpc.Name, UID: cpc.UID, ResourceVersion: cpc.ResourceVersion,
			Resource: hostedRef(hostedGroup, "controlplanecomponents", &cpc.ObjectMeta),
			Changed:  metaChangeTime(&cpc.ObjectMeta)}
		conds := cpc.Status.Conditions
		for i := range conds {
			co.Changed = latest(co.Changed, conds[i].LastTransitionTime.Time)
		}
		if v := cpc.Status.Version; v != "" {
			co.Versions = []string{v}
		}
		co.Available = metaCondition(conds, string(hyperv1.ControlPlaneComponentAvailable))
		rc := metaCondition(conds, string(hyperv1.ControlPlaneComponentRolloutComplete))
		switch p := metaCondition(conds, condProgressing); {
		case rc != nil:
			co.Progressing = inverted(rc, condProgressing)
			co.RolloutPending = rc.Status != metav1.ConditionTrue
		case p != nil:
			co.Progressing = p
			co.RolloutPending = p.Status == metav1.ConditionTrue
		}
		if cpc.HasObservedGeneration && cpc.ObservedGeneration < cpc.Generation {
			co.RolloutPending = true
		}
		c.Components = append(c.Components, co)
		if rc != nil && rc.Status == metav1.ConditionFalse {
			c.Signals = append(c.Signals, Signal{Kind: v1alpha1.HealthComponentRollout, Resource: co.Resource,
				Since: rc.LastTransitionTime.Time, After: componentRolloutWarn, ErrorAfter: componentRolloutErr,
				Level: v1alpha1.WarningImpactLevel, Impact: v1alpha1.UpdateStalledImpactType, Changed: co.Changed,
				Summary: fmt.Sprintf("The rollout of control-plane component %s has not completed for more than %s (%s)",
					cpc.Name, componentRolloutWarn, rc.Reason),
				Description: conditionText(rc.Message, "The ControlPlaneComponent's RolloutComplete condition is False."),
				Reference:   refHostedUpgrades})
		}
	}
	if hc := src.HostedCluster; hc != nil && !c.HasComponents {
		c.ControlPlane.CompletionFromHistory = true
		c.Signals = append(c.Signals, Signal{Kind: v1alpha1.HealthComponentsNone, Resource: hcRef(hc),
			Level: v1alpha1.InfoImpactLevel, Impact: v1alpha1.NoneImpactType, Changed: c.ControlPlane.Changed,
			Summary: fmt.Sprintf("The control plane of HostedCluster %s/%s lists no ControlPlaneComponents", hc.Namespace, hc.Name),
			Description: "Control planes before OpenShift 4.18, and 4.18 and 4.19 ones without the hypershift.openshift.io/cpo-v2 annotation, " +
				"report no ControlPlaneComponents: the control plane's completion follows its version history alone.",
			Reference: refHostedUpgrades})
	}
}

// hostedRef references the object m of a hosted cluster. A namespace the
// API server would not hold (none does) is left out, so that the reference
// stays one the API can carry.
func hostedRef(group, resource string, m *metav1.ObjectMeta) *v1alpha1.ResourceRef {
	ref := &v1alpha1.ResourceRef{Group: group, Resource: resource, Namespace: m.Namespace, Name: m.Name}
	if !conventions.IsDNSLabel(ref.Namespace) {
		ref.Namespace = ""
	}
	return ref
}

// inverted is c as a condition of type t that says the opposite: True and
// False swap, any other status is Unknown; reason, message and transition
// time are kept.
func inverted(c *metav1.Condition, t string) *metav1.Condition {
	out := metav1.Condition{Type: t, Status: metav1.ConditionUnknown, Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime}
	switch c.Status {
	case metav1.ConditionTrue:
		out.Status = metav1.ConditionFalse
	case metav1.ConditionFalse:
		out.Status = metav1.ConditionTrue
	}
	return &out
}

// findCondition returns the condition of type t among conds, whose types
// typeOf reads; nil when absent.
func findCondition[C any, T ~string](conds []C, typeOf func(*C) T, t T) *C {
	for i := range conds {
		if typeOf(&conds[i]) == t {
			return &conds[i]
		}
	}
	return nil
}

// metaCondition returns the condition of type t, nil when absent.
func metaCondition(conds []metav1.Condition, t string) *metav1.Condition {
	return findCondition(conds, func(c *metav1.Condition) string { return c.Type }, t)
}

// conditionText is a condition's message for a description, or fallback
// when it has none.
func conditionText(message, fallback string) string {
	if message = strings.TrimSpace(message); message != "" {
		return conventions.Truncate(message, hostedConditionLength)
	}
	return fallback
}
