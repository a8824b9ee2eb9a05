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
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/simulator"
)

// The node-watch cell (issue #38): watchers of core/v1 Nodes, straight to
// the kube-apiserver, and the same number of watchers of
// nodeprogressinsights, through its aggregation layer, each cell after the
// other under the same cordon/uncordon churn, each change timed from the
// content of the events.

// The kinds the cell watches: Nodes, nodeprogressinsights through the
// aggregation layer, and (with -node-watch-straight) nodeprogressinsights
// straight to the server.
const (
	kindNodes            = "nodes"
	kindInsights         = resourceNodeInsights
	kindInsightsStraight = resourceNodeInsights + "-straight"
)

// nodeWatchSpec is the flags of the node-watch cell.
type nodeWatchSpec struct {
	// Watchers are the watcher counts of the side-by-side cells; none
	// skips them.
	Watchers []int
	// Rate is the node changes per second of the side-by-side cells,
	// Duration how long each cell writes them.
	Rate     int
	Duration time.Duration
	// BurstRate is the changes per second of the burst (0 skips it),
	// measured with BurstWatchers watchers of nodeprogressinsights.
	BurstRate, BurstWatchers int
	// Deadline is how long after a change an event that shows it counts
	// as delivered.
	Deadline time.Duration
	// Only makes each size measure this cell alone (with the cluster, the
	// server and its memory).
	Only bool
	// Live measures each watcher count again while the cluster updates
	// (live.go).
	Live bool
	// Straight measures nodeprogressinsights straight to the server too,
	// after the aggregated watchers: the aggregation layer's share of their
	// lag.
	Straight bool
}

// enabled reports whether the cell measures anything.
func (s nodeWatchSpec) enabled() bool { return len(s.Watchers) > 0 || s.BurstRate > 0 }

// baseline is what a baseline binary (-baseline-binary) measures: the
// burst alone, the figure it is compared on.
func (s nodeWatchSpec) baseline() nodeWatchSpec {
	s.Watchers = nil
	return s
}

// at reports whether the cell runs at n nodes: the largest of sizes, or
// every size with Only.
func (s nodeWatchSpec) at(n int, sizes []int) bool {
	return s.enabled() && (s.Only || n == slices.Max(sizes))
}

// flags returns the flags of the spec, for flagsLine.
func (s nodeWatchSpec) flags() string {
	w := make([]string, len(s.Watchers))
	for i, k := range s.Watchers {
		w[i] = strconv.Itoa(k)
	}
	line := fmt.Sprintf(" -node-watch=%s -node-watch-rate=%d -node-watch-duration=%v -node-watch-burst=%d -node-watch-deadline=%v",
		strings.Join(w, ","), s.Rate, s.Duration, s.BurstRate, s.Deadline)
	if s.Only {
		line += " -node-watch-only"
	}
	if !s.Live {
		line += " -node-watch-live=false"
	}
	if !s.Straight {
		line += " -node-watch-straight=false"
	}
	return line
}

