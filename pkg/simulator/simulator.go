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
	"math/rand/v2"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	versionpkg "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/insights"
)

// Errors returned by the run loops.
var (
	// ErrStalled means no transition is scheduled although the update is not
	// complete: it waits for a fault to be cleared (a paused pool, a blocked
	// drain or an unavailable operator without an end).
	ErrStalled = errors.New("simulator: update stalled, waiting for a fault to be cleared")
	// ErrStepLimit means RunVirtual reached its step limit.
	ErrStepLimit = errors.New("simulator: step limit reached")
)

// Simulator plays the operators of a simulated OpenShift cluster. Its
// methods are safe for concurrent use.
type Simulator struct {
	mu    sync.Mutex
	opts  Options
	clock clock.WithTicker
	sink  Sink
	rng   *rand.Rand
	wake  chan struct{}

	phase           Phase
	step            int
	installedAt     time.Time
	plannedDuration time.Duration
	infraID         string

	ns        *corev1.Namespace
	cv        *configv1.ClusterVersion
	operators []*operatorState
	opIndex   map[string]*operatorState
	pools     []*poolState
	poolIndex map[string]*poolState
	mcs       []*mcfgv1.MachineConfig
	nodes     []*nodeState
	nodeIndex map[string]*nodeState
	mco       *appsv1.Deployment

	update  updateState
	faults  []*faultState
	work    *workload // Options.RouterPods; nil without
	changes changeSet
	written int // objects written by the batches of the current step
}

// updateState tracks the cluster-version and machine-config operators.
type updateState struct {
	requested   bool
	startedAt   time.Time
	acceptDue   time.Time
	level       int // the operator level being updated; 0 before the first
	mcoStarted  bool
	mcoDue      time.Time // when the machine-config operator reports Progressing
	mcoReported bool      // Progressing=True reported
	renderDue   time.Time
	rendered    bool
	versionDone bool // machine-config reported the target version
	completeDue time.Time
	completed   bool
}

// operatorState is one ClusterOperator and its update.
type operatorState struct {
	spec     *ocp.Operator
	obj      *configv1.ClusterOperator
	duration time.Duration
	due      time.Time
	updating bool
	updated  bool
	revision int
}

// poolState is one MachineConfigPool and its nodes.
type poolState struct {
	name               string
	obj                *mcfgv1.MachineConfigPool
	nodes              []*nodeState
	required           bool
	maxUnavailableSpec *intstr.IntOrString
	size               int
	current            string // rendered config of FromVersion
	target             string // rendered config of ToVersion, once rendered
	// dirty is set when the pool or one of its nodes changed: its status is
	// recomputed and its controller runs. Both skip clean pools, which keeps
	// a step of a large cluster proportional to what changed.
	dirty bool
	// settled counts the nodes idle on the target (last computation).
	settled int
	// extension is the pool's line in the machine-config operator's status.
	extension string
}

// nodeStage is where a node is in its update.
type nodeStage int

const (
	stageIdle      nodeStage = iota // running its pool's configuration
	stageDesired                    // the controller set desiredConfig; the daemon has not reacted
	stageDraining                   // the daemon asked for a drain; the node is cordoned
	stageApplying                   // drained; the daemon writes the new configuration
	stageRebooting                  // the daemon rebooted the node
	stageDown                       // the kubelet stopped posting status
	stageBooting                    // the kubelet is back, NotReady
	stageUncordon                   // Ready and on the new config; still cordoned
)

// nodeState is one Node and its update.
type nodeState struct {
	obj          *corev1.Node
	pool         *poolState
	stage        nodeStage
	due          time.Time
	drainStarted time.Time
	blocked      *faultState               // a drain-blocked fault holding this node
	notReady     *faultState               // a node-not-ready fault holding this node
	mcn          *mcfgv1.MachineConfigNode // nil unless Options.MachineConfigNodes
}

