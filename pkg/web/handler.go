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

// Package web is the page of `update-status web`: an HTTP handler that
// serves one page (HTML, JavaScript and CSS embedded in the binary) and a
// stream of server-sent events that keeps it up to date, and the model of
// the cluster update it streams, kept from shared informers on the
// per-insight resources (or on UpdateStatus where the server does not serve
// them).
//
// The stream (GET /events, text/event-stream) carries:
//
//   - snapshot: the whole picture (control plane, pools, every node cell,
//     health insights, API errors), first on every connection, and again
//     whenever a browser fell too far behind;
//   - delta: what changed since the previous event (changed and removed
//     nodes, pool summaries, the control plane, the health list), at most
//     one per flush interval however many objects changed;
//   - apierror: the current list of refusals and failures of the cluster
//     API (an empty list when they cleared);
//   - ping: a heartbeat, so that the page notices a stream that went quiet.
//
// A browser that reconnects (EventSource does it by itself, sending
// Last-Event-ID) gets a fresh snapshot: the server keeps no history.
//
// The same stream of another cluster than the handler's is GET
// /events?hosted=NAMESPACE/NAME (a hosted cluster) or ?view=standalone: the
// handler follows it, with informers of its own, while browsers do.
//
// On a management cluster, GET /fleet/events streams the fleet: one
// FleetCell per HostedClusterUpdateStatus the user may list, in every
// namespace, kept from one informer (a snapshot, then deltas of the changed
// cells only). The page opens on it when there are hosted clusters.
package web

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
)

//go:embed static
var static embed.FS

// Options configure a Handler.
type Options struct {
	// Client reads the cluster, as the user whose rights the page shows.
	Client versioned.Interface
	// Clock is the only source of time; nil is the real clock.
	Clock clock.WithTicker
	// FlushInterval is how often changes go out to browsers, coalesced;
	// zero is 250ms.
	FlushInterval time.Duration
	// Heartbeat is how often an idle stream carries a ping; zero is 15s.
	Heartbeat time.Duration
	// ProbeInterval is how often a failing read is retried to clear its
	// error; zero is 5s.
	ProbeInterval time.Duration
	// ClientBuffer is how many events may wait for one browser; a browser
	// further behind gets a fresh snapshot instead. Zero is 64.
	ClientBuffer int
	// AllowedHosts, when not empty, are the only Host headers answered
	// (host:port), which keeps other sites' pages from reading this one
	// through a DNS name bound to loopback.
	AllowedHosts []string
	// Source forces the resources read: SourceInsights or
	// SourceUpdateStatus (with HostedCluster, SourceHostedInsights or
	// SourceHostedStatus); empty asks discovery.
	Source string
	// HostedCluster, when set, is the hosted cluster (HyperShift
	// HostedCluster) the page follows instead of the standalone cluster:
	// its HostedClusterUpdateStatus, or its hosted per-insight objects.
	HostedCluster types.NamespacedName
}

// Handler serves the page and its event streams. Run keeps its model, and
// the fleet's and other clusters' models while browsers follow them.
type Handler struct {
	opts  Options
	model *model
	mux   *http.ServeMux
	// hub are the browsers following the model.
	hub

	// fleet is the fleet page's model; nil on the page of another cluster
	// (a child of the handler that serves the browser).
	fleet      *fleet
	fleetHub   hub
	fleetStart sync.Once
	// clusters are the pages of the clusters other than the model's,
	// opened by URL (clusters.go).
	clusters clusterPages
}

// NewHandler returns the handler; call Run to fill its model.
func NewHandler(opts Options) *Handler {
	h := newHandler(opts)
	h.fleet = newFleet(h.model.hostedCluster)
	return h
}

// newHandler returns a handler of one cluster, without fleet.
func newHandler(opts Options) *Handler {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = 250 * time.Millisecond
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.ProbeInterval <= 0 {
		opts.ProbeInterval = 5 * time.Second
	}
	if opts.ClientBuffer <= 0 {
		opts.ClientBuffer = 64
	}
	h := &Handler{opts: opts, model: newModel(), mux: http.NewServeMux(), hub: newHub(), fleetHub: newHub(), clusters: newClusterPages()}
	if h.hosted() {
		h.model.hostedCluster = &HostedCluster{Namespace: opts.HostedCluster.Namespace, Name: opts.HostedCluster.Name}
	}
	assets, err := fs.Sub(static, "static")
	if err != nil {
		panic(err)
	}
	files := http.FileServerFS(assets)
	h.mux.HandleFunc("GET /events", h.serveEvents)
	h.mux.HandleFunc("GET /state.json", h.serveState)
	h.mux.HandleFunc("GET /fleet/events", h.serveFleetEvents)
	h.mux.HandleFunc("GET /fleet.json", h.serveFleetState)
	h.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, assets, "index.html")
	})
	h.mux.Handle("GET /app.js", files)
	h.mux.Handle("GET /app.css", files)
	return h
}