// register defines the cell's flags on fs; the function it returns
// completes the spec once fs is parsed.
func (s *nodeWatchSpec) register(fs *flag.FlagSet) func() error {
	watchers := fs.String("node-watch", "100,1000", "the node-watch cell at the largest size: watcher counts of Nodes (straight to the kube-apiserver) and of nodeprogressinsights (through it), side by side, comma-separated; empty to skip (the burst still runs with -node-watch-burst)")
	fs.IntVar(&s.Rate, "node-watch-rate", 20, "node changes (cordon/uncordon) per second in the node-watch cell")
	fs.DurationVar(&s.Duration, "node-watch-duration", 30*time.Second, "how long each node-watch cell, and the burst, writes changes")
	fs.IntVar(&s.BurstRate, "node-watch-burst", 50, "node changes per second of the burst that measures the server's CPU per change (with the first -node-watch count of nodeprogressinsights watchers, 100 without one); 0 to skip")
	fs.DurationVar(&s.Deadline, "node-watch-deadline", 5*time.Second, "a change not shown to a watcher within this is counted as not delivered")
	fs.BoolVar(&s.Live, "node-watch-live", true, "measure each -node-watch count again while a simulated update runs (the churned worker pool paused) and an external informer rewrites its contribution every second")
	fs.BoolVar(&s.Straight, "node-watch-straight", true, "measure each -node-watch count of nodeprogressinsights watchers straight to the server too, after those through the kube-apiserver: the aggregation layer's share of their lag")
	fs.BoolVar(&s.Only, "node-watch-only", false, "at each size, measure the node-watch cell alone (after the cluster, the server's start-up and memory)")
	return func() error {
		s.Watchers = nil
		if *watchers != "" {
			var err error
			if s.Watchers, err = ints(*watchers); err != nil {
				return fmt.Errorf("-node-watch: %w", err)
			}
		}
		s.BurstWatchers = 100
		if len(s.Watchers) > 0 {
			s.BurstWatchers = s.Watchers[0]
		}
		if s.enabled() && (s.Rate < 1 || s.BurstRate < 0 || s.Duration < time.Second || s.Deadline < 100*time.Millisecond) {
			return fmt.Errorf("-node-watch-rate=%d -node-watch-burst=%d -node-watch-duration=%v -node-watch-deadline=%v: a rate of at least 1, a burst of at least 0, at least 1s and 100ms",
				s.Rate, s.BurstRate, s.Duration, s.Deadline)
		}
		if s.Only && !s.enabled() {
			return fmt.Errorf("-node-watch-only with nothing to measure")
		}
		return nil
	}
}

// undelivered stands for the lag of a change a watcher was not shown
// within the deadline: it sorts after every measured lag, so that the
// percentiles count it rather than leave it out.
const undelivered = time.Duration(math.MaxInt64)

// seen is one event a content watcher received about a node the churn
// writes: when, which node (an index into churn.nodes), and whether the
// event shows the node cordoned.
type seen struct {
	at            time.Time
	node          int32
	unschedulable bool
}

// contentLags times, for one watcher, each change (writes, in any order)
// to the first event about its node that shows the state the change set,
// received after the change was sent and before the next change of the same
// node was. A change shown later than deadline, or not at all, gets
// undelivered. events must be in arrival order. The lags are in the order of
// writes.
func contentLags(writes []write, events []seen, deadline time.Duration) []time.Duration {
	// The changes of each node by time, and the events of each node.
	byNode := map[int32][]int{}
	for i, w := range writes {
		byNode[w.node] = append(byNode[w.node], i)
	}
	for _, idx := range byNode {
		slices.SortFunc(idx, func(a, b int) int { return writes[a].at.Compare(writes[b].at) })
	}
	evs := map[int32][]seen{}
	for _, e := range events {
		if _, ok := byNode[e.node]; ok {
			evs[e.node] = append(evs[e.node], e)
		}
	}
	lags := make([]time.Duration, len(writes))
	for node, idx := range byNode {
		for k, i := range idx {
			w := writes[i]
			lags[i] = undelivered
			for _, e := range evs[node] {
				if k+1 < len(idx) && !e.at.Before(writes[idx[k+1]].at) {
					break
				}
				if e.at.Before(w.at) || e.unschedulable != w.unschedulable {
					continue
				}
				if lag := e.at.Sub(w.at); lag <= deadline {
					lags[i] = lag
				}
				break
			}
		}
	}
	return lags
}

// Where a Node event shows spec.unschedulable: inside the spec (which comes
// before the status), set only when true (omitempty). managedFields name
// the field "f:unschedulable" and the spec "f:spec", which these do not
// match.
var (
	nodeSpecKey          = []byte(`"spec":{`)
	nodeStatusKey        = []byte(`"status":{`)
	nodeUnschedulableKey = []byte(`"unschedulable":true`)
)

