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

package simulator

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/insights"
)

// This file plays the machine-config operator, its controller (render, node
// and drain controllers) and the daemon on every node.

// startMCO applies the new machine-config-operator Deployment, as the
// cluster-version operator does when it reaches the machine-config manifests.
func (s *Simulator) startMCO(now time.Time) {
	u := &s.update
	if u.mcoStarted {
		return
	}
	u.mcoStarted = true
	rollout := s.scale(s.opts.Timing.MCORollout)
	u.mcoDue = now.Add(rollout / 4)
	u.renderDue = now.Add(rollout)

	to := s.opts.ToVersion
	d := s.mco
	ocp.SetMCODeploymentRelease(d, to)
	d.Generation++
	d.Annotations["deployment.kubernetes.io/revision"] = "2"
	d.Status.ObservedGeneration = d.Generation
	ocp.SetDeploymentCondition(&d.Status.Conditions, appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetAvailable",
		fmt.Sprintf("ReplicaSet %q has successfully progressed.", insights.MCODeploymentName+"-"+ocp.Digest("rs", to)[:10]), now)
	s.changes.mark(d, false, true, true)
	klog.V(1).InfoS("Machine-config operator deployed", "image", ocp.MCOImage(to))
}

// reconcileMCO makes the machine-config operator report Progressing, render
// the new configurations, point the pools at them and report the target
// version once every required pool (master) runs it.
func (s *Simulator) reconcileMCO(now time.Time) {
	u := &s.update
	if !u.mcoStarted {
		return
	}
	co := s.opIndex[insights.MCOClusterOperatorName]
	to := s.opts.ToVersion
	if !u.mcoReported && !now.Before(u.mcoDue) {
		u.mcoReported = true
		ocp.SetClusterCondition(&co.obj.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionTrue, "", "Working towards "+to, now)
		s.changes.mark(co.obj, false, false, true)
	}
	if !u.rendered && !now.Before(u.renderDue) {
		u.rendered = true
		for _, p := range s.pools {
			p.target = ocp.RenderedName(p.name, to, s.opts.Seed)
			mc := s.buildRendered(p, p.target, to, now)
			s.mcs = append(s.mcs, mc)
			s.changes.mark(mc, true, true, false)
			p.obj.Spec.Configuration.Name = p.target
			p.obj.Generation++
			s.markPool(p, true, false)
		}
		ocp.SetClusterCondition(&co.obj.Status.Conditions, configv1.OperatorUpgradeable, configv1.ConditionFalse, "PoolUpdating",
			"One or more machine config pools are updating, please see `oc get mcp` for further details", now)
		s.changes.mark(co.obj, false, false, true)
		klog.V(1).InfoS("Machine configs rendered", "version", to, "pools", len(s.pools))
	}
	if u.rendered && u.mcoReported && !u.versionDone && s.requiredPoolsDone() && !s.operatorUnavailable(insights.MCOClusterOperatorName) {
		u.versionDone = true
		u.completeDue = now.Add(s.scale(s.opts.Timing.Complete))
		co.updated = true
		co.obj.Status.Versions = ocp.OperatorVersions(co.spec, to)
		ocp.SetClusterCondition(&co.obj.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionFalse, "", "Cluster version is "+to, now)
		if c := ocp.FindClusterCondition(co.obj.Status.Conditions, configv1.OperatorAvailable); c != nil && c.Status == configv1.ConditionTrue {
			ocp.SetClusterCondition(&co.obj.Status.Conditions, configv1.OperatorAvailable, configv1.ConditionTrue, "AsExpected", ocp.MCODeployedMessage(to), now)
		}
		s.changes.mark(co.obj, false, false, true)
	}
	if u.rendered && s.allPoolsDone() {
		if ocp.SetClusterCondition(&co.obj.Status.Conditions, configv1.OperatorUpgradeable, configv1.ConditionTrue, "AsExpected", "", now) {
			s.changes.mark(co.obj, false, false, true)
		}
	}
}

// poolDone reports whether every node of p runs its target and is settled
// (as of the pool's last status computation).
func (s *Simulator) poolDone(p *poolState) bool {
	return p.target != "" && !p.dirty && p.settled == len(p.nodes)
}

// markNode records a change of a node; its pool's status is recomputed.
func (s *Simulator) markNode(n *nodeState, spec, status bool) {
	n.pool.dirty = true
	s.changes.mark(n.obj, false, spec, status)
}

