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
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
)

// maxPending bounds the events queued for one watcher. The watch cache reads
// its watch at once, so a watcher this far behind is stuck: it is closed with
// an error and the cache relists.
const maxPending = 1 << 16

// Watch implements storage.Interface. A watch from revision 0 starts with an
// ADDED event per current object; from revision R it gets every change after
// R (410 Expired when R is older than the history). With SendInitialEvents
// (a watch-list, as the watch cache's reflector asks for) it starts with an
// ADDED event per current object whatever R (a state at least as new as R),
// then a bookmark marking the end of the initial events; with
// SendInitialEvents false and R 0 it starts from now. Events pass opts'
// predicate by their new object. With ProgressNotify, RequestWatchProgress
// and revisions that change nothing under key send bookmarks.
func (s *Store) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	rv, err := s.versioner.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	streaming := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	if streaming {
		s.waitReadyForCache(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready {
		return nil, s.notReady()
	}
	var initial []event
	switch {
	case rv > s.rv:
		return nil, storage.NewTooLargeResourceVersionError(rv, s.rv, 1)
	case streaming || (rv == 0 && opts.SendInitialEvents == nil):
		for _, k := range s.keys {
			initial = append(initial, event{typ: watch.Added, key: k, obj: s.objects[k], rv: s.rv})
		}
	case rv == 0:
		// SendInitialEvents false: from now.
	case rv < s.oldest:
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("resourceVersion %d is older than the oldest retained revision %d", rv, s.oldest))
	default:
		for _, ev := range s.history {
			if ev.rv > rv {
				initial = append(initial, ev)
			}
		}
	}
	w := &watcher{
		store:    s,
		key:      key,
		opts:     opts,
		result:   make(chan watch.Event),
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		lastSent: rv,
	}
	s.watchers[w] = struct{}{}
	w.send(initial, s.rv)
	if streaming && opts.Predicate.AllowWatchBookmarks {
		w.endInitialEvents(s.rv)
	}
	go w.run(ctx)
	return w, nil
}

// watcher is one storage watch. Publish queues its events without waiting;
// run hands them to the consumer in order.
type watcher struct {
	store  *Store
	key    string
	opts   storage.ListOptions
	result chan watch.Event
	wake   chan struct{}
	done   chan struct{}
	stop   sync.Once

	mu       sync.Mutex
	pending  []watch.Event
	lastSent uint64 // the revision of the newest event or bookmark queued
	failed   bool
}

// send queues the events that concern w and, when none does and w wants
// progress notifications, a bookmark at rv. Called with the store's lock.
func (w *watcher) send(events []event, rv uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed {
		return
	}
	queued := false
	for _, ev := range events {
		if !inScope(ev.key, w.key, w.opts.Recursive) {
			continue
		}
		if ok, err := w.opts.Predicate.Matches(ev.obj); err != nil || !ok {
			continue
		}
		w.pending = append(w.pending, watch.Event{Type: ev.typ, Object: ev.obj})
		queued = true
	}
	if !queued && w.opts.ProgressNotify && rv > w.lastSent {
		w.pending = append(w.pending, watch.Event{Type: watch.Bookmark, Object: w.bookmark(rv)})
		queued = true
	}
	if rv > w.lastSent {
		w.lastSent = rv
	}
	if len(w.pending) > maxPending {
		w.failed = true
		w.pending = append(w.pending[:0], watch.Event{Type: watch.Error, Object: &apierrors.NewResourceExpired(
			"the watcher fell too far behind; list again").ErrStatus})
	}
	if queued || w.failed {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// endInitialEvents queues the bookmark that ends a watch-list's initial
// events, at rv. Called with the store's lock, after send.
func (w *watcher) endInitialEvents(rv uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed {
		return
	}
	b := w.bookmark(rv)
	if m, err := meta.Accessor(b); err == nil {
		m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	w.pending = append(w.pending, watch.Event{Type: watch.Bookmark, Object: b})
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// bookmark returns an empty object of the served type at revision rv.
func (w *watcher) bookmark(rv uint64) runtime.Object {
	item := w.store.cfg.New()
	if m, err := meta.Accessor(item); err == nil {
		m.SetResourceVersion(formatRV(rv))
	}
	return item
}

// run delivers the queued events until ctx ends or Stop is called.
func (w *watcher) run(ctx context.Context) {
	defer close(w.result)
	defer w.store.forget(w)
	for {
		w.mu.Lock()
		batch := w.pending
		w.pending = nil
		failed := w.failed
		w.mu.Unlock()
		for _, ev := range batch {
			select {
			case w.result <- ev:
			case <-ctx.Done():
				return
			case <-w.done:
				return
			}
		}
		if failed {
			return
		}
		select {
		case <-w.wake:
		case <-ctx.Done():
			return
		case <-w.done:
			return
		}
	}
}

// Stop implements watch.Interface.
func (w *watcher) Stop() { w.stop.Do(func() { close(w.done) }) }

// ResultChan implements watch.Interface.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

func (s *Store) forget(w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.watchers, w)
}