// nodeUnschedulable reads spec.unschedulable from one JSON watch event of a
// Node, without decoding it; ok is false when the event has no spec.
func nodeUnschedulable(line []byte) (unschedulable, ok bool) {
	i := bytes.Index(line, nodeSpecKey)
	if i < 0 {
		return false, false
	}
	spec := line[i+len(nodeSpecKey):]
	if j := bytes.Index(spec, nodeStatusKey); j >= 0 {
		spec = spec[:j]
	}
	return bytes.Contains(spec, nodeUnschedulableKey), true
}

// insightCordonedText is what a NodeProgressInsight shows of a cordoned
// node: the engine (pkg/insights, the node-availability rule of
// docs/insights.md) makes a cordoned node unavailable with the cause
// "Node is marked unschedulable", the first cause in the Available
// condition's reason list (its message), and in the insight's message when
// the node is not updating. No other cause, and no uncordoned node, shows
// that text (TestInsightUnschedulableFromEngine).
var insightCordonedText = []byte("Node is marked unschedulable")

// insightUnschedulable reads whether one JSON watch event of a
// NodeProgressInsight shows its node cordoned.
func insightUnschedulable(line []byte) (unschedulable, ok bool) {
	return bytes.Contains(line, insightCordonedText), true
}

// contentWatcher is one watcher of Nodes or of nodeprogressinsights that
// reads, in each event, the node it is about and whether it shows the node
// cordoned.
type contentWatcher struct {
	// nodes maps a name to its index in churn.nodes; events about other
	// objects are counted but not recorded.
	nodes map[string]int32
	// shows reads the cordon state from an event.
	shows func(line []byte) (unschedulable, ok bool)
	// from returns the URL of a watch that starts now; resume one that
	// starts after resourceVersion rv.
	from   func(ctx context.Context) (string, error)
	resume func(rv uint64) string

	connected chan struct{}
	once      sync.Once
	err       error // the first stream failed

	mu        sync.Mutex
	seen      []seen
	events    int64
	bytes     int64
	rewatches int
	last      uint64
}

// watch follows the watch from first until ctx ends; whenever a stream
// ends, it watches again from the last resourceVersion received (from now
// when the stream brought nothing: its resourceVersion may be gone).
func (w *contentWatcher) watch(ctx context.Context, h *httpClient, first string) {
	u := first
	for n := 0; ctx.Err() == nil; n++ {
		received, err := w.stream(ctx, h, u)
		if n == 0 && err != nil {
			w.err = err
			w.once.Do(func() { close(w.connected) })
			return
		}
		if ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		w.rewatches++
		last := w.last
		w.mu.Unlock()
		if received && last != 0 {
			u = w.resume(last)
			continue
		}
		// Nothing came: a moment's pause before watching from now, so
		// that a failing watch does not spin.
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
		if u, err = w.from(ctx); err != nil {
			klog.V(2).ErrorS(err, "Cannot watch again")
			u = first
		}
	}
}

// stream reads one watch stream until it ends; received tells whether it
// brought an event.
func (w *contentWatcher) stream(ctx context.Context, h *httpClient, u string) (received bool, err error) {
	resp, err := h.do(ctx, u)
	if err != nil {
		return false, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != 200 {
		return false, fmt.Errorf("watch: %s", resp.Status)
	}
	w.once.Do(func() { close(w.connected) })
	eachLine(bufio.NewReaderSize(resp.Body, 64<<10), func(line []byte) {
		at := time.Now()
		rv, name, ok := jsonMeta(line)
		if !ok {
			return // an ERROR event, a Status without a resourceVersion
		}
		received = true
		node, known := w.nodes[string(name)]
		state, shown := w.shows(line)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.last = rv
		w.events++
		w.bytes += int64(len(line))
		if known && shown {
			w.seen = append(w.seen, seen{at: at, node: node, unschedulable: state})
		}
	})
	return received, nil
}

// eachLine calls f with each newline-terminated line of r, a line longer
// than r's buffer assembled, until r ends (at EOF, or when the stream is
// cut: the last partial line is dropped). bufio.Reader.ReadSlice looks at each byte once; a
// bufio.Scanner would search the whole partial line again after every read.
func eachLine(r *bufio.Reader, f func(line []byte)) {
	var long []byte // a line longer than the buffer, assembled
	for {
		chunk, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			continue
		}
		if err != nil {
			return
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		f(line)
	}
}

// reset forgets what the watcher received so far.
func (w *contentWatcher) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen, w.events, w.bytes = nil, 0, 0
}