// markPool records a change of a pool's object; its status is recomputed.
func (s *Simulator) markPool(p *poolState, spec, status bool) {
	p.dirty = true
	s.changes.mark(p.obj, false, spec, status)
}

// requiredPoolsDone reports whether the pools the update waits for (master) are done.
func (s *Simulator) requiredPoolsDone() bool {
	for _, p := range s.pools {
		if p.required && !s.poolDone(p) {
			return false
		}
	}
	return true
}

// allPoolsDone reports whether every pool runs the target.
func (s *Simulator) allPoolsDone() bool {
	for _, p := range s.pools {
		if !s.poolDone(p) {
			return false
		}
	}
	return true
}

// nodeUnavailable is the controller's notion: not Ready, cordoned, or not
// settled on its desired configuration.
func nodeUnavailable(n *corev1.Node) bool {
	ready := ocp.FindNodeCondition(n.Status.Conditions, corev1.NodeReady)
	return ready == nil || ready.Status != corev1.ConditionTrue || n.Spec.Unschedulable ||
		n.Annotations[insights.CurrentConfigAnnotation] != n.Annotations[insights.DesiredConfigAnnotation] || n.Annotations[insights.MCDStateAnnotation] != insights.MCDStateDone
}

// reconcileNodeController hands the target configuration to as many nodes of
// each pool as maxUnavailable allows. Paused pools and NotReady nodes are
// skipped; unavailable nodes use up the budget.
func (s *Simulator) reconcileNodeController(now time.Time) {
	if !s.update.rendered {
		return
	}
	for _, p := range s.pools {
		if !p.dirty || p.obj.Spec.Paused || len(p.nodes) == 0 {
			continue
		}
		budget := maxUnavailableOf(p.obj.Spec.MaxUnavailable, len(p.nodes))
		for _, n := range p.nodes {
			if nodeUnavailable(n.obj) {
				budget--
			}
		}
		for _, n := range p.nodes {
			if budget <= 0 {
				break
			}
			if n.obj.Annotations[insights.DesiredConfigAnnotation] == p.target || n.notReady != nil || nodeUnavailable(n.obj) {
				continue
			}
			ocp.RequestConfig(n.obj, p.target)
			s.updateMCN(n, true, func(m *mcfgv1.MachineConfigNode) { ocp.MCNRequestConfig(m, p.target, now) })
			n.stage = stageDesired
			n.due = now.Add(s.scale(s.opts.Timing.React))
			s.markNode(n, true, false)
			budget--
		}
	}
}

// reconcileDaemons moves every updating node to its next stage when due.
func (s *Simulator) reconcileDaemons(now time.Time) {
	for _, n := range s.nodes {
		if n.stage == stageIdle || n.notReady != nil || n.due.IsZero() || now.Before(n.due) {
			continue
		}
		s.advanceNode(n, now)
	}
}

