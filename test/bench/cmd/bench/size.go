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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/simulator"
)

// sizeResult holds every figure of one cluster size.
type sizeResult struct {
	Nodes       int
	CreateTime  time.Duration
	ObjectBytes int

	Startup time.Duration

	// EmptyMem and Mem are read after a LIST of each served resource
	// (servedResources): EmptyServed and Served count the objects each
	// LIST returned (a resource missing from EmptyServed did not answer on
	// the empty cluster).
	EmptyMem, Mem, MemWatching memory
	EmptyServed, Served        map[string]int

	// Binary says which server binary was measured: "after" (the tree's) or
	// "before" (-baseline-binary).
	Binary string
	Gets   []*getCell
	// Encode is encoding the served object alone, per format; EncodedBytes
	// its size in that format.
	Encode       map[string]summary
	EncodedBytes map[string]int
	ClientSide   summary

	// Lists are the LIST cells of -list-resources (the first -get-clients
	// count), ListEncodes the lists they read (objects and encoded size).
	Lists       []*getCell
	ListEncodes []*listEncode

	Watches []*watchResult // one per resource, watcher count, format and route
	// Contributions is the contributions cell (-contributions), or nil.
	Contributions *contributionResult
	Notes         []string

	// NodeWatch is the node-watch cell (-node-watch), or nil.
	NodeWatch *nodeWatchResult
}

// getCell is one GET load: a route, a media type, a number of clients. In
// Lists, Resource is the collection listed (Gets are all of
// updatestatuses/cluster).
type getCell struct {
	Resource      string
	Route, Format string
	loadResult
	// Revisions is how many revisions the server published meanwhile.
	Revisions float64
	// Encode, for a LIST cell, is the in-process encoding of the listed
	// objects, measured alternately with the LISTs.
	Encode summary
}

// get returns the GET cell of route, format and clients, or nil.
func (s *sizeResult) get(route, format string, clients int) *getCell {
	for _, g := range s.Gets {
		if g.Route == route && g.Format == format && g.Clients == clients {
			return g
		}
	}
	return nil
}

// list returns the LIST cell of resource, route and format, or nil.
func (s *sizeResult) list(resource, route, format string) *getCell {
	for _, g := range s.Lists {
		if g.Resource == resource && g.Route == route && g.Format == format {
			return g
		}
	}
	return nil
}

// listEncode returns the encoding of resource's list in format, or nil.
func (s *sizeResult) listEncode(resource, format string) *listEncode {
	for _, e := range s.ListEncodes {
		if e.Resource == resource && e.Format == format {
			return e
		}
	}
	return nil
}

// listEncode is a LIST the server answered, encoded in-process: its
// objects and the size of its encoding in Format.
type listEncode struct {
	Resource, Format string
	Items, Bytes     int
}

// watch returns the updatestatuses watch cell of route, format and
// watchers, or nil.
func (s *sizeResult) watch(route, format string, watchers int) *watchResult {
	return s.watchOf(resourceUpdateStatuses, route, format, watchers)
}

// watchOf returns the watch cell of resource, route, format and watchers,
// or nil.
func (s *sizeResult) watchOf(resource, route, format string, watchers int) *watchResult {
	for _, w := range s.Watches {
		if w.Resource == resource && w.Route == route && w.Format == format && w.Watchers == watchers {
			return w
		}
	}
	return nil
}

// Routes to the server and media types the cells use.
const (
	routeDirect     = "straight"
	routeAggregated = "aggregated"
	formatJSON      = "json"
	formatProtobuf  = "protobuf"
)

// The resources the server serves (issue #13 adds the five per-insight
// ones beside UpdateStatus), under apiPrefix.
const (
	apiPrefix              = "/apis/update.openshift.io/v1alpha1/"
	resourceUpdateStatuses = "updatestatuses"
	resourceNodeInsights   = "nodeprogressinsights"
)

// servedResources are the six resources, all listed before the memory is
// read.
var servedResources = []string{
	resourceUpdateStatuses,
	"clusterversionprogressinsights",
	"clusteroperatorprogressinsights",
	"machineconfigpoolprogressinsights",
	resourceNodeInsights,
	"healthinsights",
}

