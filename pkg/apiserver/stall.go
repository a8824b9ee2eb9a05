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
)

// DefaultWatchStallTimeout is the default of ExtraConfig.WatchStallTimeout.
const DefaultWatchStallTimeout = 30 * time.Second

var stalledWatchersClosed = metrics.NewCounter(&metrics.CounterOpts{
	Namespace:      "update_status",
	Name:           "stalled_watchers_closed_total",
	Help:           "UpdateStatus watch streams closed because writing one event took longer than --watch-stall-timeout.",
	StabilityLevel: metrics.ALPHA,
})

// withWatchStallTimeout bounds how long the apiserver's watch handler may
// block writing one event of an update.openshift.io watch. Nothing in the
// library bounds that write: it blocks while the client, or the
// kube-apiserver proxying for it, does not read. Each write and flush
// records when it started; a timer per stream, every timeout, looks at the
// write in progress, and when one has been blocked for the timeout it sets a
// write deadline in the past: the HTTP/2 stream is reset (the HTTP/1.1
// connection closed), the write fails, the handler returns and stops its
// watcher. An idle watch has no write in progress and lives as long as the
// apiserver's own watch timeout. Nothing is asked of the connection per
// write: a write deadline per write would cost HTTP/2 two messages to its
// connection's goroutine and a timer, per event and watcher.
// Times come from clk.
func withWatchStallTimeout(handler http.Handler, timeout time.Duration, clk clock.WithDelayedExecution) http.Handler {
	if timeout <= 0 {
		return handler
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, ok := request.RequestInfoFrom(req.Context())
		if !ok || !info.IsResourceRequest || info.Verb != "watch" || info.APIGroup != update.GroupName {
			handler.ServeHTTP(w, req)
			return
		}
		sw := &stallWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout, clock: clk}
		sw.start()
		handler.ServeHTTP(responsewriter.WrapForHTTP1Or2(sw), req)
		if sw.finish() {
			stalledWatchersClosed.Inc()
			klog.V(2).InfoS("Closed a watch whose client stopped reading", "timeout", timeout, "user-agent", req.UserAgent())
		}
	})
}

// pastDeadline is a write deadline that has passed: setting it ends the
// write in progress at once.
var pastDeadline = time.Unix(1, 0)

// stallWriter records the start of each write and flush of a watch stream
// and ends the stream when one blocks for the timeout.
type stallWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	clock   clock.WithDelayedExecution
	// writing is the start of the write or flush in progress, in Unix
	// nanoseconds of clock; 0 between writes.
	writing atomic.Int64

	mu      sync.Mutex
	timer   clock.Timer
	done    bool // the handler returned: the writer must not be used
	stalled bool
}

var _ responsewriter.UserProvidedDecorator = &stallWriter{}

// Unwrap returns the decorated writer (for http.ResponseController).
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *stallWriter) Write(p []byte) (int, error) {
	s.writing.Store(s.clock.Now().UnixNano())
	defer s.writing.Store(0)
	return s.ResponseWriter.Write(p)
}

// Flush implements http.Flusher; the flush is what blocks when the client
// does not read.
func (s *stallWriter) Flush() {
	s.writing.Store(s.clock.Now().UnixNano())
	defer s.writing.Store(0)
	_ = s.rc.Flush()
}

// start looks at the stream every timeout from now on.
func (s *stallWriter) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watch(s.timeout)
}

// watch looks at the stream after d; called with s.mu held. The clock's
// callback only starts the look, so that it never runs inside the clock (a
// fake clock calls it with its lock held).
func (s *stallWriter) watch(d time.Duration) {
	s.timer = s.clock.AfterFunc(d, func() { go s.check() })
}

// check ends the stream if its write in progress has been blocked for the
// timeout, and otherwise looks again when it would have.
func (s *stallWriter) check() {
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
func (s *stallWriter) finish() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	s.timer.Stop()
	return s.stalled
}
