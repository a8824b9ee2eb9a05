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
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// writeRecorder is an http.ResponseWriter that keeps each write it gets.
type writeRecorder struct {
	header  http.Header
	writes  [][]byte
	flushes int
}

func (r *writeRecorder) Header() http.Header { return r.header }
func (r *writeRecorder) WriteHeader(int)     {}
func (r *writeRecorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, append([]byte(nil), p...))
	return len(p), nil
}
func (r *writeRecorder) Flush() { r.flushes++ }

// sizes returns the length of each write.
func (r *writeRecorder) sizes() []int {
	var out []int
	for _, w := range r.writes {
		out = append(out, len(w))
	}
	return out
}

// TestWatchWriterBatchesWritesBetweenFlushes checks what reaches the
// connection: the writes between two flushes as one write of at most
// batchSize, a write of batchSize or more on its own after what waited
// before it, what the handler wrote after its last flush when it returns,
// and every byte in order.
func TestWatchWriterBatchesWritesBetweenFlushes(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC))
	event := func(i int) []byte { return []byte(fmt.Sprintf("%099d\n", i)) } // 100 bytes
	var sent bytes.Buffer
	write := func(w http.ResponseWriter, p []byte) {
		t.Helper()
		if n, err := w.Write(p); err != nil || n != len(p) {
			t.Fatalf("write: %d, %v", n, err)
		}
		sent.Write(p)
	}
	rec := &writeRecorder{header: http.Header{}}
	step := func(name string, want ...int) {
		t.Helper()
		if got := rec.sizes(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: writes of %v bytes, want %v", name, got, want)
		}
	}
	withWatchWriter(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for i := range 10 {
			write(w, event(i))
		}
		step("ten events, no flush")
		w.(http.Flusher).Flush()
		step("flushed", 1000)
		// A client behind: 200 events with no flush between them.
		for i := range 200 {
			write(w, event(i))
		}
		step("a backlog", 1000, full())
		w.(http.Flusher).Flush()
		step("backlog flushed", 1000, full(), 20000-full())
		// A large object after a small event: the event goes first.
		write(w, event(1))
		write(w, bytes.Repeat([]byte("u"), batchSize+1))
		step("a large object", 1000, full(), 20000-full(), 100, batchSize+1)
		write(w, event(2))
	}), 30*time.Second, clk).ServeHTTP(rec, resourceRequest("watch", "nodeprogressinsights"))
	step("returned", 1000, full(), 20000-full(), 100, batchSize+1, 100)
	if got := bytes.Join(rec.writes, nil); !bytes.Equal(got, sent.Bytes()) {
		t.Errorf("the connection got %d bytes, not the %d written in order", len(got), sent.Len())
	}
	if rec.flushes != 2 {
		t.Errorf("%d flushes reached the connection, want the handler's 2", rec.flushes)
	}
}

// TestWatchWriterLeavesUpdateStatusWritesAlone checks that the writes of an
// UpdateStatus watch reach the connection one by one, as the handler makes
// them.
func TestWatchWriterLeavesUpdateStatusWritesAlone(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC))
	rec := &writeRecorder{header: http.Header{}}
	withWatchWriter(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for _, size := range []int{100, 200, 300} {
			if _, err := w.Write(bytes.Repeat([]byte("u"), size)); err != nil {
				t.Fatal(err)
			}
		}
		w.(http.Flusher).Flush()
	}), 30*time.Second, clk).ServeHTTP(rec, watchRequest("watch"))
	if got := fmt.Sprint(rec.sizes()); got != "[100 200 300]" || rec.flushes != 1 {
		t.Errorf("writes of %s bytes and %d flushes, want [100 200 300] and 1", got, rec.flushes)
	}
}

// full is the size of a batch of 100-byte events.
func full() int { return batchSize / 100 * 100 }
