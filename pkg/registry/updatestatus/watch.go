package updatestatus

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// watcherQueue is the room of a watcher's channel. The coalescing in
// sendLatest keeps at most three events queued (the initial ADDED, the
// initial-events-end bookmark and the newest state), so a full queue means a
// bug, not a slow client.
const watcherQueue = 8

// watcher is one watch stream. The hub is the only sender on ch and closes it
// under the hub's lock, so a send never races a close; the apiserver's watch
// handler is the only other receiver.
type watcher struct {
	hub       *Hub
	ch        chan watch.Event
	filter    filter
	bookmarks bool
	closed    bool // guarded by hub.mu
}

// sendLatest queues the state ev for w without ever blocking. Every event
// carries the whole object, so a state the client has not taken yet is
// worth nothing once a newer one exists: the events still queued are taken
// back and queued again with consecutive states collapsed into the newest
// (an ADDED keeps its type and takes the newer object; a periodic bookmark
// is dropped, the newer state reports more progress). A client that reads
// slowly thus gets fewer, fresher states and the server holds at most one
// pending state per watcher. The handler may take the head concurrently;
// what it takes is older than what is queued again, so the order holds.
// Called with hub.mu held.
func (w *watcher) sendLatest(ev watch.Event) bool {
	if w.closed {
		return false
	}
	if len(w.ch) == 0 {
		w.ch <- ev
		return true
	}
	var pending [watcherQueue + 1]watch.Event
	n := 0
take:
	for n < watcherQueue {
		select {
		case p := <-w.ch:
			pending[n] = p
			n++
		default:
			break take
		}
	}
	pending[n] = ev
	out := pending[:0] // collapses in place: out never overtakes the loop
	for _, p := range pending[:n+1] {
		if p.Type == watch.Bookmark && !isInitialEnd(p) {
			continue
		}
		if k := len(out); k > 0 && p.Type == watch.Modified && (out[k-1].Type == watch.Modified || out[k-1].Type == watch.Added) {
			out[k-1].Object = p.Object
			continue
		}
		out = append(out, p)
	}
	for _, p := range out {
		select {
		case w.ch <- p:
		default:
			// Unreachable with the collapsing above; never block the hub.
			w.hub.removeLocked(w)
			klog.ErrorS(nil, "Closed a watcher whose queue was full")
			return false
		}
	}
	return true
}

// isInitialEnd reports whether ev is the initial-events-end bookmark.
func isInitialEnd(ev watch.Event) bool {
	c, ok := ev.Object.(*cachedObject)
	return ok && c.obj.Annotations[metav1.InitialEventsAnnotationKey] == "true"
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
//   - resourceVersion N otherwise: the current object as MODIFIED when it
//     is newer than N, then the changes; a stream with only an ERROR 410
//     Expired event when N is older than the retained history.
//
// A watcher receives the newest state: one it has not taken yet is replaced
// by a newer one (sendLatest).
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
		// Every event carries the whole object: the current one brings the
		// client up to date from any retained resourceVersion.
		if rv < cur.rv && req.filter.matches(cur.sets) {
			events = append(events, watch.Event{Type: watch.Modified, Object: cur.cached})
		}
	}

	w := &watcher{
		hub:       h,
		ch:        make(chan watch.Event, watcherQueue),
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
