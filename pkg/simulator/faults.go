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
	"context"
	"errors"
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/insights"
)

// FaultKind names a kind of fault.
type FaultKind string

// The faults the simulator can inject.
const (
	// FaultOperatorDegraded sets Degraded=True on the ClusterOperator Target.
	FaultOperatorDegraded FaultKind = "operator-degraded"
	// FaultOperatorUnavailable sets Available=False on the ClusterOperator
	// Target; while it lasts the operator does not complete its update.
	FaultOperatorUnavailable FaultKind = "operator-unavailable"
	// FaultDrainBlocked blocks the drain of a node, as a PodDisruptionBudget
	// that allows no disruption does. Target is a node, or a pool whose next
	// draining node is blocked. After Timing.DrainTimeout the daemon marks the
	// node Degraded; when the fault ends the drain completes.
	FaultDrainBlocked FaultKind = "drain-blocked"
	// FaultPoolPaused sets spec.paused on the pool Target.
	FaultPoolPaused FaultKind = "pool-paused"
	// FaultNodeNotReady makes the kubelet of a node report Ready=False (an
	// unhealthy container runtime). Target is a node, or a pool in which the
	// last node that is not updating is chosen; the node's update, if any,
	// waits until it recovers.
	FaultNodeNotReady FaultKind = "node-not-ready"
	// FaultClusterVersionFailing sets Failing=True on the ClusterVersion.
	// Target, when set, names the operator the message blames.
	FaultClusterVersionFailing FaultKind = "clusterversion-failing"
)

// FaultKinds lists every fault kind.
func FaultKinds() []FaultKind {
	return []FaultKind{FaultOperatorDegraded, FaultOperatorUnavailable, FaultDrainBlocked, FaultPoolPaused, FaultNodeNotReady, FaultClusterVersionFailing}
}

// Fault describes one injected fault. Durations are at speed 1 and scaled
// like every other duration.
type Fault struct {
	Kind   FaultKind
	Target string
	// After delays the fault from the moment it is injected.
	After time.Duration
	// For is how long the fault lasts; zero means until Clear.
	For time.Duration
	// Reason and Message override the condition reason and message the
	// fault writes; empty means a realistic default.
	Reason, Message string
}

// FaultID identifies an injected fault.
type FaultID int

// faultState is an injected fault and its progress.
type faultState struct {
	id               FaultID
	fault            Fault
	reason, message  string
	start, end       time.Time // end is zero for "until cleared"
	active, finished bool
	node             *nodeState // the node a drain or NotReady fault holds
}

// Inject schedules a fault and returns its id. A fault without delay takes
// effect (and is written) immediately.
func (s *Simulator) Inject(ctx context.Context, f Fault) (FaultID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase == PhaseNone {
		return 0, fmt.Errorf("simulator: inject %s: Create has not run", f.Kind)
	}
	if err := s.validateFault(&f); err != nil {
		return 0, err
	}
	now := s.clock.Now()
	fs := &faultState{id: FaultID(len(s.faults) + 1), fault: f, start: now.Add(s.scale(f.After))}
	if f.For > 0 {
		fs.end = fs.start.Add(s.scale(f.For))
	}
	fs.reason, fs.message = s.faultText(&f)
	s.faults = append(s.faults, fs)
	klog.V(1).InfoS("Fault injected", "id", fs.id, "kind", f.Kind, "target", f.Target, "start", fs.start, "end", fs.end)
	s.settle(now)
	if err := s.flushLocked(ctx, now, true); err != nil {
		return fs.id, err
	}
	s.poke()
	return fs.id, nil
}

// Clear ends a fault now (a fault that has not started yet is dropped).
func (s *Simulator) Clear(ctx context.Context, id FaultID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id < 1 || int(id) > len(s.faults) {
		return fmt.Errorf("simulator: no fault %d", id)
	}
	f := s.faults[id-1]
	if f.finished {
		return nil
	}
	now := s.clock.Now()
	if !f.active {
		f.finished = true
		return nil
	}
	f.end = now
	s.settle(now)
	if err := s.flushLocked(ctx, now, true); err != nil {
		return err
	}
	s.poke()
	return nil
}

