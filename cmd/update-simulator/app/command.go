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

package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/internal/cmdflags"
	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/simulator"
)

// NewCommand returns the update-simulator command.
func NewCommand(ctx context.Context, out io.Writer) *cobra.Command {
	o := NewOptions()
	return cmdflags.New(cmdflags.Command{
		Use:   "update-simulator (--kubeconfig FILE | --output-dir DIR) [flags]",
		Short: "Drive a simulated OpenShift cluster through an update",
		Long: "update-simulator creates a simulated OpenShift cluster (ClusterVersion, ClusterOperators,\n" +
			"MachineConfigPools, MachineConfigs, Nodes, the machine-config-operator Deployment) and drives\n" +
			"it through an update, as the real operators would: through the API of a kube-apiserver\n" +
			"(status via the status subresource), or as files, one directory per state.",
		Out:      out,
		Flags:    func(fss *cliflag.NamedFlagSets) { o.AddFlags(fss.FlagSet("simulation")) },
		Validate: o.Validate,
		Run:      func(cmd *cobra.Command) error { return o.Run(ctx, cmd.OutOrStdout()) },
	})
}

// Run executes the command line and returns the exit code.
func Run(ctx context.Context, args []string, out, errOut io.Writer) int {
	cmd := NewCommand(ctx, out)
	cmd.SetErr(errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	klog.Flush()
	if err != nil {
		_, _ = fmt.Fprintln(errOut, "error:", err)
		return 1
	}
	return 0
}

// Run creates the cluster and drives the update. o must be valid. What it
// prints to out is a report for a person: a failed write does not stop the
// update, so its error is not checked.
func (o *Options) Run(ctx context.Context, out io.Writer) error {
	if o.HostedClusters > 0 {
		return o.runHosted(ctx, out)
	}
	so, err := o.simulatorOptions()
	if err != nil {
		return err
	}
	var fake simulator.VirtualClock
	if o.OutputDir != "" {
		start := time.Now().UTC().Truncate(time.Second)
		if o.StartTime != "" {
			if start, err = time.Parse(time.RFC3339, o.StartTime); err != nil {
				return err
			}
		}
		fake = simulator.NewVirtualClock(start)
		so.Clock = fake
		sink, err := simulator.NewFileSink(o.OutputDir)
		if err != nil {
			return err
		}
		sink.JSON = o.JSON
		so.Sink = sink
	} else {
		so.Clock = clock.RealClock{}
		cfg, err := o.apiConfig(ctx, out, "", func(ctx context.Context, cfg *rest.Config) error {
			if err := ocp.InstallCRDs(ctx, cfg); err != nil {
				return err
			}
			if o.MachineConfigNodes {
				return ocp.InstallMachineConfigNodeCRD(ctx, cfg)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if so.Sink, err = o.apiSink(cfg); err != nil {
			return err
		}
	}
	if !o.Quiet {
		so.OnProgress = func(p simulator.Progress) { _, _ = fmt.Fprintln(out, formatProgress(p)) }
	}
	s, err := simulator.New(so)
	if err != nil {
		return err
	}
	_, _ = fmt.Fprintf(out, "cluster: %s\n", so.String())

	begin := time.Now()
	if err := s.Create(ctx); err != nil {
		return err
	}
	took := time.Since(begin)
	_, _ = fmt.Fprintf(out, "create: %d nodes, %d objects in %s; %s\n", so.Nodes, len(s.NodeNames(""))+objectsBesideNodes(s), took.Round(time.Millisecond), o.rate(s.Requests(), took))
	if o.CreateOnly {
		return nil
	}

	if o.Idle > 0 {
		if fake != nil {
			fake.Step(o.Idle)
		} else if err := sleep(ctx, o.Idle); err != nil {
			return err
		}
	}
	begin = time.Now()
	if err := s.StartUpdate(ctx); err != nil {
		return err
	}
	for _, spec := range o.Faults {
		f, err := ParseFault(spec)
		if err != nil {
			return err
		}
		if _, err := s.Inject(ctx, f); err != nil {
			return err
		}
	}
	simStart := so.Clock.Now()
	for i := 0; ; i++ {
		if fake != nil {
			err = s.RunVirtual(ctx, fake, o.MaxSteps)
		} else {
			err = s.Run(ctx)
		}
		if err != nil || i == len(o.Then) {
			break
		}
		_, _ = fmt.Fprintf(out, "update: %s in %s; next update to %s\n", s.Phase(), so.Clock.Now().Sub(simStart).Round(time.Second), o.Then[i])
		if err = s.StartNextUpdate(ctx, o.Then[i]); err != nil {
			return err
		}
	}
	elapsed := time.Since(begin)
	switch {
	case errors.Is(err, simulator.ErrStalled):
		_, _ = fmt.Fprintf(out, "update: stalled in phase %s: nothing more happens until a fault is cleared\n", s.Phase())
	case err != nil:
		return err
	case fake != nil:
		_, _ = fmt.Fprintf(out, "update: %s in %s of simulated time\n", s.Phase(), so.Clock.Now().Sub(simStart).Round(time.Second))
	default:
		_, _ = fmt.Fprintf(out, "update: %s in %s (about %s at speed 1)\n", s.Phase(), elapsed.Round(time.Second),
			time.Duration(float64(elapsed)*o.Speed).Round(time.Minute))
	}
	if fake == nil {
		_, _ = fmt.Fprintf(out, "update: %s\n", o.rate(s.Requests(), elapsed))
	}
	return nil
}

// objectsBesideNodes counts the objects created besides nodes: the
// namespace, ClusterVersion, MCO Deployment, operators, pools and configs.
func objectsBesideNodes(s *simulator.Simulator) int {
	st := s.Snapshot()
	return 3 + len(st.ClusterOperators) + len(st.MachineConfigPools) + len(st.MachineConfigs)
}

// rate describes an API request count over a duration, with the bound used.
func (o *Options) rate(requests int64, d time.Duration) string {
	if o.Kubeconfig == "" {
		return "no API requests (files)"
	}
	bound := "unbounded"
	if o.QPS > 0 {
		burst := o.Burst
		if burst == 0 {
			burst = max(1, int(o.QPS))
		}
		bound = fmt.Sprintf("bound %g qps, burst %d", o.QPS, burst)
	}
	perSecond := 0.0
	if d > 0 {
		perSecond = float64(requests) / d.Seconds()
	}
	return fmt.Sprintf("%d API requests, %.0f requests/s (%s, %d workers)", requests, perSecond, bound, o.Workers)
}

// formatProgress prints one step as a line.
func formatProgress(p simulator.Progress) string {
	var pools []string
	for _, pool := range p.Pools {
		s := fmt.Sprintf("%s=%d/%d", pool.Name, pool.Updated, pool.Total)
		if pool.Unavailable > 0 {
			s += fmt.Sprintf(",unavailable:%d", pool.Unavailable)
		}
		if pool.Degraded > 0 {
			s += fmt.Sprintf(",degraded:%d", pool.Degraded)
		}
		if pool.Paused {
			s += ",paused"
		}
		pools = append(pools, s)
	}
	return fmt.Sprintf("step %d %s phase=%s operators=%d/%d pools=[%s] changes=%d",
		p.Step, p.Time.UTC().Format(time.RFC3339), p.Phase, p.OperatorsUpdated, p.OperatorsTotal, strings.Join(pools, " "), p.Changes)
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
