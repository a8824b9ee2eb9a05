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

package virtualstore

import (
	"container/list"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update"
)

func bookmark(rv uint64, initialEnd bool) watch.Event {
	o := obj("", rv)
	if initialEnd {
		o.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return watch.Event{Type: watch.Bookmark, Object: o}
}

func objEvent(typ watch.EventType, name string, rv uint64) watch.Event {
	return watch.Event{Type: typ, Object: obj(name, rv)}
}

// TestCoalescingQueue checks what a client that has taken nothing yet gets
// after a sequence of events: one event per object, the newest, in the
// order of the newest events, resourceVersions increasing.
func TestCoalescingQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []watch.Event
		want []ev
	}{{
		name: "changes of one object keep the newest",
		in:   []watch.Event{objEvent(watch.Modified, "a", 1), objEvent(watch.Modified, "a", 2), objEvent(watch.Modified, "a", 3)},
		want: []ev{{watch.Modified, "a", "3"}},
	}, {
		name: "the newest event of an object takes its place at the end",
		in: []watch.Event{
			objEvent(watch.Modified, "a", 1), objEvent(watch.Modified, "b", 2), objEvent(watch.Modified, "a", 3),
		},
		want: []ev{{watch.Modified, "b", "2"}, {watch.Modified, "a", "3"}},
	}, {
		name: "an object the client never saw stays ADDED",
		in:   []watch.Event{objEvent(watch.Added, "a", 1), objEvent(watch.Modified, "a", 2)},
		want: []ev{{watch.Added, "a", "2"}},
	}, {
		name: "a deletion replaces the changes before it",
		in:   []watch.Event{objEvent(watch.Modified, "a", 1), objEvent(watch.Deleted, "a", 2)},
		want: []ev{{watch.Deleted, "a", "2"}},
	}, {
		name: "a new object of a deleted name comes after the deletion",
		in:   []watch.Event{objEvent(watch.Deleted, "a", 1), objEvent(watch.Added, "a", 2), objEvent(watch.Modified, "a", 3)},
		want: []ev{{watch.Deleted, "a", "1"}, {watch.Added, "a", "3"}},
	}, {
		name: "a newer bookmark replaces an older one",
		in:   []watch.Event{bookmark(1, false), objEvent(watch.Modified, "a", 2), bookmark(3, false)},
		want: []ev{{watch.Modified, "a", "2"}, {watch.Bookmark, "", "3"}},
	}, {
		name: "no event moves past the end of the initial events",
		in: []watch.Event{
			objEvent(watch.Added, "a", 1), objEvent(watch.Added, "b", 1), bookmark(1, true), objEvent(watch.Modified, "a", 2),
		},
		want: []ev{{watch.Added, "a", "1"}, {watch.Added, "b", "1"}, {watch.Bookmark, "", "1"}, {watch.Modified, "a", "2"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			q := eventQueue{byKey: map[string]*list.Element{}}
			for _, e := range tc.in {
				q.push(e)
			}
			var got []ev
			for q.items.Len() > 0 {
				got = append(got, describe(q.items.Front().Value.(pendingEvent).event))
				q.pop()
			}
			equal(t, got, tc.want)
			if len(q.byKey) != 0 || q.bookmark != nil {
				t.Errorf("the index keeps %v and bookmark %v after the queue emptied", q.byKey, q.bookmark)
			}
		})
	}
}

// TestCoalescingNeverBlocksTheSource checks that a client that does not
// read never makes the source wait: every event the source sends is taken
// at once, and once the client reads it gets the newest states only.
func TestCoalescingNeverBlocksTheSource(t *testing.T) {
	in := watch.NewFake() // unbuffered: a send waits for the reader
	w := newCoalescingWatch(in, 0, "test", nil, resumeState{}, nil)
	defer w.Stop()
	const last = 1000
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for rv := uint64(1); rv <= last; rv++ {
			in.Modify(obj("cluster", rv))
		}
	}()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("the source blocked on a client that does not read")
	}
	// Every event was taken; the last may still be on its way into the
	// queue, so the client gets the newest one or the one before and then
	// the newest.
	got := receive(t, w, 1)
	if got[0].rv != fmt.Sprint(last) {
		got = append(got, receive(t, w, 1)...)
	}
	if len(got) > 2 || got[len(got)-1] != (ev{watch.Modified, "cluster", fmt.Sprint(last)}) {
		t.Fatalf("a client that read nothing during %d changes got %v, want the newest state", last, got)
	}
}

