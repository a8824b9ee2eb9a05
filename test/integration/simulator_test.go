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

package integration

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
	"github.com/update-status/apiserver/pkg/simulator"
)

// simulatedNodes is the size of the simulated cluster: large enough that the
// API request rate, not the test, paces the update (about 2 requests per node
// to create, 15 per node to update), small enough for make test.
const simulatedNodes = 300

// TestSimulatedUpdate creates a 300-node cluster with the simulator on a
// control plane of its own, drives a whole update through the kube-apiserver
// as the real operators would (statuses through the status subresource), and
// follows it through the aggregated UpdateStatus until Completed.
func TestSimulatedUpdate(t *testing.T) {
	ctx := t.Context()
	cp2 := ownControlPlane(ctx, t, "sim")
	startServerOf(ctx, t, cp2, localstack.ServerOptions{})
	client := updateClientOf(t, cp2, &cp2.Users.Admin)

	// A fake clock lets the simulator jump from one transition to the next;
	// the writes still go through the real API, as fast as it takes them.
	clk := clocktesting.NewFakeClock(time.Now())
	sink, err := simulator.NewAPISink(cp2.RESTConfig(&cp2.Users.Admin), simulator.APISinkOptions{QPS: -1, Workers: 32})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulator.New(simulator.Options{Nodes: simulatedNodes, Seed: 7, Sink: sink, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := sim.Create(ctx); err != nil {
		t.Fatal(err)
	}
	created, createReqs := time.Since(start), sim.Requests()
	t.Logf("created %d nodes in %v: %d requests, %.0f requests/s", simulatedNodes, created.Round(time.Millisecond),
		createReqs, float64(createReqs)/created.Seconds())

	// Follow the served object while the update runs.
	var (
		mu          sync.Mutex
		completions []int32
		invalid     []string
	)
	stopFollowing := sampleEvery(200*time.Millisecond, func() {
		if us, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{}); err == nil {
			mu.Lock()
			// Only the update under test counts: before it starts, the
			// previous (completed) update is served at 100%.
			if cv := cvInsight(us); cv != nil && cv.Versions.Target.Version == simulator.DefaultToVersion {
				completions = append(completions, cv.Completion)
			}
			if errs := validation.ValidateUpdateStatus(us); len(errs) > 0 {
				invalid = append(invalid, errs.ToAggregate().Error())
			}
			mu.Unlock()
		}
	})

	start = time.Now()
	if err := sim.RunVirtual(ctx, clk, 100000); err != nil {
		t.Fatalf("drive the update: %v", err)
	}
	driven, driveReqs := time.Since(start), sim.Requests()-createReqs
	t.Logf("drove the update in %v: %d requests, %.0f requests/s", driven.Round(time.Millisecond),
		driveReqs, float64(driveReqs)/driven.Seconds())

	// The served object must reach Completed for the control plane and every
	// worker pool within a few seconds of the last write.
	var last *v1alpha1.UpdateStatus
	_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 15*time.Second, true, func(context.Context) (bool, error) {
		us, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = us
		return completedEverywhere(us), nil
	})
	stopFollowing()
	if !completedEverywhere(last) {
		t.Fatalf("the served UpdateStatus did not reach Completed:\n%s", dump(last))
	}
	if errs := validation.ValidateUpdateStatus(last); len(errs) > 0 {
		t.Fatalf("final object is invalid: %v", errs.ToAggregate())
	}

	mu.Lock()
	defer mu.Unlock()
	if len(invalid) > 0 {
		t.Errorf("%d served objects were invalid, first: %s", len(invalid), invalid[0])
	}
	var intermediate bool
	for i, c := range completions {
		if c > 0 && c < 100 {
			intermediate = true
		}
		if i > 0 && c < completions[i-1] {
			t.Errorf("control-plane completion went back from %d%% to %d%%", completions[i-1], c)
		}
	}
	if !intermediate {
		t.Errorf("no intermediate control-plane completion was served while the update ran: %v", completions)
	}
}

// completedEverywhere reports whether the control plane and every worker pool
// of us are judged Completed.
func completedEverywhere(us *v1alpha1.UpdateStatus) bool {
	cv := cvInsight(us)
	if cv == nil || cv.Assessment != v1alpha1.ControlPlaneAssessmentCompleted || cv.Completion != 100 {
		return false
	}
	if len(us.Status.WorkerPools) == 0 {
		return false
	}
	for _, p := range us.Status.WorkerPools {
		m := poolInsight(us, p.Name)
		if m == nil || m.Assessment != v1alpha1.PoolCompleted || m.Completion != 100 {
			return false
		}
	}
	return true
}