// DegradeOperator injects FaultOperatorDegraded on an operator for d (0: until cleared).
func (s *Simulator) DegradeOperator(ctx context.Context, name string, d time.Duration) (FaultID, error) {
	return s.Inject(ctx, Fault{Kind: FaultOperatorDegraded, Target: name, For: d})
}

// MakeOperatorUnavailable injects FaultOperatorUnavailable on an operator for d.
func (s *Simulator) MakeOperatorUnavailable(ctx context.Context, name string, d time.Duration) (FaultID, error) {
	return s.Inject(ctx, Fault{Kind: FaultOperatorUnavailable, Target: name, For: d})
}

// BlockDrain injects FaultDrainBlocked on a pool or node for d.
func (s *Simulator) BlockDrain(ctx context.Context, poolOrNode string, d time.Duration) (FaultID, error) {
	return s.Inject(ctx, Fault{Kind: FaultDrainBlocked, Target: poolOrNode, For: d})
}

// StallOnDrain starts the update with the drain of a pool or node blocked
// until cleared, and runs it on fc (the simulator's clock) until it stalls
// on that drain. It returns the drain's fault.
func (s *Simulator) StallOnDrain(ctx context.Context, fc VirtualClock, poolOrNode string) (FaultID, error) {
	if err := s.StartUpdate(ctx); err != nil {
		return 0, err
	}
	id, err := s.BlockDrain(ctx, poolOrNode, 0)
	if err != nil {
		return 0, err
	}
	if err := s.RunVirtual(ctx, fc, 0); !errors.Is(err, ErrStalled) {
		return 0, fmt.Errorf("simulator: the update ran to %v, not to a stall on the blocked drain of %s", err, poolOrNode)
	}
	return id, nil
}

// PausePool injects FaultPoolPaused on a pool for d.
func (s *Simulator) PausePool(ctx context.Context, pool string, d time.Duration) (FaultID, error) {
	return s.Inject(ctx, Fault{Kind: FaultPoolPaused, Target: pool, For: d})
}

// MakeNodeNotReady injects FaultNodeNotReady on a node (or a node of a pool) for d.
func (s *Simulator) MakeNodeNotReady(ctx context.Context, poolOrNode string, d time.Duration) (FaultID, error) {
	return s.Inject(ctx, Fault{Kind: FaultNodeNotReady, Target: poolOrNode, For: d})
}

// FailClusterVersion injects FaultClusterVersionFailing for d.
func (s *Simulator) FailClusterVersion(ctx context.Context, d time.Duration) (FaultID, error) {
	return s.Inject(ctx, Fault{Kind: FaultClusterVersionFailing, For: d})
}

// validateFault checks the kind and target of f.
func (s *Simulator) validateFault(f *Fault) error {
	if f.After < 0 || f.For < 0 {
		return fmt.Errorf("simulator: fault %s: negative duration", f.Kind)
	}
	switch f.Kind {
	case FaultOperatorDegraded, FaultOperatorUnavailable:
		if s.opIndex[f.Target] == nil {
			return fmt.Errorf("simulator: fault %s: no ClusterOperator %q", f.Kind, f.Target)
		}
	case FaultPoolPaused:
		if s.poolIndex[f.Target] == nil {
			return fmt.Errorf("simulator: fault %s: no MachineConfigPool %q", f.Kind, f.Target)
		}
	case FaultDrainBlocked, FaultNodeNotReady:
		if s.poolIndex[f.Target] == nil && s.nodeIndex[f.Target] == nil {
			return fmt.Errorf("simulator: fault %s: no MachineConfigPool or Node %q", f.Kind, f.Target)
		}
		if p := s.poolIndex[f.Target]; p != nil && len(p.nodes) == 0 {
			return fmt.Errorf("simulator: fault %s: pool %q has no nodes", f.Kind, f.Target)
		}
	case FaultClusterVersionFailing:
		if f.Target != "" && s.opIndex[f.Target] == nil {
			return fmt.Errorf("simulator: fault %s: no ClusterOperator %q", f.Kind, f.Target)
		}
	default:
		return fmt.Errorf("simulator: unknown fault kind %q", f.Kind)
	}
	return nil
}

