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
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/pkg/hypershift"
)

// machineFinalizer is the finalizer CAPI puts on Machines; it keeps a
// deleted Machine while its node drains.
const machineFinalizer = "machine.cluster.x-k8s.io"

// cluster is one hosted cluster: its objects and the state of its update.
type cluster struct {
	sim  *Simulator
	opts ClusterOptions

	cpNS       string
	namespaces []*corev1.Namespace // the control-plane namespace
	hc         *hyperv1.HostedCluster
	hcp        *hyperv1.HostedControlPlane
	np         *hyperv1.NodePool
	components []*hyperv1.ControlPlaneComponent
	md         *capiv1.MachineDeployment // Replace
	ms         *capiv1.MachineSet        // InPlace
	machines   []*capiv1.Machine
	cpVersion  *hypershift.ControlPlaneVersionStatus

	target string
	// Tracks; a zero next time means nothing is scheduled.
	cpNext, cvoNext, poolNext time.Time
	cpStep                    int // 2*component index + sub-step
	cvoDone                   bool
	pool                      poolRollout
}

// poolRollout is the state of the NodePool's rollout.
type poolRollout struct {
	active  bool
	done    bool
	index   int // the old machine (Replace) or machine (InPlace) being replaced or updated
	step    int
	surge   *capiv1.Machine
	old     []*capiv1.Machine
	upgrade int // InPlace: nodes updated
}

func (c *cluster) has(f Fault) bool { return slices.Contains(c.opts.Faults, f) }

func (c *cluster) gen() int64 { return max(c.hc.Generation, 1) }

// done reports that the update is complete (or that none runs).
func (c *cluster) done() bool {
	return c.target == "" || (c.cvoDone && c.pool.done)
}

func (c *cluster) nextTimes() []time.Time { return []time.Time{c.cpNext, c.cvoNext, c.poolNext} }

// namespace is the namespace of the HostedCluster and its NodePool.
func (c *cluster) namespace() string { return cmp.Or(c.opts.Namespace, c.sim.opts.Namespace) }

func (c *cluster) create(now time.Time) {
	s := c.sim
	ns, v := c.namespace(), s.opts.FromVersion
	c.cpNS = hypershift.ControlPlaneNamespace(ns, c.opts.Name)
	c.namespaces = []*corev1.Namespace{
		{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: c.cpNS,
			Labels: map[string]string{hypershift.HostedControlPlaneNamespaceLabel: "true"}}},
	}
	for _, n := range c.namespaces {
		s.mark(n, true, false, false)
	}
	installed := now.Add(-24 * time.Hour)
	c.hc = newHostedCluster(ns, c.opts.Name, v, installed)
	c.cpVersion = &hypershift.ControlPlaneVersionStatus{
		Desired: configv1.Release{Version: v, Image: ReleaseImage(v)},
		History: []hypershift.ControlPlaneUpdateHistory{{State: configv1.CompletedUpdate, StartedTime: meta(installed),
			CompletionTime: ptr.To(meta(installed)), Version: v, Image: ReleaseImage(v)}},
		ObservedGeneration: 1,
	}
	c.hcStatusSteady(now, v)
	c.hcp = newHostedControlPlane(c.hc, c.cpNS)
	c.hcpStatus(now)
	for _, name := range Components {
		c.components = append(c.components, newComponent(c.cpNS, name, v, now))
	}
	c.np = newNodePool(c.hc, c.opts.Name+"-workers", c.opts.UpgradeType, int32(c.opts.Nodes), s.scale(s.opts.DrainTimeout))
	c.np.Status.Version = v
	for i := 0; i < c.opts.Nodes; i++ {
		c.machines = append(c.machines, c.newMachine(now, v, fmt.Sprintf("%d", i), true))
	}
	if c.opts.UpgradeType == hyperv1.UpgradeTypeReplace {
		c.md = c.newMachineDeployment(v)
	} else {
		c.ms = c.newMachineSet(v)
	}
	c.poolStatus(now)
	setPoolCondition(&c.np.Status.Conditions, now, hyperv1.NodePoolUpdatingVersionConditionType, corev1.ConditionFalse, hyperv1.AsExpectedReason, "", 1)
	s.mark(c.hc, true, false, true)
	s.mark(c.np, true, false, true)
	s.mark(c.hcp, true, false, true)
	for _, o := range c.components {
		s.mark(o, true, false, true)
	}
	if c.md != nil {
		s.mark(c.md, true, false, true)
	} else {
		s.mark(c.ms, true, false, true)
	}
	for _, m := range c.machines {
		s.mark(m, true, false, true)
	}
}