// TestCoalescingStop checks that Stop stops the source and closes the
// client's channel, with an event waiting.
func TestCoalescingStop(t *testing.T) {
	in := watch.NewFake()
	w := newCoalescingWatch(in, 0, "test", nil, resumeState{}, nil)
	in.Add(&update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: "1"}})
	w.Stop()
	w.Stop() // twice is harmless
	if !in.IsStopped() {
		t.Error("the source watch was not stopped")
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("the client's channel stays open after Stop")
		}
	}
}

// TestCoalescingDeliversWhatWaitsWhenTheSourceEnds checks that events
// taken before the source's watch ended still reach the client, then the
// channel closes.
func TestCoalescingDeliversWhatWaitsWhenTheSourceEnds(t *testing.T) {
	in := watch.NewFake()
	w := newCoalescingWatch(in, 0, "test", nil, resumeState{}, nil)
	in.Add(obj("a", 1))
	in.Add(obj("b", 2))
	in.Stop()
	equal(t, receive(t, w, 2), []ev{{watch.Added, "a", "1"}, {watch.Added, "b", "2"}})
	expectEnded(t, w)
}

// expectEnded fails unless the client's channel closes with no further
// event.
func expectEnded(t *testing.T, w watch.Interface) {
	t.Helper()
	select {
	case e, ok := <-w.ResultChan():
		if ok {
			t.Fatalf("an event after the last: %s", describeAny(e))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client's stream goes on; want it ended")
	}
}

// cacheWatches stands in for the watch cache when a coalescing watch opens
// its watch again: each resume returns the next of watches (or err once
// they are used up) and records the resourceVersion it starts from.
type cacheWatches struct {
	mu      sync.Mutex
	watches []*watch.FakeWatcher
	from    []string
}

func (c *cacheWatches) resume(rv string) (watch.Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.from = append(c.from, rv)
	if len(c.watches) == 0 {
		return nil, errors.New("the cache is not ready")
	}
	w := c.watches[0]
	c.watches = c.watches[1:]
	return w, nil
}

func (c *cacheWatches) resumedFrom() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.from
}

// fakeCacheWatch is a watch of the cache that has sent events and, when
// end is set, has ended.
func fakeCacheWatch(end bool, events ...watch.Event) *watch.FakeWatcher {
	w := watch.NewFakeWithChanSize(len(events), false)
	for _, e := range events {
		w.Action(e.Type, e.Object)
	}
	if end {
		w.Stop()
	}
	return w
}

