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

import "time"

// Phase is the stage a simulated update has reached. Phases only move forward,
// in the order of the constants below; PhaseWorkerPools is skipped when the
// worker pools finish before the control plane.
type Phase string

const (
	// PhaseNone: Create has not run yet.
	PhaseNone Phase = "None"
	// PhaseIdle: the cluster runs FromVersion and is not updating.
	PhaseIdle Phase = "Idle"
	// PhaseAccepted: the ClusterVersion has a Partial history entry for the
	// target and Progressing=True; no operator has started yet.
	PhaseAccepted Phase = "Accepted"
	// PhaseOperators: the operators update one level after another.
	PhaseOperators Phase = "Operators"
	// PhaseMachineConfig: every operator but machine-config is updated; the
	// machine-config operator runs its new image and renders the new configs.
	PhaseMachineConfig Phase = "MachineConfig"
	// PhaseNodes: the machine-config controller rolls the master and worker
	// pools; the control plane is not complete yet.
	PhaseNodes Phase = "Nodes"
	// PhaseWorkerPools: the control plane is complete (history Completed,
	// Progressing=False); worker pools are still rolling.
	PhaseWorkerPools Phase = "WorkerPools"
	// PhaseCompleted: every pool runs the target. A paused pool keeps the
	// update in PhaseWorkerPools (stalled, for Run and RunVirtual) until it
	// is unpaused.
	PhaseCompleted Phase = "Completed"
)

// phaseOrder gives each phase its rank.
var phaseOrder = map[Phase]int{
	PhaseNone:          0,
	PhaseIdle:          1,
	PhaseAccepted:      2,
	PhaseOperators:     3,
	PhaseMachineConfig: 4,
	PhaseNodes:         5,
	PhaseWorkerPools:   6,
	PhaseCompleted:     7,
}

// Before reports whether p comes before q.
func (p Phase) Before(q Phase) bool { return phaseOrder[p] < phaseOrder[q] }

// Phases lists every phase in order.
func Phases() []Phase {
	return []Phase{PhaseNone, PhaseIdle, PhaseAccepted, PhaseOperators, PhaseMachineConfig, PhaseNodes, PhaseWorkerPools, PhaseCompleted}
}

// Progress summarises the simulated cluster after a step.
type Progress struct {
	// Step counts the steps that wrote something; the creation is step 0.
	Step int
	// Time is the clock reading of the step.
	Time time.Time
	// Phase is the phase after the step.
	Phase Phase
	// Changes is the number of objects written by the step.
	Changes int
	// OperatorsUpdated counts the ClusterOperators at the target version, out
	// of OperatorsTotal.
	OperatorsUpdated, OperatorsTotal int
	// Pools has one entry per MachineConfigPool, master first.
	Pools []PoolProgress
	// Requests is the number of API requests so far (zero for sinks that do
	// not use the API).
	Requests int64
}

// PoolProgress is the state of one pool, counted the way the machine-config
// controller counts it.
type PoolProgress struct {
	Name string
	// Total, Updated, Unavailable and Degraded are the pool's machineCount,
	// updatedMachineCount, unavailableMachineCount and degradedMachineCount.
	Total, Updated, Unavailable, Degraded int
	// Paused is the pool's spec.paused.
	Paused bool
}

// StepResult is what Step did.
type StepResult struct {
	// Phase is the phase after the step.
	Phase Phase
	// Changes is the number of objects the step wrote.
	Changes int
	// Next is when the next transition is due; zero when nothing is scheduled
	// (the update is complete, or it waits for a fault to be cleared).
	Next time.Time
	// Done reports that the update is complete.
	Done bool
	// PausedOnly reports that the control plane runs the target and every
	// pool still behind is paused: StartNextUpdate may chain another update,
	// as OpenShift does while paused pools lag.
	PausedOnly bool
}