// hcStatusSteady writes the HostedCluster conditions of a cluster at rest at v.
func (c *cluster) hcStatusSteady(now time.Time, v string) {
	conds := &c.hc.Status.Conditions
	g := c.gen()
	setCondition(conds, now, string(hyperv1.HostedClusterAvailable), metav1.ConditionTrue, hyperv1.AsExpectedReason, "The hosted control plane is available", g)
	setCondition(conds, now, string(hyperv1.HostedClusterProgressing), metav1.ConditionFalse, hyperv1.AsExpectedReason, "HostedCluster is at expected version", g)
	setCondition(conds, now, string(hyperv1.HostedClusterDegraded), metav1.ConditionFalse, hyperv1.AsExpectedReason, "The hosted cluster is not degraded", g)
	setCondition(conds, now, string(hyperv1.ValidReleaseImage), metav1.ConditionTrue, hyperv1.AsExpectedReason, "Release image is valid", g)
	setCondition(conds, now, string(hyperv1.ReconciliationActive), metav1.ConditionTrue, hyperv1.AsExpectedReason, "Reconciliation active on resource", g)
	setCondition(conds, now, string(hyperv1.ClusterVersionProgressing), metav1.ConditionFalse, "FromClusterVersion", "Cluster version is "+v, g)
	setCondition(conds, now, string(hyperv1.ClusterVersionAvailable), metav1.ConditionTrue, "FromClusterVersion", "Done applying "+v, g)
	setCondition(conds, now, string(hyperv1.ClusterVersionSucceeding), metav1.ConditionTrue, "FromClusterVersion", "", g)
	setCondition(conds, now, string(hyperv1.ClusterVersionReleaseAccepted), metav1.ConditionTrue, "PayloadLoaded", "Payload loaded version=\""+v+"\" image=\""+ReleaseImage(v)+"\"", g)
	setCondition(conds, now, string(hyperv1.ClusterVersionUpgradeable), metav1.ConditionTrue, "FromClusterVersion", "", g)
}

// hcpStatus mirrors the HostedCluster onto the HostedControlPlane.
func (c *cluster) hcpStatus(now time.Time) {
	c.hcp.Status.Ready = true
	c.hcp.Status.Initialized = true
	c.hcp.Status.VersionStatus = c.hc.Status.Version.DeepCopy()
	setCondition(&c.hcp.Status.Conditions, now, string(hyperv1.HostedControlPlaneAvailable), metav1.ConditionTrue, hyperv1.AsExpectedReason, "", 1)
	setCondition(&c.hcp.Status.Conditions, now, string(hyperv1.HostedControlPlaneDegraded), metav1.ConditionFalse, hyperv1.AsExpectedReason, "", 1)
}

// machineLabels are the labels of the pool's Machines and templates.
func (c *cluster) machineLabels() map[string]string {
	return map[string]string{
		capiv1.ClusterNameLabel:             c.hc.Spec.InfraID,
		c.hc.Spec.InfraID + "-" + c.np.Name: c.np.Name,
	}
}

func (c *cluster) newMachineDeployment(v string) *capiv1.MachineDeployment {
	md := &capiv1.MachineDeployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: capiv1.GroupVersion.String(), Kind: "MachineDeployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: c.cpNS, Name: c.np.Name, Annotations: map[string]string{hypershift.NodePoolAnnotation: c.np.Namespace + "/" + c.np.Name}},
	}
	md.Spec.ClusterName = c.hc.Spec.InfraID
	md.Spec.Replicas = ptr.To(int32(c.opts.Nodes))
	md.Spec.Selector = metav1.LabelSelector{MatchLabels: c.machineLabels()}
	md.Spec.Strategy = &capiv1.MachineDeploymentStrategy{Type: capiv1.RollingUpdateMachineDeploymentStrategyType,
		RollingUpdate: &capiv1.MachineRollingUpdateDeployment{MaxSurge: c.np.Spec.Management.Replace.RollingUpdate.MaxSurge, MaxUnavailable: c.np.Spec.Management.Replace.RollingUpdate.MaxUnavailable}}
	c.template(&md.Spec.Template, v)
	return md
}

