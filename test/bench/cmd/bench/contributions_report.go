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
	"maps"
	"slices"
	"strings"
	"time"
)

// Goals of the external informers (issue #33).
const (
	// contributionLagSlack is how much worse the watch lag may get with
	// the contributions present.
	contributionLagSlack = 1.10
	// stormCPUGoal is the server's CPU during the renewal storm, in cores.
	stormCPUGoal = 0.05
)

// refusals formats the refused objects by reason ("TooManyInformers 1"),
// "none" when none were.
func refusals(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var out []string
	for _, reason := range slices.Sorted(maps.Keys(m)) {
		out = append(out, fmt.Sprintf("%s %d", reason, m[reason]))
	}
	return strings.Join(out, ", ")
}

// lagWithout is the lag of the watch cell without the contributions: the
// mean of the cells before and after them (the one before when there is no
// after), at p50 and p99.
func (r *contributionResult) lagWithout() (p50, p99 time.Duration, ok bool) {
	var cells []*watchResult
	for _, w := range []*watchResult{r.Without, r.After} {
		if w != nil && w.Lag.N > 0 {
			cells = append(cells, w)
		}
	}
	if len(cells) == 0 {
		return 0, 0, false
	}
	for _, w := range cells {
		p50 += w.Lag.P50
		p99 += w.Lag.P99
	}
	return p50 / time.Duration(len(cells)), p99 / time.Duration(len(cells)), true
}

// lagWithin reports whether the lag with the contributions is within
// contributionLagSlack of the lag without, at p50 and at p99.
func (r *contributionResult) lagWithin() bool {
	p50, p99, ok := r.lagWithout()
	return ok && r.With != nil && r.With.Lag.N > 0 &&
		sec(r.With.Lag.P50) <= contributionLagSlack*sec(p50) && sec(r.With.Lag.P99) <= contributionLagSlack*sec(p99)
}

// lagCells formats the p50 or p99 (pick) of the cells without the
// contributions: "before 114 ms, after 120 ms".
func (r *contributionResult) lagCells(pick func(summary) time.Duration) string {
	var out []string
	for _, c := range []struct {
		label string
		w     *watchResult
	}{{"before", r.Without}, {"after", r.After}} {
		if c.w != nil {
			out = append(out, c.label+" "+ms(pick(c.w.Lag)))
		}
	}
	return strings.Join(out, ", ")
}

// contributionGoals writes the goal rows of issue #33: the watch lag with
// the contributions present, the renewal storm, and, measured without a
// bound, the merge cost and the heap per external insight.
func (r *report) contributionGoals(p func(string, ...any), s *sizeResult) {
	c := s.Contributions
	if c != nil {
		what := fmt.Sprintf("%d UpdateInformers x %d Health insights on pool %s (%d accepted, refused: %s)", c.Spec.Informers, c.Spec.Insights, c.Pool, c.Accepted, refusals(c.Refused))
		if p50, p99, ok := c.lagWithout(); ok && c.With != nil {
			w1 := c.With
			p("| %s: lag of %d watchers of nodeprogressinsights (aggregated, JSON, %d node changes/s) within %.0f%% of the same cell without them (the mean of the cells just before and just after them) | p50 %s vs %s (%s; %s), p99 %s vs %s (%s; %s) | %s |\n",
				what, w1.Connected, r.config.churnRate, 100*(contributionLagSlack-1),
				ms(w1.Lag.P50), ms(p50), ratio(sec(w1.Lag.P50), sec(p50)), c.lagCells(func(s summary) time.Duration { return s.P50 }),
				ms(w1.Lag.P99), ms(p99), ratio(sec(w1.Lag.P99), sec(p99)), c.lagCells(func(s summary) time.Duration { return s.P99 }), met(c.lagWithin()))
		}
		if st := c.Storm; st.Duration > 0 {
			p("| renewal storm: %d informers renewing every second for %v: 0 revisions | %d revisions published; events: %d of updatestatuses/cluster, %d of healthinsights, %d of nodeprogressinsights; %d renewals (%.1f/s, %d failed); recomputations: %.0f by the sources, %.0f by the clock | %s |\n",
				c.Spec.Informers, st.Duration.Round(time.Second), int(st.Published), st.UpdateStatusEvents, st.HealthEvents, st.NodeEvents, st.Renewals, st.RenewalRate(), st.Errors,
				st.SourceComputations, st.TimeComputations, met(st.Revisions() == 0 && st.Renewals > 0))
			rate := float64(c.Spec.Informers)
			cores, how := st.ServerCores, "measured"
			if st.RenewalRate() < 0.9*rate {
				// The control plane did not take the renewals as fast:
				// the goal is judged on the server's cost per renewal.
				cores, how = st.CoresAt(rate), fmt.Sprintf("at %.0f renewals/s, from the cost per renewal", rate)
			}
			p("| renewal storm: server CPU under %.2f core | %.3f cores at %.1f renewals/s (idle %.3f cores; %s of server CPU per renewal; kube-apiserver %.2f cores): %.3f cores %s | %s |\n",
				stormCPUGoal, st.ServerCores, st.RenewalRate(), st.IdleCores, ms(time.Duration(st.CPUPerRenewal()*float64(time.Second))), st.KubeAPIServerCores, cores, how, met(cores < stormCPUGoal))
			if ob := c.ObjectStorm; ob.Duration > 0 {
				p("| renewal storm through the objects (`spec.renewTime`) instead of the Leases, the same run | server %.3f cores at %.1f renewals/s (%s of server CPU per renewal, %s the Lease's); kube-apiserver %.2f cores; %d revisions published | measured |\n",
					ob.ServerCores, ob.RenewalRate(), ms(time.Duration(ob.CPUPerRenewal()*float64(time.Second))), ratio(ob.CPUPerRenewal(), st.CPUPerRenewal()), ob.KubeAPIServerCores, ob.Revisions())
			}
		}
		if inuse, live := c.HeapPerInsight(); c.Insights > 0 {
			engine := ""
			if h, ok := r.contributionsGo.median(benchHeap, unitHeap); ok {
				engine = fmt.Sprintf("; the engine alone (%s): %s of live heap", benchHeap, bytesIEC(h))
			}
			p("| heap per external insight in the server (%s) | Go heap %s (live objects %s) per insight, %d insights merged%s | measured |\n", what, bytesIEC(inuse), bytesIEC(live), c.Insights, engine)
		}
	}
	change, ok1 := r.contributionsGo.median(benchChange, unitNs)
	node, ok2 := r.contributionsGo.median(recomputeBench, unitNs)
	renewal, ok3 := r.contributionsGo.median(benchRenewal, unitNs)
	if ok1 && ok2 && ok3 {
		p("| merge cost per contribution change (%s, 5,000 nodes, 16 informers x 1,024 insights; medians of %d runs) | one informer's insights changed %s, renewed %s (the engine alone: the server computes nothing for a renewal); one node changed without contributions (%s) %s: %s | measured |\n",
			contributionsBench, nodeChangeRuns, ms(time.Duration(change)), ms(time.Duration(renewal)), recomputeBench, ms(time.Duration(node)), ratio(change, node))
	}
}

