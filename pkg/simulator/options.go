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
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/utils/clock"
)

// Limits on the size of a simulated cluster.
const (
	// MaxNodes is the largest cluster the simulator builds.
	MaxNodes = 10000
	// MaxNodeImages is the most images a simulated Node reports.
	MaxNodeImages = 60
	// MaxWorkerPools is the largest number of worker pools (the API server
	// reports at most 32 worker pools).
	MaxWorkerPools = 32
)

// Default versions: an update across a minor version, as most updates are.
const (
	DefaultFromVersion = "4.19.10"
	DefaultToVersion   = "4.20.1"
)

// NextPatch returns version with its patch number increased (4.20.1 ->
// 4.20.2): the next update of a cluster that updates again and again.
func NextPatch(version string) (string, error) {
	i := strings.LastIndexByte(version, '.')
	patch, err := strconv.Atoi(version[i+1:])
	if i < 0 || err != nil {
		return "", fmt.Errorf("version %q does not end in a patch number", version)
	}
	return version[:i+1] + strconv.Itoa(patch+1), nil
}

// Options describe the simulated cluster and how the update unfolds.
type Options struct {
	// Nodes is the total number of nodes, 1 to MaxNodes.
	Nodes int
	// ControlPlaneNodes is the number of nodes in the master pool. Zero means 3,
	// or all nodes when Nodes is 3 or less (a compact cluster, whose nodes carry
	// both the master and the worker role, as in fixture 4.16.0-compact).
	ControlPlaneNodes int
	// WorkerPools lists the worker pools. Empty means one pool named "worker".
	// A pool named "worker" selects nodes by node-role.kubernetes.io/worker;
	// any other name is a custom pool that selects node-role.kubernetes.io/<name>
	// (its nodes also carry the worker role, so they match both pools and the
	// custom pool wins, as in OpenShift). Pools without a node count share the
	// nodes left after the control plane and the counted pools.
	WorkerPools []PoolOptions

	// FromVersion is the version the cluster runs at creation (semver).
	FromVersion string
	// ToVersion is the version the update goes to (semver, different from FromVersion).
	ToVersion string
	// InstallVersion is the version the cluster was installed with, the oldest
	// history entry. Empty means FromVersion's minor minus one, patch 0; when
	// that equals FromVersion the cluster counts as freshly installed.
	InstallVersion string

	// Speed divides every simulated duration: 1 is real time, 60 turns an
	// hour-long update into about a minute. Zero means 1.
	Speed float64
	// Seed makes the random durations reproducible.
	Seed int64
	// Timing holds the durations at speed 1; zero fields take their defaults.
	Timing Timing

	// RouterPods, when positive, adds the default ingress router: that many
	// pods on the worker nodes and its PodDisruptionBudget
	// openshift-ingress/router-default, kept as the controllers would. A
	// drain evicts the router pods of its node (deleted, recreated on
	// another worker) while the budget allows; FaultDrainBlocked holds the
	// budget at disruptionsAllowed 0 with a pod on the held node. Zero
	// means none (the objects are written by an APISink only).
	RouterPods int

	// MachineConfigNodes, when set, writes a machineconfiguration.openshift.io/v1
	// MachineConfigNode per node, its conditions following the node's update
	// as the machine-config operator writes them (Cordoned, then Drained
	// Unknown while draining, the drainer's error when FaultDrainBlocked
	// holds the drain, Drained True, RebootedNode, Updated). The API needs
	// the MachineConfigNode CRD (ocp.MachineConfigNodeCRDFile).
	MachineConfigNodes bool

	// NodeImages is how many container images each Node reports in
	// status.images, as a kubelet does (its --node-status-max-images is 50
	// by default): they make most of a real Node's size, and so of its watch
	// events. 0 to MaxNodeImages; zero means none.
	NodeImages int

	// IdleFor is how long Run and RunVirtual leave the created cluster idle
	// before they request the update (real time, not scaled).
	IdleFor time.Duration

	// Clock is the only source of time. Nil means the real clock.
	Clock clock.WithTicker
	// MinStepInterval is the least time Run waits between two steps, so that a
	// high speed coalesces events instead of flooding the API. Zero means
	// 100ms; negative means no floor.
	MinStepInterval time.Duration
	// Sink receives the objects. Nil means no output (the state is still
	// available through Snapshot).
	Sink Sink
	// OnProgress, when set, is called after every step with a summary. It is
	// called with the simulator's lock held and must not call its methods.
	OnProgress func(Progress)
}

// PoolOptions describes one worker pool.
type PoolOptions struct {
	// Name is the MachineConfigPool name (a DNS-1123 label).
	Name string
	// Nodes is the number of nodes in the pool; zero means a share of the
	// nodes not claimed by other pools.
	Nodes int
	// MaxUnavailable is the pool's spec.maxUnavailable; nil means 1, the
	// MachineConfigPool default.
	MaxUnavailable *intstr.IntOrString
}

