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
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/hypershift"
	"github.com/update-status/apiserver/pkg/simulator"
)

// Fault is a way a hosted cluster's update goes wrong.
type Fault string

const (
	// FaultStuckComponent: one ControlPlaneComponent's rollout never
	// completes (RolloutComplete=False, WaitingForRolloutComplete).
	FaultStuckComponent Fault = "stuck-component"
	// FaultNoProvision: a Replace pool's first new Machine stays
	// Provisioning (InfrastructureReady=False) forever.
	FaultNoProvision Fault = "no-provision"
	// FaultHeldDrain: a Replace pool's first old Machine drains for
	// Options.HeldDrain, past the NodePool's nodeDrainTimeout.
	FaultHeldDrain Fault = "held-drain"
	// FaultBadImage: the update names a release image that does not
	// exist: ValidReleaseImage=False and Progressing=False/Blocked.
	FaultBadImage Fault = "bad-image"
)

// Faults lists every fault.
var Faults = []Fault{FaultStuckComponent, FaultNoProvision, FaultHeldDrain, FaultBadImage}

// Timing are the durations of an update at speed 1.
type Timing struct {
	// Component is how long one ControlPlaneComponent's rollout takes.
	Component time.Duration
	// CVO is how long after the control plane the hosted CVO reports the
	// update Completed.
	CVO time.Duration
	// Provision is how long a new Machine takes from Pending to Running (in
	// three phases).
	Provision time.Duration
	// Drain is how long a node drains.
	Drain time.Duration
	// Reboot is how long an in-place node reboots.
	Reboot time.Duration
}

// DefaultTiming is about a 25-minute update of a three-node pool.
var DefaultTiming = Timing{Component: 30 * time.Second, CVO: 2 * time.Minute, Provision: 3 * time.Minute, Drain: time.Minute, Reboot: 2 * time.Minute}

// ClusterOptions describe one hosted cluster.
type ClusterOptions struct {
	// Name of the HostedCluster.
	Name string
	// Namespace of the HostedCluster and its NodePool; empty means
	// Options.Namespace.
	Namespace string
	// UpgradeType of its NodePool.
	UpgradeType hyperv1.UpgradeType
	// Nodes of each of its NodePools; zero means 3.
	Nodes int
	// NodePools is how many NodePools it has; zero means 1. One is named
	// NAME-workers, more NAME-workers-1..N. They share UpgradeType and
	// Nodes, and, as HyperShift's, each rolls on its own once the control
	// plane is updated, all at the same time.
	NodePools int
	// Faults of its update.
	Faults []Fault
}

// Options describe the simulated management cluster.
type Options struct {
	// Namespace of the HostedClusters and NodePools; empty means "clusters"
	// (the hcp CLI's default). Each control plane lives in
	// hypershift.ControlPlaneNamespace(Namespace, name).
	Namespace string
	// Clusters are the hosted clusters.
	Clusters []ClusterOptions
	// FromVersion and ToVersion: the update; empty means
	// simulator.DefaultFromVersion and simulator.DefaultToVersion.
	FromVersion, ToVersion string
	// Speed divides every duration; zero means 1.
	Speed float64
	// Timing at speed 1; zero fields take DefaultTiming's.
	Timing Timing
	// DrainTimeout is each NodePool's nodeDrainTimeout (speed 1: the
	// NodePool carries it divided by Speed, as every duration the simulated
	// cluster lives through); zero means 5 minutes.
	DrainTimeout time.Duration
	// HeldDrain is how long FaultHeldDrain holds a drain (speed 1); zero
	// means twice DrainTimeout.
	HeldDrain time.Duration
	// Clock is the only source of time; nil means the real clock.
	Clock clock.WithTicker
	// Sink receives the objects (simulator.NewAPISink).
	Sink simulator.Sink
	// Components is how many ControlPlaneComponents each control plane
	// has (ComponentNames); zero means len(Components).
	Components int
	// WaveSize is how many hosted clusters an update starts at once, in
	// the order of Clusters; zero means all of them in one wave.
	WaveSize int
	// WaveInterval is the time between the starts of two waves (speed 1,
	// divided by Speed as every duration); zero means the next wave starts
	// at the next step.
	WaveInterval time.Duration
	// OnWave, when set, is called as each wave starts, with its index (0
	// for the first) and its hosted clusters' names, before their objects
	// are written; it must not call the Simulator.
	OnWave func(wave int, clusters []string)
}