// New returns a Simulator for opts. It does not touch the sink: call Create.
func New(opts Options) (*Simulator, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	c := opts.completed()
	s := &Simulator{
		opts:      c,
		clock:     c.Clock,
		sink:      c.Sink,
		rng:       rand.New(rand.NewPCG(uint64(c.Seed), uint64(c.Seed)^0x9e3779b97f4a7c15)),
		wake:      make(chan struct{}, 1),
		phase:     PhaseNone,
		opIndex:   map[string]*operatorState{},
		poolIndex: map[string]*poolState{},
		nodeIndex: map[string]*nodeState{},
	}
	s.plan()
	return s, nil
}

// plan lays out pools and draws the operator durations.
func (s *Simulator) plan() {
	o := &s.opts
	t := o.Timing
	levels := map[int]time.Duration{}
	for i := range ocp.Operators {
		spec := &ocp.Operators[i]
		d := s.operatorDuration(spec)
		op := &operatorState{spec: spec, duration: d, revision: 5 + s.rng.IntN(20)}
		s.operators = append(s.operators, op)
		s.opIndex[spec.Name] = op
		if d > levels[spec.Level] {
			levels[spec.Level] = d
		}
	}
	master := &poolState{name: "master", required: true, size: o.ControlPlaneNodes}
	s.pools = append(s.pools, master)
	left := o.Nodes - o.ControlPlaneNodes
	shared := 0
	for _, p := range o.WorkerPools {
		left -= p.Nodes
		if p.Nodes == 0 {
			shared++
		}
	}
	for _, p := range o.WorkerPools {
		size := p.Nodes
		if size == 0 && shared > 0 {
			size = left / shared
			if left%shared > 0 {
				size++
			}
			left -= size
			shared--
		}
		s.pools = append(s.pools, &poolState{name: p.Name, size: size, maxUnavailableSpec: p.MaxUnavailable})
	}
	for _, p := range s.pools {
		s.poolIndex[p.name] = p
		p.current = ocp.RenderedName(p.name, o.FromVersion, o.Seed)
	}
	// The planned duration of this update, used as the duration of the
	// previous one in the history so that estimates based on it are sensible.
	total := s.scale(t.Accept + t.MCORollout + t.Complete)
	for _, d := range levels {
		total += d
	}
	perNode := t.React + (t.DrainMin+t.DrainMax)/2 + (t.ApplyMin+t.ApplyMax)/2 + t.Shutdown + (t.BootMin+t.BootMax)/2 + t.Ready + t.Uncordon
	total += s.scale(time.Duration(o.ControlPlaneNodes) * perNode)
	s.plannedDuration = total.Round(time.Second)
	if s.plannedDuration < time.Second {
		s.plannedDuration = time.Second
	}
}

// operatorDuration draws how long an operator takes to update (scaled).
func (s *Simulator) operatorDuration(spec *ocp.Operator) time.Duration {
	t := &s.opts.Timing
	return s.scale(time.Duration(float64(s.between(t.OperatorMin, t.OperatorMax)) * spec.Weight))
}

// scale divides a speed-1 duration by the speed factor.
func (s *Simulator) scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) / s.opts.Speed)
}

// between draws a duration uniformly from [lo, hi], in whole seconds when
// the range spans at least a second.
func (s *Simulator) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	d := lo + time.Duration(s.rng.Int64N(int64(hi-lo)+1))
	if hi-lo >= time.Second {
		d = d.Round(time.Second)
	}
	return d
}

// Options returns the options with every default filled in (FromVersion and
// ToVersion move on with StartNextUpdate).
func (s *Simulator) Options() Options {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts
}

// Phase returns the current phase.
func (s *Simulator) Phase() Phase {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.phase
}

