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

// Package app is the update-simulator command: flags, validation, and the
// run that wires pkg/simulator to a kube-apiserver or to files.
package app

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/version"

	"github.com/update-status/apiserver/internal/flagcheck"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// Options holds every flag of the command.
type Options struct {
	// Where the objects go: exactly one of the two.
	Kubeconfig string
	OutputDir  string
	// JSON writes the files as indented JSON instead of YAML.
	JSON bool

	// InstallCRDs applies the OpenShift CRDs before creating objects.
	InstallCRDs bool
	// MachineConfigNodes writes a MachineConfigNode per node (and, with
	// InstallCRDs, installs its CRD).
	MachineConfigNodes bool
	// CreateOnly creates the cluster, reports the time and request rate,
	// and exits.
	CreateOnly bool

	Nodes             int
	ControlPlaneNodes int
	Pools             []string

	From, To, Install string
	// Then lists further versions to update to, one after another.
	Then []string

	Speed float64
	Seed  int64

	QPS     float64
	Burst   int
	Workers int

	MinStep   time.Duration
	Idle      time.Duration
	StartTime string
	MaxSteps  int
	Faults    []string
	Quiet     bool

	// HostedClusters, when positive, simulates a HyperShift management
	// cluster with that many hosted clusters instead of a standalone
	// cluster (pkg/simulator/hosted).
	HostedClusters int
	// HostedNamespace holds the HostedClusters and NodePools.
	HostedNamespace string
	// HostedFaults are NAME=FAULT specs.
	HostedFaults []string
	// HostedFaultShares are FAULT=PERCENT specs (hosted.ParseFaultShare).
	HostedFaultShares []string
	// HostedWaveSize and HostedWaveInterval start the update in waves.
	HostedWaveSize     int
	HostedWaveInterval time.Duration
	// HostedNodePools is the number of NodePools per hosted cluster.
	HostedNodePools int
	// HostedComponents is the number of ControlPlaneComponents per hosted
	// cluster; zero means the simulator's default.
	HostedComponents int
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		InstallCRDs: true,
		Nodes:       6,
		From:        simulator.DefaultFromVersion,
		To:          simulator.DefaultToVersion,
		Speed:       1,
		Seed:        1,
		QPS:         200,
		Workers:     16,
		MinStep:     100 * time.Millisecond,
		MaxSteps:    1000000,

		HostedNodePools: 1,
	}
}