func (c *cluster) newMachineSet(v string) *capiv1.MachineSet {
	ms := &capiv1.MachineSet{
		TypeMeta: metav1.TypeMeta{APIVersion: capiv1.GroupVersion.String(), Kind: "MachineSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: c.cpNS, Name: c.np.Name, Annotations: map[string]string{
			hypershift.NodePoolAnnotation:                     c.np.Namespace + "/" + c.np.Name,
			hypershift.NodePoolTargetConfigVersionAnnotation:  configHash(v),
			hypershift.NodePoolCurrentConfigVersionAnnotation: configHash(v),
			hypershift.NodePoolMaxUnavailableAnnotation:       "1",
		}},
	}
	ms.Spec.ClusterName = c.hc.Spec.InfraID
	ms.Spec.Replicas = ptr.To(int32(c.opts.Nodes))
	ms.Spec.Selector = metav1.LabelSelector{MatchLabels: c.machineLabels()}
	c.template(&ms.Spec.Template, v)
	return ms
}

// template fills a Machine template for version v.
func (c *cluster) template(t *capiv1.MachineTemplateSpec, v string) {
	t.Labels = c.machineLabels()
	t.Annotations = map[string]string{hypershift.NodePoolAnnotation: c.np.Namespace + "/" + c.np.Name, hypershift.ReleaseVersionAnnotation: v}
	t.Spec.ClusterName = c.hc.Spec.InfraID
	t.Spec.Version = ptr.To(v)
	t.Spec.Bootstrap.DataSecretName = ptr.To("user-data-" + c.np.Name + "-" + configHash(v))
	t.Spec.InfrastructureRef = corev1.ObjectReference{APIVersion: "agent.cluster.x-k8s.io/v1beta1", Kind: "AgentMachineTemplate", Namespace: c.cpNS, Name: c.np.Name + "-" + configHash(v)}
	if d := c.np.Spec.NodeDrainTimeout; d != nil {
		t.Spec.NodeDrainTimeout = d.DeepCopy()
	}
}

// newMachine builds a Machine of the pool at version v; running machines
// have their node.
func (c *cluster) newMachine(now time.Time, v, seed string, running bool) *capiv1.Machine {
	var t capiv1.MachineTemplateSpec
	c.template(&t, v)
	m := &capiv1.Machine{
		TypeMeta: metav1.TypeMeta{APIVersion: capiv1.GroupVersion.String(), Kind: "Machine"},
		ObjectMeta: metav1.ObjectMeta{Namespace: c.cpNS, Name: c.np.Name + "-" + suffix(c.np.Name, v) + "-" + suffix(c.np.Name, v, seed),
			Labels: t.Labels, Annotations: t.Annotations, Finalizers: []string{machineFinalizer}},
		Spec: t.Spec,
	}
	m.Spec.ProviderID = ptr.To("agent://" + suffix(m.Name, "provider"))
	if running {
		c.machineRunning(m, now, v)
	} else {
		m.Status.Phase = string(capiv1.MachinePhasePending)
		setMachineCondition(&m.Status.Conditions, now, capiv1.BootstrapReadyCondition, corev1.ConditionTrue, "", "", "")
		setMachineCondition(&m.Status.Conditions, now, capiv1.InfrastructureReadyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityInfo, capiv1.WaitingForInfrastructureFallbackReason, "")
		setMachineCondition(&m.Status.Conditions, now, capiv1.MachineNodeHealthyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityInfo, capiv1.WaitingForNodeRefReason, "")
		setMachineCondition(&m.Status.Conditions, now, capiv1.ReadyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityInfo, capiv1.WaitingForInfrastructureFallbackReason, "")
	}
	return m
}