// changeToRevision is the server's histogram of the time from a source
// change to the revision that covers it (pkg/view).
const changeToRevision = "update_status_change_to_revision_seconds"

// nodeWatchCell is one cell: watchers of one kind under churn at Rate.
type nodeWatchCell struct {
	Kind                string // kindNodes or kindInsights
	Route               string // how the watchers connect
	Watchers, Connected int
	Rate                int
	// Live is set when the cluster was updating during the cell: the
	// simulator's API requests, the updates it started and the
	// contribution's writes over the cell.
	Live                                         bool
	LiveRequests, LiveUpdates, LiveContributions int64
	// Duration is how long the churn wrote; Window the churn and the
	// deadline after it, over which the CPU is measured.
	Duration, Window time.Duration
	// Changes are the changes written (Skipped: ticks the API was too slow
	// to take).
	Changes, Skipped int64
	// Lag is over every (change, watcher) pair, a change not shown within
	// the deadline counting as undelivered; Late counts those pairs and
	// Unseen the changes no watcher was shown in time.
	Lag          summary
	Late, Unseen int
	Rewatches    int
	// Events and Bytes are received by all watchers during the window.
	Events, Bytes int64
	// CPU-seconds over the window, and the idle cores measured just before
	// with the watchers connected: the server, the kube-apiserver and this
	// process.
	ServerCPU, KubeAPIServerCPU, ClientCPU float64
	ServerIdle, KubeAPIServerIdle          float64
	// Published is the server's revisions over the window.
	Published float64
	// ServerLag is the server's update_status_change_to_revision_seconds
	// over the window (the time from a change to the revision that covers
	// it, in the server), Bursts its observations of bursts, Computations
	// its update_status_computation_duration_seconds (the snapshot and the
	// engine).
	ServerLag, Computations histogramDelta
	Bursts                  float64
}

// CPUPerChange is the CPU-seconds per change above idle of the server (or,
// with kube, of the kube-apiserver) over the window.
func (c *nodeWatchCell) CPUPerChange(kube bool) float64 {
	if c == nil || c.Changes == 0 {
		return 0
	}
	cpu, idle := c.ServerCPU, c.ServerIdle
	if kube {
		cpu, idle = c.KubeAPIServerCPU, c.KubeAPIServerIdle
	}
	return (cpu - idle*c.Window.Seconds()) / float64(c.Changes)
}

// nodeWatchResult is the node-watch cell of one size.
type nodeWatchResult struct {
	Spec  nodeWatchSpec
	Nodes int // the worker nodes the churn writes
	// Cells are, for each watcher count, Nodes then nodeprogressinsights,
	// quiet, then the same live.
	Cells []*nodeWatchCell
	// Burst is BurstWatchers watchers of nodeprogressinsights at BurstRate.
	Burst *nodeWatchCell
	// Gets are GET against the client-side path, quiet then live.
	Gets []*nodeWatchGet
}

// cell returns the cell of kind and watchers, quiet or live, or nil.
func (r *nodeWatchResult) cell(kind string, watchers int, live bool) *nodeWatchCell {
	if r == nil {
		return nil
	}
	for _, c := range r.Cells {
		if c.Kind == kind && c.Watchers == watchers && c.Live == live {
			return c
		}
	}
	return nil
}

// nodeWatchIdle is how long each cell measures the idle CPU.
const nodeWatchIdle = 5 * time.Second

