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

// Package synth chooses the shape and the node states of synthetic clusters
// in the middle of an update, for the engine's benchmarks, fuzzing and tests;
// internal/ocp builds the objects. Generation is deterministic for a given
// seed.
package synth

import (
	"fmt"
	"math/rand"
	"strconv"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/insights"
)

// Versions of the synthetic update.
const (
	From = "4.16.0"
	To   = "4.16.1"
)

// Options shape a synthetic cluster.
type Options struct {
	// Nodes is the number of nodes, control plane included (at least 3).
	Nodes int
	// ExtraPools is the number of custom worker pools besides "worker".
	ExtraPools int
	// Seed makes the mix of node states reproducible.
	Seed int64
	// Now is the instant the cluster is observed at; zero means a fixed
	// instant.
	Now time.Time
}

// DefaultNow is the observation instant when Options.Now is zero.
var DefaultNow = time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)

// Cluster returns a cluster updating from From to To: the operators are
// updated except machine-config (and monitoring is Degraded), the control
// plane's nodes are rolling and the worker nodes are in a mix of states
// (updated, pending, applying, draining, rebooting, a few NotReady or
// degraded).
func Cluster(o Options) (*insights.Sources, time.Time) {
	now := o.Now
	if now.IsZero() {
		now = DefaultNow
	}
	if o.Nodes < 3 {
		o.Nodes = 3
	}
	rng := rand.New(rand.NewSource(o.Seed))
	installed := now.Add(-60 * 24 * time.Hour)
	started := now.Add(-70 * time.Minute)
	previous := started.Add(-20 * 24 * time.Hour)
	var b insights.SourcesBuilder
	cv := ocp.ClusterVersion(ocp.ClusterVersionOptions{
		UID: "cv-uid", ClusterID: "cluster-id", Version: From, Available: To, InstallVersion: "4.15.3",
		InstalledAt: installed, UpdateStarted: previous.Add(-75 * time.Minute), UpdateCompleted: previous,
	})
	ocp.StartUpdate(cv, To, started)
	ocp.SetClusterCondition(&cv.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionTrue, "ClusterOperatorUpdating",
		"Working towards "+To+": 800 of 913 done (87% complete), waiting on "+insights.MCOClusterOperatorName, started)
	b.Add(cv)
	b.AddAlerts()
	for i := range ocp.Operators {
		b.Add(operator(&ocp.Operators[i], cv.UID, i, installed, now, started))
	}
	machineConfig := func(name, version string) {
		b.AddMachineConfig(name, map[string]string{insights.ReleaseImageVersionAnnotation: version})
	}
	pools := []string{"master", "worker"}
	for i := 0; i < o.ExtraPools; i++ {
		pools = append(pools, fmt.Sprintf("pool-%d", i+1))
	}
	for _, p := range pools {
		mcp := ocp.Pool(ocp.PoolOptions{
			Name: p, UID: types.UID("pool-" + p), Created: now.Add(-30 * 24 * time.Hour), Required: p == "master", Config: newConfig(p),
		})
		mcp.ResourceVersion = "7"
		mcp.Status.Configuration.Name = oldConfig(p)
		b.Add(mcp)
		machineConfig(oldConfig(p), From)
		machineConfig(newConfig(p), To)
		// Older rendered configs accumulate in real clusters.
		for k := 0; k < 5; k++ {
			machineConfig(fmt.Sprintf("rendered-%s-%02d", p, k), "4.15."+strconv.Itoa(k))
		}
	}
	for i := 0; i < o.Nodes; i++ {
		pool, roles := "master", []string{"master", "control-plane"}
		if i >= 3 {
			pool = pools[1+(i-3)%(len(pools)-1)]
			roles = []string{"worker", pool}
		}
		n := ocp.Node(ocp.NodeOptions{
			Index: i, Pool: pool, Roles: roles, InfraID: "synth", Tainted: pool == "master",
			Config: oldConfig(pool), Version: From, UID: types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)),
			BootID: fmt.Sprintf("boot-%d", i), Created: now.Add(-30 * 24 * time.Hour),
		})
		n.ResourceVersion = strconv.Itoa(100000 + i)
		ocp.SetNodeState(n, state(i, rng), newConfig(pool), To, now.Add(-time.Duration(20+i%40)*time.Minute))
		b.Add(n)
	}
	return b.Build(), now
}

func oldConfig(pool string) string { return "rendered-" + pool + "-old" }
func newConfig(pool string) string { return "rendered-" + pool + "-new" }

// state chooses node i's place in the update: the control plane has one node
// of each of updated, applying and pending; 40% of the workers are updated,
// about half pending, the rest in flight or in trouble.
func state(i int, rng *rand.Rand) ocp.NodeState {
	if i < 3 {
		return []ocp.NodeState{ocp.Updated, ocp.Applying, ocp.Pending}[i]
	}
	r := rng.Intn(100)
	for _, share := range workerStates {
		if r < share.percent {
			return share.state
		}
		r -= share.percent
	}
	return ocp.Pending
}

// workerStates are the shares, in percent, of the workers in each state
// but pending; the rest are pending.
var workerStates = []struct {
	percent int
	state   ocp.NodeState
}{
	{40, ocp.Updated}, {5, ocp.Applying}, {2, ocp.Draining}, {2, ocp.Rebooting}, {1, ocp.NotReady}, {1, ocp.Degraded},
}

// operator returns operator number i: updated to To, except machine-config
// (progressing) and monitoring (Degraded).
func operator(spec *ocp.Operator, owner types.UID, i int, installed, now, started time.Time) *configv1.ClusterOperator {
	co := ocp.ClusterOperator(spec, ocp.ClusterOperatorOptions{
		UID: types.UID("co-" + spec.Name), Owner: owner, Version: From,
		Created: installed, Available: now.Add(-40 * 24 * time.Hour), Settled: started.Add(-20 * 24 * time.Hour),
	})
	co.ResourceVersion = strconv.Itoa(1000 + i)
	if spec.Name == insights.MCOClusterOperatorName {
		ocp.SetClusterCondition(&co.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionTrue, "", "Working towards "+To, now.Add(-12*time.Minute))
	} else {
		co.Status.Versions = ocp.OperatorVersions(spec, To)
		ocp.SetClusterCondition(&co.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionTrue, "Deploying", "Working towards "+To, started.Add(time.Duration(i)*time.Minute))
		ocp.SetClusterCondition(&co.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionFalse, "AsExpected", "All is well", started.Add(time.Duration(i+1)*time.Minute))
	}
	if spec.Name == "monitoring" {
		ocp.SetClusterCondition(&co.Status.Conditions, configv1.OperatorDegraded, configv1.ConditionTrue, "UpdatingPrometheusFailed", "Prometheus is not ready", now.Add(-7*time.Minute))
	}
	return co
}

// Changed returns a copy of n with a new resourceVersion whose daemon moved
// one step (pending -> working -> done).
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
