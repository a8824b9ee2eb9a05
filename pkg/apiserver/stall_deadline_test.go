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
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/component-base/metrics/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update"
)

// deadlineConn is an http.ResponseWriter that records the write deadlines
// set on it, like a connection whose client stops reading once blocked: a
// write then blocks until a deadline is set, and fails with
// os.ErrDeadlineExceeded.
type deadlineConn struct {
	mu        sync.Mutex
	header    http.Header
	deadlines []time.Time // every deadline set, in order
	blocked   bool
	writing   chan struct{} // closed when a blocked write starts
	expired   chan struct{} // closed when a deadline is set
	written   int
}

func newDeadlineConn() *deadlineConn {
	return &deadlineConn{header: http.Header{}, writing: make(chan struct{}), expired: make(chan struct{})}
}

func (c *deadlineConn) Header() http.Header { return c.header }
func (c *deadlineConn) WriteHeader(int)     {}
func (c *deadlineConn) CloseNotify() <-chan bool {
	return make(chan bool)
}

func (c *deadlineConn) SetWriteDeadline(d time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadlines = append(c.deadlines, d)
	if !d.IsZero() && len(c.deadlines) == 1 {
		close(c.expired)
	}
	return nil
}

func (c *deadlineConn) block() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.blocked = true
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	blocked := c.blocked
	if !blocked {
		c.written += len(p)
	}
	c.mu.Unlock()
	if !blocked {
		return len(p), nil
	}
	close(c.writing)
	select {
	case <-c.expired:
		return 0, os.ErrDeadlineExceeded
	case <-time.After(30 * time.Second):
		return 0, errors.New("the blocked write was never ended")
	}
}

func (c *deadlineConn) Flush() {}

func (c *deadlineConn) history() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.deadlines...)
}

// watchRequest is a request of verb on updatestatuses.
func watchRequest(verb string) *http.Request { return resourceRequest(verb, "updatestatuses") }

// resourceRequest is a request of verb on resource of this group, as the
// apiserver's request-info filter describes it.
func resourceRequest(verb, resource string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/apis/"+update.GroupName+"/v1alpha1/"+resource+"?watch=1", nil)
	return req.WithContext(request.WithRequestInfo(req.Context(), &request.RequestInfo{
		IsResourceRequest: true, Verb: verb, APIGroup: update.GroupName, Resource: resource,
	}))
}

// TestStallTimeoutEndsABlockedWriteNotAnIdleStream drives the stall filter
// on a fake clock: writes set no deadline, a watch idle for far longer than
// the timeout lives on, and a write that blocks is ended exactly when it has
// been blocked for the timeout, even when a look at the stream comes in the
// middle of it; the filter counts the stalled watcher.
func TestStallTimeoutEndsABlockedWriteNotAnIdleStream(t *testing.T) {
	registerMetrics()
	const timeout = 30 * time.Second
	clk := clocktesting.NewFakeClock(time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC))
	conn := newDeadlineConn()
	before, err := testutil.GetCounterMetricValue(stalledWatchersClosed)
	if err != nil {
		t.Fatal(err)
	}
	// rearmed waits until the filter's look at the stream, started by a
	// step of the clock, has armed the next one.
	rearmed := func() {
		t.Helper()
		testio.Eventually(t, "the filter to look at the stream again", func() bool { return clk.Waiters() > 0 })
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
		// An UpdateStatus watch is not batched: the write blocks, and
		// once it failed the flush and every write fail.
		_, _ = w.Write([]byte(`{"type":"MODIFIED"}`))
		w.(http.Flusher).Flush()
		_, err := w.Write([]byte(`{"type":"DELETED"}`))
		writeErr <- err
	})
	served := make(chan struct{})
	go func() {
		defer close(served)
		withWatchWriter(handler, timeout, clk).ServeHTTP(conn, watchRequest("watch"))
	}()

	<-wrote
	// Idle for ten timeouts, a look at the stream every timeout.
	for range 10 {
		clk.Step(timeout)
		rearmed()
	}
	if got := conn.history(); len(got) != 0 {
		t.Fatalf("deadlines %v set on a stream that writes or idles, want none", got)
	}
	// Half a timeout later the client stops reading and a write blocks;
	// the next look comes half-way through it.
	clk.Step(timeout / 2)
	conn.block()
	close(writeAgain)
	<-conn.writing
	clk.Step(timeout / 2)
	rearmed()
	clk.Step(timeout/2 - time.Nanosecond)
	rearmed()
	select {
	case err := <-writeErr:
		t.Fatalf("the write ended before it was blocked for the timeout: %v", err)
	default:
	}
	if got := conn.history(); len(got) != 0 {
		t.Fatalf("deadlines %v set before the write was blocked for the timeout", got)
	}
	clk.Step(time.Nanosecond)
	select {
	case err := <-writeErr:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("the blocked write ended with %v, want the deadline", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write still blocks after the timeout")
	}
	if got := conn.history(); len(got) != 1 || !got[0].Before(clk.Now()) {
		t.Errorf("deadlines %v, want one in the past", got)
	}
	<-served
	if clk.Waiters() != 0 {
		t.Error("the filter still looks at a stream whose handler returned")
	}
	after, err := testutil.GetCounterMetricValue(stalledWatchersClosed)
	if err != nil {
		t.Fatal(err)
	}
	if after != before+1 {
		t.Errorf("stalled watchers closed went from %v to %v, want one more", before, after)
	}
}

// TestStallDeadlineOnlyOnUpdateStatusWatches checks that only watches of
// this group are looked at: a long GET or a watch of another group is never
// cut, and the look stops with the handler.
func TestStallDeadlineOnlyOnUpdateStatusWatches(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC))
	other := watchRequest("watch")
	other = other.WithContext(request.WithRequestInfo(other.Context(), &request.RequestInfo{
		IsResourceRequest: true, Verb: "watch", APIGroup: "config.openshift.io", Resource: "clusterversions",
	}))
	for name, tc := range map[string]struct {
		req     *http.Request
		watched bool
	}{
		"get":                    {req: watchRequest("get")},
		"list":                   {req: watchRequest("list")},
		"watch of another group": {req: other},
		"no request info":        {req: httptest.NewRequest(http.MethodGet, "/healthz", nil)},
		"watch of this group":    {req: watchRequest("watch"), watched: true},
	} {
		t.Run(name, func(t *testing.T) {
			conn := newDeadlineConn()
			withWatchWriter(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if watched := clk.Waiters() != 0; watched != tc.watched {
					t.Errorf("stream looked at: %v, want %v", watched, tc.watched)
				}
				_, _ = w.Write([]byte("{}"))
			}), 30*time.Second, clk).ServeHTTP(conn, tc.req)
			if clk.Waiters() != 0 {
				t.Error("a look at the stream is left after its handler returned")
			}
			if got := conn.history(); len(got) != 0 {
				t.Errorf("deadlines %v, want none", got)
			}
			if conn.written != 2 {
				t.Errorf("wrote %d bytes, want 2", conn.written)
			}
		})
	}
}
