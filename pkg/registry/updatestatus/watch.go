package updatestatus

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// watchRequest is what a WATCH asks for.
type watchRequest struct {
	resourceVersion   string
	sendInitialEvents *bool
	allowBookmarks    bool
	filter            filter
}

// watcher is one watch stream. The hub is the only sender on ch and closes it
// under the hub's lock, so a send never races a close.
type watcher struct {
	hub       *Hub
	ch        chan watch.Event
	capacity  int // events that may be queued; cap(ch) is one more, kept for the error event
	filter    filter
	bookmarks bool
	closed    bool // guarded by hub.mu
}

var _ watch.Interface = &watcher{}

// ResultChan implements watch.Interface.
func (w *watcher) ResultChan() <-chan watch.Event { return w.ch }

// Stop implements watch.Interface. It is safe to call more than once.
func (w *watcher) Stop() {
	w.hub.mu.Lock()
	defer w.hub.mu.Unlock()
	w.hub.removeLocked(w)
}

// errorWatcher is a finished stream with one ERROR event.
type errorWatcher struct{ ch chan watch.Event }

func newErrorWatcher(err *apierrors.StatusError) *errorWatcher {
	ch := make(chan watch.Event, 1)
	status := err.ErrStatus
	ch <- watch.Event{Type: watch.Error, Object: &status}
	close(ch)
	return &errorWatcher{ch: ch}
}

func (w *errorWatcher) ResultChan() <-chan watch.Event { return w.ch }
func (w *errorWatcher) Stop()                          {}

// Watch starts a stream (docs/watch.md):
//   - resourceVersion "" or "0" without sendInitialEvents: ADDED with the
//     current object, then the changes;
//   - sendInitialEvents=true: ADDED with the current object (at least as new
//     as resourceVersion), then, if bookmarks are allowed, a BOOKMARK
//     annotated k8s.io/initial-events-end, then the changes;
//   - sendInitialEvents=false with resourceVersion "" or "0": the changes
//     from now on;
//   - resourceVersion N otherwise: every retained revision after N as
//     MODIFIED, then the changes; a stream with only an ERROR 410 Expired
//     event when N is older than the retained history.
//
// A resourceVersion newer than the current one waits up to FreshnessTimeout.
func (h *Hub) watch(ctx context.Context, req watchRequest) (watch.Interface, error) {
	rv, err := parseRequestResourceVersion(req.resourceVersion)
	if err != nil {
		return nil, err
	}
	if rv > 0 {
		if err := h.waitFresh(ctx, rv); err != nil {
			return nil, err
		}
	}
	initial := rv == 0 && req.sendInitialEvents == nil ||
		req.sendInitialEvents != nil && *req.sendInitialEvents

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, apierrors.NewServiceUnavailable("the server is shutting down")
	}
	if !h.ready || h.current == nil {
		return nil, notReadyError()
	}
	cur := h.current

	var events []watch.Event
	switch {
	case initial:
		if req.filter.matches(cur.sets) {
			events = append(events, watch.Event{Type: watch.Added, Object: cur.cached})
		}
		if req.sendInitialEvents != nil && *req.sendInitialEvents && req.allowBookmarks {
			events = append(events, watch.Event{Type: watch.Bookmark, Object: bookmarkObject(cur.rvString, true)})
		}
	case rv > 0:
		if oldest := h.history[0].rv; rv < oldest {
			klog.V(3).InfoS("Watch from a resourceVersion older than the history", "resourceVersion", rv, "oldest", oldest)
			return newErrorWatcher(apierrors.NewResourceExpired(
				fmt.Sprintf("too old resource version: %d (oldest retained %d)", rv, oldest))), nil
		}
		for _, e := range h.history {
			if e.rv > rv && e.rev != nil && req.filter.matches(e.rev.sets) {
				events = append(events, watch.Event{Type: watch.Modified, Object: e.rev.cached})
			}
		}
	}

	capacity := max(h.cfg.WatcherBuffer, len(events)+1)
	w := &watcher{
		hub:       h,
		ch:        make(chan watch.Event, capacity+1),
		capacity:  capacity,
		filter:    req.filter,
		bookmarks: req.allowBookmarks,
	}
	for _, ev := range events {
		w.ch <- ev
		countEventsSent(ev.Type, 1)
	}
	h.watchers[w] = struct{}{}
	currentWatchers.Inc()
	return w, nil
}
