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

import "time"

// The management-cluster cell's goals (issue #50).
const (
	// hostedCPUGoal bounds the server's CPU per change at the largest
	// fleet over the smallest.
	hostedCPUGoal = 1.2
	// hostedHeapPerCluster and hostedHeapPerMachine bound the server's
	// heap per hosted cluster (above the empty server).
	hostedHeapPerCluster = 64 << 10
	hostedHeapPerMachine = 4 << 10
	// hostedSyncGoal bounds the initial sync of the largest fleet.
	hostedSyncGoal = 30 * time.Second
	// hostedLagGoal bounds the p99 of one hosted cluster's node insights'
	// watchers over its Machines' watchers.
	hostedLagGoal = 1.5
)

// heapPerCluster is the server's heap per hosted cluster above the empty
// server.
func (r *hostedRun) heapPerCluster() float64 {
	return (r.Mem.HeapInuse - r.Empty.HeapInuse) / float64(r.Clusters)
}

// heapBound is the goal's bound on heapPerCluster: 64 KiB per hosted
// cluster and 4 KiB per Machine.
func (s hostedSpec) heapBound() float64 {
	return hostedHeapPerCluster + float64(hostedHeapPerMachine*s.NodePools*s.Machines)
}

// hostedGoals writes the cell's goal rows: the smallest and the largest
// fleet side by side.
func (r *report) hostedGoals(p func(string, ...any)) {
	h := r.hosted
	if h == nil || len(h.Runs) == 0 {
		return
	}
	s := h.Spec
	small, large := h.Runs[0], h.Runs[len(h.Runs)-1]
	p("| goal | measured | |\n|---|---|---|\n")
	if len(h.Runs) > 1 && small.Fleet != nil && large.Fleet != nil {
		a, b := small.Fleet.CPUPerChange(false), large.Fleet.CPUPerChange(false)
		p("| server CPU per Machine change with %d hosted clusters at most %.1fx that with %d (%d changes/s over the fleet, %d watchers of every hosted cluster's node insights) | %.2f vs %.2f ms: %s | %s |\n",
			large.Clusters, hostedCPUGoal, small.Clusters, s.Rate, s.Watchers, 1000*b, 1000*a, ratio(b, a), met(a > 0 && b <= hostedCPUGoal*a))
	}
	if len(h.Runs) > 1 && small.Insights1 != nil && large.Insights1 != nil {
		a, b := small.Insights1.CPUPerChange(false), large.Insights1.CPUPerChange(false)
		p("| server CPU per change of one hosted cluster's Machines with %d hosted clusters at most %.1fx that with %d | %.2f vs %.2f ms: %s | %s |\n",
			large.Clusters, hostedCPUGoal, small.Clusters, 1000*b, 1000*a, ratio(b, a), met(a > 0 && b <= hostedCPUGoal*a))
	}
	for _, run := range h.Runs {
		per := run.heapPerCluster()
		p("| server heap per hosted cluster (%d components, %d Machines) at most 64 KiB + 4 KiB per Machine (%s), %d hosted clusters, above the empty server | %s (%s per Machine); RSS %s | %s |\n",
			s.Components, s.NodePools*s.Machines, bytesIEC(s.heapBound()), run.Clusters, bytesIEC(per), bytesIEC(per/float64(s.NodePools*s.Machines)),
			bytesIEC((run.Mem.RSS-run.Empty.RSS)/float64(run.Clusters)), met(per <= s.heapBound()))
	}
	p("| initial sync of %d hosted clusters x %d NodePools x %d Machines, %d components each, under %v | %v (ready %v) | %s |\n",
		large.Clusters, s.NodePools, s.Machines, s.Components, hostedSyncGoal, large.Sync.Round(time.Millisecond), large.Ready.Round(time.Millisecond), met(large.Sync < hostedSyncGoal))
	if m, i := large.Machines1, large.Insights1; m != nil && i != nil && m.Lag.N > 0 && i.Lag.N > 0 {
		p("| %d watchers, %d Machine changes/s of one hosted cluster (of %d), from content: its node insights (through the kube-apiserver) p99 at most %.1fx its Machines' p99 | Machines p50 %s, p99 %s (%d late); node insights p50 %s, p99 %s (%d late): %s | %s |\n",
			s.Watchers, s.Rate, large.Clusters, hostedLagGoal, ms(m.Lag.P50), ms(m.Lag.P99), m.Late, ms(i.Lag.P50), ms(i.Lag.P99), i.Late,
			ratio(sec(i.Lag.P99), sec(m.Lag.P99)), met(sec(i.Lag.P99) <= hostedLagGoal*sec(m.Lag.P99)))
	}
	p("\n")
}