// Create builds the cluster at FromVersion and writes it to the sink (step 0).
func (s *Simulator) Create(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase != PhaseNone {
		return errors.New("simulator: cluster already created")
	}
	o := &s.opts
	now := s.clock.Now()
	s.installedAt = now.Add(-45 * 24 * time.Hour).Truncate(time.Second)
	s.infraID = fmt.Sprintf("sim-%05x", s.rng.IntN(1<<20))

	// Batch 1: the namespace and the ClusterVersion, which others reference by UID.
	s.ns = &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: insights.MCONamespace, Labels: map[string]string{"openshift.io/cluster-monitoring": "true"}},
	}
	s.cv = s.buildClusterVersion()
	s.changes.mark(s.ns, true, false, false)
	s.changes.mark(s.cv, true, true, true)
	if err := s.flushLocked(ctx, now, false); err != nil {
		return fmt.Errorf("create the ClusterVersion: %w", err)
	}

	// Batch 2: ClusterOperators and MachineConfigPools (MachineConfigs
	// reference the pools by UID).
	for _, op := range s.operators {
		op.obj = s.buildClusterOperator(op.spec)
		s.changes.mark(op.obj, true, true, true)
	}
	index := 0
	for _, p := range s.pools {
		roles := []string{"worker", p.name}
		switch {
		case p.name == "master" && o.compact():
			roles = []string{"master", "control-plane", "worker"}
		case p.name == "master":
			roles = []string{"master", "control-plane"}
		case p.name == "worker":
			roles = []string{"worker"}
		}
		for j := 0; j < p.size; j++ {
			created := s.installedAt.Add(time.Duration(5+index/100) * time.Minute)
			n := &nodeState{pool: p, obj: s.buildNode(index, p, roles, created)}
			index++
			p.nodes = append(p.nodes, n)
			s.nodes = append(s.nodes, n)
			s.nodeIndex[n.obj.Name] = n
		}
		p.obj = s.buildPool(p)
		p.dirty = true
		s.changes.mark(p.obj, true, true, true)
	}
	s.reconcilePoolStatus(now)
	if err := s.flushLocked(ctx, now, false); err != nil {
		return fmt.Errorf("create the ClusterOperators and MachineConfigPools: %w", err)
	}

	// Batch 3: MachineConfigs, the MCO Deployment and the Nodes.
	for _, role := range []string{"master", "worker"} {
		for _, name := range ocp.BaseConfigNames(role) {
			mc := ocp.BaseConfig(name, role, o.FromVersion, s.newUID(), s.installedAt)
			s.mcs = append(s.mcs, mc)
			s.changes.mark(mc, true, true, false)
		}
	}
	for _, p := range s.pools {
		mc := s.buildRendered(p, p.current, o.FromVersion, s.installedAt.Add(3*time.Minute))
		s.mcs = append(s.mcs, mc)
		s.changes.mark(mc, true, true, false)
	}
	s.mco = s.buildMCODeployment(o.FromVersion)
	s.changes.mark(s.mco, true, true, true)
	for _, n := range s.nodes {
		s.changes.mark(n.obj, true, true, true)
		if o.MachineConfigNodes {
			n.mcn = ocp.MachineConfigNode(n.obj, n.pool.name, s.newUID(), now)
			s.changes.mark(n.mcn, true, true, true)
		}
	}
	s.createWorkload(now)
	s.reconcilePoolStatus(now)
	s.phase = PhaseIdle
	if err := s.flushLocked(ctx, now, true); err != nil {
		return fmt.Errorf("create the nodes: %w", err)
	}
	klog.V(1).InfoS("Simulated cluster created", "cluster", o.String(), "objects", len(s.nodes)+len(s.operators)+len(s.pools)+len(s.mcs)+3)
	return nil
}

// StartUpdate requests the update to ToVersion, as `oc adm upgrade` does, and
// writes the ClusterVersion. The cluster must be Idle.
func (s *Simulator) StartUpdate(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase != PhaseIdle {
		return fmt.Errorf("simulator: cannot start an update in phase %s", s.phase)
	}
	return s.startLocked(ctx)
}