// ServeHTTP serves /, /app.js, /app.css, /events, /state.json,
// /fleet/events and /fleet.json. The cluster's stream and state take
// ?hosted=NAMESPACE/NAME or ?view=standalone to follow another cluster than
// the handler's.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(h.opts.AllowedHosts) > 0 && !slices.Contains(h.opts.AllowedHosts, r.Host) {
		http.Error(w, "unexpected Host header", http.StatusMisdirectedRequest)
		return
	}
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
	h.mux.ServeHTTP(w, r)
}

// LoopbackHosts returns the Host headers a browser sends to a loopback
// listener at addr (host:port).
func LoopbackHosts(addr string) []string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	return []string{net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("localhost", port), net.JoinHostPort("::1", port)}
}

// Run watches the cluster and streams changes to the browsers until ctx
// ends.
func (h *Handler) Run(ctx context.Context) error {
	h.clusters.start(ctx)
	defer h.clusters.stopAll()
	go h.watchCluster(ctx)
	flush := h.opts.Clock.NewTicker(h.opts.FlushInterval)
	defer flush.Stop()
	refresh := h.opts.Clock.NewTicker(10 * time.Second)
	defer refresh.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-refresh.C():
			now := h.opts.Clock.Now()
			h.model.timePassed()
			if h.fleet != nil {
				h.fleet.timePassed(now)
			}
			h.clusters.reap(now)
		case <-flush.C():
			h.flush()
		}
	}
}

// flush sends what changed to every browser.
func (h *Handler) flush() {
	now := h.opts.Clock.Now()
	d, errs, seq := h.model.flush(now)
	if d != nil {
		h.broadcast(encodeEvent("delta", seq, d))
	}
	if errs != nil {
		h.broadcast(encodeEvent("apierror", seq, map[string]any{"errors": errs}))
	}
	if h.fleet != nil {
		if fd := h.fleet.flush(now); fd != nil {
			h.fleetHub.broadcast(encodeEvent("delta", fd.Seq, fd))
		}
	}
}

// serveEvents serves the stream of the cluster the request names.
func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request) {
	c, ok := h.cluster(w, r)
	if !ok {
		return
	}
	serveStream(w, r, &c.hub, streamOf(c.opts, c.model.snapshot))
}

// serveState answers the snapshot of the cluster the request names as
// JSON, for scripts and debugging.
func (h *Handler) serveState(w http.ResponseWriter, r *http.Request) {
	c, ok := h.cluster(w, r)
	if !ok {
		return
	}
	writeState(w, c.model.snapshot(c.opts.Clock.Now()))
}

// sequenced is a snapshot: it has a sequence number.
type sequenced interface{ sequence() uint64 }

func (s *Snapshot) sequence() uint64      { return s.Seq }
func (s *FleetSnapshot) sequence() uint64 { return s.Seq }

// streamOf is the stream of opts' timing whose snapshot is snapshot at
// opts' clock's now.
func streamOf[S sequenced](opts Options, snapshot func(time.Time) S) streamConfig {
	return streamConfig{clock: opts.Clock, heartbeat: opts.Heartbeat, buffer: opts.ClientBuffer,
		snapshot: func() (uint64, any) {
			s := snapshot(opts.Clock.Now())
			return s.sequence(), s
		}}
}

// writeState answers state as JSON, never cached.
func writeState(w http.ResponseWriter, state any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(state)
}

// Subscribers returns the number of browsers following the handler's
// cluster.
func (h *Handler) Subscribers() int { return h.count() }

// startFleet starts following the fleet, once: the first time a browser
// asks for it.
func (h *Handler) startFleet() bool {
	ctx := h.clusters.context()
	if ctx == nil || h.fleet == nil {
		return false
	}
	h.fleetStart.Do(func() { go h.watchFleet(ctx) })
	return true
}

// serveFleetEvents serves the fleet's stream: a FleetSnapshot, then
// FleetDelta events.
func (h *Handler) serveFleetEvents(w http.ResponseWriter, r *http.Request) {
	if !h.startFleet() {
		http.Error(w, "the fleet is not followed yet", http.StatusServiceUnavailable)
		return
	}
	serveStream(w, r, &h.fleetHub, streamOf(h.opts, h.fleet.snapshot))
}

// serveFleetState answers the fleet's snapshot as JSON.
func (h *Handler) serveFleetState(w http.ResponseWriter, _ *http.Request) {
	if !h.startFleet() {
		http.Error(w, "the fleet is not followed yet", http.StatusServiceUnavailable)
		return
	}
	writeState(w, h.fleet.snapshot(h.opts.Clock.Now()))
}