// benchNodeWatch measures the node-watch cell with ch's nodes (its rate is
// set for each cell and restored), the live cells with sim updating the
// cluster (none when sim is nil).
//
// A CPU profile of the server over each churn of nodeprogressinsights
// watchers at the steady rate goes to profDir (not over the burst, whose CPU
// is compared with a baseline's).
func benchNodeWatch(ctx context.Context, c config, cp *localstack.ControlPlane, admin *httpClient, ch *churn, sim *simulator.Simulator, pool, profDir string) (*nodeWatchResult, error) {
	spec := c.nodeWatch
	res := &nodeWatchResult{Spec: spec, Nodes: len(ch.nodes)}
	defer func(rate int) { ch.rate = rate }(ch.rate)
	if n := int(spec.Duration.Seconds()) * max(spec.Rate, spec.BurstRate); n > len(ch.nodes) {
		klog.InfoS("The node-watch cell changes some nodes twice", "changes", n, "nodes", len(ch.nodes))
	}
	// Quiet, each count; the burst (compared with a baseline binary, which
	// measures it alone) before the live cells change the cluster; then
	// live, each count.
	for _, k := range spec.Watchers {
		if err := res.measurePair(ctx, spec, cp, admin, ch, k, nil, profDir); err != nil {
			return res, err
		}
	}
	if spec.Live && len(spec.Watchers) > 0 {
		if err := res.measureGet(ctx, cp, admin, nil); err != nil {
			return res, err
		}
	}
	if spec.BurstRate > 0 {
		var err error
		if res.Burst, err = nodeWatchRun(ctx, spec, cp, admin, ch, kindInsights, spec.BurstWatchers, spec.BurstRate, ""); err != nil {
			return res, err
		}
	}
	if !spec.Live || sim == nil || len(spec.Watchers) == 0 {
		return res, nil
	}
	if err := pauseChurnedPool(ctx, sim, pool); err != nil {
		return res, err
	}
	for _, k := range spec.Watchers {
		if err := res.measurePair(ctx, spec, cp, admin, ch, k, sim, profDir); err != nil {
			return res, err
		}
	}
	return res, res.measureGet(ctx, cp, admin, sim)
}

// measurePair measures k watchers of Nodes, then of nodeprogressinsights,
// quiet, or live while sim updates the cluster when it is not nil.
func (r *nodeWatchResult) measurePair(ctx context.Context, spec nodeWatchSpec, cp *localstack.ControlPlane, admin *httpClient, ch *churn, k int, sim *simulator.Simulator, profDir string) error {
	kinds := []string{kindNodes, kindInsights}
	if spec.Straight {
		kinds = append(kinds, kindInsightsStraight)
	}
	for _, kind := range kinds {
		profile := ""
		if kind == kindInsights {
			name := fmt.Sprintf("nodewatch-%d-cpu.pprof", k)
			if sim != nil {
				name = fmt.Sprintf("nodewatch-%d-live-cpu.pprof", k)
			}
			profile = filepath.Join(profDir, name)
		}
		var activity *liveActivity
		if sim != nil {
			var err error
			if activity, err = startLive(ctx, cp, sim); err != nil {
				return err
			}
		}
		cell, err := nodeWatchRun(ctx, spec, cp, admin, ch, kind, k, spec.Rate, profile)
		if activity != nil {
			if lerr := activity.stop(); err == nil && lerr != nil {
				err = fmt.Errorf("the live update: %w", lerr)
			}
		}
		if err != nil {
			return err
		}
		if activity != nil {
			activity.record(cell)
		}
		r.Cells = append(r.Cells, cell)
	}
	return nil
}

// nodeWatchRun measures watchers watchers of kind while ch writes rate
// changes per second for spec.Duration, and saves a CPU profile of the
// server over the churn to profile unless it is empty.
func nodeWatchRun(ctx context.Context, spec nodeWatchSpec, cp *localstack.ControlPlane, admin *httpClient, ch *churn, kind string, watchers, rate int, profile string) (*nodeWatchCell, error) {
	var t watchTarget
	switch kind {
	case kindNodes:
		t = listedWatch("straight to the kube-apiserver", admin, cp.KubeAPIServer.URL+"/api/v1/nodes", nodeUnschedulable)
	case kindInsightsStraight:
		t = watchFromNow("straight to the server", cp.ServerURL+apiPrefix+resourceNodeInsights+"?watch=1", insightUnschedulable)
	default:
		t = watchFromNow("through the kube-apiserver's aggregation layer", cp.KubeAPIServer.URL+apiPrefix+resourceNodeInsights+"?watch=1", insightUnschedulable)
	}
	return contentWatchRun(ctx, spec, cp, admin, ch, t, kind, watchers, rate, profile)
}