// hostedTables writes the cell's section.
func (r *report) hostedTables(p func(string, ...any)) {
	h := r.hosted
	if h == nil {
		return
	}
	s := h.Spec
	p("## Management cluster\n\n")
	p("A HyperShift management cluster on a control plane of its own per fleet size (the HyperShift and Cluster API CRDs, pkg/hypershift/crds): ")
	p("hosted clusters written by pkg/simulator/hosted through the API, each with %d NodePools of %d Machines and %d ControlPlaneComponents, ", s.NodePools, s.Machines, s.Components)
	p("then the update requested (every HostedCluster and NodePool targets the next release; nothing has moved yet). ")
	p("The server starts after the fleet is written: *sync* is the time from its start to a HostedClusterUpdateStatus per hosted cluster and a node insight per Machine listed. ")
	p("Heap is read after two forced GCs, above the same server on the empty management cluster: *heap* is the spans in use (the goal's figure), *live heap* the objects in them. ")
	p("The churn toggles Machines' NodeHealthy condition (False with a message, True without), as Cluster API does when a node stops and resumes reporting, through the status subresource; ")
	p("a change is timed to the first event that shows it (the Machine's message; its node insight Available=False for the reason NotReady), as in the node-watch cell. ")
	p("*One hosted cluster*: the churn over the first hosted cluster's Machines, watched as its Machines (straight from the kube-apiserver) and as its node insights (`-l %s=NAME`, through the aggregation layer). ", "update.openshift.io/hosted-cluster")
	p("*Fleet*: the churn over one Machine of each hosted cluster after another, watched as every hosted cluster's node insights. CPU per change is above the idle CPU measured with the watchers connected.\n\n")
	r.hostedGoals(p)
	for _, n := range h.Notes {
		p("**Note:** %s\n\n", n)
	}
	p("| hosted clusters | Machines | components | fleet written (requests) | ready | sync | heap (empty) | live heap (empty) | RSS (empty) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, run := range h.Runs {
		p("| %d | %d | %d | %v (%d) | %v | %v | %s (%s) | %s (%s) | %s (%s) |\n", run.Clusters, run.Machines, run.Components, run.Create.Round(time.Millisecond), run.Requests,
			run.Ready.Round(time.Millisecond), run.Sync.Round(time.Millisecond), bytesIEC(run.Mem.HeapInuse), bytesIEC(run.Empty.HeapInuse),
			bytesIEC(run.Mem.HeapAlloc), bytesIEC(run.Empty.HeapAlloc), bytesIEC(run.Mem.RSS), bytesIEC(run.Empty.RSS))
	}
	p("\n| hosted clusters | watched | watchers | changes (skipped) | lag p50 / p99 / max | late | server CPU / change | kube-apiserver CPU / change | events | revisions |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, run := range h.Runs {
		for _, c := range []*nodeWatchCell{run.Machines1, run.Insights1, run.Fleet} {
			if c == nil {
				continue
			}
			p("| %d | %s | %d | %d (%d) | %s / %s / %s | %d | %.2f ms | %.2f ms | %d | %.0f |\n", run.Clusters, c.Kind, c.Connected, c.Changes, c.Skipped,
				ms(c.Lag.P50), lagText(c.Lag.P99, r.config.nodeWatch.Deadline), lagText(c.Lag.Max, r.config.nodeWatch.Deadline), c.Late, 1000*c.CPUPerChange(false), 1000*c.CPUPerChange(true), c.Events, c.Published)
		}
	}
	p("\n")
}
