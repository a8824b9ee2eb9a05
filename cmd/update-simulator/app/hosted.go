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

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/clock"

	hostedcrds "github.com/update-status/apiserver/pkg/hypershift/crds"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// runHosted drives --hosted-clusters hosted clusters through the update
// (and the --then chain) in real time.
func (o *Options) runHosted(ctx context.Context, out io.Writer) error {
	cfg, err := o.apiConfig(ctx, out, "HyperShift and Cluster API CRDs ", hostedcrds.Install)
	if err != nil {
		return err
	}
	sink, err := o.apiSink(cfg)
	if err != nil {
		return err
	}
	clusters, err := o.hostedClusters()
	if err != nil {
		return err
	}
	begin := time.Now()
	sim, err := hosted.New(hosted.Options{Namespace: o.HostedNamespace, Clusters: clusters, FromVersion: o.From, ToVersion: o.To,
		Speed: o.Speed, Clock: clock.RealClock{}, Sink: sink, Components: o.HostedComponents,
		WaveSize: o.HostedWaveSize, WaveInterval: o.HostedWaveInterval,
		OnWave: func(wave int, names []string) {
			if o.HostedWaveSize > 0 && !o.Quiet {
				_, _ = fmt.Fprintf(out, "hosted: wave %d starts at +%s: %d hosted clusters, %s..%s\n", wave+1, time.Since(begin).Round(time.Second), len(names), names[0], names[len(names)-1])
			}
		}})
	if err != nil {
		return err
	}
	if err := sim.Create(ctx); err != nil {
		return err
	}
	_, _ = fmt.Fprintf(out, "hosted: %d hosted clusters in namespace %s at %s\n", len(clusters), o.HostedNamespace, o.From)
	if o.CreateOnly {
		return nil
	}
	if o.Idle > 0 {
		if err := sleep(ctx, o.Idle); err != nil {
			return err
		}
	}
	begin = time.Now()
	if err := sim.StartUpdate(ctx); err != nil {
		return err
	}
	for i := 0; ; i++ {
		err = sim.Run(ctx)
		if err != nil || i == len(o.Then) {
			break
		}
		_, _ = fmt.Fprintf(out, "hosted: update done in %s; next update to %s\n", time.Since(begin).Round(time.Second), o.Then[i])
		if err = sim.StartNextUpdate(ctx, o.Then[i]); err != nil {
			return err
		}
	}
	var stalled *hosted.StalledError
	switch {
	case errors.As(err, &stalled):
		// The faults asked for: the update ends with the stalled clusters
		// held where their faults hold them.
		_, _ = fmt.Fprintf(out, "hosted: update done in %s but for %d hosted clusters stalled by their faults: %s\n",
			time.Since(begin).Round(time.Second), len(stalled.Clusters), strings.Join(stalled.Clusters, ", "))
		return nil
	case errors.Is(err, context.Canceled):
		return nil
	case err != nil:
		return err
	}
	_, _ = fmt.Fprintf(out, "hosted: update done in %s\n", time.Since(begin).Round(time.Second))
	return nil
}

// apiConfig reads --kubeconfig and, with --install-crds, installs the CRDs
// with install, saying on out that the CRDs (what) are installed.
func (o *Options) apiConfig(ctx context.Context, out io.Writer, what string, install func(context.Context, *rest.Config) error) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	if o.InstallCRDs {
		begin := time.Now()
		if err := install(ctx, cfg); err != nil {
			return nil, err
		}
		_, _ = fmt.Fprintf(out, "crds: %sinstalled and established in %s\n", what, time.Since(begin).Round(time.Millisecond))
	}
	return cfg, nil
}

// apiSink writes to the API server of cfg at --qps and --burst with
// --workers writers.
func (o *Options) apiSink(cfg *rest.Config) (*simulator.APISink, error) {
	return simulator.NewAPISink(cfg, simulator.APISinkOptions{QPS: o.QPS, Burst: o.Burst, Workers: o.Workers})
}