// watchTarget is what the watchers of a content cell watch: route says how
// they connect, from returns the URL of a watch that starts now, resume one
// that starts after resourceVersion rv, shows reads from an event whether it
// shows the churn's state "on" (a node cordoned, a Machine unhealthy).
type watchTarget struct {
	route  string
	from   func(ctx context.Context) (string, error)
	resume func(rv uint64) string
	shows  func(line []byte) (on, ok bool)
	// names maps the name of an object the watchers see to the index of
	// the churned object it shows; nil means the churn's own names.
	names map[string]int32
}

// listedWatch watches the collection at list (a URL) from
// the resourceVersion of a LIST: a watch without one would begin with an
// ADDED event for every object.
func listedWatch(route string, admin *httpClient, list string, shows func([]byte) (bool, bool)) watchTarget {
	sep := "?"
	if strings.Contains(list, "?") {
		sep = "&"
	}
	base := list + sep + "watch=1&resourceVersion="
	return watchTarget{route: route, shows: shows,
		from: func(ctx context.Context) (string, error) {
			body, err := admin.get(ctx, list+sep+"limit=1")
			if err != nil {
				return "", err
			}
			rv, _, ok := jsonMeta(body)
			if !ok {
				return "", fmt.Errorf("no resourceVersion in the LIST of %s", list)
			}
			return base + strconv.FormatUint(rv, 10), nil
		},
		resume: func(rv uint64) string { return base + strconv.FormatUint(rv, 10) },
	}
}

// watchFromNow watches base (a URL with a query) from now, as the server's
// kinds allow without a LIST.
func watchFromNow(route, base string, shows func([]byte) (bool, bool)) watchTarget {
	return watchTarget{route: route, shows: shows,
		from:   func(context.Context) (string, error) { return base + fromNow, nil },
		resume: func(rv uint64) string { return base + "&resourceVersion=" + strconv.FormatUint(rv, 10) },
	}
}