// AddFlags binds the options to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Write the objects to the kube-apiserver of this kubeconfig (real time, scaled by --speed)")
	fs.StringVar(&o.OutputDir, "output-dir", o.OutputDir, "Write each state as files under DIR/<step>/{cv,co,mcp,mc,node,mco-deployment}.yaml (v1 Lists) on a simulated clock, for `update-status compute --from-dir DIR/<step>`")
	fs.BoolVar(&o.JSON, "json", o.JSON, "With --output-dir: write indented JSON (also valid YAML, several times faster) instead of YAML")
	fs.BoolVar(&o.InstallCRDs, "install-crds", o.InstallCRDs, "With --kubeconfig: apply the ClusterVersion, ClusterOperator, MachineConfigPool and MachineConfig CRDs from the openshift/api module first")
	fs.BoolVar(&o.MachineConfigNodes, "machine-config-nodes", o.MachineConfigNodes, "With --kubeconfig: also write a MachineConfigNode per node, its conditions following the node's update as the machine-config operator writes them (with --install-crds, its CRD is applied too)")
	fs.BoolVar(&o.CreateOnly, "create-only", o.CreateOnly, "Create the cluster, print how long it took and the request rate, and exit")

	fs.IntVar(&o.Nodes, "nodes", o.Nodes, fmt.Sprintf("Number of nodes (1-%d)", simulator.MaxNodes))
	fs.IntVar(&o.ControlPlaneNodes, "control-plane-nodes", o.ControlPlaneNodes, "Nodes of the master pool; 0 means 3 (or all nodes when there are 3 or fewer: a compact cluster)")
	fs.StringArrayVar(&o.Pools, "pool", o.Pools, "A worker pool, NAME[=NODES][:MAXUNAVAILABLE], repeatable (e.g. worker:10%, infra=3, gpu=20:2). Pools without NODES share the remaining nodes. Default: one pool named worker")

	fs.StringVar(&o.From, "from", o.From, "Version the cluster runs at creation")
	fs.StringVar(&o.To, "to", o.To, "Version to update to")
	fs.StringArrayVar(&o.Then, "then", o.Then, "After the update completes, update again to this version; repeatable (a chain of updates)")
	fs.StringVar(&o.Install, "install-version", o.Install, "Version the cluster was installed with (oldest history entry); default: the previous minor, .0")

	fs.Float64Var(&o.Speed, "speed", o.Speed, "Speed factor: 1 is real time, 60 makes a ~70 minute update last about a minute")
	fs.Int64Var(&o.Seed, "seed", o.Seed, "Seed of the random durations (same seed, same update)")

	fs.Float64Var(&o.QPS, "qps", o.QPS, "With --kubeconfig: bound on API requests per second, all clients together (0: unbounded)")
	fs.IntVar(&o.Burst, "burst", o.Burst, "With --kubeconfig: requests allowed at once above --qps (0: same as --qps)")
	fs.IntVar(&o.Workers, "workers", o.Workers, "With --kubeconfig: concurrent requests")

	fs.DurationVar(&o.MinStep, "min-step", o.MinStep, "Least time between two steps (real time with --kubeconfig, simulated with --output-dir); coalesces events at high speeds")
	fs.DurationVar(&o.Idle, "idle", o.Idle, "How long the created cluster stays idle before the update is requested")
	fs.StringVar(&o.StartTime, "start-time", o.StartTime, "With --output-dir: the simulated clock's start (RFC 3339); default: now, to the second")
	fs.IntVar(&o.MaxSteps, "max-steps", o.MaxSteps, "With --output-dir: stop after this many steps")
	fs.IntVar(&o.HostedClusters, "hosted-clusters", o.HostedClusters, "Simulate a HyperShift management cluster with this many hosted clusters (hosted-1..N; odd ones with a Replace NodePool, even ones InPlace) updating from --from to --to, instead of a standalone cluster; needs --kubeconfig (with --install-crds, the HyperShift and Cluster API CRDs are applied too)")
	fs.StringVar(&o.HostedNamespace, "hosted-namespace", "clusters", "With --hosted-clusters: namespace of the HostedClusters and NodePools (each control plane lives in NAMESPACE-NAME)")
	fs.StringArrayVar(&o.HostedFaults, "hosted-fault", o.HostedFaults, "With --hosted-clusters: NAME=FAULT, repeatable; FAULT is stuck-component, no-provision, held-drain (Replace pools) or bad-image")
	fs.StringArrayVar(&o.HostedFaultShares, "hosted-fault-share", o.HostedFaultShares, "With --hosted-clusters: FAULT=PERCENT, repeatable: FAULT for that share of the hosted clusters (rounded up), chosen evenly and the same every run among those without a fault (e.g. stuck-component=5: hosted-20, hosted-40, ... of 200)")
	fs.IntVar(&o.HostedWaveSize, "hosted-wave-size", o.HostedWaveSize, "With --hosted-clusters: hosted clusters whose update starts at once, in name order; 0: all in one wave")
	fs.DurationVar(&o.HostedWaveInterval, "hosted-wave-interval", o.HostedWaveInterval, "With --hosted-wave-size: time between the starts of two waves (at speed 1, divided by --speed)")
	fs.IntVar(&o.HostedNodePools, "hosted-nodepools", o.HostedNodePools, "With --hosted-clusters: NodePools per hosted cluster (NAME-workers, or NAME-workers-1..N), each rolling on its own")
	fs.IntVar(&o.HostedComponents, "hosted-components", o.HostedComponents, "With --hosted-clusters: ControlPlaneComponents per hosted cluster; 0: the 14 core ones")
	fs.StringArrayVar(&o.Faults, "fault", o.Faults, "A fault injected when the update starts, KIND[:TARGET][@AFTER][+FOR], repeatable; "+
		"KIND is one of "+strings.Join(faultKindNames(), ", ")+" (e.g. operator-degraded:kube-apiserver@5m+30m, drain-blocked:worker+2h, pool-paused:worker, clusterversion-failing@10m+15m). "+
		"Durations are at speed 1; without +FOR the fault lasts until the end")
	fs.BoolVar(&o.Quiet, "quiet", o.Quiet, "Print only the summary, not a line per step")
}

