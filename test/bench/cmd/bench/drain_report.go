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
	"fmt"
	"time"
)

// drainMemoryGoal is the bound on the informer's memory at the
// cell's size.
const drainMemoryGoal = 64 << 20

// drainFlags are the cell's flags for the report's command line.
func drainFlags(c config) string {
	if c.drain.Nodes == 0 {
		return ` -drain=""`
	}
	d := c.drain
	return fmt.Sprintf(" -drain=%s -drain-draining=%dx%d -drain-small-pods=%d -drain-window=%v -drain-samples=%d",
		d, d.Draining, d.PerNode, d.SmallPods, c.drainWindow, c.drainSamples)
}

// drainVerdict tells whether memory follows the draining nodes: the
// informer's resident memory with the cluster's pods is under the goal and
// within a quarter of what it is with the draining nodes' pods alone.
func (r *drainResult) drainVerdict() (ok, measured bool) {
	if r == nil || len(r.Runs) < 2 {
		return false, false
	}
	small, large := r.Runs[0], r.Runs[len(r.Runs)-1]
	return large.RSS < drainMemoryGoal && large.RSS <= 1.25*small.RSS, true
}

// drainTables writes the cell's section.
func (r *report) drainTables(p func(string, ...any)) {
	d := r.drain
	if d == nil {
		return
	}
	s := d.Spec
	p("## Drain informer\n\n")
	p("update-status-drain-informer (cmd/update-status-drain-informer) as its own process, with its own ServiceAccount, on its own control plane: ")
	p("%d nodes (the simulator's cluster at rest, with a MachineConfigNode per node, created in %v), %d of its workers draining (cordoned, with the machine-config daemon's drain request) ", s.Nodes, d.CreateNodes.Round(time.Second), s.Draining)
	p("with %d pods each, every one covered by its node's PodDisruptionBudget. ", s.PerNode)
	p("The draining nodes' pods are Running and Ready (the cell writes their status, as a kubelet would); the other pods of the cluster are bound to the other workers ")
	p("(`spec.nodeName` set at creation: there is no scheduler), owned by a ReplicaSet, one container, no status (Pending: nothing runs them). ")
	p("Pods are created by %d concurrent requests over 8 connections. ", podWorkers)
	p("The informer's requests to the kube-apiserver go through a counting proxy in the benchmark process (TLS with the kube-apiserver's certificate, so HTTP/2 as in a cluster). ")
	p("*Ready* is the time from its start to its insights about every draining node (all budgets at 0) being served; it includes the kube-apiserver answering the informer's per-node watches ")
	p("(pods by field selector `spec.nodeName`, which the kube-apiserver answers by filtering every pod of the cluster, and MachineConfigNodes by `metadata.name`). ")
	p("The steady window (budgets with room, nothing changing) gives its CPU and requests; then %d budgets are set to `disruptionsAllowed: 0` one after another, ", r.config.drainSamples)
	p("each timed to the insight naming its node in the API (HealthInsights through the aggregated server, polled every 20 ms). Memory is read at the end (RSS) and its high-water mark (VmHWM).\n\n")
	if ok, measured := d.drainVerdict(); measured {
		p("Goal: the informer's memory grows with the draining nodes, not with the cluster's pods, and stays under 64 MiB: %s ", met(ok))
		p("(%s with %d pods, %s with %d).\n\n", bytesIEC(d.Runs[len(d.Runs)-1].RSS), d.Runs[len(d.Runs)-1].Pods, bytesIEC(d.Runs[0].RSS), d.Runs[0].Pods)
	}
	for _, n := range d.Notes {
		p("**Note:** %s\n\n", n)
	}
	p("| pods in the cluster | pods added (time) | ready | RSS | peak RSS | CPU (cores) | requests/min (window) | requests before the window | budget at 0 → insight p50 / max |\n")
	p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, run := range d.Runs {
		lat := summarize(run.Latency)
		p("| %d | %d (%v) | %v | %s | %s | %.4f | %.1f (%v) | %d | %s / %s |\n", run.Pods, run.PodsAdded, run.CreatePods.Round(time.Second),
			run.Ready.Round(time.Millisecond), bytesIEC(run.RSS), bytesIEC(run.Peak), run.CPU, run.RequestsPerMinute(), run.Window.Round(time.Second),
			run.StartupRequests, ms(lat.P50), ms(lat.Max))
	}
	p("\n")
}
