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
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/contribute"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/simulator"
)

// The live variant of the node-watch cell (issue #52): the same watchers and
// changes while the cluster is updating, as on the `make run` stack. The
// simulator runs the update in real time at liveSpeed, one update after
// another, with the churned worker pool paused (its nodes are the churn's;
// the control plane's operators and the master pool update), and an external
// informer rewrites its contribution every liveContributionEvery. Their
// events break the quiet gaps of the live view's fold rule as a real update
// does.
const (
	liveSpeed             = 60
	liveContributionEvery = time.Second
	liveNamespace         = "bench-live"
	liveInformer          = "live"
	// livePausedFor (simulated time) keeps the worker pool paused for the
	// rest of the run.
	livePausedFor = 1000 * time.Hour
)

// liveActivity is the update and the contribution of a live cell.
type liveActivity struct {
	sim    *simulator.Simulator
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// updates counts the updates the simulator started, contributions the
	// contribution's writes.
	updates, contributions atomic.Int64
	requests               int64 // the simulator's API requests when it started

	mu  sync.Mutex
	err error // the first failure
}

// pauseChurnedPool pauses the pool whose nodes the churn writes, so that
// the simulator's update leaves them to the churn.
func pauseChurnedPool(ctx context.Context, sim *simulator.Simulator, pool string) error {
	if _, err := sim.PausePool(ctx, pool, livePausedFor); err != nil {
		return fmt.Errorf("pausing pool %s: %w", pool, err)
	}
	return nil
}

// startLive starts the update and the contribution on cp's cluster (the
// churned pool paused by pauseChurnedPool).
func startLive(ctx context.Context, cp *localstack.ControlPlane, sim *simulator.Simulator) (*liveActivity, error) {
	client, err := versioned.NewForConfig(cp.RESTConfig(&cp.Users.Admin))
	if err != nil {
		return nil, err
	}
	if _, err := cp.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: liveNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	con, err := contribute.New(client.InformersV1alpha1(), cp.Kube, liveNamespace, liveInformer)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	l := &liveActivity{sim: sim, cancel: cancel, requests: sim.Requests()}
	l.wg.Go(func() { l.fail(l.update(lctx)) })
	con.Set(nil, contributedPools(0, 1, time.Now()))
	l.wg.Go(func() { l.fail(con.Run(lctx)) })
	l.wg.Go(func() {
		t := time.NewTicker(liveContributionEvery)
		defer t.Stop()
		for {
			select {
			case <-lctx.Done():
				return
			case at := <-t.C:
				con.Set(nil, contributedPools(0, 1, at))
				l.contributions.Add(1)
			}
		}
	})
	return l, nil
}

// update runs the simulator's update until ctx ends, and another after each
// that completes but for the churned pool, which stays paused.
func (l *liveActivity) update(ctx context.Context) error {
	for {
		if err := l.sim.RunPastPauses(ctx); err != nil {
			return err
		}
		cur, err := utilversion.ParseSemantic(l.sim.Options().ToVersion)
		if err != nil {
			return err
		}
		if err := l.sim.StartNextUpdate(ctx, cur.WithPatch(cur.Patch()+1).String()); err != nil {
			return err
		}
		l.updates.Add(1)
	}
}

// fail keeps the first error that is not the end of the activity.
func (l *liveActivity) fail(err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

// stop ends the activity (the contribution is withdrawn) and returns its
// first failure.
func (l *liveActivity) stop() error {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// record marks cell live, with what the activity did during it.
func (l *liveActivity) record(cell *nodeWatchCell) {
	cell.Live = true
	cell.LiveRequests = l.sim.Requests() - l.requests
	cell.LiveUpdates, cell.LiveContributions = l.updates.Load(), l.contributions.Load()
	klog.InfoS("Live activity", "kind", cell.Kind, "watchers", cell.Connected, "simulatorRequests", cell.LiveRequests,
		"updatesStarted", cell.LiveUpdates, "contributionWrites", cell.LiveContributions)
}

// nodeWatchGet is GET updatestatuses/cluster through the kube-apiserver
// (protobuf) beside the client-side path (section 2), both quiet or both
// while the cluster updates (issue #52), in rounds of one GET and one run
// of the client-side path: each GET comes as a client that polls finds
// the server, after the revisions published since its last.
type nodeWatchGet struct {
	Live bool
	// Get and ClientSide are the latencies of the rounds' GETs and
	// client-side runs.
	Get, ClientSide summary
	// Revisions are the server's revisions published during the rounds.
	Revisions float64
}

// getRounds is how many rounds a nodeWatchGet measures.
const getRounds = 20

// measureGet measures a nodeWatchGet, live while sim updates the cluster
// when it is not nil.
func (r *nodeWatchResult) measureGet(ctx context.Context, cp *localstack.ControlPlane, admin *httpClient, sim *simulator.Simulator) (err error) {
	cs, err := newClientSide(cp.RESTConfig(&cp.Users.Admin))
	if err != nil {
		return err
	}
	g := &nodeWatchGet{Live: sim != nil}
	if sim != nil {
		activity, err := startLive(ctx, cp, sim)
		if err != nil {
			return err
		}
		defer func() {
			if lerr := activity.stop(); err == nil && lerr != nil {
				err = fmt.Errorf("the live update: %w", lerr)
			}
		}()
	}
	h, u := admin.as(acceptProtobuf), cp.KubeAPIServer.URL+localstack.UpdateStatusPath
	// A round unrecorded first: connections and caches warm up.
	if err := h.discard(ctx, u); err != nil {
		return err
	}
	if err := cs.run(ctx); err != nil {
		return fmt.Errorf("client-side path: %w", err)
	}
	m0, err := metrics(ctx, admin, cp.ServerURL)
	if err != nil {
		return err
	}
	var gets, runs []time.Duration
	for range getRounds {
		t := time.Now()
		if err := h.discard(ctx, u); err != nil {
			return err
		}
		gets = append(gets, time.Since(t))
		t = time.Now()
		if err := cs.run(ctx); err != nil {
			return fmt.Errorf("client-side path: %w", err)
		}
		runs = append(runs, time.Since(t))
	}
	m1, err := metrics(ctx, admin, cp.ServerURL)
	if err != nil {
		return err
	}
	changed := `result="changed"`
	g.Revisions = sumSeries(m1, "update_status_recomputations_total", changed) - sumSeries(m0, "update_status_recomputations_total", changed)
	g.Get, g.ClientSide = summarize(gets), summarize(runs)
	klog.InfoS("GET and the client-side path", "live", g.Live, "getP50", g.Get.P50, "clientSideP50", g.ClientSide.P50, "revisions", g.Revisions)
	r.Gets = append(r.Gets, g)
	return nil
}