// machineRunning puts m in phase Running with its node at version v.
func (c *cluster) machineRunning(m *capiv1.Machine, now time.Time, v string) {
	m.Status.Phase = string(capiv1.MachinePhaseRunning)
	m.Status.BootstrapReady = true
	m.Status.InfrastructureReady = true
	m.Status.NodeRef = &corev1.ObjectReference{APIVersion: "v1", Kind: "Node", Name: m.Name}
	m.Status.NodeInfo = &corev1.NodeSystemInfo{KubeletVersion: KubeletVersion(v), OSImage: "Red Hat Enterprise Linux CoreOS " + v, Architecture: "amd64", OperatingSystem: "linux",
		ContainerRuntimeVersion: "cri-o://1.33.0", KernelVersion: "5.14.0", MachineID: suffix(m.Name, "m"), SystemUUID: suffix(m.Name, "s"), BootID: suffix(m.Name, v, "b")}
	m.Status.Addresses = capiv1.MachineAddresses{{Type: capiv1.MachineInternalIP, Address: "10.0.0." + fmt.Sprint(1+int(suffix(m.Name)[0])%250)}}
	m.Status.LastUpdated = ptr.To(meta(now))
	m.Status.ObservedGeneration = max(m.Generation, 1)
	for _, t := range []capiv1.ConditionType{capiv1.BootstrapReadyCondition, capiv1.InfrastructureReadyCondition, capiv1.MachineNodeHealthyCondition, capiv1.ReadyCondition} {
		setMachineCondition(&m.Status.Conditions, now, t, corev1.ConditionTrue, "", "", "")
	}
}

// start points the cluster at version v (the user's edit of
// spec.release.image and the HyperShift operator's reaction).
func (c *cluster) start(now time.Time, v string) {
	s := c.sim
	c.target = v
	c.cvoDone, c.cpStep, c.cvoNext, c.poolNext = false, 0, time.Time{}, time.Time{}
	c.pool = poolRollout{}
	image := ReleaseImage(v)
	if c.has(FaultBadImage) {
		image = badReleaseImage(v)
	}
	c.hc.Spec.Release.Image = image
	c.np.Spec.Release.Image = image
	s.mark(c.hc, false, true, true)
	s.mark(c.np, false, true, true)
	g := c.gen() + 1
	conds := &c.hc.Status.Conditions
	if c.has(FaultBadImage) {
		msg := fmt.Sprintf("failed to lookup release image %s: manifest unknown", image)
		setCondition(conds, now, string(hyperv1.ValidReleaseImage), metav1.ConditionFalse, hyperv1.InvalidImageReason, msg, g)
		setCondition(conds, now, string(hyperv1.HostedClusterProgressing), metav1.ConditionFalse, hyperv1.BlockedReason, "ValidReleaseImage is False: "+msg, g)
		setPoolCondition(&c.np.Status.Conditions, now, hyperv1.NodePoolValidReleaseImageConditionType, corev1.ConditionFalse, hyperv1.NodePoolValidationFailedReason, msg, g)
		c.cpNext = time.Time{}
		return
	}
	hv := c.hc.Status.Version
	hv.Desired = configv1.Release{Version: v, Image: image}
	hv.ObservedGeneration = g
	if len(hv.History) > 0 && hv.History[0].CompletionTime == nil {
		hv.History[0].CompletionTime = ptr.To(meta(now))
	}
	hv.History = append([]configv1.UpdateHistory{{State: configv1.PartialUpdate, StartedTime: meta(now), Version: v, Image: image}}, hv.History...)
	setCondition(conds, now, string(hyperv1.HostedClusterProgressing), metav1.ConditionTrue, hyperv1.AsExpectedReason, "HostedCluster is deploying, upgrading, or reconfiguring", g)
	setCondition(conds, now, string(hyperv1.ClusterVersionProgressing), metav1.ConditionTrue, "FromClusterVersion", "Working towards "+v+": 0 of 900 done (0% complete)", g)
	setCondition(conds, now, string(hyperv1.ClusterVersionReleaseAccepted), metav1.ConditionTrue, "PayloadLoaded", "Payload loaded version=\""+v+"\" image=\""+image+"\"", g)
	setCondition(conds, now, string(hyperv1.ValidReleaseImage), metav1.ConditionTrue, hyperv1.AsExpectedReason, "Release image is valid", g)
	cpv := c.cpVersion
	cpv.Desired = configv1.Release{Version: v, Image: image}
	if len(cpv.History) > 0 && cpv.History[0].CompletionTime == nil {
		cpv.History[0].CompletionTime = ptr.To(meta(now))
	}
	cpv.History = append([]hypershift.ControlPlaneUpdateHistory{{State: configv1.PartialUpdate, StartedTime: meta(now), Version: v, Image: image}}, cpv.History...)
	if len(cpv.History) > 100 {
		cpv.History = cpv.History[:100]
	}
	c.hcp.Spec.ReleaseImage = image
	c.hcpStatus(now)
	s.mark(c.hcp, false, true, true)
	c.cpNext = now
}