// contentWatchRun measures watchers watchers of t while ch writes rate
// changes per second for spec.Duration, and saves a CPU profile of the
// server over the churn to profile unless it is empty. kind names the cell.
func contentWatchRun(ctx context.Context, spec nodeWatchSpec, cp *localstack.ControlPlane, admin *httpClient, ch *churn, t watchTarget, kind string, watchers, rate int, profile string) (*nodeWatchCell, error) {
	cell := &nodeWatchCell{Kind: kind, Watchers: watchers, Rate: rate, Route: t.route}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	nodes := t.names
	if nodes == nil {
		nodes = ch.nodeIndex()
	}
	from, resume, shows := t.from, t.resume, t.shows
	var first string
	var err error
	if first, err = from(ctx); err != nil {
		return nil, err
	}
	// As in benchWatch: the watchers share a few HTTP/2 connections, 100
	// streams each.
	const perTransport = 100
	var h *httpClient
	ws := make([]*contentWatcher, watchers)
	for i := range ws {
		if i%perTransport == 0 {
			h = newHTTPClient(cp.PKI.CAPEM, cp.Users.Admin.Token)
		}
		w := &contentWatcher{nodes: nodes, shows: shows, from: from, resume: resume, connected: make(chan struct{})}
		ws[i] = w
		hc := h
		wg.Go(func() { w.watch(wctx, hc, first) })
	}
	deadline := time.After(2 * time.Minute)
	for _, w := range ws {
		select {
		case <-w.connected:
		case <-deadline:
			return nil, fmt.Errorf("%d watchers of %s did not connect within 2 minutes", watchers, kind)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if w.err == nil {
			cell.Connected++
		}
	}
	if cell.Connected == 0 {
		return nil, fmt.Errorf("no watcher of %s connected: %v", kind, ws[0].err)
	}
	pids := []int{cp.Server.Pid(), cp.KubeAPIServer.Process.Pid(), os.Getpid()}
	idle0, err := cpuSecondsOf(pids)
	if err != nil {
		return nil, err
	}
	if err := window(ctx, nodeWatchIdle); err != nil {
		return nil, err
	}
	cpu0, err := cpuSecondsOf(pids)
	if err != nil {
		return nil, err
	}
	cell.ServerIdle, cell.KubeAPIServerIdle = (cpu0[0]-idle0[0])/nodeWatchIdle.Seconds(), (cpu0[1]-idle0[1])/nodeWatchIdle.Seconds()
	m0, err := metrics(ctx, admin, cp.ServerURL)
	if err != nil {
		return nil, err
	}
	for _, w := range ws {
		w.reset()
	}
	begin := time.Now()
	ch.reset()
	ch.rate = rate
	cctx, stop := context.WithTimeout(wctx, spec.Duration)
	var profiled sync.WaitGroup
	if profile != "" {
		profiled.Go(func() {
			q := fmt.Sprintf("profile?seconds=%d", max(1, int(spec.Duration.Seconds())-1))
			if err := saveProfile(ctx, admin, cp.ServerURL, q, profile); err != nil {
				klog.ErrorS(err, "No node-watch CPU profile")
			}
		})
	}
	ch.run(cctx)
	stop()
	profiled.Wait()
	cell.Duration = time.Since(begin)
	// The deadline of the last changes: what arrives later is not counted.
	if err := window(ctx, spec.Deadline); err != nil {
		return nil, err
	}
	cell.Window = time.Since(begin)
	cpu1, err := cpuSecondsOf(pids)
	if err != nil {
		return nil, err
	}
	m1, err := metrics(ctx, admin, cp.ServerURL)
	if err != nil {
		return nil, err
	}
	cancel()
	wg.Wait()
	cell.ServerCPU, cell.KubeAPIServerCPU, cell.ClientCPU = cpu1[0]-cpu0[0], cpu1[1]-cpu0[1], cpu1[2]-cpu0[2]
	changed := `result="changed"`
	cell.Published = sumSeries(m1, "update_status_recomputations_total", changed) - sumSeries(m0, "update_status_recomputations_total", changed)
	cell.ServerLag = histogramBetween(m0, m1, changeToRevision, "")
	cell.Bursts = histogramBetween(m0, m1, changeToRevision, `change="burst"`).Count
	cell.Computations = histogramBetween(m0, m1, "update_status_computation_duration_seconds", "")
	writes := ch.sortedWrites()
	cell.Changes, cell.Skipped = int64(len(writes)), ch.errs.Load()
	shown := make([]bool, len(writes))
	var lags []time.Duration
	for _, w := range ws {
		if w.err != nil {
			continue
		}
		w.mu.Lock()
		l := contentLags(writes, w.seen, spec.Deadline)
		cell.Events += w.events
		cell.Bytes += w.bytes
		cell.Rewatches += w.rewatches
		w.mu.Unlock()
		for i, d := range l {
			if d == undelivered {
				cell.Late++
			} else {
				shown[i] = true
			}
		}
		lags = append(lags, l...)
	}
	for _, ok := range shown {
		if !ok {
			cell.Unseen++
		}
	}
	cell.Lag = summarize(lags)
	klog.InfoS("Node watch", "kind", kind, "watchers", cell.Connected, "rate", rate, "changes", cell.Changes, "skipped", cell.Skipped,
		"p50", lagText(cell.Lag.P50, spec.Deadline), "p99", lagText(cell.Lag.P99, spec.Deadline), "late", cell.Late, "rewatches", cell.Rewatches,
		"serverCPUPerChange", cell.CPUPerChange(false), "kubeAPIServerCPUPerChange", cell.CPUPerChange(true))
	return cell, nil
}

// lagText formats a lag, undelivered as beyond the deadline.
func lagText(d, deadline time.Duration) string {
	if d == undelivered {
		return "> " + deadline.String()
	}
	return ms(d)
}
