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
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/simulator"
)

// simulated drives the demo cluster with pkg/simulator: a realistic update,
// operators one after another and pools rolled node by node, in real time at
// a speed factor, one update after another.
type simulated struct {
	sim *simulator.Simulator
	// holdDrain, when positive, is how long (real time) a PodDisruptionBudget
	// holds the drain of one worker in every update, so that the alert
	// PodDisruptionBudgetAtLimit fires in the local Prometheus.
	holdDrain time.Duration
}

func newSimulated(cp *localstack.ControlPlane, nodes int, speed float64) (*simulated, error) {
	// A modest request rate keeps the demo light on a laptop. The Default
	// ClusterVersion CRD lacks the TechPreview spec.signatureStores field the
	// typed client always sends; its warning on every write is noise here.
	cfg := cp.RESTConfig(&cp.Users.Admin)
	cfg.WarningHandler = rest.NoWarnings{}
	sink, err := simulator.NewAPISink(cfg, simulator.APISinkOptions{QPS: 100, Burst: 200})
	if err != nil {
		return nil, err
	}
	sim, err := simulator.New(simulator.Options{Nodes: nodes, Speed: speed, Seed: time.Now().UnixNano(), Sink: sink, RouterPods: routerPods, MachineConfigNodes: withMCNs})
	if err != nil {
		return nil, err
	}
	return &simulated{sim: sim}, nil
}

// Create puts the cluster, mid-update, into the control plane: the cluster is
// created and its update requested.
func (s *simulated) Create(ctx context.Context) error {
	if err := s.sim.Create(ctx); err != nil {
		return err
	}
	if err := s.sim.StartUpdate(ctx); err != nil {
		return err
	}
	return s.blockOneDrain(ctx)
}

// blockOneDrain blocks the next drain of the worker pool until it has been
// held for holdDrain, then clears the fault (in the background).
func (s *simulated) blockOneDrain(ctx context.Context) error {
	if s.holdDrain <= 0 {
		return nil
	}
	id, err := s.sim.BlockDrain(ctx, "worker", 0)
	if err != nil {
		return err
	}
	go func() {
		var heldSince time.Time
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if heldSince.IsZero() && workerDraining(s.sim.Metrics()) {
				heldSince = time.Now()
				klog.InfoS("A PodDisruptionBudget holds a worker's drain", "for", s.holdDrain)
			}
			if s.sim.Phase() == simulator.PhaseCompleted || !heldSince.IsZero() && time.Since(heldSince) >= s.holdDrain {
				if err := s.sim.Clear(ctx, id); err != nil {
					klog.ErrorS(err, "Cannot release the held drain")
				}
				return
			}
		}
	}()
	return nil
}

// workerDraining reports whether a worker pool's budget is at its limit.
func workerDraining(m []simulator.Sample) bool {
	labels := map[string]string{"namespace": "openshift-ingress", "poddisruptionbudget": "router-default"}
	cur, ok1 := simulator.SampleValue(m, simulator.MetricPDBCurrentHealthy, labels)
	des, ok2 := simulator.SampleValue(m, simulator.MetricPDBDesiredHealthy, labels)
	return ok1 && ok2 && cur == des
}

// Drive keeps the update moving until ctx ends (loop: one update after
// another). interval*pause is the rest between two updates.
func (s *simulated) Drive(ctx context.Context, interval time.Duration, loop bool, pause int) error {
	for {
		if err := s.sim.Run(ctx); err != nil {
			return err
		}
		if !loop {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval * time.Duration(pause)):
		}
		next, err := simulator.NextPatch(s.sim.Options().ToVersion)
		if err != nil {
			return err
		}
		klog.InfoS("Starting the next update", "version", next)
		if err := s.sim.StartNextUpdate(ctx, next); err != nil {
			return err
		}
		if err := s.blockOneDrain(ctx); err != nil {
			return err
		}
	}
}