// advance performs the due transition of each track.
func (c *cluster) advance(now time.Time) {
	if !c.cpNext.IsZero() && !now.Before(c.cpNext) {
		c.cpNext = time.Time{}
		c.advanceControlPlane(now)
	}
	if !c.cvoNext.IsZero() && !now.Before(c.cvoNext) {
		c.cvoNext = time.Time{}
		c.completeCVO(now)
	}
	if !c.poolNext.IsZero() && !now.Before(c.poolNext) {
		c.poolNext = time.Time{}
		if c.opts.UpgradeType == hyperv1.UpgradeTypeReplace {
			c.advanceReplace(now)
		} else {
			c.advanceInPlace(now)
		}
	}
}

// advanceControlPlane rolls the components one after another: each first
// waits for its rollout (RolloutComplete=False), then reports the target.
func (c *cluster) advanceControlPlane(now time.Time) {
	s := c.sim
	i, sub := c.cpStep/2, c.cpStep%2
	if i < len(c.components) {
		comp := c.components[i]
		conds := &comp.Status.Conditions
		if sub == 0 {
			setCondition(conds, now, string(hyperv1.ControlPlaneComponentRolloutComplete), metav1.ConditionFalse, "WaitingForRolloutComplete",
				"Waiting for deployment "+comp.Name+" rollout to finish: 1 out of 3 new replicas have been updated", 1)
			s.mark(comp, false, false, true)
			c.cpStep++
			if c.has(FaultStuckComponent) && i == len(c.components)/2 {
				return // never completes
			}
			c.cpNext = now.Add(s.scale(s.opts.Timing.Component))
			return
		}
		comp.Status.Version = c.target
		setCondition(conds, now, string(hyperv1.ControlPlaneComponentRolloutComplete), metav1.ConditionTrue, hyperv1.AsExpectedReason, "", 1)
		s.mark(comp, false, false, true)
		c.cpStep++
		c.cpNext = now
		return
	}
	// Every component reports the target: controlPlaneVersion is Completed,
	// the NodePool starts rolling and the hosted CVO finishes later.
	c.cpVersion.History[0].State = configv1.CompletedUpdate
	c.cpVersion.History[0].CompletionTime = ptr.To(meta(now))
	c.cpVersion.ObservedGeneration = c.gen()
	s.mark(c.hc, false, false, true)
	c.hcpStatus(now)
	s.mark(c.hcp, false, false, true)
	c.cvoNext = now.Add(s.scale(s.opts.Timing.CVO))
	c.startPool(now)
}

// completeCVO is the hosted CVO finishing: the history entry Completed.
func (c *cluster) completeCVO(now time.Time) {
	s := c.sim
	hv := c.hc.Status.Version
	hv.History[0].State = configv1.CompletedUpdate
	hv.History[0].CompletionTime = ptr.To(meta(now))
	c.hcStatusSteady(now, c.target)
	c.hcpStatus(now)
	s.mark(c.hc, false, false, true)
	s.mark(c.hcp, false, false, true)
	c.cvoDone = true
}

