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
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	versioned "github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	informers "github.com/update-status/apiserver/pkg/generated/informers/externalversions"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
)

// versionedComputer returns a synthetic status whose target version the
// test sets.
type versionedComputer struct {
	mu     sync.Mutex
	target string
}

func (c *versionedComputer) set(target string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.target = target
}

func (c *versionedComputer) Compute(*insights.Sources, time.Time) insights.Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	status := viewtest.Synthetic(3, 1)
	status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight.Versions.Target.Version = c.target
	return insights.Result{Status: status}
}

// newVersionedServer returns a ready test server over a snapshotter and a
// versionedComputer that starts at target 4.17.5.
func newVersionedServer(t *testing.T) (*viewtest.Snapshotter, *versionedComputer, *testServer) {
	t.Helper()
	src, comp := viewtest.NewSnapshotter(100), &versionedComputer{target: "4.17.5"}
	s := newTestServer(t, serverOptions{sources: src, computer: comp})
	s.waitReady(t)
	return src, comp, s
}

// change makes the view publish a new revision with the given target at a
// newer input resourceVersion.
func change(src *viewtest.Snapshotter, comp *versionedComputer, target string, inputRV uint64) {
	comp.set(target)
	src.Update(func(s *view.Snapshot) { s.MaxResourceVersion = inputRV })
}

// wireEvent is a watch event as it travels; Object is decoded from Raw for
// object events.
type wireEvent struct {
	Type   string          `json:"type"`
	Raw    json.RawMessage `json:"object"`
	Object v1alpha1.UpdateStatus
	Status metav1.Status
}

// streamEvents reads watch events from a real HTTP stream.
func streamEvents(t *testing.T, url string) (<-chan wireEvent, func()) {
	t.Helper()
	return streamEventsWith(t, http.DefaultClient, url)
}

// streamEventsWith is streamEvents with the given client.
func streamEventsWith(t *testing.T, c *http.Client, url string) (<-chan wireEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch: %d", resp.StatusCode)
	}
	ch := make(chan wireEvent, 16)
	go func() {
		defer close(ch)
		defer func() { _ = resp.Body.Close() }() // a test reading a response
		dec := json.NewDecoder(bufio.NewReader(resp.Body))
		for {
			var ev wireEvent
			if err := dec.Decode(&ev); err != nil {
				return
			}
			target := any(&ev.Object)
			if ev.Type == "ERROR" {
				target = &ev.Status
			}
			if err := json.Unmarshal(ev.Raw, target); err != nil {
				t.Errorf("decoding a %s event: %v", ev.Type, err)
				return
			}
			ch <- ev
		}
	}()
	return ch, cancel
}

func next(t *testing.T, ch <-chan wireEvent) wireEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	return wireEvent{}
}