// contributionTables writes section 9: the contributions cell of each size
// and the Go benchmarks of the merge.
func (r *report) contributionTables(p func(string, ...any)) {
	var cells []*sizeResult
	for _, s := range r.sizes {
		if s.Contributions != nil {
			cells = append(cells, s)
		}
	}
	if len(cells) == 0 && r.contributionsGo == nil {
		return
	}
	c := r.config
	p("## 9. External informers\n\n")
	if len(cells) > 0 {
		p("At each size, after the other cells, on the same control plane and server: %d namespaces, each with one UpdateInformer (informers.update.openshift.io/v1alpha1) named `%s`, written through pkg/contribute (`Set`, then `Write`, all at once), each asserting %d Health insights about the worker pool `%s`. ",
			c.contributions.Informers, contributorName, c.contributions.Insights, contributionPool)
		p("The simulator's cluster has one worker pool, and the server keeps room in each list of informers for the built-in ones, so at most 15 external informers fit a pool: the others are refused with `TooManyInformers` (and the server reports each refusal as a Health insight of its own). ")
		p("The verdicts are read from each object's `Accepted` condition once it observes the object's generation; *insights merged* adds up the `status.insights` of the accepted ones.\n\n")
		p("*Heap*: the server's memory as in section 6, just before the objects exist and again once the server serves their insights as healthinsights and UpdateStatus has settled, divided by the insights merged. It holds everything the contributions cost the server: the objects in its informer cache, the engine's memory of them, the larger UpdateStatus, and the healthinsights' store and watch cache.\n\n")
		p("*Renewal storm*: every informer renews every second, staggered over the second, for %v, twice: through its companion Lease (*Lease*: an UPDATE of a coordination.k8s.io Lease with a later `renewTime`, as pkg/contribute's lease controller does; the goals are judged on this one), then through the object itself (*object*: `Write`, a GET and an UPDATE of the UpdateInformer with a later `spec.renewTime`, which every watcher of UpdateInformers decodes whole). A renewal that takes longer than a second delays the next, and one in flight when the storm ends completes (*renewal storm* is the time until the last one did). One watcher each of updatestatuses/cluster, healthinsights and nodeprogressinsights (straight to the server, from now on) counts the events during the storm and %v after it; the revisions published and the recomputations come from the server's `update_status_recomputations_total`, the CPU of the server and the kube-apiserver from `/proc`. The server's CPU is measured for a third of that (at least 5 s) just before, nothing written, with the watchers connected (*idle*); *server CPU / renewal* is the storm's CPU above idle divided by the renewals. When the control plane takes fewer renewals than one per informer per second, the goal is judged on the server's CPU at that rate: idle plus the rate times the CPU per renewal. A renewal of a current lease triggers no computation (pkg/sources); the engine looks again when a lease it knows would lapse (*by the clock*), which publishes nothing when the object was renewed.\n\n", c.stormDuration, stormGrace)
		p("*Watch lag*: the nodeprogressinsights watch cell of section 5 (%d watchers, through the kube-apiserver, JSON, %d node changes/s for %v), just before the objects exist, again while they do, and again once they are withdrawn; the goal compares the cell with them with the mean of the two without. The informers' lease is %v in this cell and nothing renews during this watch cell: a write of objects this large loads the kube-apiserver, which serves the churn's writes too, and the storm measures renewals. The informers withdraw (`Withdraw`) after it.\n\n", c.contributionWatchers, c.churnRate, c.watchDuration, contributionLease)
		p("| nodes | informers x insights | pool | accepted | refused | insights merged | healthinsights served before / after | written and judged in | heap before / after | heap / insight | live objects / insight |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range cells {
			x := s.Contributions
			inuse, live := x.HeapPerInsight()
			p("| %d | %s | %s | %d | %s | %d | %d / %d | %v | %s / %s | %s | %s |\n", s.Nodes, x.Spec, x.Pool, x.Accepted, refusals(x.Refused), x.Insights,
				x.HealthInsightsBefore, x.HealthInsightsAfter, x.CreateTime.Round(100*time.Millisecond), bytesIEC(x.MemBefore.HeapInuse), bytesIEC(x.MemAfter.HeapInuse), bytesIEC(inuse), bytesIEC(live))
		}
		p("\n| nodes | renewal through | renewal storm | renewals (failed) | renewals / s | revisions published | events: updatestatuses / healthinsights / nodeprogressinsights | recomputations: sources / clock | server cores (idle before) | server CPU / renewal | kube-apiserver cores |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range cells {
			for _, row := range []struct {
				through string
				st      stormResult
			}{{"Lease", s.Contributions.Storm}, {"object", s.Contributions.ObjectStorm}} {
				st := row.st
				if st.Duration == 0 {
					continue
				}
				p("| %d | %s | %v | %d (%d) | %.1f | %.0f | %d / %d / %d | %.0f / %.0f | %.3f (%.3f) | %s | %.2f |\n", s.Nodes, row.through, st.Duration.Round(100*time.Millisecond), st.Renewals, st.Errors, st.RenewalRate(), st.Published,
					st.UpdateStatusEvents, st.HealthEvents, st.NodeEvents, st.SourceComputations, st.TimeComputations, st.ServerCores, st.IdleCores,
					ms(time.Duration(st.CPUPerRenewal()*float64(time.Second))), st.KubeAPIServerCores)
			}
		}
		p("\n| nodes | contributions | watchers | writes (skipped) | revisions published | lag p50 | lag p99 | lag max | writes no watcher got an event for | server CPU-s / min | kube-apiserver CPU-s / min | machine busy | bytes / event |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range cells {
			for _, row := range []struct {
				label string
				w     *watchResult
			}{{"without (before)", s.Contributions.Without}, {"with", s.Contributions.With}, {"without (after)", s.Contributions.After}} {
				if w := row.w; w != nil {
					p("| %d | %s | %d | %d (%d) | %.0f | %s | %s | %s | %d | %.1f | %.1f | %.0f%% | %s |\n", s.Nodes, row.label, w.Connected, w.Writes, w.ChurnErrors, w.Published,
						ms(w.Lag.P50), ms(w.Lag.P99), ms(w.Lag.Max), w.NoEvent, w.CPUPerMinute, w.KubeAPIServerCPUPerMinute, 100*w.MachineBusy, bytesIEC(w.BytesPerEvent))
				}
			}
		}
		p("\n")
	}
	if r.contributionsGo == nil {
		return
	}
	p("The engine alone, in-process (`go test -run XXX -bench '%s$|%s$' -benchtime %s -count %d %s`, medians): a simulated cluster of 5,000 nodes caught mid-update (viewtest.Cluster) with 16 UpdateInformers of 1,024 Health insights on the worker pool (the engine refuses those that do not fit, as the server does), one recomputation after one informer changed its insights, and after one only renewed its lease; beside it, one recomputation after one node changed, without contributions. ",
		contributionsBench, recomputeBench, contributionsTime, nodeChangeRuns, contributionsPkg)
	p("*heap-B/insight* is the live heap the contributions add to the engine's memory and result, per insight merged.\n\n")
	p("| benchmark | case | time / op | B / op | allocs / op | / one node changed |\n|---|---|---|---|---|---|\n")
	node, _ := r.contributionsGo.median(recomputeBench, unitNs)
	for _, row := range []struct{ name, what string }{
		{recomputeBench, "one node changed, no contributions"},
		{benchChange, "one informer changed its insights"},
		{benchRenewal, "one informer renewed (the server's sources skip this computation)"},
	} {
		t, ok := r.contributionsGo.median(row.name, unitNs)
		if !ok {
			continue
		}
		b, _ := r.contributionsGo.median(row.name, unitBytes)
		a, _ := r.contributionsGo.median(row.name, unitAllocs)
		p("| %s | %s | %s | %s | %.0f | %s |\n", row.name, row.what, ms(time.Duration(t)), bytesIEC(b), a, ratio(t, node))
	}
	p("\n")
	if h, ok := r.contributionsGo.median(benchHeap, unitHeap); ok {
		p("Live heap per external insight (%s): %s.\n\n", benchHeap, bytesIEC(h))
	}
}