// perNode reports whether resource has one object per node, whose events
// are matched to the churn's writes by node (nodeDeliveryLags).
func perNode(resource string) bool { return resource == resourceNodeInsights }

// accepts maps a format to the Accept header a client sends.
var accepts = map[string]string{formatJSON: acceptJSON, formatProtobuf: acceptProtobuf}

// watchResult is the outcome of the watch measurement.
type watchResult struct {
	// Resource is the collection watched: updatestatuses (the one object
	// "cluster") or nodeprogressinsights (every node, from now on).
	Resource string
	// Route is straight to the server or through the kube-apiserver's
	// aggregation layer; Format the media type of the stream.
	Route, Format       string
	Watchers, Connected int
	Duration            time.Duration
	Writes, ChurnErrors int64
	Missed              int // (write, watcher) pairs: another watcher got the write, this one did not
	NoEvent             int // writes no watcher got an event for
	Rewatches           int // streams reopened by the watchers (all together)
	CacheEnded, Resumed int // watches of the watch cache it ended, and the server resumed (its metrics)
	EventsPerWatcherSec float64
	Lag                 summary
	CPUPerMinute        float64
	BytesPerEvent       float64
	AllocBytesPerEvent  float64
	MallocsPerEvent     float64
	AllocBytesPerRev    float64
	Revisions           float64 // events received per watcher
	Published           float64 // revisions the server published in the window
	DeliveredPerSec     float64 // bytes per second received by all watchers together
	ClientCPUPerMinute  float64 // CPU of this process (watchers and churn)
	// KubeAPIServerCPUPerMinute is the kube-apiserver's CPU: the churn's
	// writes, the server's informers and, on the aggregated route, the
	// proxying of every watch stream.
	KubeAPIServerCPUPerMinute float64
	MachineBusy               float64 // fraction of the machine's CPU time busy
}

