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
	components []*hyperv1.ControlPlaneComponent
	cpVersion  *hypershift.ControlPlaneVersionStatus
	pools      []*pool

	target string
	// Tracks; a zero next time means nothing is scheduled.
	cpNext, cvoNext time.Time
	cpStep          int // 2*component index + sub-step
	cvoDone         bool
}

// pool is one NodePool of a hosted cluster, its CAPI objects and the
// state of its rollout: a track of its own, as HyperShift rolls each
// NodePool independently of the others.
type pool struct {
	c        *cluster
	first    bool // the cluster's first NodePool: the one the node faults hit
	np       *hyperv1.NodePool
	md       *capiv1.MachineDeployment // Replace
	ms       *capiv1.MachineSet        // InPlace
	machines []*capiv1.Machine
	next     time.Time
	rollout  poolRollout
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
	if c.target == "" {
		return true
	}
	if !c.cvoDone {
		return false
	}
	for _, p := range c.pools {
		if !p.rollout.done {
			return false
		}
	}
	return true
}

func (c *cluster) nextTimes() []time.Time {
	out := []time.Time{c.cpNext, c.cvoNext}
	for _, p := range c.pools {
		out = append(out, p.next)
	}
	return out
}

// poolName names the cluster's i-th NodePool: NAME-workers when it has one,
// NAME-workers-1.. when it has more.
func (c *cluster) poolName(i int) string {
	if c.opts.NodePools <= 1 {
		return c.opts.Name + "-workers"
	}
	return fmt.Sprintf("%s-workers-%d", c.opts.Name, i+1)
}

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
	for _, name := range ComponentNames(s.opts.Components) {
		c.components = append(c.components, newComponent(c.cpNS, name, v, now))
	}
	s.mark(c.hc, true, false, true)
	s.mark(c.hcp, true, false, true)
	for _, o := range c.components {
		s.mark(o, true, false, true)
	}
	for i := range max(c.opts.NodePools, 1) {
		p := &pool{c: c, first: i == 0}
		p.create(now, c.poolName(i), v)
		c.pools = append(c.pools, p)
	}
}

// create writes the NodePool name at version v, its Machines and their
// MachineDeployment (Replace) or MachineSet (InPlace).
func (p *pool) create(now time.Time, name, v string) {
	c, s := p.c, p.c.sim
	p.np = newNodePool(c.hc, name, c.opts.UpgradeType, int32(c.opts.Nodes), s.scale(s.opts.DrainTimeout))
	p.np.Status.Version = v
	for i := 0; i < c.opts.Nodes; i++ {
		p.machines = append(p.machines, p.newMachine(now, v, fmt.Sprintf("%d", i), true))
	}
	if c.opts.UpgradeType == hyperv1.UpgradeTypeReplace {
		p.md = p.newMachineDeployment(v)
	} else {
		p.ms = p.newMachineSet(v)
	}
	p.status(now)
	setPoolCondition(&p.np.Status.Conditions, now, hyperv1.NodePoolUpdatingVersionConditionType, corev1.ConditionFalse, hyperv1.AsExpectedReason, "", 1)
	s.mark(p.np, true, false, true)
	if p.md != nil {
		s.mark(p.md, true, false, true)
	} else {
		s.mark(p.ms, true, false, true)
	}
	for _, m := range p.machines {
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
func (p *pool) machineLabels() map[string]string {
	return map[string]string{
		capiv1.ClusterNameLabel:               p.c.hc.Spec.InfraID,
		p.c.hc.Spec.InfraID + "-" + p.np.Name: p.np.Name,
	}
}

func (p *pool) newMachineDeployment(v string) *capiv1.MachineDeployment {
	c := p.c
	md := &capiv1.MachineDeployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: capiv1.GroupVersion.String(), Kind: "MachineDeployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: c.cpNS, Name: p.np.Name, Annotations: map[string]string{hypershift.NodePoolAnnotation: p.np.Namespace + "/" + p.np.Name}},
	}
	md.Spec.ClusterName = c.hc.Spec.InfraID
	md.Spec.Replicas = ptr.To(int32(c.opts.Nodes))
	md.Spec.Selector = metav1.LabelSelector{MatchLabels: p.machineLabels()}
	md.Spec.Strategy = &capiv1.MachineDeploymentStrategy{Type: capiv1.RollingUpdateMachineDeploymentStrategyType,
		RollingUpdate: &capiv1.MachineRollingUpdateDeployment{MaxSurge: p.np.Spec.Management.Replace.RollingUpdate.MaxSurge, MaxUnavailable: p.np.Spec.Management.Replace.RollingUpdate.MaxUnavailable}}
	p.template(&md.Spec.Template, v)
	return md
}

func (p *pool) newMachineSet(v string) *capiv1.MachineSet {
	c := p.c
	ms := &capiv1.MachineSet{
		TypeMeta: metav1.TypeMeta{APIVersion: capiv1.GroupVersion.String(), Kind: "MachineSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: c.cpNS, Name: p.np.Name, Annotations: map[string]string{
			hypershift.NodePoolAnnotation:                     p.np.Namespace + "/" + p.np.Name,
			hypershift.NodePoolTargetConfigVersionAnnotation:  configHash(v),
			hypershift.NodePoolCurrentConfigVersionAnnotation: configHash(v),
			hypershift.NodePoolMaxUnavailableAnnotation:       "1",
		}},
	}
	ms.Spec.ClusterName = c.hc.Spec.InfraID
	ms.Spec.Replicas = ptr.To(int32(c.opts.Nodes))
	ms.Spec.Selector = metav1.LabelSelector{MatchLabels: p.machineLabels()}
	p.template(&ms.Spec.Template, v)
	return ms
}

