package virtualstore

import (
	"container/list"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// coalescingWatch sits between the watch cache and one client's watch
// stream. It takes every event from the cache as soon as it is sent, so the
// cache never finds the watcher's buffer full (which makes it close the
// watch: the client then lists or resumes, and under load these reconnects
// cost more than the events). Events the client has not taken yet wait in
// order; a newer event about an object that is still waiting replaces the
// waiting one and takes its place at the end, so a slow client skips states
// it never saw but never gets one older than one it already has, and
// resourceVersions stay increasing. At most one event per object and one
// progress bookmark wait, so the queue is bounded by the collection's size.
type coalescingWatch struct {
	in      watch.Interface
	out     chan watch.Event
	done    chan struct{}
	stopped sync.Once
}

// pendingEvent is a queued event and, for object events, the object's key.
type pendingEvent struct {
	event watch.Event
	key   string
}

// newCoalescingWatch starts coalescing in's events. outBuffer events may wait
// in the channel the client reads, where they are no longer merged: it lets
// the watch server write several events per flush when the client is
// behind. Keep it 0 for large objects.
func newCoalescingWatch(in watch.Interface, outBuffer int) *coalescingWatch {
	w := &coalescingWatch{
		in:   in,
		out:  make(chan watch.Event, outBuffer),
		done: make(chan struct{}),
	}
	go w.run()
	return w
}

// ResultChan implements watch.Interface.
func (w *coalescingWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop implements watch.Interface.
func (w *coalescingWatch) Stop() {
	w.stopped.Do(func() {
		close(w.done)
		w.in.Stop()
	})
}

func (w *coalescingWatch) run() {
	defer close(w.out)
	q := eventQueue{byKey: map[string]*list.Element{}}
	in := w.in.ResultChan()
	for in != nil || q.items.Len() > 0 {
		var out chan watch.Event
		var next watch.Event
		if front := q.items.Front(); front != nil {
			out, next = w.out, front.Value.(pendingEvent).event
		}
		select {
		case ev, ok := <-in:
			if !ok {
				in = nil // deliver what waits, then close
				continue
			}
			if q.items.Len() == 0 {
				// A client that keeps up takes the event at once,
				// without a trip through the queue.
				select {
				case w.out <- ev:
					continue
				default:
				}
			}
			q.push(ev)
		case out <- next:
			q.pop()
		case <-w.done:
			return
		}
	}
}

// eventQueue holds the events a client has yet to take, in order, with an
// index of the newest queued event of each object and of the queued
// progress bookmark.
type eventQueue struct {
	items    list.List
	byKey    map[string]*list.Element
	bookmark *list.Element
}

func (q *eventQueue) push(ev watch.Event) {
	switch ev.Type {
	case watch.Bookmark:
		if isInitialEventsEnd(ev) {
			// The initial events are the state at this bookmark: no
			// event moves past it.
			q.items.PushBack(pendingEvent{event: ev})
			clear(q.byKey)
			return
		}
		// A newer bookmark says all an older one said.
		if q.bookmark != nil {
			q.items.Remove(q.bookmark)
		}
		q.bookmark = q.items.PushBack(pendingEvent{event: ev})
		return
	case watch.Added, watch.Modified, watch.Deleted:
	default:
		q.items.PushBack(pendingEvent{event: ev})
		return
	}
	m, err := meta.Accessor(ev.Object)
	if err != nil {
		q.items.PushBack(pendingEvent{event: ev})
		return
	}
	key := m.GetName()
	if m.GetNamespace() != "" {
		key = m.GetNamespace() + "/" + key
	}
	if old, ok := q.byKey[key]; ok {
		prev := old.Value.(pendingEvent).event.Type
		switch {
		case prev == watch.Deleted:
			// A new object of that name: the client must still see the
			// deletion first.
		case ev.Type == watch.Modified && prev == watch.Added:
			// The client never saw the object: it is still new to it.
			ev.Type = watch.Added
			q.items.Remove(old)
		default:
			q.items.Remove(old)
		}
	}
	q.byKey[key] = q.items.PushBack(pendingEvent{event: ev, key: key})
}

func (q *eventQueue) pop() {
	front := q.items.Front()
	p := q.items.Remove(front).(pendingEvent)
	if front == q.bookmark {
		q.bookmark = nil
	}
	if p.key != "" && q.byKey[p.key] == front {
		delete(q.byKey, p.key)
	}
}

func isInitialEventsEnd(ev watch.Event) bool {
	m, err := meta.Accessor(ev.Object)
	return err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}
