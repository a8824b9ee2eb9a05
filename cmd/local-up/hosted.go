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

// driveHosted runs n hosted clusters (pkg/simulator/hosted), hosted-N in
// namespace tenant-N (localstack.HostedReaderNamespace is tenant-1), one
// update after another, the first with a drain
// held for holdDrain (real time) past its NodePool's nodeDrainTimeout in
// every update. It runs beside the standalone demo and never stops it: an
// error is logged and ends only this loop.
func driveHosted(ctx context.Context, cp *localstack.ControlPlane, n int, speed float64, holdDrain time.Duration) {
	err := func() error {
		sink, err := simulator.NewAPISink(cp.RESTConfig(&cp.Users.Admin), simulator.APISinkOptions{QPS: 50, Burst: 100})
		if err != nil {
			return err
		}
		clusters := hosted.NewClusters(n)
		for i := range clusters {
			clusters[i].Namespace = fmt.Sprintf("tenant-%d", i+1)
		}
		if holdDrain > 0 {
			clusters[0].Faults = []hosted.Fault{hosted.FaultHeldDrain}
		}
		sim, err := hosted.New(hosted.Options{Clusters: clusters, Speed: speed, Sink: sink,
			DrainTimeout: holdDrain / 3 * time.Duration(speed), HeldDrain: holdDrain * time.Duration(speed)})
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
			next, err := nextPatch(sim.Target())
			if err != nil {
				return err
			}
			klog.InfoS("Starting the hosted clusters' next update", "version", next)
			if err := sim.StartNextUpdate(ctx, next); err != nil {
				return err
			}
		}
	}()
	if err != nil && !errors.Is(err, context.Canceled) {
		klog.ErrorS(err, "The hosted clusters' simulation stopped; the standalone demo goes on")
	}
}
