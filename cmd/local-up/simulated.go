package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/pkg/localstack"
	"github.com/update-status/apiserver/pkg/simulator"
)

// simulated drives the demo cluster with pkg/simulator: a realistic update,
// operators one after another and pools rolled node by node, in real time at
// a speed factor, one update after another.
type simulated struct {
	sim *simulator.Simulator
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
	sim, err := simulator.New(simulator.Options{Nodes: nodes, Speed: speed, Seed: time.Now().UnixNano(), Sink: sink})
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
	return s.sim.StartUpdate(ctx)
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
		next, err := nextPatch(s.sim.Options().ToVersion)
		if err != nil {
			return err
		}
		klog.InfoS("Starting the next update", "version", next)
		if err := s.sim.StartNextUpdate(ctx, next); err != nil {
			return err
		}
	}
}

// nextPatch returns version with its patch number increased: 4.20.1 -> 4.20.2.
func nextPatch(version string) (string, error) {
	i := strings.LastIndexByte(version, '.')
	if i < 0 {
		return "", fmt.Errorf("version %q has no patch number", version)
	}
	patch, err := strconv.Atoi(version[i+1:])
	if err != nil {
		return "", fmt.Errorf("version %q has no numeric patch number", version)
	}
	return version[:i+1] + strconv.Itoa(patch+1), nil
}