// NewClusters names n hosted clusters hosted-1..n, alternating Replace and
// InPlace NodePools.
func NewClusters(n int) []ClusterOptions {
	out := make([]ClusterOptions, n)
	for i := range out {
		out[i] = ClusterOptions{Name: fmt.Sprintf("hosted-%d", i+1), UpgradeType: hyperv1.UpgradeTypeReplace}
		if i%2 == 1 {
			out[i].UpgradeType = hyperv1.UpgradeTypeInPlace
		}
	}
	return out
}

func (o *Options) complete() error {
	if o.Namespace == "" {
		o.Namespace = "clusters"
	}
	if o.FromVersion == "" {
		o.FromVersion = simulator.DefaultFromVersion
	}
	if o.ToVersion == "" {
		o.ToVersion = simulator.DefaultToVersion
	}
	if o.FromVersion == o.ToVersion {
		return fmt.Errorf("hosted: from and to version are both %s", o.FromVersion)
	}
	if o.Speed <= 0 {
		o.Speed = 1
	}
	d := DefaultTiming
	for _, f := range []struct {
		dst *time.Duration
		def time.Duration
	}{
		{&o.Timing.Component, d.Component}, {&o.Timing.CVO, d.CVO}, {&o.Timing.Provision, d.Provision},
		{&o.Timing.Drain, d.Drain}, {&o.Timing.Reboot, d.Reboot},
	} {
		if *f.dst <= 0 {
			*f.dst = f.def
		}
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = 5 * time.Minute
	}
	if o.HeldDrain <= 0 {
		o.HeldDrain = 2 * o.DrainTimeout
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Sink == nil {
		return errors.New("hosted: no sink")
	}
	if o.Components < 0 || o.WaveSize < 0 || o.WaveInterval < 0 {
		return fmt.Errorf("hosted: components (%d), wave size (%d) and wave interval (%s) must not be negative", o.Components, o.WaveSize, o.WaveInterval)
	}
	if o.Components == 0 {
		o.Components = len(Components)
	}
	if len(o.Clusters) == 0 {
		return errors.New("hosted: no hosted clusters")
	}
	seen := map[string]bool{}
	for i := range o.Clusters {
		c := &o.Clusters[i]
		if c.Name == "" || seen[c.Name] {
			return fmt.Errorf("hosted: cluster %d: empty or duplicate name %q", i, c.Name)
		}
		seen[c.Name] = true
		if c.Nodes <= 0 {
			c.Nodes = 3
		}
		if c.NodePools < 0 {
			return fmt.Errorf("hosted: cluster %s: negative NodePools %d", c.Name, c.NodePools)
		}
		if c.UpgradeType != hyperv1.UpgradeTypeReplace && c.UpgradeType != hyperv1.UpgradeTypeInPlace {
			return fmt.Errorf("hosted: cluster %s: unknown upgrade type %q", c.Name, c.UpgradeType)
		}
		for _, f := range c.Faults {
			switch f {
			case FaultStuckComponent, FaultBadImage, FaultNoProvision, FaultHeldDrain:
			default:
				return fmt.Errorf("hosted: cluster %s: unknown fault %q", c.Name, f)
			}
			if (f == FaultNoProvision || f == FaultHeldDrain) && c.UpgradeType != hyperv1.UpgradeTypeReplace {
				return fmt.Errorf("hosted: cluster %s: fault %s needs a Replace NodePool (CAPI drains and provisions only there)", c.Name, f)
			}
		}
	}
	return nil
}

// Simulator plays, for every hosted cluster, the HyperShift operator, the
// control-plane operator, the hosted CVO (through the HostedCluster's
// status.version) and Cluster API.
type Simulator struct {
	mu       sync.Mutex
	opts     Options
	clusters []*cluster
	step     int
	created  bool
	// target is the version of the latest update started; waiting are the
	// clusters whose wave has not started yet, the next wave due at
	// waveNext.
	target   string
	waiting  []*cluster
	wave     int
	waveNext time.Time
	// pending holds the objects changed since the last write.
	pending []simulator.Change
}

// New validates o and returns a Simulator; Create writes the clusters.
func New(o Options) (*Simulator, error) {
	if err := o.complete(); err != nil {
		return nil, err
	}
	s := &Simulator{opts: o}
	for _, co := range o.Clusters {
		s.clusters = append(s.clusters, &cluster{sim: s, opts: co})
	}
	return s, nil
}

func (s *Simulator) scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) / s.opts.Speed)
}

