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
package web

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
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

// Handler serves the page and its event stream. Run keeps its model.
type Handler struct {
	opts  Options
	model *model
	mux   *http.ServeMux

	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

// subscriber is one connected browser.
type subscriber struct {
	ch chan event
	// resync is signalled when events were dropped: the browser gets a
	// snapshot instead.
	resync chan struct{}
}

// event is one encoded server-sent event.
type event struct {
	seq  uint64
	data []byte
}

// NewHandler returns the handler; call Run to fill its model.
func NewHandler(opts Options) *Handler {
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
	h := &Handler{opts: opts, model: newModel(), mux: http.NewServeMux(), subs: map[*subscriber]struct{}{}}
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
	h.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, assets, "index.html")
	})
	h.mux.Handle("GET /app.js", files)
	h.mux.Handle("GET /app.css", files)
	return h
}

// ServeHTTP serves /, /app.js, /app.css, /events and /state.json.
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
			h.model.timePassed()
		case <-flush.C():
			h.flush()
		}
	}
}

// flush sends what changed to every browser.
func (h *Handler) flush() {
	d, errs, seq := h.model.flush(h.opts.Clock.Now())
	if d != nil {
		h.broadcast(encodeEvent("delta", seq, d))
	}
	if errs != nil {
		h.broadcast(encodeEvent("apierror", seq, map[string]any{"errors": errs}))
	}
}

func (h *Handler) broadcast(ev event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		select {
		case s.ch <- ev:
		default:
			select {
			case s.resync <- struct{}{}:
			default:
			}
		}
	}
}

func encodeEvent(name string, seq uint64, v any) event {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"marshal": err.Error()})
	}
	var b bytes.Buffer
	b.Grow(len(data) + 64)
	fmt.Fprintf(&b, "event: %s\nid: %d\ndata: ", name, seq)
	b.Write(data)
	b.WriteString("\n\n")
	return event{seq: seq, data: b.Bytes()}
}

// Subscribers returns the number of connected browsers.
func (h *Handler) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (h *Handler) subscribe() *subscriber {
	s := &subscriber{ch: make(chan event, h.opts.ClientBuffer), resync: make(chan struct{}, 1)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

func (h *Handler) unsubscribe(s *subscriber) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// writeTimeout bounds one write to a browser: a browser that reads nothing
// for this long loses its stream (and reconnects).
const writeTimeout = 30 * time.Second

func (h *Handler) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sub := h.subscribe()
	defer h.unsubscribe(sub)
	write := func(b []byte) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := w.Write(b); err != nil {
			return false
		}
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		return true
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		klog.V(2).InfoS("A browser reconnected; it gets a fresh snapshot", "lastEventID", last, "remote", r.RemoteAddr)
	}
	// The browser retries after 2s when the stream breaks.
	if !write([]byte("retry: 2000\n\n")) {
		return
	}
	var sent uint64
	sendSnapshot := func() bool {
		snap := h.model.snapshot(h.opts.Clock.Now())
		sent = snap.Seq
		return write(encodeEvent("snapshot", snap.Seq, snap).data)
	}
	if !sendSnapshot() {
		return
	}
	beat := h.opts.Clock.NewTicker(h.opts.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-sub.resync:
			// Events were dropped: forget the queue, send the whole picture.
			for drained := false; !drained; {
				select {
				case <-sub.ch:
				default:
					drained = true
				}
			}
			if !sendSnapshot() {
				return
			}
		case ev := <-sub.ch:
			if ev.seq <= sent {
				continue // already in the snapshot
			}
			if !write(ev.data) {
				return
			}
		case <-beat.C():
			if !write([]byte("event: ping\ndata: " + strconv.FormatInt(h.opts.Clock.Now().UnixMilli(), 10) + "\n\n")) {
				return
			}
		}
	}
}

// serveState answers the snapshot as JSON, for scripts and debugging.
func (h *Handler) serveState(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(h.model.snapshot(h.opts.Clock.Now()))
}