func faultKindNames() []string {
	var out []string
	for _, k := range simulator.FaultKinds() {
		out = append(out, string(k))
	}
	return out
}

// Validate returns every problem with the flags.
func (o *Options) Validate() error {
	var errs []error
	switch {
	case o.Kubeconfig == "" && o.OutputDir == "":
		errs = append(errs, errors.New("one of --kubeconfig or --output-dir is required"))
	case o.Kubeconfig != "" && o.OutputDir != "":
		errs = append(errs, errors.New("--kubeconfig and --output-dir are mutually exclusive"))
	}
	errs = flagcheck.NotNegative(errs, "hosted-clusters", o.HostedClusters)
	if o.HostedClusters > 0 && o.Kubeconfig == "" {
		errs = append(errs, errors.New("--hosted-clusters needs --kubeconfig"))
	}
	errs = append(errs, o.validateHosted()...)
	if o.JSON && o.OutputDir == "" {
		errs = append(errs, errors.New("--json needs --output-dir"))
	}
	if o.StartTime != "" {
		if o.OutputDir == "" {
			errs = append(errs, errors.New("--start-time needs --output-dir"))
		} else if _, err := time.Parse(time.RFC3339, o.StartTime); err != nil {
			errs = append(errs, fmt.Errorf("invalid --start-time: %w", err))
		}
	}
	if o.QPS < 0 || o.Burst < 0 || o.Workers < 1 {
		errs = append(errs, fmt.Errorf("--qps and --burst must not be negative and --workers must be positive (got %g, %d, %d)", o.QPS, o.Burst, o.Workers))
	}
	errs = flagcheck.Positive(errs, "max-steps", o.MaxSteps)
	errs = flagcheck.NotNegative(errs, "idle", o.Idle)
	prev := o.To
	for _, v := range o.Then {
		if _, err := version.ParseSemantic(v); err != nil {
			errs = append(errs, fmt.Errorf("invalid --then %q: %w", v, err))
		} else if v == prev {
			errs = append(errs, fmt.Errorf("--then %q repeats the previous version", v))
		}
		prev = v
	}
	if o.CreateOnly && len(o.Faults) > 0 {
		errs = append(errs, errors.New("--fault makes no sense with --create-only"))
	}
	for _, f := range o.Faults {
		if _, err := ParseFault(f); err != nil {
			errs = append(errs, err)
		}
	}
	so, err := o.simulatorOptions()
	if err != nil {
		errs = append(errs, err)
	} else if err := so.Validate(); err != nil {
		errs = append(errs, err)
	}
	return utilerrors.NewAggregate(errs)
}