// Create writes every hosted cluster at FromVersion, idle.
func (s *Simulator) Create(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	s.created = true
	marked := map[string]bool{}
	for _, c := range s.clusters {
		if ns := c.namespace(); !marked[ns] {
			marked[ns] = true
			s.mark(&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns}}, true, false, false)
		}
		c.create(now)
	}
	return s.flush(ctx, now)
}

// StartUpdate points the HostedClusters and NodePools at ToVersion, wave
// by wave: the first wave now, the others at the following steps due.
func (s *Simulator) StartUpdate(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startWaves(ctx, s.opts.ToVersion)
}

// StartNextUpdate chains an update to version, in waves as StartUpdate,
// once every cluster is done.
func (s *Simulator) StartNextUpdate(ctx context.Context, version string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiting) > 0 {
		return fmt.Errorf("hosted: %d hosted clusters wait for their wave", len(s.waiting))
	}
	for _, c := range s.clusters {
		if !c.done() {
			return fmt.Errorf("hosted: %s is still updating", c.opts.Name)
		}
	}
	return s.startWaves(ctx, version)
}

// startWaves starts an update to version: its first wave now.
func (s *Simulator) startWaves(ctx context.Context, version string) error {
	now := s.opts.Clock.Now()
	s.target, s.wave = version, 0
	s.waiting = slices.Clone(s.clusters)
	s.startWave(now)
	return s.flush(ctx, now)
}

// startWave starts the next WaveSize waiting clusters and schedules the
// wave after.
func (s *Simulator) startWave(now time.Time) {
	n := len(s.waiting)
	if s.opts.WaveSize > 0 {
		n = min(n, s.opts.WaveSize)
	}
	wave := s.waiting[:n]
	s.waiting = s.waiting[n:]
	if s.opts.OnWave != nil {
		names := make([]string, len(wave))
		for i, c := range wave {
			names[i] = c.opts.Name
		}
		s.opts.OnWave(s.wave, names)
	}
	for _, c := range wave {
		c.start(now, s.target)
	}
	s.wave++
	s.waveNext = time.Time{}
	if len(s.waiting) > 0 {
		s.waveNext = now.Add(s.scale(s.opts.WaveInterval))
	}
}

// StepResult is what Step did.
type StepResult struct {
	// Changes is the number of objects written.
	Changes int
	// Next is when the next transition is due; zero when nothing is
	// scheduled (done, or stalled by a fault).
	Next time.Time
	// Done reports that every cluster's update is complete.
	Done bool
}

// ErrStalled: nothing is scheduled and an update is not done (a fault holds it).
var ErrStalled = errors.New("hosted: the update is stalled")

// StalledError is the error of Run and RunVirtual when every hosted
// cluster that can finish its update has, every wave has started, and the
// others are held by a fault that never clears (stuck-component,
// no-provision, bad-image): nothing is left to do. errors.Is(err,
// ErrStalled) holds.
type StalledError struct {
	// Clusters are the stalled hosted clusters, namespace/name, in the
	// order of Options.Clusters.
	Clusters []string
}

func (e *StalledError) Error() string {
	return fmt.Sprintf("%v: %d hosted clusters cannot finish: %s", ErrStalled, len(e.Clusters), strings.Join(e.Clusters, ", "))
}

// Unwrap makes errors.Is(err, ErrStalled) hold.
func (e *StalledError) Unwrap() error { return ErrStalled }

// stalled returns the StalledError of the clusters not done.
func (s *Simulator) stalled() *StalledError {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := &StalledError{}
	for _, c := range s.clusters {
		if !c.done() {
			e.Clusters = append(e.Clusters, c.namespace()+"/"+c.opts.Name)
		}
	}
	return e
}

// Step performs, for each cluster, the one transition of each of its tracks
// that is due, and writes the changed objects: every state is written, none
// skipped.
func (s *Simulator) Step(ctx context.Context) (StepResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	for _, c := range s.clusters {
		c.advance(now)
	}
	if len(s.waiting) > 0 && !now.Before(s.waveNext) {
		s.startWave(now)
	}
	n := len(s.pending)
	if err := s.flush(ctx, now); err != nil {
		return StepResult{}, err
	}
	res := StepResult{Changes: n, Done: len(s.waiting) == 0, Next: s.waveNext}
	for _, c := range s.clusters {
		if !c.done() {
			res.Done = false
		}
		for _, t := range c.nextTimes() {
			if !t.IsZero() && (res.Next.IsZero() || t.Before(res.Next)) {
				res.Next = t
			}
		}
	}
	return res, nil
}