// TestCoalescingResumesWhereTheCacheEnded checks when a watch the cache
// ends is opened again, and from where: a client's stream goes on with
// every change after the last one received, and ends where resuming could
// lose or repeat a state.
func TestCoalescingResumesWhereTheCacheEnded(t *testing.T) {
	errEvent := watch.Event{Type: watch.Error, Object: &metav1.Status{Reason: metav1.StatusReasonExpired}}
	ended := func(events ...watch.Event) *watch.FakeWatcher { return fakeCacheWatch(true, events...) }
	for _, tc := range []struct {
		name    string
		start   resumeState
		first   *watch.FakeWatcher
		resumed []*watch.FakeWatcher // what each resume returns; then it fails
		want    []string
		from    []string
		goesOn  bool // the stream is still attached to the last resumed watch
	}{{
		name:    "a watch from a resourceVersion goes on from the last change received",
		start:   resumeFrom("5", true),
		first:   ended(objEvent(watch.Modified, "a", 6), objEvent(watch.Modified, "b", 7)),
		resumed: []*watch.FakeWatcher{fakeCacheWatch(false, objEvent(watch.Modified, "a", 8))},
		want:    []string{"MODIFIED a 6", "MODIFIED b 7", "MODIFIED a 8"},
		from:    []string{"7"},
		goesOn:  true,
	}, {
		name:    "ended before its first event, it goes on from the requested resourceVersion",
		start:   resumeFrom("5", true),
		first:   ended(),
		resumed: []*watch.FakeWatcher{fakeCacheWatch(false, objEvent(watch.Modified, "a", 6))},
		want:    []string{"MODIFIED a 6"},
		from:    []string{"5"},
		goesOn:  true,
	}, {
		name:    "a progress bookmark is a point to go on from",
		start:   resumeFrom("5", true),
		first:   ended(objEvent(watch.Modified, "a", 6), bookmark(9, false)),
		resumed: []*watch.FakeWatcher{fakeCacheWatch(false)},
		want:    []string{"MODIFIED a 6", "BOOKMARK  9"},
		from:    []string{"9"},
		goesOn:  true,
	}, {
		name:  "a watch-list goes on after its initial events",
		start: resumeFrom("", false),
		first: ended(objEvent(watch.Added, "a", 1), objEvent(watch.Added, "b", 2), bookmark(3, true)),
		resumed: []*watch.FakeWatcher{
			ended(objEvent(watch.Modified, "a", 4)),
			fakeCacheWatch(false, objEvent(watch.Modified, "b", 5)),
		},
		want:   []string{"ADDED a 1", "ADDED b 2", "BOOKMARK  3", "MODIFIED a 4", "MODIFIED b 5"},
		from:   []string{"3", "4"},
		goesOn: true,
	}, {
		name:    "a watch-list that ends during its initial events ends",
		start:   resumeFrom("", false),
		first:   ended(objEvent(watch.Added, "a", 1)),
		resumed: []*watch.FakeWatcher{fakeCacheWatch(false)},
		want:    []string{"ADDED a 1"},
	}, {
		name:    "a watch that started with the current state ends",
		start:   resumeFrom("0", false),
		first:   ended(objEvent(watch.Added, "a", 1), objEvent(watch.Modified, "a", 2)),
		resumed: []*watch.FakeWatcher{fakeCacheWatch(false)},
		want:    []string{"ADDED a 1", "MODIFIED a 2"},
	}, {
		name:    "after an error the client's stream ends",
		start:   resumeFrom("5", true),
		first:   ended(objEvent(watch.Modified, "a", 6), errEvent),
		resumed: []*watch.FakeWatcher{fakeCacheWatch(false)},
		want:    []string{"MODIFIED a 6", "ERROR"},
	}, {
		name:  "when the cache cannot be watched again the client's stream ends",
		start: resumeFrom("5", true),
		first: ended(objEvent(watch.Modified, "a", 6)),
		want:  []string{"MODIFIED a 6"},
		from:  []string{"6"},
	}, {
		name:    "watches that end before an event are opened again at most maxEmptyResumes times",
		start:   resumeFrom("5", true),
		first:   ended(objEvent(watch.Modified, "a", 6)),
		resumed: []*watch.FakeWatcher{ended(), ended(), ended(), fakeCacheWatch(false)},
		want:    []string{"MODIFIED a 6"},
		from:    []string{"6", "6", "6"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cache := &cacheWatches{watches: append([]*watch.FakeWatcher(nil), tc.resumed...)}
			// Room for every event: a reader that is late must not see two
			// changes of one object folded, which is not what this checks.
			w := newCoalescingWatch(tc.first, len(tc.want), "test", cache.resume, tc.start, nil)
			var got []string
			for len(got) < len(tc.want) {
				select {
				case e, ok := <-w.ResultChan():
					if !ok {
						t.Fatalf("the stream ended after %v, want %v", got, tc.want)
					}
					got = append(got, describeAny(e))
				case <-time.After(5 * time.Second):
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("events\n got %v\nwant %v", got, tc.want)
			}
			if tc.goesOn {
				// The last event the client wants may reach it before the
				// stream has gone on with its next watch of the cache.
				testio.Eventually(t, "the stream goes on with a watch of the cache", func() bool {
					return len(cache.resumedFrom()) == len(tc.from)
				})
				last := tc.resumed[len(tc.resumed)-1]
				if last.IsStopped() {
					t.Fatal("the watch the stream went on with is stopped")
				}
				w.Stop()
				if !last.IsStopped() {
					t.Error("Stop did not stop the watch the stream went on with")
				}
				// Once the stream has ended, a stopped client's watch
				// was not opened again (checked below).
				expectEnded(t, w)
			} else {
				expectEnded(t, w)
			}
			if fmt.Sprint(cache.resumedFrom()) != fmt.Sprint(tc.from) {
				t.Errorf("resumed from %q, want %q", cache.resumedFrom(), tc.from)
			}
		})
	}
}

// TestCoalescingStopWhileResuming checks that a watch of the cache opened
// again after the client stopped is stopped too.
func TestCoalescingStopWhileResuming(t *testing.T) {
	next := fakeCacheWatch(false)
	var w *coalescingWatch
	resumed := make(chan struct{})
	resume := func(string) (watch.Interface, error) {
		w.Stop() // the client goes away while the cache is watched again
		close(resumed)
		return next, nil
	}
	first := fakeCacheWatch(false)
	w = newCoalescingWatch(first, 0, "test", resume, resumeFrom("5", true), nil)
	first.Stop() // ended by the cache (and Stop of it below is harmless)
	<-resumed
	expectEnded(t, w)
	if !next.IsStopped() {
		t.Error("the watch opened after Stop was not stopped")
	}
}

// TestCoalescingStoppedNeverResumes checks that once the client stopped, a
// cache watch that ends is not opened again: Stop stops the cache's watch
// too, and the goroutine may see that before it sees Stop.
func TestCoalescingStoppedNeverResumes(t *testing.T) {
	cache := &cacheWatches{watches: []*watch.FakeWatcher{fakeCacheWatch(false)}}
	w := newCoalescingWatch(fakeCacheWatch(false), 0, "test", cache.resume, resumeFrom("5", true), nil)
	w.Stop()
	expectEnded(t, w)
	// The goroutine's view when the closed channel wins the race with done.
	st := resumeFrom("5", true)
	if in := w.reopen(&st); in != nil {
		t.Error("a stopped watch was opened again")
	}
	if from := cache.resumedFrom(); len(from) != 0 {
		t.Errorf("the cache was watched again from %q after Stop", from)
	}
}

// describeAny is "TYPE name resourceVersion", or "ERROR".
func describeAny(e watch.Event) string {
	if e.Type == watch.Error {
		return "ERROR"
	}
	d := describe(e)
	return fmt.Sprintf("%s %s %s", d.typ, d.name, d.rv)
}

// TestSendsChangesOnly checks which watch requests start without the
// current state, and so may be resumed before any bookmark.
func TestSendsChangesOnly(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		rv          string
		initial     *bool
		changesOnly bool
	}{
		{rv: "", changesOnly: false},
		{rv: "0", changesOnly: false},
		{rv: "42", changesOnly: true},
		{rv: "", initial: &yes, changesOnly: false},
		{rv: "42", initial: &yes, changesOnly: false},
		{rv: "", initial: &no, changesOnly: true},
		{rv: "0", initial: &no, changesOnly: true},
	} {
		opts := &metainternalversion.ListOptions{ResourceVersion: tc.rv, SendInitialEvents: tc.initial}
		if got := sendsChangesOnly(opts); got != tc.changesOnly {
			t.Errorf("resourceVersion %q, sendInitialEvents %v: %v, want %v", tc.rv, tc.initial, got, tc.changesOnly)
		}
	}
}