// faultText returns the reason and message a fault writes.
func (s *Simulator) faultText(f *Fault) (string, string) {
	reason, message := f.Reason, f.Message
	def := func(r, m string) {
		if reason == "" {
			reason = r
		}
		if message == "" {
			message = m
		}
	}
	switch f.Kind {
	case FaultOperatorDegraded:
		def("DeploymentDegraded", fmt.Sprintf("DeploymentDegraded: 1 of 3 requested instances are unavailable for %s.%s", f.Target, s.opIndex[f.Target].spec.Namespace))
	case FaultOperatorUnavailable:
		def("UnavailableReplicas", "Missing 1 available replica(s)")
	case FaultClusterVersionFailing:
		target := f.Target
		if target == "" {
			target = "kube-apiserver"
		}
		def("ClusterOperatorDegraded", fmt.Sprintf("Cluster operator %s is degraded", target))
	case FaultNodeNotReady:
		def("KubeletNotReady", "PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s")
	}
	return reason, message
}

// activeFault returns an active fault of a kind, or nil.
func (s *Simulator) activeFault(kind FaultKind) *faultState {
	for _, f := range s.faults {
		if f.active && f.fault.Kind == kind {
			return f
		}
	}
	return nil
}

// operatorUnavailable reports whether an unavailable fault holds an operator.
func (s *Simulator) operatorUnavailable(name string) bool {
	for _, f := range s.faults {
		if f.active && f.fault.Kind == FaultOperatorUnavailable && f.fault.Target == name {
			return true
		}
	}
	return false
}

// drainBlockFor returns an active drain fault that should hold node n.
func (s *Simulator) drainBlockFor(n *nodeState) *faultState {
	for _, f := range s.faults {
		if f.active && f.fault.Kind == FaultDrainBlocked && f.node == nil &&
			(f.fault.Target == n.obj.Name || f.fault.Target == n.pool.name) {
			return f
		}
	}
	return nil
}

// reconcileFaults starts and ends faults.
func (s *Simulator) reconcileFaults(now time.Time) {
	for _, f := range s.faults {
		if !f.active && !f.finished && !now.Before(f.start) {
			if s.activate(f, now) {
				f.active = true
			}
		}
		if f.active && !f.end.IsZero() && !now.Before(f.end) {
			s.deactivate(f, now)
			f.active, f.finished = false, true
		}
	}
}

// activate applies a fault; false means it cannot start yet (retried later).
func (s *Simulator) activate(f *faultState, now time.Time) bool {
	klog.V(1).InfoS("Fault started", "id", f.id, "kind", f.fault.Kind, "target", f.fault.Target)
	switch f.fault.Kind {
	case FaultOperatorDegraded:
		s.setOperatorCondition(s.opIndex[f.fault.Target], configv1.OperatorDegraded, configv1.ConditionTrue, f.reason, f.message, now)
	case FaultOperatorUnavailable:
		s.setOperatorCondition(s.opIndex[f.fault.Target], configv1.OperatorAvailable, configv1.ConditionFalse, f.reason, f.message, now)
	case FaultPoolPaused:
		s.setPoolPaused(s.poolIndex[f.fault.Target], true)
	case FaultNodeNotReady:
		n := s.nodeIndex[f.fault.Target]
		if n == nil {
			n = s.pickIdleNode(s.poolIndex[f.fault.Target])
		}
		if n == nil || n.notReady != nil {
			return false
		}
		n.notReady, f.node = f, n
		ocp.SetNodeCondition(&n.obj.Status.Conditions, corev1.NodeReady, corev1.ConditionFalse, f.reason, f.message, now)
		s.markNode(n, false, true)
	case FaultDrainBlocked:
		// Hold a node that is draining now, if any; otherwise the next one.
		for _, n := range s.nodes {
			if n.stage == stageDraining && n.blocked == nil && (f.fault.Target == n.obj.Name || f.fault.Target == n.pool.name) {
				n.blocked, f.node = f, n
				s.holdPods(n, now)
				s.reportDrainFailure(n, now)
				n.due = n.drainStarted.Add(s.scale(s.opts.Timing.DrainTimeout))
				if n.due.Before(now) {
					n.due = now
				}
				break
			}
		}
	case FaultClusterVersionFailing:
		ocp.SetClusterCondition(&s.cv.Status.Conditions, "Failing", configv1.ConditionTrue, f.reason, f.message, now)
		s.changes.mark(s.cv, false, false, true)
	}
	return true
}

