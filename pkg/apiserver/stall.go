package apiserver

import (
	"errors"
	"net/http"
	"os"
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
// block writing one event of an update.openshift.io watch. The watch cache
// ends a watcher whose buffer stays full, but the handler's write itself
// blocks while the client, or the kube-apiserver proxying for it, does not
// read, and nothing in the library bounds that write. Each write and flush
// runs under a write deadline; when it expires the stream is reset (HTTP/2)
// or the connection closed (HTTP/1.1), the write fails, the handler returns
// and stops its watcher. Between writes no deadline is set, so an idle
// watch lives as long as the apiserver's own watch timeout.
// The deadlines are computed from clk.
func withWatchStallTimeout(handler http.Handler, timeout time.Duration, clk clock.PassiveClock) http.Handler {
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
		handler.ServeHTTP(responsewriter.WrapForHTTP1Or2(sw), req)
		if sw.stalled {
			stalledWatchersClosed.Inc()
			klog.V(2).InfoS("Closed a watch whose client stopped reading", "timeout", timeout, "user-agent", req.UserAgent())
		}
	})
}

// stallWriter puts each write and flush of a watch stream under a deadline.
type stallWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	clock   clock.PassiveClock
	noDeadl bool // the connection does not support deadlines
	stalled bool
}

var _ responsewriter.UserProvidedDecorator = &stallWriter{}

// Unwrap returns the decorated writer (for http.ResponseController).
func (s *stallWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *stallWriter) Write(p []byte) (int, error) {
	s.arm()
	n, err := s.ResponseWriter.Write(p)
	s.disarm(err)
	return n, err
}

// Flush implements http.Flusher; the flush is what blocks when the client
// does not read.
func (s *stallWriter) Flush() {
	s.arm()
	err := s.rc.Flush()
	s.disarm(err)
}

func (s *stallWriter) arm() {
	if s.noDeadl {
		return
	}
	if err := s.rc.SetWriteDeadline(s.clock.Now().Add(s.timeout)); err != nil {
		// A test recorder or a wrapper without deadlines: write unbounded.
		s.noDeadl = true
	}
}

func (s *stallWriter) disarm(err error) {
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		s.stalled = true
	}
	if s.noDeadl || err != nil {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Time{})
}