// startPool points the NodePool's CAPI objects at the target.
func (c *cluster) startPool(now time.Time) {
	s := c.sim
	c.pool = poolRollout{active: true, old: slices.Clone(c.machines)}
	setPoolCondition(&c.np.Status.Conditions, now, hyperv1.NodePoolUpdatingVersionConditionType, corev1.ConditionTrue, hyperv1.AsExpectedReason,
		"Updating version in progress. Target version: "+c.target, c.gen())
	if c.md != nil {
		c.template(&c.md.Spec.Template, c.target)
		s.mark(c.md, false, true, true)
	} else {
		c.template(&c.ms.Spec.Template, c.target)
		c.ms.Annotations[hypershift.NodePoolTargetConfigVersionAnnotation] = configHash(c.target)
		c.ms.Annotations[hypershift.NodePoolUpgradeInProgressTrueAnnotation] = c.inPlaceMessage()
		s.mark(c.ms, false, true, true)
	}
	c.poolStatus(now)
	s.mark(c.np, false, false, true)
	c.poolNext = now
}

// advanceReplace is CAPI's rolling update with maxSurge 1, maxUnavailable
// 0: a new Machine is created and runs before an old one drains and goes.
func (c *cluster) advanceReplace(now time.Time) {
	s := c.sim
	p := &c.pool
	t := s.opts.Timing
	if p.index >= len(p.old) {
		c.finishPool(now)
		return
	}
	old := p.old[p.index]
	next := now
	switch p.step {
	case 0: // the surge Machine
		p.surge = c.newMachine(now, c.target, fmt.Sprintf("%d", p.index), false)
		c.machines = append(c.machines, p.surge)
		s.mark(p.surge, true, false, true)
		next = now.Add(s.scale(t.Provision / 6))
	case 1:
		m := p.surge
		m.Status.Phase = string(capiv1.MachinePhaseProvisioning)
		m.Status.BootstrapReady = true
		s.mark(m, false, false, true)
		if c.has(FaultNoProvision) && p.index == 0 {
			setMachineCondition(&m.Status.Conditions, now, capiv1.InfrastructureReadyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityWarning,
				"InstanceProvisionFailed", "Failed to provision the agent: no agent available that matches the requirements")
			next = time.Time{}
			break
		}
		next = now.Add(s.scale(t.Provision / 2))
	case 2:
		m := p.surge
		m.Status.Phase = string(capiv1.MachinePhaseProvisioned)
		m.Status.InfrastructureReady = true
		m.Status.Addresses = capiv1.MachineAddresses{{Type: capiv1.MachineInternalIP, Address: "10.0.1." + fmt.Sprint(1+p.index)}}
		setMachineCondition(&m.Status.Conditions, now, capiv1.InfrastructureReadyCondition, corev1.ConditionTrue, "", "", "")
		setMachineCondition(&m.Status.Conditions, now, capiv1.MachineNodeHealthyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityInfo, capiv1.NodeProvisioningReason, "")
		s.mark(m, false, false, true)
		next = now.Add(s.scale(t.Provision / 3))
	case 3:
		c.machineRunning(p.surge, now, c.target)
		s.mark(p.surge, false, false, true)
	case 4: // the old Machine is deleted: its finalizer keeps it while it drains
		s.markDelete(old)
	case 5:
		old.Status.Phase = string(capiv1.MachinePhaseDeleting)
		old.Status.Deletion = &capiv1.MachineDeletionStatus{NodeDrainStartTime: ptr.To(meta(now))}
		setMachineCondition(&old.Status.Conditions, now, capiv1.DrainingSucceededCondition, corev1.ConditionFalse, capiv1.ConditionSeverityInfo, capiv1.DrainingReason,
			"Drain not completed yet:\n* Pods with deletionTimestamp that still exist: router-default-"+suffix(old.Name, "pod"))
		setMachineCondition(&old.Status.Conditions, now, capiv1.ReadyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityInfo, capiv1.DeletingReason, "")
		s.mark(old, false, false, true)
		d := t.Drain
		if c.has(FaultHeldDrain) && p.index == 0 {
			d = s.opts.HeldDrain
		}
		next = now.Add(s.scale(d))
	case 6:
		// Drained, or past nodeDrainTimeout: CAPI stops waiting either way.
		setMachineCondition(&old.Status.Conditions, now, capiv1.DrainingSucceededCondition, corev1.ConditionTrue, "", "", "")
		old.Status.Deletion.WaitForNodeVolumeDetachStartTime = ptr.To(meta(now))
		setMachineCondition(&old.Status.Conditions, now, capiv1.VolumeDetachSucceededCondition, corev1.ConditionTrue, "", "", "")
		s.mark(old, false, false, true)
		next = now.Add(s.scale(t.Drain / 4))
	case 7: // the finalizer goes: the Machine is gone
		old.Finalizers = nil
		s.mark(old, false, true, false)
		c.machines = slices.DeleteFunc(c.machines, func(m *capiv1.Machine) bool { return m == old })
		p.index++
		p.step = -1
	}
	c.poolStepped(now, next, c.md)
}

