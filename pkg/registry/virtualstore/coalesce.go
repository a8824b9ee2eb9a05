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
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/component-base/metrics"
)

// WatchesResumed counts the watches of the cache that ended while the
// client's stream went on, and were opened again from the last
// resourceVersion received (coalescingWatch). Register it with the
// server's metrics.
var WatchesResumed = metrics.NewCounterVec(&metrics.CounterOpts{
	Namespace:      "update_status",
	Name:           "watch_cache_watches_resumed_total",
	Help:           "Watches of the watch cache that the cache ended (apiserver_terminated_watchers_total) and this server opened again from the last resourceVersion received, without ending the client's stream.",
	StabilityLevel: metrics.ALPHA,
}, []string{"resource"})

// maxEmptyResumes is how many times in a row a watch of the cache may be
// opened again without an event received in between.
const maxEmptyResumes = 3

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
//
// When the cache ends its watch while the client's stream goes on (the
// cache closes a watcher whose goroutine did not move its events along in
// time, which a machine short of CPU shows with many watchers), the
// coalescing watch opens the cache's watch again from the last
// resourceVersion it received, as the client would, and the client's
// stream goes on. A client resuming by itself costs far more: a new stream
// through the kube-apiserver, authentication and authorization, and under
// load such reconnects cost more CPU than the events, so that the cache
// ends more watches. It resumes only where the cache's history makes that
// exact: once no initial state is being sent, never after an error event,
// and not in a loop of watches that end before their first event.
type coalescingWatch struct {
	out      chan watch.Event
	done     chan struct{}
	stopped  sync.Once
	resume   resumeFunc
	resource string // the metric's label
	// object, when set, replaces the object of ADDED and MODIFIED events.
	object func(runtime.Object) runtime.Object

	mu sync.Mutex
	in watch.Interface // the cache's watch; a resume replaces it
}

// resumeFunc opens the cache's watch again from resourceVersion rv, with
// the client's selectors, and no initial state.
type resumeFunc func(rv string) (watch.Interface, error)

// pendingEvent is a queued event and, for object events, the object's key.
type pendingEvent struct {
	event watch.Event
	key   string
}

// resumeState is what the coalescing goroutine knows of the cache's watch:
// whether it may be opened again, and from where. Per event it only notes
// the event; the resourceVersion to resume from is read when the watch ends.
type resumeState struct {
	live   bool           // no initial state is being sent: only changes and bookmarks
	failed bool           // an error event came: the client must see the watch end
	start  string         // the requested resourceVersion of a live watch, until an event came
	last   runtime.Object // of the last event received
	empty  int            // resumes since the last event received
}

// resumeFrom returns the state of a watch that starts at resourceVersion
// rv; live tells whether it sends changes only (no initial state).
func resumeFrom(rv string, live bool) resumeState {
	if !live || rv == "0" {
		rv = ""
	}
	return resumeState{live: live, start: rv}
}

func (r *resumeState) observe(ev watch.Event) {
	r.empty = 0
	switch {
	case ev.Type == watch.Error:
		r.failed = true
		return
	case ev.Type == watch.Bookmark && isInitialEventsEnd(ev):
		r.live = true
	}
	r.last = ev.Object
}

// from returns the resourceVersion to resume from, or "" when the watch
// may not be resumed.
func (r *resumeState) from() string {
	if !r.live || r.failed || r.empty >= maxEmptyResumes {
		return ""
	}
	if r.last != nil {
		if m, err := meta.Accessor(r.last); err == nil && m.GetResourceVersion() != "" {
			return m.GetResourceVersion()
		}
	}
	return r.start
}

// newCoalescingWatch starts coalescing in's events. outBuffer events may wait
// in the channel the client reads, where they are no longer merged: it lets
// the watch server write several events per flush when the client is
// behind. Keep it 0 for large objects.
// resume is nil for a watch that is never resumed; st is where in starts
// (resumeFrom). resource labels the metric. object, when set, replaces
// the object of ADDED and MODIFIED events (REST.WatchEach).
func newCoalescingWatch(in watch.Interface, outBuffer int, resource string, resume resumeFunc, st resumeState, object func(runtime.Object) runtime.Object) *coalescingWatch {
	w := &coalescingWatch{
		object:   object,
		in:       in,
		out:      make(chan watch.Event, outBuffer),
		done:     make(chan struct{}),
		resume:   resume,
		resource: resource,
	}
	go w.run(st)
	return w
}

// ResultChan implements watch.Interface.
func (w *coalescingWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop implements watch.Interface.
func (w *coalescingWatch) Stop() {
	w.stopped.Do(func() {
		close(w.done)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.in.Stop()
	})
}

// reopen opens the cache's watch again where st says, when st allows it,
// and returns its channel, or nil.
func (w *coalescingWatch) reopen(st *resumeState) <-chan watch.Event {
	rv := st.from()
	if w.resume == nil || rv == "" || w.isStopped() {
		// A stopped client's cache watch closes too: nobody waits for a
		// resumed one.
		return nil
	}
	next, err := w.resume(rv)
	if err != nil {
		return nil // the client resumes, and sees why
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.isStopped() {
		// Stopped while it opened: Stop has already stopped the old one.
		next.Stop()
		return nil
	}
	w.in = next
	st.empty++
	WatchesResumed.WithLabelValues(w.resource).Inc()
	return next.ResultChan()
}

// isStopped reports whether the client called Stop.
func (w *coalescingWatch) isStopped() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

func (w *coalescingWatch) run(st resumeState) {
	defer close(w.out)
	q := eventQueue{byKey: map[string]*list.Element{}}
	w.mu.Lock()
	in := w.in.ResultChan()
	w.mu.Unlock()
	for in != nil || q.items.Len() > 0 {
		var out chan watch.Event
		var next watch.Event
		if front := q.items.Front(); front != nil {
			out, next = w.out, front.Value.(pendingEvent).event
		}
		select {
		case ev, ok := <-in:
			if !ok {
				// Resumed, or deliver what waits, then close.
				in = w.reopen(&st)
				continue
			}
			st.observe(ev)
			if w.object != nil && (ev.Type == watch.Added || ev.Type == watch.Modified) {
				ev.Object = w.object(ev.Object)
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
