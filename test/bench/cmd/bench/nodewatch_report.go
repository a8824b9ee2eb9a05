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
	"math"
	"time"
)

// Goals of the node-watch cell (issue #38).
const (
	// insightLagSlack is how much the nodeprogressinsights p99 may exceed
	// the Nodes p99 at the first watcher count; at the others it must be
	// below.
	insightLagSlack = 1.5
	// burstCPUSlack is how much the server's CPU per change under the
	// burst may exceed the baseline's.
	burstCPUSlack = 1.10
	// liveGetFactor is how many times faster than the client-side path a
	// GET through the kube-apiserver must be while the cluster updates
	// (issue #52).
	liveGetFactor = 200
)

// p99Ratio formats the npi p99 against the Nodes p99, either of which may be
// beyond the deadline.
func p99Ratio(npi, nodes summary) string {
	switch {
	case npi.N == 0 || nodes.N == 0:
		return "n/a"
	case nodes.P99 == undelivered && npi.P99 == undelivered:
		return "both beyond the deadline"
	case nodes.P99 == undelivered:
		return "Nodes beyond the deadline"
	case npi.P99 == undelivered:
		return "nodeprogressinsights beyond the deadline"
	}
	return ratio(sec(npi.P99), sec(nodes.P99))
}

// insightLagMet applies the goal of the i-th watcher count: within
// insightLagSlack of the Nodes p99 for the first, below it for the others.
// A p99 beyond the deadline is longer than any measured one.
func insightLagMet(i int, npi, nodes summary) bool {
	if npi.N == 0 || nodes.N == 0 || npi.P99 == undelivered {
		return false
	}
	if nodes.P99 == undelivered {
		return true
	}
	if i == 0 {
		return sec(npi.P99) <= insightLagSlack*sec(nodes.P99)
	}
	return npi.P99 < nodes.P99
}

// roundText names round i of n in a row, and nothing when there is one.
func roundText(i, n int) string {
	if n < 2 {
		return ""
	}
	return fmt.Sprintf(", round %d", i+1)
}

func burstOf(s *sizeResult) *nodeWatchCell {
	if s.NodeWatch == nil {
		return nil
	}
	return s.NodeWatch.Burst
}

// burstComparison is the server's CPU per change under the burst in every
// round of each binary at s's size (rounds alternate, as for the other
// figures compared); false when a round did not measure it.
func (r *report) burstComparison(s *sizeResult) (comparison, bool) {
	perChange := measured(burstOf, func(c *nodeWatchCell) float64 { return c.CPUPerChange(false) })
	before, okBefore := everyRound(r.baselinesOf(s), perChange)
	after, okAfter := everyRound(r.aftersOf(s), perChange)
	return comparison{before: before, after: after, format: cpuSecondsText}, okBefore && okAfter
}

// variantText names the live variant in a row, and nothing for the quiet one.
func variantText(live bool) string {
	if live {
		return ", cluster updating"
	}
	return ""
}

// cpuSecondsText formats CPU-seconds per change.
func cpuSecondsText(v float64) string { return fmt.Sprintf("%.2f ms", v*1000) }

// nodeWatchGoals writes the goal rows of issue #38 for s's node-watch cell.
func (r *report) nodeWatchGoals(p func(string, ...any), s *sizeResult) {
	nw := s.NodeWatch
	if nw == nil {
		return
	}
	d := nw.Spec.Deadline
	for _, live := range []bool{false, true} {
		for i, k := range nw.Spec.Watchers {
			nodes, npi := nw.cell(kindNodes, k, live), nw.cell(kindInsights, k, live)
			if nodes == nil || npi == nil {
				continue
			}
			goal := fmt.Sprintf("at most %.1fx the Nodes p99", insightLagSlack)
			if i > 0 {
				goal = "below the Nodes p99"
			}
			p("| %d watchers, %d node changes/s%s, from content: nodeprogressinsights (through the kube-apiserver) p99 %s | Nodes p50 %s, p99 %s (%d of %d deliveries late); nodeprogressinsights p50 %s, p99 %s (%d of %d late): %s | %s |\n",
				k, nw.Spec.Rate, variantText(live), goal, lagText(nodes.Lag.P50, d), lagText(nodes.Lag.P99, d), nodes.Late, nodes.Lag.N,
				lagText(npi.Lag.P50, d), lagText(npi.Lag.P99, d), npi.Late, npi.Lag.N, p99Ratio(npi.Lag, nodes.Lag), met(insightLagMet(i, npi.Lag, nodes.Lag)))
		}
	}
	for _, g := range nw.Gets {
		if !g.Live {
			continue
		}
		p("| GET updatestatuses/cluster through the kube-apiserver (protobuf), cluster updating, at least %dx faster than the client-side path | p50 %s vs %s over %d rounds (%.0f revisions published meanwhile): %s faster | %s |\n",
			liveGetFactor, ms(g.Get.P50), ms(g.ClientSide.P50), g.Get.N, g.Revisions, ratio(sec(g.ClientSide.P50), sec(g.Get.P50)),
			met(g.Get.N > 0 && sec(g.ClientSide.P50) >= liveGetFactor*sec(g.Get.P50)))
	}
	if b := nw.Burst; b != nil {
		if c, ok := r.burstComparison(s); ok {
			after, was := mean(c.after), mean(c.before)
			p("| server CPU per change under a %d/s burst at most %.0f%% above before | %s vs %s CPU-s per change: %s | %s |\n",
				b.Rate, 100*(burstCPUSlack-1), c.cell(c.after), c.cell(c.before), ratio(after, was), met(b.Changes > 0 && after <= burstCPUSlack*was))
		} else {
			p("| server CPU per change under a %d/s burst (%d watchers of nodeprogressinsights): compared with an earlier run's | %s CPU-s per change above idle (%d changes, %.0f revisions published) | measured |\n",
				b.Rate, b.Connected, cpuSecondsText(b.CPUPerChange(false)), b.Changes, b.Published)
		}
	}
}