// template fills a Machine template for version v.
func (p *pool) template(t *capiv1.MachineTemplateSpec, v string) {
	c, np := p.c, p.np
	t.Labels = p.machineLabels()
	t.Annotations = map[string]string{hypershift.NodePoolAnnotation: np.Namespace + "/" + np.Name, hypershift.ReleaseVersionAnnotation: v}
	t.Spec.ClusterName = c.hc.Spec.InfraID
	t.Spec.Version = ptr.To(v)
	t.Spec.Bootstrap.DataSecretName = ptr.To("user-data-" + np.Name + "-" + configHash(v))
	t.Spec.InfrastructureRef = corev1.ObjectReference{APIVersion: "agent.cluster.x-k8s.io/v1beta1", Kind: "AgentMachineTemplate", Namespace: c.cpNS, Name: np.Name + "-" + configHash(v)}
	if d := np.Spec.NodeDrainTimeout; d != nil {
		t.Spec.NodeDrainTimeout = d.DeepCopy()
	}
}

// newMachine builds a Machine of the pool at version v; running machines
// have their node.
func (p *pool) newMachine(now time.Time, v, seed string, running bool) *capiv1.Machine {
	var t capiv1.MachineTemplateSpec
	p.template(&t, v)
	np := p.np
	m := &capiv1.Machine{
		TypeMeta: metav1.TypeMeta{APIVersion: capiv1.GroupVersion.String(), Kind: "Machine"},
		ObjectMeta: metav1.ObjectMeta{Namespace: p.c.cpNS, Name: np.Name + "-" + suffix(np.Name, v) + "-" + suffix(np.Name, v, seed),
			Labels: t.Labels, Annotations: t.Annotations, Finalizers: []string{machineFinalizer}},
		Spec: t.Spec,
	}
	m.Spec.ProviderID = ptr.To("agent://" + suffix(m.Name, "provider"))
	if running {
		machineRunning(m, now, v)
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
func machineRunning(m *capiv1.Machine, now time.Time, v string) {
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
	c.cvoDone, c.cpStep, c.cvoNext = false, 0, time.Time{}
	image := ReleaseImage(v)
	if c.has(FaultBadImage) {
		image = badReleaseImage(v)
	}
	c.hc.Spec.Release.Image = image
	s.mark(c.hc, false, true, true)
	for _, p := range c.pools {
		p.rollout, p.next = poolRollout{}, time.Time{}
		p.np.Spec.Release.Image = image
		s.mark(p.np, false, true, true)
	}
	g := c.gen() + 1
	conds := &c.hc.Status.Conditions
	if c.has(FaultBadImage) {
		msg := fmt.Sprintf("failed to lookup release image %s: manifest unknown", image)
		setCondition(conds, now, string(hyperv1.ValidReleaseImage), metav1.ConditionFalse, hyperv1.InvalidImageReason, msg, g)
		setCondition(conds, now, string(hyperv1.HostedClusterProgressing), metav1.ConditionFalse, hyperv1.BlockedReason, "ValidReleaseImage is False: "+msg, g)
		for _, p := range c.pools {
			setPoolCondition(&p.np.Status.Conditions, now, hyperv1.NodePoolValidReleaseImageConditionType, corev1.ConditionFalse, hyperv1.NodePoolValidationFailedReason, msg, g)
		}
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
	for _, p := range c.pools {
		if p.next.IsZero() || now.Before(p.next) {
			continue
		}
		p.next = time.Time{}
		p.advance(now)
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
	for _, p := range c.pools {
		p.start(now)
	}
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

// start points the NodePool's CAPI objects at the target.
func (p *pool) start(now time.Time) {
	c, s := p.c, p.c.sim
	p.rollout = poolRollout{active: true, old: slices.Clone(p.machines)}
	setPoolCondition(&p.np.Status.Conditions, now, hyperv1.NodePoolUpdatingVersionConditionType, corev1.ConditionTrue, hyperv1.AsExpectedReason,
		"Updating version in progress. Target version: "+c.target, c.gen())
	if p.md != nil {
		p.template(&p.md.Spec.Template, c.target)
		s.mark(p.md, false, true, true)
	} else {
		p.template(&p.ms.Spec.Template, c.target)
		p.ms.Annotations[hypershift.NodePoolTargetConfigVersionAnnotation] = configHash(c.target)
		p.ms.Annotations[hypershift.NodePoolUpgradeInProgressTrueAnnotation] = p.inPlaceMessage()
		s.mark(p.ms, false, true, true)
	}
	p.status(now)
	s.mark(p.np, false, false, true)
	p.next = now
}

// advance performs the due step of the pool's rollout, by the cluster's
// upgrade type, on the machine at rollout.index; past the last machine, the
// rollout finishes.
func (p *pool) advance(now time.Time) {
	if p.rollout.index >= len(p.rollout.old) {
		p.finish(now)
		return
	}
	if p.c.opts.UpgradeType == hyperv1.UpgradeTypeReplace {
		p.stepped(now, p.replaceStep(now), p.md)
	} else {
		p.stepped(now, p.inPlaceStep(now), p.ms)
	}
}

// replaceStep is a step of CAPI's rolling update with maxSurge 1,
// maxUnavailable 0: a new Machine is created and runs before an old one
// drains and goes. It returns when the next step is due (zero: never).
func (p *pool) replaceStep(now time.Time) time.Time {
	c, s := p.c, p.c.sim
	r := &p.rollout
	t := s.opts.Timing
	// The node faults hit the first Machine of the cluster's first NodePool.
	faulted := func(f Fault) bool { return c.has(f) && p.first && r.index == 0 }
	old := r.old[r.index]
	next := now
	switch r.step {
	case 0: // the surge Machine
		r.surge = p.newMachine(now, c.target, fmt.Sprintf("%d", r.index), false)
		p.machines = append(p.machines, r.surge)
		s.mark(r.surge, true, false, true)
		next = now.Add(s.scale(t.Provision / 6))
	case 1:
		m := r.surge
		m.Status.Phase = string(capiv1.MachinePhaseProvisioning)
		m.Status.BootstrapReady = true
		s.mark(m, false, false, true)
		if faulted(FaultNoProvision) {
			setMachineCondition(&m.Status.Conditions, now, capiv1.InfrastructureReadyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityWarning,
				"InstanceProvisionFailed", "Failed to provision the agent: no agent available that matches the requirements")
			next = time.Time{}
			break
		}
		next = now.Add(s.scale(t.Provision / 2))
	case 2:
		m := r.surge
		m.Status.Phase = string(capiv1.MachinePhaseProvisioned)
		m.Status.InfrastructureReady = true
		m.Status.Addresses = capiv1.MachineAddresses{{Type: capiv1.MachineInternalIP, Address: "10.0.1." + fmt.Sprint(1+r.index)}}
		setMachineCondition(&m.Status.Conditions, now, capiv1.InfrastructureReadyCondition, corev1.ConditionTrue, "", "", "")
		setMachineCondition(&m.Status.Conditions, now, capiv1.MachineNodeHealthyCondition, corev1.ConditionFalse, capiv1.ConditionSeverityInfo, capiv1.NodeProvisioningReason, "")
		s.mark(m, false, false, true)
		next = now.Add(s.scale(t.Provision / 3))
	case 3:
		machineRunning(r.surge, now, c.target)
		s.mark(r.surge, false, false, true)
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
		if faulted(FaultHeldDrain) {
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
		p.machines = slices.DeleteFunc(p.machines, func(m *capiv1.Machine) bool { return m == old })
		r.index++
		r.step = -1
	}
	return next
}

// stepped ends a step of the pool's rollout: the statuses of the NodePool
// and capi (its MachineDeployment or MachineSet) follow, and the next step
// is due at next.
func (p *pool) stepped(now, next time.Time, capi runtime.Object) {
	p.rollout.step++
	p.status(now)
	p.c.sim.mark(p.np, false, false, true)
	p.c.sim.mark(capi, false, false, true)
	p.next = next
}

// inPlaceStep is a step of the in-place upgrader with maxUnavailable 1:
// each node drains, reboots into the new release and reports it. It returns
// when the next step is due.
func (p *pool) inPlaceStep(now time.Time) time.Time {
	c, s := p.c, p.c.sim
	r := &p.rollout
	t := s.opts.Timing
	m := p.machines[r.index]
	next := now
	switch r.step {
	case 0: // the upgrader picks the node; it drains (seen in the guest only)
		p.ms.Annotations[hypershift.NodePoolUpgradeInProgressTrueAnnotation] = p.inPlaceMessage()
		s.mark(p.ms, false, true, false)
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
		machineRunning(m, now, c.target)
		s.mark(m, false, false, true)
		r.upgrade++
		p.ms.Annotations[hypershift.NodePoolUpgradeInProgressTrueAnnotation] = p.inPlaceMessage()
		s.mark(p.ms, false, true, false)
		r.index++
		r.step = -1
	}
	return next
}

func (p *pool) inPlaceMessage() string {
	return fmt.Sprintf("Upgrading nodes in nodepool %s to version %s. Total Nodes: %d. Upgraded: %d", p.np.Name, p.c.target, len(p.machines), p.rollout.upgrade)
}

// finish ends the NodePool's rollout. With the in-place upgrader, the
// MachineSet's current configuration is then the target's, and no upgrade
// is in progress.
func (p *pool) finish(now time.Time) {
	if p.md == nil {
		p.ms.Annotations[hypershift.NodePoolCurrentConfigVersionAnnotation] = configHash(p.c.target)
		delete(p.ms.Annotations, hypershift.NodePoolUpgradeInProgressTrueAnnotation)
		p.c.sim.mark(p.ms, false, true, false)
	}
	p.rollout.done, p.rollout.active = true, false
	p.np.Status.Version = p.c.target
	setPoolCondition(&p.np.Status.Conditions, now, hyperv1.NodePoolUpdatingVersionConditionType, corev1.ConditionFalse, hyperv1.AsExpectedReason, "", p.c.gen())
	p.status(now)
	p.c.sim.mark(p.np, false, false, true)
}

// status recomputes the NodePool's and its MachineDeployment's or
// MachineSet's status from the Machines, as the NodePool controller and
// CAPI do.
func (p *pool) status(now time.Time) {
	c := p.c
	var ready, total, updated int32
	var notReady, unhealthy []string
	for _, m := range p.machines {
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
	conds := &p.np.Status.Conditions
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
		setPoolCondition(conds, now, hyperv1.NodePoolValidReleaseImageConditionType, corev1.ConditionTrue, hyperv1.AsExpectedReason, "Using release image: "+p.np.Spec.Release.Image, g)
	}
	p.np.Status.Replicas = ready
	if p.md != nil {
		st := &p.md.Status
		st.Replicas, st.ReadyReplicas, st.AvailableReplicas = total, ready, ready
		st.UpdatedReplicas = updated
		if c.target == "" || !p.rollout.active && p.rollout.done {
			st.UpdatedReplicas = total
		}
		st.ObservedGeneration = max(p.md.Generation, 1)
		st.Selector = capiv1.ClusterNameLabel + "=" + c.hc.Spec.InfraID
		st.Phase = string(capiv1.MachineDeploymentPhaseRunning)
		if p.rollout.active {
			st.Phase = string(capiv1.MachineDeploymentPhaseScalingUp)
		}
	}
	if p.ms != nil {
		st := &p.ms.Status
		st.Replicas, st.ReadyReplicas, st.AvailableReplicas = total, ready, ready
		st.ObservedGeneration = max(p.ms.Generation, 1)
		st.Selector = capiv1.ClusterNameLabel + "=" + c.hc.Spec.InfraID
	}
}

// nodesInfo groups the running Machines by version (NodePool
// status.nodesInfo, newer than the module).
func (p *pool) nodesInfo() *hypershift.NodePoolNodesInfo {
	out := &hypershift.NodePoolNodesInfo{}
	for _, m := range p.machines {
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