func benchSize(ctx context.Context, c config, n int, binary string) (_ *sizeResult, err error) {
	r := &sizeResult{Nodes: n, Binary: binary, Encode: map[string]summary{}, EncodedBytes: map[string]int{}}
	klog.InfoS("Starting the control plane", "nodes", n)
	cp, err := localstack.Start(ctx, localstack.Options{})
	if err != nil {
		return nil, err
	}
	defer cp.Stop()
	admin := newHTTPClient(cp.PKI.CAPEM, cp.Users.Admin.Token)
	profDir := filepath.Join(c.artifacts, fmt.Sprintf("%d", n), binary)
	if err := os.MkdirAll(profDir, 0o755); err != nil {
		return nil, err
	}

	// The server on the empty cluster (CRDs only): the memory baseline, and
	// the APIService registration.
	if err := cp.StartServer(ctx); err != nil {
		return nil, err
	}
	// The server may not answer a LIST before it has a first revision,
	// which an empty cluster may never give it: a short bound.
	r.EmptyServed = listServed(ctx, admin, cp.ServerURL, 10*time.Second)
	if r.EmptyMem, err = measureMemory(ctx, admin, cp.ServerURL, cp.Server.Pid()); err != nil {
		return nil, err
	}
	cp.Server.Stop(10 * time.Second)

	// The cluster, created with the simulator's API sink at full speed, then
	// the update requested (the node insights exist while it updates).
	t := time.Now()
	sink, err := simulator.NewAPISink(cp.RESTConfig(&cp.Users.Admin), simulator.APISinkOptions{QPS: -1, Workers: 64})
	if err != nil {
		return nil, err
	}
	// It steps only in the node-watch cell's live variant (live.go).
	sim, err := simulator.New(simulator.Options{Nodes: n, Seed: 1, Sink: sink, NodeImages: c.nodeImages, Speed: liveSpeed})
	if err != nil {
		return nil, err
	}
	if err := sim.Create(ctx); err != nil {
		return nil, fmt.Errorf("creating %d nodes: %w", n, err)
	}
	if err := sim.StartUpdate(ctx); err != nil {
		return nil, err
	}
	r.CreateTime = time.Since(t)
	klog.InfoS("Created the cluster", "nodes", n, "elapsed", r.CreateTime.Round(time.Millisecond), "requests", sim.Requests())

	// Start-up at this size.
	p, startup, err := startServer(ctx, cp, mustBin(), admin)
	if err != nil {
		return r, err
	}
	cp.Server = p
	r.Startup = startup
	klog.InfoS("Server ready", "nodes", n, "startup", startup.Round(time.Millisecond))
	if err := cp.WaitForUpdateStatus(ctx, 2*time.Minute); err != nil {
		return r, err
	}
	direct := cp.ServerURL + localstack.UpdateStatusPath
	aggregated := cp.KubeAPIServer.URL + localstack.UpdateStatusPath
	served, err := settle(ctx, admin, direct)
	if err != nil {
		return r, err
	}
	r.ObjectBytes = len(served)
	r.Served = listServed(ctx, admin, cp.ServerURL, time.Minute)
	if n := r.Served[resourceNodeInsights]; n != r.Nodes {
		r.Notes = append(r.Notes, fmt.Sprintf("LIST %s returned %d objects for %d nodes before the memory was read", resourceNodeInsights, n, r.Nodes))
	}
	if r.Mem, err = measureMemory(ctx, admin, cp.ServerURL, p.Pid()); err != nil {
		return r, err
	}
	if err := saveProfile(ctx, admin, cp.ServerURL, "heap", filepath.Join(profDir, "heap-idle.pprof")); err != nil {
		klog.ErrorS(err, "No heap profile")
	}
	if c.nodeWatch.Only {
		r.NodeWatch, err = benchNodeWatch(ctx, c, cp, admin, &churn{kube: cp.Kube, nodes: sim.NodeNames("worker")}, sim, "worker", profDir)
		return r, err
	}

	// GET, straight and through the aggregator, in each format, side by
	// side.
	routes := map[string]string{routeDirect: direct, routeAggregated: aggregated}
	for i, k := range c.getClients {
		if i == len(c.getClients)-1 {
			// A CPU profile of the server under the heaviest load.
			go func() {
				secs := max(1, int(c.getDuration.Seconds())-1)
				if err := saveProfile(ctx, admin, cp.ServerURL, fmt.Sprintf("profile?seconds=%d", secs), filepath.Join(profDir, "get-cpu.pprof")); err != nil {
					klog.ErrorS(err, "No GET CPU profile")
				}
			}()
		}
		for _, format := range c.formats {
			for _, route := range c.routes {
				m0, err := metrics(ctx, admin, cp.ServerURL)
				if err != nil {
					return r, err
				}
				h, u := admin.as(accepts[format]), routes[route]
				get := func(ctx context.Context) error { return h.discard(ctx, u) }
				// A second of unrecorded load first: connections, caches and
				// the clients' goroutines warm up outside the measurement.
				runLoad(ctx, k, time.Second, get)
				cell := &getCell{Route: route, Format: format, loadResult: runLoad(ctx, k, c.getDuration, get)}
				m1, err := metrics(ctx, admin, cp.ServerURL)
				if err != nil {
					return r, err
				}
				changed := `result="changed"`
				cell.Revisions = sumSeries(m1, "update_status_recomputations_total", changed) - sumSeries(m0, "update_status_recomputations_total", changed)
				r.Gets = append(r.Gets, cell)
				klog.InfoS("GET", "nodes", n, "binary", binary, "clients", k, "route", route, "format", format, "p50", cell.Latency.P50, "errors", cell.Errors)
			}
		}
	}
	// LIST of whole collections, with the first client count, in each
	// format and route. Each client encodes the listed objects in-process
	// after each LIST, so that both are measured under the same load.
	for _, resource := range c.listResources {
		body, err := admin.get(ctx, cp.ServerURL+apiPrefix+resource)
		if err != nil {
			return r, err
		}
		list, items, err := decodeList(resource, body)
		if err != nil {
			return r, err
		}
		for _, format := range c.formats {
			encode, size := listEncoder(list, format)
			for _, route := range c.routes {
				base := map[string]string{routeDirect: cp.ServerURL, routeAggregated: cp.KubeAPIServer.URL}[route]
				h, u := admin.as(accepts[format]), base+apiPrefix+resource
				get := func(ctx context.Context) error { return h.discard(ctx, u) }
				runAlternating(ctx, c.getClients[0], time.Second, get, encode)
				lists, encs := runAlternating(ctx, c.getClients[0], c.getDuration, get, encode)
				cell := &getCell{Resource: resource, Route: route, Format: format, loadResult: lists, Encode: summarize(encs)}
				r.Lists = append(r.Lists, cell)
				klog.InfoS("LIST", "nodes", n, "resource", resource, "route", route, "format", format, "p50", cell.Latency.P50, "encodeP50", cell.Encode.P50, "errors", cell.Errors)
			}
			r.ListEncodes = append(r.ListEncodes, &listEncode{Resource: resource, Format: format, Items: items, Bytes: int(size.Load())})
		}
	}
	if err := saveProfile(ctx, admin, cp.ServerURL, "heap", filepath.Join(profDir, "heap-after-get.pprof")); err != nil {
		klog.ErrorS(err, "No heap profile")
	}

	// The limit: encoding alone, in each format.
	for _, format := range c.formats {
		if r.Encode[format], r.EncodedBytes[format], err = encodeLimit(served, format, c.encodeDuration); err != nil {
			return r, err
		}
	}
	// The client-side path.
	cs, err := newClientSide(cp.RESTConfig(&cp.Users.Admin))
	if err != nil {
		return r, err
	}
	var lat []time.Duration
	for range c.clientRuns {
		t := time.Now()
		if err := cs.run(ctx); err != nil {
			return r, fmt.Errorf("client-side path: %w", err)
		}
		lat = append(lat, time.Since(t))
	}
	r.ClientSide = summarize(lat)
	klog.InfoS("Client side and encoding", "nodes", n, "clientSide", r.ClientSide.P50, "encode", r.Encode[formatJSON].P50)

	// WATCH fan-out under churn, for each watcher count; the memory with the
	// watchers connected is read at the largest.
	largest := 0
	for _, k := range c.watchers {
		largest = max(largest, k)
	}
	ch := &churn{kube: cp.Kube, nodes: sim.NodeNames("worker"), rate: c.churnRate}
	for _, resource := range c.watchResources {
		for _, k := range c.watchers {
			for _, format := range c.formats {
				for _, route := range c.routes {
					// The memory and profile with watchers connected: the
					// largest straight JSON cell of updatestatuses; a CPU
					// profile of the largest aggregated JSON cell of the
					// other resources.
					var cpuProfile string
					var mem *memory
					switch {
					case resource == resourceUpdateStatuses && k == largest && route == routeDirect && format == formatJSON:
						cpuProfile, mem = "watch-cpu.pprof", &r.MemWatching
					case resource != resourceUpdateStatuses && k == largest && route == routeAggregated && format == formatJSON:
						cpuProfile = "watch-cpu-" + resource + ".pprof"
					}
					w, err := benchWatch(ctx, c, cp, admin, ch, profDir, resource, k, route, format, cpuProfile, mem)
					if err != nil {
						return r, err
					}
					r.Watches = append(r.Watches, w)
				}
			}
		}
	}
	// The node-watch cell before the contributions cell: a baseline binary
	// measures no contributions, and the UpdateInformers that cell leaves
	// would make every computation of the tree's binary cost more in the
	// burst that the two are compared on.
	if c.nodeWatch.at(n, c.sizes) {
		if r.NodeWatch, err = benchNodeWatch(ctx, c, cp, admin, ch, sim, "worker", profDir); err != nil {
			return r, fmt.Errorf("node-watch cell: %w", err)
		}
	}
	if c.contributions.Informers > 0 {
		cr, err := benchContributions(ctx, c, cp, admin, ch, profDir)
		r.Contributions = cr
		if err != nil {
			return r, fmt.Errorf("contributions cell: %w", err)
		}
	}
	return r, nil
}