// setOperatorCondition sets a condition of op's ClusterOperator and marks
// its status changed.
func (s *Simulator) setOperatorCondition(op *operatorState, t configv1.ClusterStatusConditionType, status configv1.ConditionStatus, reason, message string, now time.Time) {
	ocp.SetClusterCondition(&op.obj.Status.Conditions, t, status, reason, message, now)
	s.changes.mark(op.obj, false, false, true)
}

// setPoolPaused pauses or unpauses p's MachineConfigPool, a change of its
// spec.
func (s *Simulator) setPoolPaused(p *poolState, paused bool) {
	p.obj.Spec.Paused = paused
	p.obj.Generation++
	s.markPool(p, true, false)
}

// deactivate undoes a fault.
func (s *Simulator) deactivate(f *faultState, now time.Time) {
	klog.V(1).InfoS("Fault ended", "id", f.id, "kind", f.fault.Kind, "target", f.fault.Target)
	switch f.fault.Kind {
	case FaultOperatorDegraded:
		s.setOperatorCondition(s.opIndex[f.fault.Target], configv1.OperatorDegraded, configv1.ConditionFalse, "AsExpected", "", now)
	case FaultOperatorUnavailable:
		op := s.opIndex[f.fault.Target]
		message := "All is well"
		if op.spec.Name == insights.MCOClusterOperatorName {
			message = ocp.MCODeployedMessage(op.obj.Status.Versions[0].Version)
		}
		s.setOperatorCondition(op, configv1.OperatorAvailable, configv1.ConditionTrue, "AsExpected", message, now)
	case FaultPoolPaused:
		s.setPoolPaused(s.poolIndex[f.fault.Target], false)
	case FaultNodeNotReady:
		n := f.node
		if n == nil {
			return
		}
		n.notReady = nil
		switch n.stage {
		case stageDown:
			ocp.SetKubeletLost(n.obj, now)
		case stageBooting:
			ocp.SetKubeletBack(n.obj, now, false)
		default:
			ocp.SetKubeletBack(n.obj, now, true)
		}
		if !n.due.IsZero() && n.due.Before(now) {
			n.due = now
		}
		s.markNode(n, false, true)
	case FaultDrainBlocked:
		if n := f.node; n != nil && n.blocked == f && n.stage == stageDraining {
			s.finishDrain(n, now)
		}
	case FaultClusterVersionFailing:
		ocp.SetClusterCondition(&s.cv.Status.Conditions, "Failing", configv1.ConditionFalse, "", "", now)
		s.changes.mark(s.cv, false, false, true)
		if s.update.requested && !s.update.completed {
			s.setCVProgressing(now)
		}
	}
}

// pickIdleNode returns the last node of a pool that is not updating and not
// held by another fault, or nil.
func (s *Simulator) pickIdleNode(p *poolState) *nodeState {
	if p == nil {
		return nil
	}
	for i := len(p.nodes) - 1; i >= 0; i-- {
		n := p.nodes[i]
		if n.stage == stageIdle && n.notReady == nil {
			return n
		}
	}
	return nil
}