// StartNextUpdate requests another update, to version, once the previous
// one is Completed, or complete but for paused pools (StepResult.PausedOnly):
// the cluster now runs the previous target, which becomes FromVersion
// (Options reports the new versions); a paused pool keeps its nodes'
// configuration until it is unpaused, then rolls to the newest target. The
// history keeps growing as on a real cluster, and new operator durations are
// drawn. It is how a long-running demo updates again and again.
func (s *Simulator) StartNextUpdate(ctx context.Context, version string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase != PhaseCompleted && !s.pausedOnly() {
		return fmt.Errorf("simulator: cannot start another update in phase %s", s.phase)
	}
	next, err := versionpkg.ParseSemantic(version)
	if err != nil {
		return fmt.Errorf("simulator: next version %q: %w", version, err)
	}
	if cur, _ := versionpkg.ParseSemantic(s.opts.ToVersion); cur != nil && next.EqualTo(cur) {
		return fmt.Errorf("simulator: the cluster already runs %s", version)
	}
	s.opts.FromVersion, s.opts.ToVersion = s.opts.ToVersion, version
	for _, op := range s.operators {
		op.updating, op.updated, op.due = false, false, time.Time{}
		op.duration = s.operatorDuration(op.spec)
		op.revision++
	}
	for _, p := range s.pools {
		if s.poolDone(p) {
			p.current = p.target
		}
		p.target = ""
	}
	s.phase = PhaseIdle
	return s.startLocked(ctx)
}

// startLocked requests the update to ToVersion and writes it.
func (s *Simulator) startLocked(ctx context.Context) error {
	now := s.clock.Now()
	s.startUpdate(now)
	s.settle(now)
	if err := s.flushLocked(ctx, now, true); err != nil {
		return err
	}
	s.poke()
	return nil
}

// Step performs every transition due at the clock's current time and writes
// the changed objects.
func (s *Simulator) Step(ctx context.Context) (StepResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase == PhaseNone {
		return StepResult{Phase: s.phase}, errors.New("simulator: Create has not run")
	}
	now := s.clock.Now()
	s.settle(now)
	n := len(s.changes.order)
	if err := s.flushLocked(ctx, now, true); err != nil {
		return StepResult{Phase: s.phase}, err
	}
	return StepResult{Phase: s.phase, Changes: n, Next: s.nextDue(now), Done: s.phase == PhaseCompleted, PausedOnly: s.pausedOnly()}, nil
}

// pausedOnly reports that the update is complete but for paused pools.
func (s *Simulator) pausedOnly() bool {
	if s.phase != PhaseWorkerPools {
		return false
	}
	for _, p := range s.pools {
		if !s.poolDone(p) && !p.obj.Spec.Paused {
			return false
		}
	}
	return true
}

// Run creates the cluster if needed, starts the update if it is idle and
// steps in real time until the update completes or ctx ends. It waits at
// least MinStepInterval between steps. A stalled update keeps Run waiting for
// a fault to be cleared.
func (s *Simulator) Run(ctx context.Context) error {
	return s.RunUntil(ctx, func(res StepResult) bool { return res.Done })
}

// RunPastPauses is Run, but it also returns when the update is complete but
// for paused pools (StepResult.PausedOnly), so that the caller can chain the
// next update with StartNextUpdate.
func (s *Simulator) RunPastPauses(ctx context.Context) error {
	return s.RunUntil(ctx, func(res StepResult) bool { return res.Done || res.PausedOnly })
}

