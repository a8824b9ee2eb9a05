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

package apiserver

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/endpoints/responsewriter"
	"k8s.io/component-base/metrics"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
)

// DefaultWatchStallTimeout is the default of ExtraConfig.WatchStallTimeout.
const DefaultWatchStallTimeout = 30 * time.Second

var stalledWatchersClosed = metrics.NewCounter(&metrics.CounterOpts{
	Namespace:      "update_status",
	Name:           "stalled_watchers_closed_total",
	Help:           "update.openshift.io watch streams closed because one write took longer than --watch-stall-timeout.",
	StabilityLevel: metrics.ALPHA,
})

// withWatchWriter puts a watchWriter under every update.openshift.io watch
// stream. It does two things the library's watch handler does not.
//
// It batches, on watches of the per-insight kinds. The handler writes each
// event and flushes when no other event waits; on HTTP/2 every write that
// reaches the connection is a message to the connection's goroutine, a
// DATA frame, a TLS record and a syscall, and through the aggregation layer
// the kube-apiserver copies each frame again. The watch writer keeps the
// events written between two flushes, up to batchSize bytes, and passes
// them down as one write: a watcher that keeps up still gets each event at
// once, one behind gets its backlog in frames of up to batchSize
// (docs/watch.md, "Slow and stalled watchers"). UpdateStatus events are
// larger than a batch; their writes go down as they come.
//
// It bounds how long writing one batch may block. Nothing in the library
// does: a write blocks while the client, or the kube-apiserver proxying for
// it, does not read. Each write and flush records when it started; a timer
// per stream, every timeout, looks at the write in progress, and when one
// has been blocked for the timeout it sets a write deadline in the past: the
// HTTP/2 stream is reset (the HTTP/1.1 connection closed), the write fails,
// the handler returns and stops its watcher. An idle watch has no write in
// progress and lives as long as the apiserver's own watch timeout. Nothing
// is asked of the connection per write: a write deadline per write would
// cost HTTP/2 two messages to its connection's goroutine and a timer, per
// event and watcher.
// Times come from clk; timeout <= 0 leaves the handler as it is.
func withWatchWriter(handler http.Handler, timeout time.Duration, clk clock.WithDelayedExecution) http.Handler {
	if timeout <= 0 {
		return handler
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, ok := request.RequestInfoFrom(req.Context())
		if !ok || !info.IsResourceRequest || info.Verb != "watch" || info.APIGroup != update.GroupName {
			handler.ServeHTTP(w, req)
			return
		}
		sw := &watchWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout, clock: clk,
			batching: info.Resource != resources.UpdateStatus.Resource}
		sw.start()
		handler.ServeHTTP(responsewriter.WrapForHTTP1Or2(sw), req)
		// What the handler wrote after its last flush still goes out, as
		// the server flushes it when a handler returns.
		_ = sw.writeBatch()
		if sw.finish() {
			stalledWatchersClosed.Inc()
			klog.V(2).InfoS("Closed a watch whose client stopped reading", "timeout", timeout, "user-agent", req.UserAgent())
		}
	})
}

// pastDeadline is a write deadline that has passed: setting it ends the
// write in progress at once.
var pastDeadline = time.Unix(1, 0)

// batchSize bounds a batch of writes passed down as one: the largest
// HTTP/2 DATA frame a peer must accept and the largest TLS record.
const batchSize = 16 << 10

// batches holds the batch buffers: a stream has one only between a write
// and the next flush, so idle watchers hold none.
var batches = sync.Pool{New: func() any {
	b := make([]byte, 0, batchSize)
	return &b
}}

// watchWriter batches the writes of a watch stream between flushes and ends
// the stream when writing a batch blocks for the timeout. Write and Flush
// are called by the handler's goroutine only.
type watchWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	clock   clock.WithDelayedExecution
	// writing is the start of the write or flush in progress, in Unix
	// nanoseconds of clock; 0 between writes.
	writing atomic.Int64
	// batch holds what was written since the last write down; nil when
	// empty. err is the first error of a write down: every later write
	// fails with it.
	batch *[]byte
	err   error
	// batching is off for UpdateStatus watches: their events are larger
	// than a batch, and their writes reach the connection as before.
	batching bool

	mu      sync.Mutex
	timer   clock.Timer
	done    bool // the handler returned: the writer must not be used
	stalled bool
}

var _ responsewriter.UserProvidedDecorator = &watchWriter{}

// Unwrap returns the decorated writer (for http.ResponseController).
func (s *watchWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Write adds p to the batch. A batch that p would take past batchSize is
// written down first, and a p of batchSize or more is written down on its
// own (an UpdateStatus event is one such write).
func (s *watchWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if !s.batching {
		return s.writeDown(p)
	}
	if s.batch != nil && len(*s.batch)+len(p) > batchSize {
		if err := s.writeBatch(); err != nil {
			return 0, err
		}
	}
	if len(p) >= batchSize {
		return s.writeDown(p)
	}
	if s.batch == nil {
		s.batch = batches.Get().(*[]byte)
	}
	*s.batch = append(*s.batch, p...)
	return len(p), nil
}

// Flush implements http.Flusher: the batch is written down and flushed;
// the flush is what blocks when the client does not read.
func (s *watchWriter) Flush() {
	if s.writeBatch() != nil {
		return
	}
	s.writing.Store(s.clock.Now().UnixNano())
	defer s.writing.Store(0)
	_ = s.rc.Flush()
}

// writeBatch writes the batch down, if any, and gives its buffer back.
func (s *watchWriter) writeBatch() error {
	if s.batch == nil {
		return s.err
	}
	_, err := s.writeDown(*s.batch)
	*s.batch = (*s.batch)[:0]
	batches.Put(s.batch)
	s.batch = nil
	return err
}

// writeDown writes p to the decorated writer, recording when it started.
func (s *watchWriter) writeDown(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	s.writing.Store(s.clock.Now().UnixNano())
	n, err := s.ResponseWriter.Write(p)
	s.writing.Store(0)
	if err != nil {
		s.err = err
	}
	return n, err
}

// start looks at the stream every timeout from now on.
func (s *watchWriter) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watch(s.timeout)
}

// watch looks at the stream after d; called with s.mu held. The clock's
// callback only starts the look, so that it never runs inside the clock (a
// fake clock calls it with its lock held).
func (s *watchWriter) watch(d time.Duration) {
	s.timer = s.clock.AfterFunc(d, func() { go s.check() })
}

// check ends the stream if its write in progress has been blocked for the
// timeout, and otherwise looks again when it would have.
func (s *watchWriter) check() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.stalled {
		return
	}
	next := s.timeout
	if since := s.writing.Load(); since != 0 {
		blocked := s.clock.Since(time.Unix(0, since))
		if blocked >= s.timeout {
			s.stalled = true
			if err := s.rc.SetWriteDeadline(pastDeadline); err != nil {
				klog.V(2).InfoS("Cannot end a stalled watch: its connection has no write deadline", "err", err)
			}
			return
		}
		next = s.timeout - blocked
	}
	s.watch(next)
}

// finish stops looking at the stream, whose handler has returned, and
// says whether it was ended as stalled.
func (s *watchWriter) finish() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	s.timer.Stop()
	return s.stalled
}