// advanceNode performs one stage of a node update.
func (s *Simulator) advanceNode(n *nodeState, now time.Time) {
	t := &s.opts.Timing
	node := n.obj
	switch n.stage {
	case stageDesired:
		ocp.StartDrain(node)
		s.updateMCN(n, false, func(m *mcfgv1.MachineConfigNode) { ocp.MCNStartDrain(m, node, now) })
		n.stage = stageDraining
		n.drainStarted = now
		n.due = now.Add(s.scale(s.between(t.DrainMin, t.DrainMax)))
		if f := s.drainBlockFor(n); f != nil {
			n.blocked = f
			f.node = n
			n.due = now.Add(s.scale(t.DrainTimeout))
			s.holdPods(n, now)
			s.reportDrainFailure(n, now)
		} else {
			s.evictPods(n, now)
		}
		s.markNode(n, true, false)
	case stageDraining:
		if n.blocked != nil {
			// The drain did not finish within the timeout: the daemon
			// reports the node Degraded and keeps waiting.
			ocp.DegradeDrain(node)
			s.updateMCN(n, false, func(m *mcfgv1.MachineConfigNode) {
				ocp.MCNDegraded(m, fmt.Sprintf("Node %s is reporting: %q", node.Name, node.Annotations[insights.MCDReasonAnnotation]), now)
			})
			n.due = time.Time{}
			s.markNode(n, true, false)
			klog.V(1).InfoS("Node degraded by a blocked drain", "node", node.Name)
			return
		}
		s.finishDrain(n, now)
	case stageApplying:
		ocp.StartReboot(node)
		s.updateMCN(n, false, func(m *mcfgv1.MachineConfigNode) { ocp.MCNStartReboot(m, now) })
		n.stage = stageRebooting
		n.due = now.Add(s.scale(t.Shutdown))
		s.markNode(n, true, false)
	case stageRebooting:
		ocp.SetKubeletLost(node, now)
		n.stage = stageDown
		n.due = now.Add(s.scale(s.between(t.BootMin, t.BootMax)))
		s.markNode(n, false, true)
	case stageDown:
		ocp.SetKubeletBack(node, now, false)
		ocp.SetNodeInfo(node, s.opts.ToVersion, string(s.newUID()))
		n.stage = stageBooting
		n.due = now.Add(s.scale(t.Ready))
		s.markNode(n, false, true)
	case stageBooting:
		ocp.SetKubeletBack(node, now, true)
		ocp.FinishConfig(node)
		s.updateMCN(n, false, func(m *mcfgv1.MachineConfigNode) {
			ocp.MCNFinishConfig(m, node.Annotations[insights.CurrentConfigAnnotation], now)
		})
		n.stage = stageUncordon
		n.due = now.Add(s.scale(t.Uncordon))
		s.markNode(n, true, true)
	case stageUncordon:
		ocp.Uncordon(node)
		s.updateMCN(n, false, func(m *mcfgv1.MachineConfigNode) {
			ocp.MCNUncordon(m, node.Annotations[insights.CurrentConfigAnnotation], now)
		})
		n.stage = stageIdle
		n.due = time.Time{}
		s.markNode(n, true, false)
	}
}

// finishDrain records a completed drain; the daemon goes on to apply the
// configuration.
func (s *Simulator) finishDrain(n *nodeState, now time.Time) {
	ocp.FinishDrain(n.obj)
	s.updateMCN(n, false, func(m *mcfgv1.MachineConfigNode) { ocp.MCNFinishDrain(m, n.obj, now) })
	if n.blocked != nil {
		s.releasePods(n, now)
	} else {
		s.evictPods(n, now)
	}
	n.blocked = nil
	n.stage = stageApplying
	n.due = now.Add(s.scale(s.between(s.opts.Timing.ApplyMin, s.opts.Timing.ApplyMax)))
	s.markNode(n, true, false)
}

// updateMCN changes the node's MachineConfigNode, if it has one, and
// records the change (spec too when spec is set).
func (s *Simulator) updateMCN(n *nodeState, spec bool, change func(*mcfgv1.MachineConfigNode)) {
	if n.mcn == nil {
		return
	}
	change(n.mcn)
	s.changes.mark(n.mcn, false, spec, true)
}

// drainAttemptTimeout is how long the machine-config drain controller's
// drainer tries to evict before the attempt fails (then it retries).
const drainAttemptTimeout = 90 * time.Second

// reportDrainFailure writes, when a budget holds the drain of n, the failed
// attempt the drain controller reports on the MachineConfigNode, naming
// the pods of n it could not evict. (The controller writes it when its
// first attempt times out; the simulator at once.)
func (s *Simulator) reportDrainFailure(n *nodeState, now time.Time) {
	if n.mcn == nil {
		return
	}
	var held []string
	if s.work != nil {
		for _, p := range s.work.pods {
			if p.node == n {
				held = append(held, p.obj.Namespace+"/"+p.obj.Name)
			}
		}
	}
	msg := ocp.EvictionTimeoutError(held, drainAttemptTimeout)
	if len(held) == 0 {
		msg = "Cannot evict pod as it would violate the pod's disruption budget."
	}
	s.updateMCN(n, false, func(m *mcfgv1.MachineConfigNode) { ocp.MCNDrainFailed(m, n.obj, msg, now) })
}

