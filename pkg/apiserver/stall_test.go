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

package apiserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/internal/viewtest"
)

// metricValue reads one unlabelled sample from the server's /metrics.
func metricValue(t *testing.T, s *testServer, name string) float64 {
	t.Helper()
	rec := s.do(t, http.MethodGet, "/metrics", "", nil)
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no %s in /metrics", name)
	return 0
}

// watchRequests is the apiserver's gauge of open UpdateStatus watches.
const watchRequests = `apiserver_longrunning_requests{component="apiserver",group="update.openshift.io",resource="updatestatuses",scope="cluster",subresource="",verb="WATCH",version="v1alpha1"}`

// TestStalledWatcherIsClosedOthersKeepReceiving opens, over HTTP/2 and TLS,
// a watch whose client never reads (a 16 KiB receive window, so the
// server's writes soon block) next to one that reads everything. The
// stalled stream must be reset within the stall timeout and its watcher
// stopped; the reader must see every change meanwhile.
func TestStalledWatcherIsClosedOthersKeepReceiving(t *testing.T) {
	const stall = 300 * time.Millisecond
	src, comp := viewtest.NewSnapshotter(100), &versionedComputer{target: "4.17.0"}
	s := newTestServer(t, serverOptions{sources: src, computer: comp, stall: stall})
	s.waitReady(t)
	hs := httptest.NewUnstartedServer(s.handler)
	hs.EnableHTTP2 = true
	hs.StartTLS()
	defer hs.Close()
	before := metricValue(t, s, "update_status_stalled_watchers_closed_total")

	tlsConfig := hs.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	stalledClient := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   tlsConfig,
		ForceAttemptHTTP2: true,
		HTTP2:             &http.HTTP2Config{MaxReceiveBufferPerStream: 16 << 10, MaxReceiveBufferPerConnection: 16 << 10},
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+base+"/updatestatuses?watch=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	stalled, err := stalledClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stalled.Body.Close() }() // a test reading a response
	if stalled.ProtoMajor != 2 || stalled.StatusCode != http.StatusOK {
		t.Fatalf("stalled watch: %s %s", stalled.Proto, stalled.Status)
	}

	readerClient := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig, ForceAttemptHTTP2: true}}
	reader, stopReader := streamEventsWith(t, readerClient, hs.URL+base+"/updatestatuses?watch=1")
	defer stopReader()
	if ev := next(t, reader); ev.Type != "ADDED" {
		t.Fatalf("reader's first event %s", ev.Type)
	}

	// Publish until the server reports the stalled stream closed, each
	// change paced by the reader receiving it (no sleep: the stall timeout
	// is measured by the server from the write that blocks, whatever the
	// pace of the changes). Once the stalled stream's window is full its
	// handler blocks in a write, and only the deadline can end it.
	deadline := time.Now().Add(20 * time.Second) // a bound on a failing test, not a pace
	for i := 1; metricValue(t, s, "update_status_stalled_watchers_closed_total") == before; i++ {
		if time.Now().After(deadline) {
			t.Fatal("the stalled watcher was never closed")
		}
		want := fmt.Sprintf("4.17.%d", i)
		change(src, comp, want, uint64(100+i))
		if ev := next(t, reader); ev.Type != "MODIFIED" || target(&ev.Object) != want {
			t.Fatalf("reader got %s %s, want MODIFIED %s", ev.Type, target(&ev.Object), want)
		}
	}
	// The client learns it: its stream ends with an error once it reads
	// what was buffered.
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, stalled.Body)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the stalled stream ended cleanly, want a reset")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stalled stream is still open")
	}
	testio.Eventually(t, "one watcher left", func() bool { return metricValue(t, s, watchRequests) == 1 })
	// And the reader still gets changes.
	change(src, comp, "4.18.0", 10_000)
	if ev := next(t, reader); target(&ev.Object) != "4.18.0" {
		t.Fatalf("reader got %s after the close", target(&ev.Object))
	}
}