func TestWatchOverHTTP(t *testing.T) {
	src, comp, s := newVersionedServer(t)
	hs := httptest.NewServer(s.handler)
	defer hs.Close()

	first := decode[v1alpha1.UpdateStatus](t, s.do(t, http.MethodGet, objPath, "", nil))

	// The watch-list stream client-go's WatchListClient opens.
	ch, stop := streamEvents(t, hs.URL+base+"/updatestatuses?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	defer stop()
	if ev := next(t, ch); ev.Type != "ADDED" || ev.Object.ResourceVersion != first.ResourceVersion || target(&ev.Object) != "4.17.5" {
		t.Fatalf("first event %s at %s: %+v", ev.Type, ev.Object.ResourceVersion, ev.Status)
	}
	if ev := next(t, ch); ev.Type != "BOOKMARK" || ev.Object.Annotations[metav1.InitialEventsAnnotationKey] != "true" ||
		ev.Object.ResourceVersion != first.ResourceVersion {
		t.Fatalf("second event %s %+v", ev.Type, ev.Object.ObjectMeta)
	}
	// A named watch from the current version, and the legacy watch path.
	named, stopNamed := streamEvents(t, hs.URL+base+"/updatestatuses?watch=1&fieldSelector=metadata.name%3Dcluster&resourceVersion="+first.ResourceVersion)
	defer stopNamed()
	legacy, stopLegacy := streamEvents(t, hs.URL+base+"/watch/updatestatuses/cluster?resourceVersion="+first.ResourceVersion)
	defer stopLegacy()

	change(src, comp, "4.17.6", 200)
	for _, c := range []<-chan wireEvent{ch, named, legacy} {
		ev := next(t, c)
		if ev.Type != "MODIFIED" || target(&ev.Object) != "4.17.6" || ev.Object.ResourceVersion <= first.ResourceVersion {
			t.Fatalf("change event %s %s at %s", ev.Type, target(&ev.Object), ev.Object.ResourceVersion)
		}
	}

	// A resourceVersion older than the history: an ERROR event with 410.
	old, stopOld := streamEvents(t, hs.URL+base+"/updatestatuses?watch=1&resourceVersion=1")
	defer stopOld()
	ev := next(t, old)
	if ev.Type != "ERROR" || ev.Status.Code != http.StatusGone || ev.Status.Reason != metav1.StatusReasonExpired {
		t.Fatalf("old resourceVersion: %s %+v", ev.Type, ev.Status)
	}
}

func TestInformerFollowsChanges(t *testing.T) {
	for _, tc := range []struct {
		watchList   bool
		contentType string
	}{
		{false, "application/json"}, {true, "application/json"},
		{false, runtime.ContentTypeProtobuf}, {true, runtime.ContentTypeProtobuf},
	} {
		watchList := tc.watchList
		t.Run(fmt.Sprintf("WatchListClient=%v,%s", watchList, tc.contentType), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			src, comp, s := newVersionedServer(t)
			var reqMu sync.Mutex
			var lists, watchLists int
			var accepts []string
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				reqMu.Lock()
				accepts = append(accepts, r.Header.Get("Accept"))
				switch {
				case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
					watchLists++
				case q.Get("watch") == "":
					lists++
				}
				reqMu.Unlock()
				s.handler.ServeHTTP(w, r)
			}))
			defer hs.Close()

			client, err := versioned.NewForConfig(&rest.Config{Host: hs.URL, ContentConfig: rest.ContentConfig{ContentType: tc.contentType}})
			if err != nil {
				t.Fatal(err)
			}
			factory := informers.NewSharedInformerFactory(client, 0)
			inf := factory.Update().V1alpha1().UpdateStatuses()
			var mu sync.Mutex
			var seen []string
			if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
				AddFunc: func(obj interface{}) {
					mu.Lock()
					defer mu.Unlock()
					seen = append(seen, "add "+target(obj.(*v1alpha1.UpdateStatus)))
				},
				UpdateFunc: func(_, obj interface{}) {
					mu.Lock()
					defer mu.Unlock()
					seen = append(seen, "update "+target(obj.(*v1alpha1.UpdateStatus)))
				},
			}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			factory.Start(ctx.Done())
			defer func() {
				cancel()
				factory.Shutdown()
			}()
			syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
			defer syncCancel()
			if !cache.WaitForCacheSync(syncCtx.Done(), inf.Informer().HasSynced) {
				t.Fatal("the informer did not sync")
			}
			got, err := inf.Lister().Get("cluster")
			if err != nil || target(got) != "4.17.5" {
				t.Fatalf("lister: %v, %v", got, err)
			}

			change(src, comp, "4.17.6", 200)
			testio.Eventually(t, "the informer to follow", func() bool {
				got, err := inf.Lister().Get("cluster")
				mu.Lock()
				defer mu.Unlock()
				return err == nil && target(got) == "4.17.6" && len(seen) == 2
			})
			mu.Lock()
			saw := fmt.Sprint(seen)
			mu.Unlock()
			if saw != "[add 4.17.5 update 4.17.6]" {
				t.Errorf("handler saw %v", saw)
			}
			// The informer really used the protocol under test.
			reqMu.Lock()
			defer reqMu.Unlock()
			if watchList && (watchLists == 0 || lists != 0) || !watchList && (watchLists != 0 || lists == 0) {
				t.Errorf("WatchListClient=%v: %d watch-list requests, %d lists", watchList, watchLists, lists)
			}
			for _, a := range accepts {
				if !strings.HasPrefix(a, tc.contentType) {
					t.Errorf("the client asked for %q, not %s", a, tc.contentType)
				}
			}
		})
	}
}

