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

package viewtest

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/simulator"
)

// PoolSize is the most nodes a synthetic worker pool holds, below the limit
// of 1024 insights per pool informer.
const PoolSize = 1000

// Caught is the share of the worker nodes a Cluster has updated.
const Caught = 0.15

// faultyWorkers is the fewest workers a Cluster has a NotReady node and a
// blocked drain in: smaller pools would stall on them.
const faultyWorkers = 100

// Cluster returns the engine's input for a simulated cluster of 3
// control-plane nodes and workers worker nodes in the given number of
// worker pools ("worker", then "pool-1", ...), caught by simulator.Midway
// once Caught of its workers run the new configuration, and the instant it
// was caught at. Each pool updates a tenth of its nodes at a time; operator
// monitoring is Degraded and, from faultyWorkers workers, a worker is
// NotReady and a drain in the last pool is blocked, so that every node state
// is present. Equal arguments give equal clusters. It panics if the
// simulator fails, which only a wrong argument makes it do.
func Cluster(workers, pools int, seed int64) (*insights.Sources, time.Time) {
	pct := intstr.FromString("10%")
	o := simulator.Options{Nodes: 3 + workers, ControlPlaneNodes: 3, Seed: seed, MinStepInterval: 10 * time.Second}
	for i := range max(pools, 1) {
		name := "worker"
		if i > 0 {
			name = "pool-" + strconv.Itoa(i)
		}
		o.WorkerPools = append(o.WorkerPools, simulator.PoolOptions{Name: name, MaxUnavailable: &pct})
	}
	faults := []simulator.Fault{{Kind: simulator.FaultOperatorDegraded, Target: "monitoring"}}
	if workers >= faultyWorkers {
		faults = append(faults, simulator.Fault{Kind: simulator.FaultNodeNotReady, Target: "worker"},
			simulator.Fault{Kind: simulator.FaultDrainBlocked, Target: o.WorkerPools[len(o.WorkerPools)-1].Name})
	}
	st, err := simulator.Midway(context.Background(), o, Caught, faults...)
	if err != nil {
		panic(fmt.Sprintf("viewtest: a cluster of %d workers in %d pools: %v", workers, pools, err))
	}
	return st.Sources(), st.Time
}

// Synthetic returns the status the engine computes for a Cluster of workers
// worker nodes spread over as few pools as keep each at most PoolSize.
func Synthetic(workers int, seed int64) v1alpha1.UpdateStatusStatus {
	src, now := Cluster(workers, (workers+PoolSize-1)/PoolSize, seed)
	return insights.NewEngine().Compute(src, now).Status
}

// Changed returns a copy of n with resourceVersion rv whose machine-config
// daemon moved one step: from Working to Done on its desired configuration,
// from any other state to Working.
func Changed(n *insights.Node, rv int) *insights.Node {
	c := n.DeepCopy()
	c.ResourceVersion = strconv.Itoa(rv)
	ann := c.Annotations
	switch ann[insights.MCDStateAnnotation] {
	case insights.MCDStateWorking:
		ann[insights.MCDStateAnnotation] = insights.MCDStateDone
		ann[insights.CurrentConfigAnnotation] = ann[insights.DesiredConfigAnnotation]
	default:
		ann[insights.MCDStateAnnotation] = insights.MCDStateWorking
	}
	return c
}