// RunUntil is Run until done reports a step's result as the end: a test
// stops the update at the phase it needs, then runs it on later.
func (s *Simulator) RunUntil(ctx context.Context, done func(StepResult) bool) error {
	if s.Phase() == PhaseNone {
		if err := s.Create(ctx); err != nil {
			return err
		}
	}
	if s.Phase() == PhaseIdle {
		if s.opts.IdleFor > 0 {
			t := s.clock.NewTimer(s.opts.IdleFor)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C():
			}
		}
		if err := s.StartUpdate(ctx); err != nil {
			return err
		}
	}
	for {
		res, err := s.Step(ctx)
		if err != nil {
			return err
		}
		if done(res) {
			return nil
		}
		var t clock.Timer
		var timer <-chan time.Time
		if !res.Next.IsZero() {
			wait := res.Next.Sub(s.clock.Now())
			if wait < s.opts.MinStepInterval {
				wait = s.opts.MinStepInterval
			}
			t = s.clock.NewTimer(wait)
			timer = t.C()
		}
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-s.wake:
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
		if err != nil {
			return err
		}
	}
}

// VirtualClock is a clock whose time only moves when it is set: virtual
// time for RunVirtual. NewVirtualClock returns one, and so does
// k8s.io/utils/clock/testing.NewFakeClock for tests.
type VirtualClock interface {
	clock.WithTicker
	// SetTime moves the clock to t, firing the timers due by then.
	SetTime(t time.Time)
	// Step moves the clock forward by d.
	Step(d time.Duration)
}

// RunVirtual is Run in virtual time: instead of waiting it moves fc to the
// next transition (at least MinStepInterval later when that is positive).
// fc must be the simulator's clock. It returns nil when the update completes,
// ErrStalled when nothing is scheduled and ErrStepLimit after maxSteps steps
// (no limit when maxSteps <= 0).
func (s *Simulator) RunVirtual(ctx context.Context, fc VirtualClock, maxSteps int) error {
	if fc == nil || s.clock != clock.WithTicker(fc) {
		return errors.New("simulator: RunVirtual needs the simulator's own virtual clock")
	}
	if s.Phase() == PhaseNone {
		if err := s.Create(ctx); err != nil {
			return err
		}
	}
	if s.Phase() == PhaseIdle {
		fc.Step(s.opts.IdleFor)
		if err := s.StartUpdate(ctx); err != nil {
			return err
		}
	}
	for i := 0; maxSteps <= 0 || i < maxSteps; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := s.Step(ctx)
		if err != nil {
			return err
		}
		if res.Done {
			return nil
		}
		if res.Next.IsZero() {
			return ErrStalled
		}
		next := res.Next
		if floor := fc.Now().Add(s.opts.MinStepInterval); s.opts.MinStepInterval > 0 && next.Before(floor) {
			next = floor
		}
		fc.SetTime(next)
	}
	return ErrStepLimit
}

// Snapshot returns a deep copy of every simulated object.
func (s *Simulator) Snapshot() *State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked(s.clock.Now()).DeepCopy()
}

// Requests returns the number of API requests the sink made, or 0.
func (s *Simulator) Requests() int64 {
	if rc, ok := s.sink.(RequestCounter); ok {
		return rc.Requests()
	}
	return 0
}

// NodeNames returns the names of the nodes of a pool ("" for all nodes).
func (s *Simulator) NodeNames(pool string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, n := range s.nodes {
		if pool == "" || n.pool.name == pool {
			out = append(out, n.obj.Name)
		}
	}
	return out
}

// poke wakes Run after an external change.
func (s *Simulator) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// stateLocked returns the live objects (not copies).
func (s *Simulator) stateLocked(now time.Time) *State {
	st := &State{Time: now, Phase: s.phase, ClusterVersion: s.cv, MCODeployment: s.mco}
	for _, op := range s.operators {
		if op.obj != nil {
			st.ClusterOperators = append(st.ClusterOperators, op.obj)
		}
	}
	for _, p := range s.pools {
		if p.obj != nil {
			st.MachineConfigPools = append(st.MachineConfigPools, p.obj)
		}
	}
	st.MachineConfigs = append(st.MachineConfigs, s.mcs...)
	for _, n := range s.nodes {
		st.Nodes = append(st.Nodes, n.obj)
		if n.mcn != nil {
			st.MachineConfigNodes = append(st.MachineConfigNodes, n.mcn)
		}
	}
	return st
}

