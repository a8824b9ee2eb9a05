package virtualstore

import (
	"container/list"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

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
	w := newCoalescingWatch(in, 0)
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
	w := newCoalescingWatch(in, 0)
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
	w := newCoalescingWatch(in, 0)
	in.Add(obj("a", 1))
	in.Add(obj("b", 2))
	in.Stop()
	equal(t, receive(t, w, 2), []ev{{watch.Added, "a", "1"}, {watch.Added, "b", "2"}})
	select {
	case _, ok := <-w.ResultChan():
		if ok {
			t.Fatal("an event after the last")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client's channel stays open after the source ended")
	}
}