// mustBin returns the server binary localstack.StartServer uses
// ($UPDATE_STATUS_APISERVER, set by run).
func mustBin() string {
	b, _ := localstack.BuildServer("", "")
	return b
}

// settle waits until two GETs a second apart return the same
// resourceVersion (the view has folded the initial sync) and returns the
// body.
func settle(ctx context.Context, h *httpClient, u string) ([]byte, error) {
	var prev string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		body, err := h.get(ctx, u)
		if err != nil {
			return nil, err
		}
		i := strings.Index(string(body), string(rvKey))
		rv := ""
		if i >= 0 {
			rv = string(body[i : i+len(rvKey)+24])
		}
		if rv == prev {
			return body, nil
		}
		prev = rv
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, fmt.Errorf("the object did not settle within a minute")
}

// benchWatch measures watchers watchers of resource under churn. With
// cpuProfile, it saves a CPU profile of the server under that name; with
// mem, it reads the server's memory into mem before the watchers
// disconnect.
func benchWatch(ctx context.Context, c config, cp *localstack.ControlPlane, admin *httpClient, ch *churn, profDir, resource string, watchers int, route, format, cpuProfile string, mem *memory) (*watchResult, error) {
	res := &watchResult{Resource: resource, Watchers: watchers, Route: route, Format: format}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The watchers share a few transports (HTTP/2 connections), as many
	// clients behind a few kube-apiserver connections would.
	const perTransport = 100
	var clients []*httpClient
	ws := make([]*watcher, watchers)
	var wg sync.WaitGroup
	u := cp.ServerURL
	if route == routeAggregated {
		u = cp.KubeAPIServer.URL
	}
	u += apiPrefix + resource + "?watch=1"
	collection := resource != resourceUpdateStatuses
	if !collection {
		u += "&fieldSelector=metadata.name%3Dcluster"
	}
	var nodes map[string]int32
	if perNode(resource) {
		nodes = ch.nodeIndex()
	}
	for i := range ws {
		if i%perTransport == 0 {
			clients = append(clients, newHTTPClient(cp.PKI.CAPEM, cp.Users.Admin.Token).as(accepts[format]))
		}
		h := clients[len(clients)-1]
		ws[i] = &watcher{synced: make(chan struct{}), collection: collection, nodes: nodes}
		w := ws[i]
		wg.Go(func() { w.watch(wctx, h, u) })
	}
	defer wg.Wait()
	syncDeadline := time.After(2 * time.Minute)
	for _, w := range ws {
		select {
		case <-w.synced:
		case <-syncDeadline:
			return nil, fmt.Errorf("watchers did not get their first event within 2 minutes")
		}
		if w.err == nil {
			res.Connected++
		}
	}
	klog.InfoS("Watchers connected", "watchers", res.Connected)
	if res.Connected == 0 {
		return nil, fmt.Errorf("no watcher connected: %v", ws[0].err)
	}
	pid := cp.Server.Pid()
	m0, err := metrics(ctx, admin, cp.ServerURL)
	if err != nil {
		return nil, err
	}
	// The server, this process (watchers and churn) and the kube-apiserver.
	pids := []int{pid, os.Getpid(), cp.KubeAPIServer.Process.Pid()}
	cpu0, err := sampleCPU(pids)
	if err != nil {
		return nil, err
	}
	for _, w := range ws {
		w.mu.Lock()
		w.events, w.bytes = nil, 0
		w.mu.Unlock()
	}
	begin := time.Now()
	ch.reset()
	cctx, stopChurn := context.WithTimeout(wctx, c.watchDuration)
	churnDone := make(chan struct{})
	go func() { ch.run(cctx); close(churnDone) }()
	if cpuProfile != "" {
		go func() {
			if err := saveProfile(ctx, admin, cp.ServerURL, fmt.Sprintf("profile?seconds=%d", max(1, int(c.watchDuration.Seconds())/2)), filepath.Join(profDir, cpuProfile)); err != nil {
				klog.ErrorS(err, "No watch CPU profile")
			}
		}()
	}
	<-churnDone
	stopChurn()
	// Let the last writes reach the watchers (the fold delay, then one
	// delivery to every watcher), for at most 15 s. A watcher of a
	// collection gets one event per changed object of a revision, so an
	// event of the last revision is not the last event: there the wait
	// also needs 500 ms in which no watcher receives anything; and since
	// the last writes may produce no event at all (a change the objects do
	// not show), 2 s of quiet end it too.
	if sent := ch.sortedWrites(); len(sent) > 0 {
		last := sent[len(sent)-1].rv
		quietSince, seen := time.Now(), eventsReceived(ws)
		for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if n := eventsReceived(ws); n != seen {
				quietSince, seen = time.Now(), n
			}
			quiet := time.Since(quietSince)
			if reached := allReached(ws, last); !collection && reached || collection && (reached && quiet >= 500*time.Millisecond || quiet >= 2*time.Second) {
				break
			}
		}
	}
	elapsed := time.Since(begin)
	cpu1, err := sampleCPU(pids)
	if err != nil {
		return nil, err
	}
	m1, err := metrics(ctx, admin, cp.ServerURL)
	if err != nil {
		return nil, err
	}
	if mem != nil {
		if *mem, err = measureMemory(ctx, admin, cp.ServerURL, pid); err != nil {
			return nil, err
		}
		if err := saveProfile(ctx, admin, cp.ServerURL, "heap", filepath.Join(profDir, "heap-watching.pprof")); err != nil {
			klog.ErrorS(err, "No heap profile")
		}
	}
	cancel()
	wg.Wait()

	writes := ch.sortedWrites()
	res.Writes, res.ChurnErrors, res.Duration = int64(len(writes)), ch.errs.Load(), elapsed
	var lags []time.Duration
	var events, bytes int64
	var delivered [][]bool
	for _, w := range ws {
		if w.err != nil {
			continue
		}
		match := deliveryLags
		if perNode(resource) {
			match = nodeDeliveryLags
		}
		l, d := match(writes, w.events)
		lags = append(lags, l...)
		delivered = append(delivered, d)
		res.Rewatches += w.rewatches
		events += int64(len(w.events))
		bytes += w.bytes
	}
	res.Missed, res.NoEvent = tallyDelivery(delivered, len(writes))
	res.Lag = summarize(lags)
	res.EventsPerWatcherSec = float64(events) / float64(res.Connected) / elapsed.Seconds()
	perMinute := func(i int) float64 { return (cpu1.procs[i] - cpu0.procs[i]) / elapsed.Seconds() * 60 }
	res.CPUPerMinute, res.ClientCPUPerMinute, res.KubeAPIServerCPUPerMinute = perMinute(0), perMinute(1), perMinute(2)
	if cpu1.total > cpu0.total {
		res.MachineBusy = (cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total)
	}
	res.Revisions = float64(events) / float64(res.Connected)
	res.Published = sumSeries(m1, "update_status_recomputations_total", `result="changed"`) - sumSeries(m0, "update_status_recomputations_total", `result="changed"`)
	delta := func(name string) int {
		label := fmt.Sprintf("resource=%q", resource)
		return int(sumSeries(m1, name, label) - sumSeries(m0, name, label))
	}
	res.CacheEnded, res.Resumed = delta("apiserver_terminated_watchers_total"), delta("update_status_watch_cache_watches_resumed_total")
	res.DeliveredPerSec = float64(bytes) / elapsed.Seconds()
	if events > 0 {
		res.BytesPerEvent = float64(bytes) / float64(events)
		res.AllocBytesPerEvent = (m1["go_memstats_alloc_bytes_total"] - m0["go_memstats_alloc_bytes_total"]) / float64(events)
		res.MallocsPerEvent = (m1["go_memstats_mallocs_total"] - m0["go_memstats_mallocs_total"]) / float64(events)
	}
	if res.Revisions > 0 {
		res.AllocBytesPerRev = (m1["go_memstats_alloc_bytes_total"] - m0["go_memstats_alloc_bytes_total"]) / res.Revisions
	}
	klog.InfoS("Watch", "resource", resource, "route", route, "format", format, "watchers", res.Connected, "rewatches", res.Rewatches, "cacheEnded", res.CacheEnded, "resumed", res.Resumed, "writes", res.Writes, "eventsPerWatcherSec", res.EventsPerWatcherSec,
		"lagP50", res.Lag.P50, "lagP99", res.Lag.P99, "cpuPerMinute", res.CPUPerMinute)
	return res, nil
}

// eventsReceived counts the events all watchers received.
func eventsReceived(ws []*watcher) int {
	n := 0
	for _, w := range ws {
		w.mu.Lock()
		n += len(w.events)
		w.mu.Unlock()
	}
	return n
}

// allReached reports whether every connected watcher received an event
// whose inputs include etcd resourceVersion rv.
func allReached(ws []*watcher, rv uint64) bool {
	for _, w := range ws {
		if w.err != nil {
			continue
		}
		w.mu.Lock()
		n := len(w.events)
		reached := n > 0 && w.events[n-1].input >= rv
		w.mu.Unlock()
		if !reached {
			return false
		}
	}
	return true
}