// settle runs the controllers until nothing more changes at this instant.
func (s *Simulator) settle(now time.Time) {
	for i := 0; i < 16; i++ {
		before := s.changes.mutations
		s.reconcile(now)
		if s.changes.mutations == before {
			return
		}
	}
}

// reconcile runs every simulated controller once.
func (s *Simulator) reconcile(now time.Time) {
	s.reconcileFaults(now)
	s.reconcileCVO(now)
	s.reconcileOperators(now)
	s.reconcileMCO(now)
	s.reconcileDaemons(now)
	s.reconcileNodeController(now)
	s.reconcilePoolStatus(now)
	s.reconcileNetworkOperator(now)
	s.reconcileCVOCompletion(now)
	if p := s.computePhase(); s.phase.Before(p) {
		s.phase = p
	}
}

// computePhase derives the phase from the operators' state.
func (s *Simulator) computePhase() Phase {
	u := &s.update
	switch {
	case !u.requested:
		return PhaseIdle
	case u.completed && s.allPoolsDone():
		return PhaseCompleted
	case u.completed:
		return PhaseWorkerPools
	case u.rendered:
		return PhaseNodes
	case u.mcoStarted:
		return PhaseMachineConfig
	case u.level >= 1:
		return PhaseOperators
	default:
		return PhaseAccepted
	}
}

// flushLocked writes the pending changes (if any) as one batch. final marks
// the last batch of a step: the step counter moves and progress is reported.
func (s *Simulator) flushLocked(ctx context.Context, now time.Time, final bool) error {
	changes := s.changes.take()
	s.written += len(changes)
	if len(changes) > 0 && s.sink != nil {
		b := &Batch{Step: s.step, Time: now, Phase: s.phase, Changes: changes, State: s.stateLocked(now)}
		if err := s.sink.Write(ctx, b); err != nil {
			return fmt.Errorf("step %d: %w", s.step, err)
		}
	}
	if final && s.written > 0 {
		if s.opts.OnProgress != nil {
			s.opts.OnProgress(s.progressLocked(now, s.written))
		}
		s.step++
		s.written = 0
	}
	return nil
}

// progressLocked summarises the state.
func (s *Simulator) progressLocked(now time.Time, changes int) Progress {
	p := Progress{Step: s.step, Time: now, Phase: s.phase, Changes: changes, OperatorsTotal: len(s.operators), Requests: s.Requests()}
	for _, op := range s.operators {
		if op.updated {
			p.OperatorsUpdated++
		}
	}
	for _, pool := range s.pools {
		if pool.obj == nil {
			continue
		}
		st := pool.obj.Status
		p.Pools = append(p.Pools, PoolProgress{
			Name: pool.name, Total: int(st.MachineCount), Updated: int(st.UpdatedMachineCount),
			Unavailable: int(st.UnavailableMachineCount), Degraded: int(st.DegradedMachineCount), Paused: pool.obj.Spec.Paused,
		})
	}
	return p
}

// nextDue returns the earliest scheduled transition after now, or zero.
func (s *Simulator) nextDue(now time.Time) time.Time {
	var next time.Time
	consider := func(t time.Time) {
		if t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	u := &s.update
	if u.requested {
		if u.level == 0 {
			consider(u.acceptDue)
		}
		if u.mcoStarted && !u.mcoReported {
			consider(u.mcoDue)
		}
		if u.mcoStarted && !u.rendered {
			consider(u.renderDue)
		}
		if !u.completed {
			consider(u.completeDue)
		}
	}
	for _, op := range s.operators {
		if op.updating {
			consider(op.due)
		}
	}
	for _, n := range s.nodes {
		if n.stage != stageIdle && n.notReady == nil {
			consider(n.due)
		}
	}
	for _, f := range s.faults {
		if !f.active && !f.finished {
			consider(f.start)
		}
		if f.active && !f.end.IsZero() {
			consider(f.end)
		}
	}
	return next
}