// validateHosted checks the --hosted-* flags.
func (o *Options) validateHosted() []error {
	var errs []error
	if o.HostedClusters == 0 {
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"--hosted-fault", len(o.HostedFaults) > 0}, {"--hosted-fault-share", len(o.HostedFaultShares) > 0},
			{"--hosted-wave-size", o.HostedWaveSize != 0}, {"--hosted-wave-interval", o.HostedWaveInterval != 0},
			{"--hosted-nodepools", o.HostedNodePools != 1}, {"--hosted-components", o.HostedComponents != 0},
		} {
			if f.set {
				errs = append(errs, fmt.Errorf("%s needs --hosted-clusters", f.name))
			}
		}
		return errs
	}
	errs = flagcheck.NotNegative(errs, "hosted-wave-size", o.HostedWaveSize)
	errs = flagcheck.NotNegative(errs, "hosted-wave-interval", o.HostedWaveInterval)
	if o.HostedWaveInterval > 0 && o.HostedWaveSize == 0 {
		errs = append(errs, errors.New("--hosted-wave-interval needs --hosted-wave-size"))
	}
	if o.HostedNodePools < 1 {
		errs = append(errs, fmt.Errorf("--hosted-nodepools must be at least 1, got %d", o.HostedNodePools))
	}
	errs = flagcheck.NotNegative(errs, "hosted-components", o.HostedComponents)
	if o.HostedClusters > 0 {
		if _, err := o.hostedClusters(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// hostedClusters names the hosted clusters and gives them their faults:
// --hosted-fault first, then --hosted-fault-share.
func (o *Options) hostedClusters() ([]hosted.ClusterOptions, error) {
	clusters := hosted.NewClusters(o.HostedClusters)
	for i := range clusters {
		clusters[i].NodePools = o.HostedNodePools
	}
	if err := hosted.AddFaults(clusters, o.HostedFaults); err != nil {
		return nil, fmt.Errorf("--hosted-fault: %w", err)
	}
	if _, err := hosted.AddFaultShares(clusters, o.HostedFaultShares); err != nil {
		return nil, fmt.Errorf("--hosted-fault-share: %w", err)
	}
	return clusters, nil
}

// simulatorOptions translates the flags (without clock, sink and callback).
func (o *Options) simulatorOptions() (simulator.Options, error) {
	so := simulator.Options{
		Nodes: o.Nodes, ControlPlaneNodes: o.ControlPlaneNodes,
		FromVersion: o.From, ToVersion: o.To, InstallVersion: o.Install,
		Speed: o.Speed, Seed: o.Seed, MinStepInterval: o.MinStep,
		MachineConfigNodes: o.MachineConfigNodes,
	}
	if o.MinStep == 0 {
		so.MinStepInterval = -1
	}
	var errs []error
	for _, p := range o.Pools {
		po, err := ParsePool(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		so.WorkerPools = append(so.WorkerPools, po)
	}
	return so, utilerrors.NewAggregate(errs)
}

// ParsePool parses NAME[=NODES][:MAXUNAVAILABLE].
func ParsePool(s string) (simulator.PoolOptions, error) {
	var p simulator.PoolOptions
	rest, maxUnavailable, hasMax := strings.Cut(s, ":")
	name, nodes, hasNodes := strings.Cut(rest, "=")
	p.Name = name
	if name == "" {
		return p, fmt.Errorf("invalid --pool %q: empty name", s)
	}
	if hasNodes {
		n, err := strconv.Atoi(nodes)
		if err != nil || n < 1 {
			return p, fmt.Errorf("invalid --pool %q: NODES must be a positive integer", s)
		}
		p.Nodes = n
	}
	if hasMax {
		v := intstr.Parse(maxUnavailable)
		if v.Type == intstr.String && !strings.HasSuffix(v.StrVal, "%") || maxUnavailable == "" {
			return p, fmt.Errorf("invalid --pool %q: MAXUNAVAILABLE must be an integer or a percentage", s)
		}
		p.MaxUnavailable = &v
	}
	return p, nil
}

// ParseFault parses KIND[:TARGET][@AFTER][+FOR].
func ParseFault(s string) (simulator.Fault, error) {
	var f simulator.Fault
	rest := s
	if i := strings.LastIndex(rest, "+"); i >= 0 {
		d, err := time.ParseDuration(rest[i+1:])
		if err != nil || d <= 0 {
			return f, fmt.Errorf("invalid --fault %q: +FOR must be a positive duration", s)
		}
		f.For, rest = d, rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		d, err := time.ParseDuration(rest[i+1:])
		if err != nil || d < 0 {
			return f, fmt.Errorf("invalid --fault %q: @AFTER must be a duration", s)
		}
		f.After, rest = d, rest[:i]
	}
	kind, target, _ := strings.Cut(rest, ":")
	f.Kind, f.Target = simulator.FaultKind(kind), target
	if !slices.Contains(simulator.FaultKinds(), f.Kind) {
		return f, fmt.Errorf("invalid --fault %q: unknown kind %q (one of %s)", s, kind, strings.Join(faultKindNames(), ", "))
	}
	if target == "" && f.Kind != simulator.FaultClusterVersionFailing {
		return f, fmt.Errorf("invalid --fault %q: %s needs a TARGET", s, kind)
	}
	return f, nil
}