// poolStepped ends a step of the pool's rollout: the statuses of the
// NodePool and capi (its MachineDeployment or MachineSet) follow, and the
// next step is due at next.
func (c *cluster) poolStepped(now, next time.Time, capi runtime.Object) {
	c.pool.step++
	c.poolStatus(now)
	c.sim.mark(c.np, false, false, true)
	c.sim.mark(capi, false, false, true)
	c.poolNext = next
}

// advanceInPlace is the in-place upgrader with maxUnavailable 1: each node
// drains, reboots into the new release and reports it.
func (c *cluster) advanceInPlace(now time.Time) {
	s := c.sim
	p := &c.pool
	t := s.opts.Timing
	if p.index >= len(c.machines) {
		c.ms.Annotations[hypershift.NodePoolCurrentConfigVersionAnnotation] = configHash(c.target)
		delete(c.ms.Annotations, hypershift.NodePoolUpgradeInProgressTrueAnnotation)
		s.mark(c.ms, false, true, false)
		c.finishPool(now)
		return
	}
	m := c.machines[p.index]
	next := now
	switch p.step {
	case 0: // the upgrader picks the node; it drains (seen in the guest only)
		c.ms.Annotations[hypershift.NodePoolUpgradeInProgressTrueAnnotation] = c.inPlaceMessage()
		s.mark(c.ms, false, true, false)
		next = now.Add(s.scale(t.Drain))
	case 1: // it reboots: the node is NotReady
		setMachineCondition(&m.Status.Conditions, now, capiv1.MachineNodeHealthyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityWarning, capiv1.NodeConditionsFailedReason,
			"Node "+m.Name+": condition Ready is False: kubelet stopped posting node status")
		setMachineCondition(&m.Status.Conditions, now, capiv1.ReadyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityWarning, capiv1.NodeConditionsFailedReason, "")
		s.mark(m, false, false, true)
		next = now.Add(s.scale(t.Reboot))
	case 2: // back on the new release
		m.Annotations[hypershift.ReleaseVersionAnnotation] = c.target
		s.mark(m, false, true, false)
		c.machineRunning(m, now, c.target)
		s.mark(m, false, false, true)
		p.upgrade++
		c.ms.Annotations[hypershift.NodePoolUpgradeInProgressTrueAnnotation] = c.inPlaceMessage()
		s.mark(c.ms, false, true, false)
		p.index++
		p.step = -1
	}
	c.poolStepped(now, next, c.ms)
}

func (c *cluster) inPlaceMessage() string {
	return fmt.Sprintf("Upgrading nodes in nodepool %s to version %s. Total Nodes: %d. Upgraded: %d", c.np.Name, c.target, len(c.machines), c.pool.upgrade)
}

// finishPool ends the NodePool's rollout.
func (c *cluster) finishPool(now time.Time) {
	s := c.sim
	c.pool.done, c.pool.active = true, false
	c.np.Status.Version = c.target
	setPoolCondition(&c.np.Status.Conditions, now, hyperv1.NodePoolUpdatingVersionConditionType, corev1.ConditionFalse, hyperv1.AsExpectedReason, "", c.gen())
	c.poolStatus(now)
	s.mark(c.np, false, false, true)
}

