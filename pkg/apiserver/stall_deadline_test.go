package apiserver

import (
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/component-base/metrics/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/apis/update"
)

// deadlineConn is an http.ResponseWriter with write deadlines on a fake
// clock, like a connection that stops being read: once blocked, a write
// returns os.ErrDeadlineExceeded when the clock reaches the deadline, and
// never before.
type deadlineConn struct {
	clk *clocktesting.FakeClock

	mu        sync.Mutex
	header    http.Header
	deadline  time.Time
	deadlines []time.Time // every deadline set, in order
	blocked   bool
	written   int
}

func (c *deadlineConn) Header() http.Header { return c.header }
func (c *deadlineConn) WriteHeader(int)     {}
func (c *deadlineConn) CloseNotify() <-chan bool {
	return make(chan bool)
}

func (c *deadlineConn) SetWriteDeadline(d time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = d
	c.deadlines = append(c.deadlines, d)
	return nil
}

func (c *deadlineConn) block() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.blocked = true
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	blocked, deadline := c.blocked, c.deadline
	if !blocked {
		c.written += len(p)
	}
	c.mu.Unlock()
	if !blocked {
		return len(p), nil
	}
	if deadline.IsZero() {
		panic("a write blocks without a deadline: it would block forever")
	}
	<-c.clk.After(deadline.Sub(c.clk.Now()))
	return 0, os.ErrDeadlineExceeded
}

func (c *deadlineConn) Flush() {}

func (c *deadlineConn) history() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.deadlines...)
}

func watchRequest(verb string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/apis/"+update.GroupName+"/v1alpha1/updatestatuses?watch=1", nil)
	return req.WithContext(request.WithRequestInfo(req.Context(), &request.RequestInfo{
		IsResourceRequest: true, Verb: verb, APIGroup: update.GroupName, Resource: "updatestatuses",
	}))
}

// TestStallDeadlineBoundsEachWriteNotTheIdleTime drives the stall filter on a
// fake clock: each write and flush runs under now+timeout and the deadline is
// cleared between writes, so a watch idle for far longer than the timeout
// lives on; a write that blocks fails exactly when the clock reaches its
// deadline, and the filter counts the stalled watcher.
func TestStallDeadlineBoundsEachWriteNotTheIdleTime(t *testing.T) {
	registerMetrics()
	const timeout = 30 * time.Second
	t0 := time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(t0)
	conn := &deadlineConn{clk: clk, header: http.Header{}}
	before, err := testutil.GetCounterMetricValue(stalledWatchersClosed)
	if err != nil {
		t.Fatal(err)
	}

	wrote := make(chan struct{})
	writeAgain := make(chan struct{})
	writeErr := make(chan error, 1)
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if _, err := w.Write([]byte(`{"type":"ADDED"}`)); err != nil {
			t.Errorf("first write: %v", err)
		}
		w.(http.Flusher).Flush()
		close(wrote)
		<-writeAgain
		_, err := w.Write([]byte(`{"type":"MODIFIED"}`))
		writeErr <- err
	})
	served := make(chan struct{})
	go func() {
		defer close(served)
		withWatchStallTimeout(handler, timeout, clk).ServeHTTP(conn, watchRequest("watch"))
	}()

	<-wrote
	want := []time.Time{t0.Add(timeout), {}, t0.Add(timeout), {}} // write, then flush
	if got := conn.history(); !equalTimes(got, want) {
		t.Fatalf("deadlines around the first write and flush %v, want %v", got, want)
	}

	// Idle for ten timeouts; then the client stops reading.
	clk.Step(10 * timeout)
	idleEnd := clk.Now()
	conn.block()
	close(writeAgain)
	// The blocked write waits on the clock: that is when it has armed.
	for clk.Waiters() == 0 {
		select {
		case err := <-writeErr:
			t.Fatalf("the write after an idle time failed at once: %v", err)
		default:
		}
		time.Sleep(time.Millisecond)
	}
	if got := conn.history(); !got[len(got)-1].Equal(idleEnd.Add(timeout)) {
		t.Fatalf("deadline of the blocked write %v, want %v", got[len(got)-1], idleEnd.Add(timeout))
	}
	// One nanosecond before the deadline the write still blocks: the step
	// fires no waiter (a fake clock fires its waiters within Step).
	clk.Step(timeout - time.Nanosecond)
	if clk.Waiters() != 1 {
		t.Fatal("the blocked write was released before its deadline")
	}
	clk.Step(time.Nanosecond)
	select {
	case err := <-writeErr:
		if err == nil {
			t.Fatal("the blocked write succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write still blocks after its deadline")
	}
	<-served
	after, err := testutil.GetCounterMetricValue(stalledWatchersClosed)
	if err != nil {
		t.Fatal(err)
	}
	if after != before+1 {
		t.Errorf("stalled watchers closed went from %v to %v, want one more", before, after)
	}
}

// TestStallDeadlineOnlyOnUpdateStatusWatches checks that other requests write
// without a deadline: a long GET or a watch of another group is not cut.
func TestStallDeadlineOnlyOnUpdateStatusWatches(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC))
	other := watchRequest("watch")
	other = other.WithContext(request.WithRequestInfo(other.Context(), &request.RequestInfo{
		IsResourceRequest: true, Verb: "watch", APIGroup: "config.openshift.io", Resource: "clusterversions",
	}))
	for name, req := range map[string]*http.Request{
		"get":                    watchRequest("get"),
		"list":                   watchRequest("list"),
		"watch of another group": other,
		"no request info":        httptest.NewRequest(http.MethodGet, "/healthz", nil),
	} {
		t.Run(name, func(t *testing.T) {
			conn := &deadlineConn{clk: clk, header: http.Header{}}
			withWatchStallTimeout(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write([]byte("{}"))
			}), 30*time.Second, clk).ServeHTTP(conn, req)
			if got := conn.history(); len(got) != 0 {
				t.Errorf("deadlines %v, want none", got)
			}
			if conn.written != 2 {
				t.Errorf("wrote %d bytes, want 2", conn.written)
			}
		})
	}
	conn := &deadlineConn{clk: clk, header: http.Header{}}
	withWatchStallTimeout(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("{}"))
	}), 30*time.Second, clk).ServeHTTP(conn, watchRequest("watch"))
	if got := conn.history(); len(got) == 0 {
		t.Error("an UpdateStatus watch wrote without a deadline")
	}
}

func equalTimes(a, b []time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}