// begin creates the clusters and starts the update unless done already.
func (s *Simulator) begin(ctx context.Context) error {
	s.mu.Lock()
	created, started := s.created, s.target != ""
	s.mu.Unlock()
	if !created {
		if err := s.Create(ctx); err != nil {
			return err
		}
	}
	if !started {
		return s.StartUpdate(ctx)
	}
	return nil
}

// Run creates the clusters and starts the update if needed, then steps in
// real time until every update is done (nil), the rest are stalled by
// faults (a *StalledError) or ctx ends.
func (s *Simulator) Run(ctx context.Context) error {
	if err := s.begin(ctx); err != nil {
		return err
	}
	for {
		res, err := s.Step(ctx)
		if err != nil || res.Done {
			return err
		}
		if res.Next.IsZero() {
			return s.stalled()
		}
		wait := max(res.Next.Sub(s.opts.Clock.Now()), 10*time.Millisecond)
		t := s.opts.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C():
		}
	}
}

// RunVirtual is Run on the virtual clock fc (the simulator's): it jumps to
// each next transition until every update is done (nil), nothing is
// scheduled (a *StalledError) or maxSteps steps ran.
func (s *Simulator) RunVirtual(ctx context.Context, fc simulator.VirtualClock, maxSteps int) error {
	if fc == nil || s.opts.Clock != clock.WithTicker(fc) {
		return errors.New("hosted: RunVirtual needs the simulator's own virtual clock")
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	for i := 0; i < maxSteps; i++ {
		res, err := s.Step(ctx)
		if err != nil || res.Done {
			return err
		}
		if res.Next.IsZero() {
			return s.stalled()
		}
		if res.Next.After(fc.Now()) {
			fc.SetTime(res.Next)
		}
	}
	return fmt.Errorf("hosted: not done after %d steps", maxSteps)
}

// mark queues obj for the next write.
func (s *Simulator) mark(obj runtime.Object, create, spec, status bool) {
	for i := range s.pending {
		if s.pending[i].Object == obj {
			ch := &s.pending[i]
			ch.Create, ch.Spec, ch.Status = ch.Create || create, ch.Spec || spec, ch.Status || status
			return
		}
	}
	s.pending = append(s.pending, simulator.Change{Object: obj, Create: create, Spec: spec, Status: status})
}

// markDelete queues the deletion of obj.
func (s *Simulator) markDelete(obj runtime.Object) {
	s.pending = append(s.pending, simulator.Change{Object: obj, Delete: true})
}

// flush converts the pending objects (with the fields newer than the
// hypershift/api module) and writes them as one batch; what the server
// stored (resource version, UID, generation) goes back into the model.
func (s *Simulator) flush(ctx context.Context, now time.Time) error {
	if len(s.pending) == 0 {
		return nil
	}
	batch := &simulator.Batch{Step: s.step, Time: now}
	var objs []runtime.Object
	for _, ch := range s.pending {
		obj := ch.Object
		if _, ok := obj.(*corev1.Namespace); !ok {
			u, err := s.unstructured(obj)
			if err != nil {
				return err
			}
			ch.Object = u
		}
		objs = append(objs, obj)
		batch.Changes = append(batch.Changes, ch)
	}
	s.pending = nil
	s.step++
	if err := s.opts.Sink.Write(ctx, batch); err != nil {
		return err
	}
	for i, ch := range batch.Changes {
		u, ok := ch.Object.(*unstructured.Unstructured)
		if !ok || ch.Delete {
			continue
		}
		m := objs[i].(metav1.Object)
		m.SetResourceVersion(u.GetResourceVersion())
		m.SetUID(u.GetUID())
		m.SetGeneration(u.GetGeneration())
		m.SetCreationTimestamp(u.GetCreationTimestamp())
		m.SetDeletionTimestamp(u.GetDeletionTimestamp())
	}
	return nil
}

// unstructured converts a model object, adding its newer fields.
func (s *Simulator) unstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	u, err := hypershift.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	switch o := obj.(type) {
	case *hyperv1.HostedCluster, *hyperv1.HostedControlPlane:
		for _, c := range s.clusters {
			if obj == runtime.Object(c.hc) || obj == runtime.Object(c.hcp) {
				return u, hypershift.SetControlPlaneVersion(u, deepCopyCPV(c.cpVersion))
			}
		}
	case *hyperv1.NodePool:
		for _, c := range s.clusters {
			for _, p := range c.pools {
				if p.np == o {
					return u, hypershift.SetNodesInfo(u, p.nodesInfo())
				}
			}
		}
	}
	if cpc, ok := obj.(*hyperv1.ControlPlaneComponent); ok {
		if err := hypershift.SetComponentObservedGeneration(u, max(cpc.Generation, 1)); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// deepCopyCPV copies a ControlPlaneVersionStatus.
func deepCopyCPV(in *hypershift.ControlPlaneVersionStatus) *hypershift.ControlPlaneVersionStatus {
	if in == nil {
		return nil
	}
	out := *in
	out.History = append([]hypershift.ControlPlaneUpdateHistory(nil), in.History...)
	return &out
}

// AddFaults parses specs of the form NAME=FAULT (a hosted cluster of
// clusters and one of Faults) and adds each fault to its cluster.
func AddFaults(clusters []ClusterOptions, specs []string) error {
	for _, spec := range specs {
		name, fault, ok := strings.Cut(spec, "=")
		if !ok || !slices.Contains(Faults, Fault(fault)) {
			return fmt.Errorf("hosted: fault %q: want NAME=FAULT with FAULT one of %v", spec, Faults)
		}
		i := slices.IndexFunc(clusters, func(c ClusterOptions) bool { return c.Name == name })
		if i < 0 {
			return fmt.Errorf("hosted: fault %q: no hosted cluster %q", spec, name)
		}
		clusters[i].Faults = append(clusters[i].Faults, Fault(fault))
	}
	return nil
}

// ParseFaultShare parses FAULT=PERCENT: one of Faults and a share of the
// hosted clusters above 0 and at most 100 (e.g. stuck-component=5).
func ParseFaultShare(spec string) (Fault, float64, error) {
	fault, share, ok := strings.Cut(spec, "=")
	if !ok || !slices.Contains(Faults, Fault(fault)) {
		return "", 0, fmt.Errorf("hosted: fault share %q: want FAULT=PERCENT with FAULT one of %v", spec, Faults)
	}
	percent, err := strconv.ParseFloat(strings.TrimSuffix(share, "%"), 64)
	if err != nil || !(percent > 0 && percent <= 100) {
		return "", 0, fmt.Errorf("hosted: fault share %q: PERCENT must be a number above 0 and at most 100", spec)
	}
	return Fault(fault), percent, nil
}

// ShareFault gives f to percent% of the clusters, rounded up (a positive
// share faults at least one), and returns their names. The choice is
// deterministic, spread evenly over the clusters that can carry f: those
// without a fault yet and, for no-provision and held-drain, with a Replace
// NodePool. 5% of hosted-1..200 is every 20th: hosted-20, hosted-40, ...
func ShareFault(clusters []ClusterOptions, f Fault, percent float64) ([]string, error) {
	if !slices.Contains(Faults, f) || !(percent > 0 && percent <= 100) {
		return nil, fmt.Errorf("hosted: fault share %s=%g: want one of %v and a share above 0 and at most 100", f, percent, Faults)
	}
	var eligible []int
	for i, c := range clusters {
		if len(c.Faults) == 0 && (c.UpgradeType == hyperv1.UpgradeTypeReplace || f != FaultNoProvision && f != FaultHeldDrain) {
			eligible = append(eligible, i)
		}
	}
	n := int(math.Ceil(float64(len(clusters))*percent/100 - 1e-9))
	if n > len(eligible) {
		return nil, fmt.Errorf("hosted: fault share %s=%g: %d hosted clusters wanted, %d of %d can carry it", f, percent, n, len(eligible), len(clusters))
	}
	names := make([]string, 0, n)
	for j := range n {
		c := &clusters[eligible[(j+1)*len(eligible)/n-1]]
		c.Faults = append(c.Faults, f)
		names = append(names, c.Name)
	}
	return names, nil
}

// AddFaultShares applies FAULT=PERCENT specs (ParseFaultShare) in order
// with ShareFault and returns the names of the clusters faulted.
func AddFaultShares(clusters []ClusterOptions, specs []string) ([]string, error) {
	var out []string
	for _, spec := range specs {
		f, percent, err := ParseFaultShare(spec)
		if err != nil {
			return nil, err
		}
		names, err := ShareFault(clusters, f, percent)
		if err != nil {
			return nil, err
		}
		out = append(out, names...)
	}
	return out, nil
}

// Target returns the version of the latest update started ("" before
// StartUpdate).
func (s *Simulator) Target() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.target
}