// nodeWatchTables writes section 10: the node-watch cell of each size.
func (r *report) nodeWatchTables(p func(string, ...any)) {
	var cells []*sizeResult
	for _, s := range r.sizes {
		if s.NodeWatch != nil {
			cells = append(cells, s)
		}
	}
	if len(cells) == 0 {
		return
	}
	spec := r.config.nodeWatch
	p("## 10. Nodes and nodeprogressinsights watched side by side\n\n")
	p("At the largest size, after the GET, LIST and watch cells and before the contributions cell (with `-node-watch-only`, at each size, alone), on the same control plane and server: for each watcher count, that many watchers of core/v1 Nodes straight to the kube-apiserver (from the resourceVersion of a LIST), then as many of nodeprogressinsights through the kube-apiserver's aggregation layer (from now), both JSON, each while the same churn cordons or uncordons worker nodes (a merge patch of `spec.unschedulable`) at %d changes/s for %v. ", spec.Rate, spec.Duration)
	p("The latency is measured from content: for each change and each watcher, the time from sending the patch to the first event that watcher received about that node showing the state the change set, and before the node's next change was sent: for a Node, `spec.unschedulable` in the event; for a nodeprogressinsight, the cause `Node is marked unschedulable` that the engine puts in the Available condition (and the message) of a cordoned node. The watchers read each event's name and these few bytes in place, without decoding it. ")
	if spec.Straight {
		p("Then as many watchers of nodeprogressinsights straight to the server (*straight*), the same way: what the aggregation layer adds to the lag is the difference. ")
	}
	p("A (change, watcher) pair not shown within %v is *late* and counts in the percentiles as beyond the deadline rather than being left out; *not shown* counts the changes no watcher was shown in time. A watcher whose stream ends watches again from the last resourceVersion it received (*rewatches*).\n\n", spec.Deadline)
	if spec.Live {
		p("Each watcher count is then measured again with the cluster *updating* (after the burst): the simulator runs its update in real time at speed %d, one update after another, with the churned worker pool paused (the control plane's operators and the master pool update; the next update starts once only the paused pool lags, as OpenShift allows), and an external informer (`pkg/contribute`, namespace `%s`) rewrites its contribution every %v, so that the server's other sources change while the nodes do, as on the `make run` stack. ", liveSpeed, liveNamespace, liveContributionEvery)
	}
	p("*CPU per change* is the process's CPU (from `/proc`) over the churn and the deadline after it, less its idle CPU over the same time (measured for %v just before, the watchers connected), divided by the changes. The burst is %d watchers of nodeprogressinsights at %d changes/s for %v, measured the same way; *revisions* are the server's published revisions (`update_status_recomputations_total{result=\"changed\"}`). A CPU profile of the server over each churn of nodeprogressinsights at the steady rate is kept as `nodewatch-<watchers>-cpu.pprof` with the other profiles.\n\n",
		nodeWatchIdle, spec.BurstWatchers, spec.BurstRate, spec.Duration)
	p("| nodes | watchers | watched | changes/s | changes (skipped) | p50 | p99 | max | late pairs | not shown | rewatches | bytes / event | server CPU / change (idle cores) | kube-apiserver CPU / change (idle cores) | revisions |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(s *sizeResult, label string, c *nodeWatchCell) {
		d := s.NodeWatch.Spec.Deadline
		perEvent := 0.0
		if c.Events > 0 {
			perEvent = float64(c.Bytes) / float64(c.Events)
		}
		p("| %d | %d | %s | %d | %d (%d) | %s | %s | %s | %d of %d | %d | %d | %s | %s (%.3f) | %s (%.3f) | %.0f |\n", s.Nodes, c.Connected, label, c.Rate, c.Changes, c.Skipped,
			lagText(c.Lag.P50, d), lagText(c.Lag.P99, d), lagText(c.Lag.Max, d), c.Late, c.Lag.N, c.Unseen, c.Rewatches, bytesIEC(perEvent),
			cpuSecondsText(c.CPUPerChange(false)), c.ServerIdle, cpuSecondsText(c.CPUPerChange(true)), c.KubeAPIServerIdle, c.Published)
	}
	for _, s := range cells {
		for _, c := range s.NodeWatch.Cells {
			label := "Nodes (straight)"
			switch c.Kind {
			case kindInsights:
				label = "nodeprogressinsights (aggregated)"
			case kindInsightsStraight:
				label = "nodeprogressinsights (straight)"
			}
			row(s, label+variantText(c.Live), c)
		}
		for _, side := range []struct {
			label  string
			rounds []*sizeResult
		}{{"", r.aftersOf(s)}, {", before", r.baselinesOf(s)}} {
			for i, round := range side.rounds {
				if b := burstOf(round); b != nil {
					row(s, "nodeprogressinsights (aggregated), burst"+side.label+roundText(i, len(side.rounds)), b)
				}
			}
		}
	}
	p("\n*In the server* is, over the nodeprogressinsights cell, the server's `%s`: the time from a source change to the publication of the revision that covers it, the fold window's wait included, as bucket bounds (p50 and p99 at most that), and how many of those revisions covered a burst (computed at the end of the window) rather than an isolated change (computed at once); then the p99 of its computations (`update_status_computation_duration_seconds`: the snapshot and the engine, every computation). What the watchers see beyond it is the watch cache, the aggregation layer and their own reading.\n", changeToRevision)
	p("\n| nodes | watchers | cluster | Nodes p50 / p99 | nodeprogressinsights p50 / p99 | p99 ratio | nodeprogressinsights straight p50 / p99 | in the server: p50 / p99 (revisions, of bursts); computations p99 | during the nodeprogressinsights cell |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range cells {
		d := s.NodeWatch.Spec.Deadline
		for _, live := range []bool{false, true} {
			for _, k := range s.NodeWatch.Spec.Watchers {
				nodes, npi := s.NodeWatch.cell(kindNodes, k, live), s.NodeWatch.cell(kindInsights, k, live)
				if nodes == nil || npi == nil {
					continue
				}
				state, activity := "quiet", ""
				if live {
					state = "updating"
					activity = fmt.Sprintf("%d simulator requests, %d updates started, %d contribution writes", npi.LiveRequests, npi.LiveUpdates, npi.LiveContributions)
				}
				straight := "not measured"
				if c := s.NodeWatch.cell(kindInsightsStraight, k, live); c != nil {
					straight = lagText(c.Lag.P50, d) + " / " + lagText(c.Lag.P99, d)
				}
				p("| %d | %d | %s | %s / %s | %s / %s | %s | %s | %s | %s |\n", s.Nodes, k, state, lagText(nodes.Lag.P50, d), lagText(nodes.Lag.P99, d),
					lagText(npi.Lag.P50, d), lagText(npi.Lag.P99, d), p99Ratio(npi.Lag, nodes.Lag), straight, serverLagText(npi), activity)
			}
		}
	}
	if spec.Live {
		p("\nGET of updatestatuses/cluster through the kube-apiserver (protobuf) against the client-side path of section 2, in %d rounds of one GET and one client-side run (after one round of warm-up), so that each GET finds the server as a client polling every few hundred milliseconds does, after the revisions published since its last: quiet after the quiet watch cells, and while the cluster updates as above after the live ones.\n\n", getRounds)
		p("| nodes | cluster | GET p50 | GET max | rounds | revisions published meanwhile | client-side p50 | client-side max | client-side / GET |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range cells {
			for _, g := range s.NodeWatch.Gets {
				state := "quiet"
				if g.Live {
					state = "updating"
				}
				p("| %d | %s | %s | %s | %d | %.0f | %s | %s | %s |\n", s.Nodes, state, ms(g.Get.P50), ms(g.Get.Max), g.Get.N,
					g.Revisions, ms(g.ClientSide.P50), ms(g.ClientSide.Max), ratio(sec(g.ClientSide.P50), sec(g.Get.P50)))
			}
		}
	}
	p("\n| goal | measured | |\n|---|---|---|\n")
	r.nodeWatchGoals(p, cells[len(cells)-1])
	p("\n")
}

// serverLagText is the In the server column of cell c.
func serverLagText(c *nodeWatchCell) string {
	h := c.ServerLag
	if h.Count == 0 {
		return "none recorded"
	}
	bound := func(h histogramDelta, q float64) string {
		b := h.Quantile(q)
		if math.IsInf(b, 1) {
			last := 0.0
			for _, f := range h.Bounds {
				if !math.IsInf(f, 1) {
					last = f
				}
			}
			return "> " + ms(time.Duration(last*float64(time.Second)))
		}
		return "≤ " + ms(time.Duration(b*float64(time.Second)))
	}
	text := fmt.Sprintf("%s / %s (%.0f, %.0f)", bound(h, 0.5), bound(h, 0.99), h.Count, c.Bursts)
	if c.Computations.Count > 0 {
		text += "; " + bound(c.Computations, 0.99)
	}
	return text
}