// Timing holds the durations of a simulated update at speed 1. Ranges are
// drawn uniformly with the seeded random source.
type Timing struct {
	// Accept is the time from the update request to the first operator update
	// (payload retrieval and verification).
	Accept time.Duration
	// OperatorMin and OperatorMax bound how long one operator takes to update;
	// operators with heavier workloads (static pods, daemon sets) scale it.
	OperatorMin, OperatorMax time.Duration
	// MCORollout is the time the machine-config operator takes from its new
	// Deployment to rendering the new MachineConfigs.
	MCORollout time.Duration
	// React is the time the machine-config daemon takes to notice a new
	// desired configuration and ask for a drain.
	React time.Duration
	// DrainMin and DrainMax bound how long a node drain takes.
	DrainMin, DrainMax time.Duration
	// ApplyMin and ApplyMax bound how long the daemon takes to write the new
	// configuration and OS image before it reboots.
	ApplyMin, ApplyMax time.Duration
	// Shutdown is the time from the reboot to the node turning NotReady.
	Shutdown time.Duration
	// BootMin and BootMax bound how long the node is down.
	BootMin, BootMax time.Duration
	// Ready is the time from the kubelet's first post after boot (NotReady)
	// to Ready, after which the daemon reports the new configuration.
	Ready time.Duration
	// Uncordon is the time the controller takes to uncordon a node.
	Uncordon time.Duration
	// DrainTimeout is how long a blocked drain lasts before the daemon marks
	// the node Degraded (one hour in OpenShift).
	DrainTimeout time.Duration
	// Complete is the time the cluster-version operator takes to notice that
	// the last operator reached the new version.
	Complete time.Duration
}

// DefaultTiming returns the durations of a typical update at speed 1.
func DefaultTiming() Timing {
	return Timing{
		Accept:       30 * time.Second,
		OperatorMin:  2 * time.Minute,
		OperatorMax:  4 * time.Minute,
		MCORollout:   time.Minute,
		React:        5 * time.Second,
		DrainMin:     30 * time.Second,
		DrainMax:     2 * time.Minute,
		ApplyMin:     time.Minute,
		ApplyMax:     2 * time.Minute,
		Shutdown:     30 * time.Second,
		BootMin:      90 * time.Second,
		BootMax:      3 * time.Minute,
		Ready:        20 * time.Second,
		Uncordon:     5 * time.Second,
		DrainTimeout: time.Hour,
		Complete:     10 * time.Second,
	}
}

// withDefaults fills zero fields from DefaultTiming.
func (t Timing) withDefaults() Timing {
	d := DefaultTiming()
	fill := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	fill(&t.Accept, d.Accept)
	fill(&t.OperatorMin, d.OperatorMin)
	fill(&t.OperatorMax, d.OperatorMax)
	fill(&t.MCORollout, d.MCORollout)
	fill(&t.React, d.React)
	fill(&t.DrainMin, d.DrainMin)
	fill(&t.DrainMax, d.DrainMax)
	fill(&t.ApplyMin, d.ApplyMin)
	fill(&t.ApplyMax, d.ApplyMax)
	fill(&t.Shutdown, d.Shutdown)
	fill(&t.BootMin, d.BootMin)
	fill(&t.BootMax, d.BootMax)
	fill(&t.Ready, d.Ready)
	fill(&t.Uncordon, d.Uncordon)
	fill(&t.DrainTimeout, d.DrainTimeout)
	fill(&t.Complete, d.Complete)
	return t
}

var poolNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// Validate returns every problem with o, aggregated; nil when o is usable
// (after defaulting).
func (o *Options) Validate() error {
	c := o.completed()
	var errs []error
	if c.RouterPods < 0 || c.RouterPods > MaxRouterPods {
		errs = append(errs, fmt.Errorf("router pods must be between 0 and %d, got %d", MaxRouterPods, c.RouterPods))
	}
	if c.NodeImages < 0 || c.NodeImages > MaxNodeImages {
		errs = append(errs, fmt.Errorf("node images must be between 0 and %d, got %d", MaxNodeImages, c.NodeImages))
	}
	if c.Nodes < 1 || c.Nodes > MaxNodes {
		errs = append(errs, fmt.Errorf("nodes must be between 1 and %d, got %d", MaxNodes, c.Nodes))
	}
	if c.ControlPlaneNodes < 1 || c.ControlPlaneNodes > c.Nodes {
		errs = append(errs, fmt.Errorf("control-plane nodes must be between 1 and the number of nodes (%d), got %d", c.Nodes, c.ControlPlaneNodes))
	}
	if len(c.WorkerPools) > MaxWorkerPools {
		errs = append(errs, fmt.Errorf("at most %d worker pools, got %d", MaxWorkerPools, len(c.WorkerPools)))
	}
	seen := map[string]bool{"master": true}
	claimed := 0
	for i, p := range c.WorkerPools {
		switch {
		case !poolNamePattern.MatchString(p.Name) || len(p.Name) > 50:
			errs = append(errs, fmt.Errorf("worker pool %d: invalid name %q (a DNS-1123 label of at most 50 characters)", i, p.Name))
		case seen[p.Name]:
			errs = append(errs, fmt.Errorf("worker pool %d: duplicate or reserved name %q", i, p.Name))
		}
		seen[p.Name] = true
		if p.Nodes < 0 {
			errs = append(errs, fmt.Errorf("worker pool %q: negative node count %d", p.Name, p.Nodes))
		}
		claimed += p.Nodes
		if p.MaxUnavailable != nil {
			if err := validateMaxUnavailable(p.MaxUnavailable); err != nil {
				errs = append(errs, fmt.Errorf("worker pool %q: %w", p.Name, err))
			}
		}
	}
	if c.Nodes >= 1 && c.ControlPlaneNodes >= 1 && claimed > c.Nodes-c.ControlPlaneNodes {
		errs = append(errs, fmt.Errorf("worker pools claim %d nodes but only %d are left after the control plane", claimed, c.Nodes-c.ControlPlaneNodes))
	}
	from, errFrom := version.ParseSemantic(c.FromVersion)
	if errFrom != nil {
		errs = append(errs, fmt.Errorf("from version %q: %w", c.FromVersion, errFrom))
	}
	to, errTo := version.ParseSemantic(c.ToVersion)
	if errTo != nil {
		errs = append(errs, fmt.Errorf("to version %q: %w", c.ToVersion, errTo))
	}
	if errFrom == nil && errTo == nil && from.EqualTo(to) {
		errs = append(errs, errors.New("from and to versions must differ"))
	}
	if c.InstallVersion != "" {
		if _, err := version.ParseSemantic(c.InstallVersion); err != nil {
			errs = append(errs, fmt.Errorf("install version %q: %w", c.InstallVersion, err))
		}
	}
	if c.Speed <= 0 || c.Speed > 1e6 {
		errs = append(errs, fmt.Errorf("speed must be in (0, 1e6], got %g", c.Speed))
	}
	t := c.Timing
	for _, r := range []struct {
		name     string
		min, max time.Duration
	}{
		{"operator", t.OperatorMin, t.OperatorMax},
		{"drain", t.DrainMin, t.DrainMax},
		{"apply", t.ApplyMin, t.ApplyMax},
		{"boot", t.BootMin, t.BootMax},
	} {
		if r.min < 0 || r.max < r.min {
			errs = append(errs, fmt.Errorf("timing: %s range [%s, %s] is invalid", r.name, r.min, r.max))
		}
	}
	return utilerrors.NewAggregate(errs)
}

// validateMaxUnavailable accepts a non-negative integer or a percentage.
func validateMaxUnavailable(v *intstr.IntOrString) error {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, false)
	if err != nil || n < 0 || (v.Type == intstr.String && !strings.HasSuffix(v.StrVal, "%")) {
		return fmt.Errorf("invalid maxUnavailable %q: want a non-negative integer or a percentage", v.String())
	}
	return nil
}

// compact reports whether the control-plane nodes also carry the worker role.
func (o *Options) compact() bool { return o.Nodes == o.ControlPlaneNodes }

// completed returns a copy of o with every default filled in.
func (o *Options) completed() Options {
	c := *o
	if c.ControlPlaneNodes == 0 {
		c.ControlPlaneNodes = 3
		if c.Nodes <= 3 {
			c.ControlPlaneNodes = c.Nodes
		}
	}
	if len(c.WorkerPools) == 0 {
		c.WorkerPools = []PoolOptions{{Name: "worker"}}
	} else {
		c.WorkerPools = append([]PoolOptions(nil), c.WorkerPools...)
	}
	if c.FromVersion == "" {
		c.FromVersion = DefaultFromVersion
	}
	if c.ToVersion == "" {
		c.ToVersion = DefaultToVersion
	}
	if c.InstallVersion == "" {
		if v, err := version.ParseSemantic(c.FromVersion); err == nil && v.Minor() > 0 {
			c.InstallVersion = fmt.Sprintf("%d.%d.0", v.Major(), v.Minor()-1)
		}
	}
	if c.Speed == 0 {
		c.Speed = 1
	}
	if c.Clock == nil {
		c.Clock = clock.RealClock{}
	}
	if c.MinStepInterval == 0 {
		c.MinStepInterval = 100 * time.Millisecond
	}
	c.Timing = c.Timing.withDefaults()
	return c
}

// String describes the cluster shape in one line, for logs.
func (o *Options) String() string {
	c := o.completed()
	pools := make([]string, 0, len(c.WorkerPools))
	for _, p := range c.WorkerPools {
		pools = append(pools, p.Name)
	}
	return fmt.Sprintf("%d nodes (%d control plane; pools %s), %s -> %s, speed %g, seed %d",
		c.Nodes, c.ControlPlaneNodes, strings.Join(pools, ","), c.FromVersion, c.ToVersion, c.Speed, c.Seed)
}