// poolStatus recomputes the NodePool's and its MachineDeployment's or
// MachineSet's status from the Machines, as the NodePool controller and
// CAPI do.
func (c *cluster) poolStatus(now time.Time) {
	var ready, total, updated int32
	var notReady, unhealthy []string
	for _, m := range c.machines {
		total++
		if machineCondition(m, capiv1.ReadyCondition) == corev1.ConditionTrue {
			ready++
		} else {
			notReady = append(notReady, m.Name)
		}
		if machineCondition(m, capiv1.MachineNodeHealthyCondition) != corev1.ConditionTrue {
			unhealthy = append(unhealthy, m.Name)
		}
		if c.target != "" && m.Annotations[hypershift.ReleaseVersionAnnotation] == c.target && m.Status.Phase == string(capiv1.MachinePhaseRunning) {
			updated++
		}
	}
	g := c.gen()
	conds := &c.np.Status.Conditions
	aggregate := func(typ, what string, bad []string) {
		if len(bad) == 0 {
			setPoolCondition(conds, now, typ, corev1.ConditionTrue, hyperv1.AsExpectedReason, "All is well", g)
			return
		}
		lines := []string{fmt.Sprintf("%d of %d machines are not %s", len(bad), total, what)}
		for _, n := range bad {
			lines = append(lines, "Machine "+n+": "+what+" is False")
		}
		setPoolCondition(conds, now, typ, corev1.ConditionFalse, "NotReady", strings.Join(lines, "\n"), g)
	}
	aggregate(hyperv1.NodePoolAllMachinesReadyConditionType, "ready", notReady)
	aggregate(hyperv1.NodePoolAllNodesHealthyConditionType, "healthy", unhealthy)
	setPoolCondition(conds, now, hyperv1.NodePoolReadyConditionType, corev1.ConditionTrue, hyperv1.AsExpectedReason, "", g)
	if !c.has(FaultBadImage) || c.target == "" {
		setPoolCondition(conds, now, hyperv1.NodePoolValidReleaseImageConditionType, corev1.ConditionTrue, hyperv1.AsExpectedReason, "Using release image: "+c.np.Spec.Release.Image, g)
	}
	c.np.Status.Replicas = ready
	if c.md != nil {
		st := &c.md.Status
		st.Replicas, st.ReadyReplicas, st.AvailableReplicas = total, ready, ready
		st.UpdatedReplicas = updated
		if c.target == "" || !c.pool.active && c.pool.done {
			st.UpdatedReplicas = total
		}
		st.ObservedGeneration = max(c.md.Generation, 1)
		st.Selector = capiv1.ClusterNameLabel + "=" + c.hc.Spec.InfraID
		st.Phase = string(capiv1.MachineDeploymentPhaseRunning)
		if c.pool.active {
			st.Phase = string(capiv1.MachineDeploymentPhaseScalingUp)
		}
	}
	if c.ms != nil {
		st := &c.ms.Status
		st.Replicas, st.ReadyReplicas, st.AvailableReplicas = total, ready, ready
		st.ObservedGeneration = max(c.ms.Generation, 1)
		st.Selector = capiv1.ClusterNameLabel + "=" + c.hc.Spec.InfraID
	}
}

// nodesInfo groups the running Machines by version (NodePool
// status.nodesInfo, newer than the module).
func (c *cluster) nodesInfo() *hypershift.NodePoolNodesInfo {
	out := &hypershift.NodePoolNodesInfo{}
	for _, m := range c.machines {
		if m.Status.NodeInfo == nil {
			continue
		}
		v := m.Annotations[hypershift.ReleaseVersionAnnotation]
		i := slices.IndexFunc(out.NodeVersions, func(n hypershift.NodeVersionCount) bool {
			return n.OCPVersion == v && n.KubeletVersion == m.Status.NodeInfo.KubeletVersion
		})
		if i < 0 {
			out.NodeVersions = append(out.NodeVersions, hypershift.NodeVersionCount{OCPVersion: v, KubeletVersion: m.Status.NodeInfo.KubeletVersion})
			i = len(out.NodeVersions) - 1
		}
		if machineCondition(m, capiv1.MachineNodeHealthyCondition) == corev1.ConditionTrue {
			out.NodeVersions[i].ReadyNodeCount++
		} else {
			out.NodeVersions[i].UnreadyNodeCount++
		}
	}
	return out
}