// TestWatchSeesTimeOnlyChangesAndFoldedBursts drives the clock: a change by
// time alone and a burst of source events each reach a watcher as exactly
// one event.
func TestWatchSeesTimeOnlyChangesAndFoldedBursts(t *testing.T) {
	t0 := time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(t0)
	threshold := t0.Add(10 * time.Minute)
	var mu sync.Mutex
	computations := 0
	inputs := 0
	comp := view.ComputerFunc(func(_ *insights.Sources, now time.Time) insights.Result {
		mu.Lock()
		defer mu.Unlock()
		computations++
		status := viewtest.Synthetic(3, 1)
		cv := status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight
		cv.Versions.Target.Version = fmt.Sprintf("4.17.%d", inputs)
		if now.Before(threshold) {
			return insights.Result{Status: status, NextChange: threshold}
		}
		cv.Assessment = "Degraded" // too slow: a verdict that only time changes
		return insights.Result{Status: status}
	})
	src := viewtest.NewSnapshotter(100)
	s := newTestServer(t, serverOptions{sources: src, computer: comp, clock: clk, foldDelay: 200 * time.Millisecond})
	s.waitReady(t)
	hs := httptest.NewServer(s.handler)
	defer hs.Close()
	first := decode[v1alpha1.UpdateStatus](t, s.do(t, http.MethodGet, objPath, "", nil))
	events, stop := streamEvents(t, hs.URL+base+"/updatestatuses?watch=1&resourceVersion="+first.ResourceVersion)
	defer stop()
	// The stream is open (streamEvents returns once the response started);
	// the view waits on its time-based timer.
	testio.Eventually(t, "the view to wait", func() bool { return clk.Waiters() >= 1 })

	// Time alone: the verdict changes at the threshold.
	clk.Step(10 * time.Minute)
	ev := next(t, events)
	cv := ev.Object.Status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight
	if ev.Type != "MODIFIED" || cv.Assessment != "Degraded" || ev.Object.ResourceVersion <= first.ResourceVersion {
		t.Fatalf("time-only change: %s %s at %s (was %s)", ev.Type, cv.Assessment, ev.Object.ResourceVersion, first.ResourceVersion)
	}
	afterTime := ev.Object.ResourceVersion

	// A burst of 20 source events within the fold delay: one computation,
	// one event.
	mu.Lock()
	before := computations
	mu.Unlock()
	waiters := clk.Waiters()
	for i := 1; i <= 20; i++ {
		mu.Lock()
		inputs = i
		mu.Unlock()
		src.Update(func(s *view.Snapshot) { s.MaxResourceVersion = uint64(100 + i) })
	}
	testio.Eventually(t, "the fold timer", func() bool { return clk.Waiters() > waiters })
	clk.Step(200 * time.Millisecond)
	ev = next(t, events)
	if got := target(&ev.Object); ev.Type != "MODIFIED" || got != "4.17.20" || ev.Object.ResourceVersion <= afterTime {
		t.Fatalf("burst: %s %s at %s", ev.Type, got, ev.Object.ResourceVersion)
	}
	// The view computes only after a fold delay, which only a step of the
	// fake clock ends: no further computation can have run yet.
	mu.Lock()
	n := computations - before
	mu.Unlock()
	if n != 1 {
		t.Errorf("%d computations for one burst", n)
	}

	// One more change, after the burst: the stream is ordered, so a second
	// event for the burst would come before this one.
	waiters = clk.Waiters()
	mu.Lock()
	inputs = 99
	mu.Unlock()
	src.Update(func(s *view.Snapshot) { s.MaxResourceVersion = 199 })
	testio.Eventually(t, "the fold timer", func() bool { return clk.Waiters() > waiters })
	clk.Step(200 * time.Millisecond)
	if ev := next(t, events); ev.Type != "MODIFIED" || target(&ev.Object) != "4.17.99" {
		t.Fatalf("after one burst: %s %s, want the next change 4.17.99", ev.Type, target(&ev.Object))
	}
}
