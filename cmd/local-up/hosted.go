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

package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// fleetWaveSize, fleetWaveInterval (at speed 1) and fleetStuckShare shape
// a fleet of more than defaultHostedClusters hosted clusters: its updates
// start in waves, and a share of its clusters has a stuck control-plane
// component, so one wave after another leaves a few stalled.
const (
	defaultHostedClusters = 3
	fleetWaveSize         = 10
	fleetWaveInterval     = 3 * time.Minute
	fleetStuckShare       = 5.0
)

// hostedFleet returns the options of n hosted clusters, hosted-N in
// namespace tenant-N (localstack.HostedReaderNamespace is tenant-1), the
// first with a held drain when heldDrain; past defaultHostedClusters, in
// waves with a share of stuck components.
func hostedFleet(n int, heldDrain bool) (hosted.Options, error) {
	clusters := hosted.NewClusters(n)
	for i := range clusters {
		clusters[i].Namespace = fmt.Sprintf("tenant-%d", i+1)
	}
	if heldDrain {
		clusters[0].Faults = []hosted.Fault{hosted.FaultHeldDrain}
	}
	o := hosted.Options{Clusters: clusters}
	if n > defaultHostedClusters {
		if _, err := hosted.ShareFault(clusters, hosted.FaultStuckComponent, fleetStuckShare); err != nil {
			return o, err
		}
		o.WaveSize, o.WaveInterval = fleetWaveSize, fleetWaveInterval
	}
	return o, nil
}

// driveHosted runs n hosted clusters (hostedFleet), one update after
// another, the first with a drain held for holdDrain (real time) past its
// NodePool's nodeDrainTimeout in every update. Once a fleet's update has
// stalled (its share of stuck components), the loop ends there and the
// stalled clusters stay as they are. It runs beside the standalone demo and
// never stops it: an error is logged and ends only this loop.
func driveHosted(ctx context.Context, cp *localstack.ControlPlane, n int, speed float64, holdDrain time.Duration) {
	err := func() error {
		qps := 50.0
		if n > defaultHostedClusters {
			qps = 200
		}
		sink, err := simulator.NewAPISink(cp.RESTConfig(&cp.Users.Admin), simulator.APISinkOptions{QPS: qps, Burst: 2 * int(qps)})
		if err != nil {
			return err
		}
		o, err := hostedFleet(n, holdDrain > 0)
		if err != nil {
			return err
		}
		o.Speed, o.Sink = speed, sink
		o.DrainTimeout, o.HeldDrain = holdDrain/3*time.Duration(speed), holdDrain*time.Duration(speed)
		o.OnWave = func(wave int, names []string) {
			if o.WaveSize > 0 {
				klog.InfoS("A wave of hosted clusters starts its update", "wave", wave+1, "clusters", len(names), "first", names[0])
			}
		}
		sim, err := hosted.New(o)
		if err != nil {
			return err
		}
		if err := sim.Create(ctx); err != nil {
			return err
		}
		if err := sim.StartUpdate(ctx); err != nil {
			return err
		}
		for {
			if err := sim.Run(ctx); err != nil {
				return err
			}
			next, err := simulator.NextPatch(sim.Target())
			if err != nil {
				return err
			}
			klog.InfoS("Starting the hosted clusters' next update", "version", next)
			if err := sim.StartNextUpdate(ctx, next); err != nil {
				return err
			}
		}
	}()
	var stalled *hosted.StalledError
	switch {
	case errors.As(err, &stalled):
		klog.InfoS("The hosted clusters' update is done but for the stalled ones, which stay as they are", "stalled", stalled.Clusters)
	case err != nil && !errors.Is(err, context.Canceled):
		klog.ErrorS(err, "The hosted clusters' simulation stopped; the standalone demo goes on")
	}
}