// reconcilePoolStatus recomputes every pool's status the way the
// machine-config controller does, and the machine-config operator's
// per-pool extension lines.
func (s *Simulator) reconcilePoolStatus(now time.Time) {
	lines := map[string]string{}
	for _, p := range s.pools {
		if p.obj == nil {
			continue
		}
		if !p.dirty {
			lines[p.name] = p.extension
			continue
		}
		p.dirty = false
		target := p.obj.Spec.Configuration.Name
		var updated, ready, unavailable, degraded int32
		var degradedMsgs []string
		p.settled = 0
		for _, n := range p.nodes {
			a := n.obj.Annotations
			if n.stage == stageIdle && p.target != "" && a[insights.CurrentConfigAnnotation] == p.target {
				p.settled++
			}
			isUpdated := a[insights.CurrentConfigAnnotation] == target && a[insights.DesiredConfigAnnotation] == target && a[insights.MCDStateAnnotation] == insights.MCDStateDone
			if isUpdated {
				updated++
				if !nodeUnavailable(n.obj) {
					ready++
				}
			}
			if nodeUnavailable(n.obj) {
				unavailable++
			}
			if st := a[insights.MCDStateAnnotation]; st == insights.MCDStateDegraded || st == "Unreconcilable" {
				degraded++
				degradedMsgs = append(degradedMsgs, fmt.Sprintf("Node %s is reporting: %q", n.obj.Name, a[insights.MCDReasonAnnotation]))
			}
		}
		total := int32(len(p.nodes))
		st := p.obj.Status.DeepCopy()
		st.ObservedGeneration = p.obj.Generation
		st.MachineCount, st.UpdatedMachineCount, st.ReadyMachineCount = total, updated, ready
		st.UnavailableMachineCount, st.DegradedMachineCount = unavailable, degraded
		allUpdated := updated == total
		if allUpdated {
			st.Configuration.Name = target
		}
		if allUpdated && degraded == 0 {
			ocp.SetPoolCondition(&st.Conditions, mcfgv1.MachineConfigPoolUpdated, corev1.ConditionTrue, "", "All nodes are updated with MachineConfig "+target, now)
			ocp.SetPoolCondition(&st.Conditions, mcfgv1.MachineConfigPoolUpdating, corev1.ConditionFalse, "", "", now)
		} else {
			ocp.SetPoolCondition(&st.Conditions, mcfgv1.MachineConfigPoolUpdated, corev1.ConditionFalse, "", "", now)
			ocp.SetPoolCondition(&st.Conditions, mcfgv1.MachineConfigPoolUpdating, corev1.ConditionTrue, "", "All nodes are updating to MachineConfig "+target, now)
		}
		ocp.SetPoolCondition(&st.Conditions, mcfgv1.MachineConfigPoolRenderDegraded, corev1.ConditionFalse, "", "", now)
		if degraded > 0 {
			reason := fmt.Sprintf("%d nodes are reporting degraded status on sync", degraded)
			msg := strings.Join(degradedMsgs, ", ")
			ocp.SetPoolCondition(&st.Conditions, mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionTrue, reason, msg, now)
			ocp.SetPoolCondition(&st.Conditions, mcfgv1.MachineConfigPoolDegraded, corev1.ConditionTrue, "", msg, now)
		} else {
			ocp.SetPoolCondition(&st.Conditions, mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionFalse, "", "", now)
			ocp.SetPoolCondition(&st.Conditions, mcfgv1.MachineConfigPoolDegraded, corev1.ConditionFalse, "", "", now)
		}
		if !poolStatusEqual(&p.obj.Status, st) {
			p.obj.Status = *st
			s.changes.mark(p.obj, false, false, true)
		}
		if allUpdated {
			p.extension = fmt.Sprintf("all %d nodes are at latest configuration %s", total, target)
		} else {
			p.extension = fmt.Sprintf("%d (ready %d) out of %d nodes are updating to latest configuration %s", updated, ready, total, target)
		}
		lines[p.name] = p.extension
	}
	if op := s.opIndex[insights.MCOClusterOperatorName]; op != nil && op.obj != nil {
		ext := mcoExtension(lines)
		if !bytes.Equal(ext.Raw, op.obj.Status.Extension.Raw) {
			op.obj.Status.Extension = ext
			s.changes.mark(op.obj, false, false, true)
		}
	}
}

// poolStatusEqual compares the parts of a pool status the simulator writes.
func poolStatusEqual(a, b *mcfgv1.MachineConfigPoolStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Configuration.Name != b.Configuration.Name ||
		a.MachineCount != b.MachineCount || a.UpdatedMachineCount != b.UpdatedMachineCount ||
		a.ReadyMachineCount != b.ReadyMachineCount || a.UnavailableMachineCount != b.UnavailableMachineCount ||
		a.DegradedMachineCount != b.DegradedMachineCount || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		if a.Conditions[i] != b.Conditions[i] {
			return false
		}
	}
	return true
}
