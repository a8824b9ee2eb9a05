package updatestatus

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/view"
)

// Defaults of HubConfig.
const (
	DefaultHistoryLength    = 1024
	DefaultHistoryBytes     = 4 << 20
	DefaultBookmarkInterval = time.Minute
	DefaultFreshnessTimeout = 3 * time.Second
)

// HubConfig configures a Hub. Zero values take the defaults above.
type HubConfig struct {
	// Clock is the time source. Required.
	Clock clock.WithTicker
	// HistoryLength is how many past resourceVersions are retained. A watch
	// from an older resourceVersion gets 410 Expired; a watch from a retained
	// one resumes with the current object.
	HistoryLength int
	// HistoryBytes bounds the memory of the past objects kept for
	// resourceVersionMatch=Exact reads (measured by their JSON size). The
	// newest object is always kept; older ones beyond the budget are dropped
	// (their resourceVersions stay in the history).
	HistoryBytes int64
	// BookmarkInterval is the period of the bookmarks sent to watchers that
	// asked for them.
	BookmarkInterval time.Duration
	// FreshnessTimeout is how long a request for a resourceVersion newer than
	// the current one waits before it fails with "too large resource version".
	FreshnessTimeout time.Duration
}

func (c *HubConfig) setDefaults() {
	if c.HistoryLength <= 0 {
		c.HistoryLength = DefaultHistoryLength
	}
	if c.HistoryBytes <= 0 {
		c.HistoryBytes = DefaultHistoryBytes
	}
	if c.BookmarkInterval <= 0 {
		c.BookmarkInterval = DefaultBookmarkInterval
	}
	if c.FreshnessTimeout <= 0 {
		c.FreshnessTimeout = DefaultFreshnessTimeout
	}
}

// revision is a published state prepared for serving.
type revision struct {
	rv       uint64
	rvString string
	cached   *cachedObject
	sets     selectableSets
	size     int64
}

func newRevision(r *view.Revision) *revision {
	return &revision{
		rv:       r.ResourceVersion,
		rvString: r.Object.ResourceVersion,
		cached:   newCachedObject(r.Object),
		sets:     setsOf(r.Object),
		size:     int64(r.Size),
	}
}

// historyEntry is one retained resourceVersion; rev is nil once the object
// was dropped to honour HistoryBytes.
type historyEntry struct {
	rv  uint64
	rev *revision
}

// Hub holds the served revisions and fans them out to watchers. Publish is
// its only input; it never blocks on a watcher.
type Hub struct {
	cfg HubConfig

	mu           sync.RWMutex
	current      *revision
	history      []historyEntry // oldest first
	historyBytes int64
	ready        bool
	closed       bool
	watchers     map[*watcher]struct{}
	changed      chan struct{} // closed and replaced on every Publish
}

// NewHub returns a Hub.
func NewHub(cfg HubConfig) (*Hub, error) {
	if cfg.Clock == nil {
		return nil, errors.New("updatestatus: HubConfig.Clock is required")
	}
	cfg.setDefaults()
	return &Hub{
		cfg:      cfg,
		watchers: map[*watcher]struct{}{},
		changed:  make(chan struct{}),
	}, nil
}

// Ready reports whether a revision computed from synced caches has been
// published. Until then requests are refused with 429.
func (h *Hub) Ready() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.ready
}

// CheckReady is Ready as an error, for the readyz check.
func (h *Hub) CheckReady() error {
	if !h.Ready() {
		return errors.New("no UpdateStatus computed from synced caches yet")
	}
	return nil
}

// Publish makes r the current revision and sends it to every watcher whose
// selectors match. It never waits for a watcher: a watcher that has not
// taken its previous state yet gets the new one in its place.
func (h *Hub) Publish(r *view.Revision) {
	rev := newRevision(r)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if r.Synced && !h.ready {
		// Nothing before the first synced revision was served: forget it, so
		// that the history holds only versions clients may know.
		h.history, h.historyBytes = h.history[:0], 0
		h.ready = true
	}
	h.current = rev
	h.appendHistoryLocked(rev)
	close(h.changed)
	h.changed = make(chan struct{})

	ev := watch.Event{Type: watch.Modified, Object: rev.cached}
	sent := 0
	for w := range h.watchers {
		if !w.filter.matches(rev.sets) {
			continue
		}
		if w.sendLatest(ev) {
			sent++
		}
	}
	countEventsSent(watch.Modified, sent)
}

func (h *Hub) appendHistoryLocked(rev *revision) {
	if len(h.history) >= h.cfg.HistoryLength {
		if old := h.history[0].rev; old != nil {
			h.historyBytes -= old.size
		}
		copy(h.history, h.history[1:])
		h.history = h.history[:len(h.history)-1]
	}
	h.history = append(h.history, historyEntry{rv: rev.rv, rev: rev})
	h.historyBytes += rev.size
	for i := 0; h.historyBytes > h.cfg.HistoryBytes && i < len(h.history)-1; i++ {
		if old := h.history[i].rev; old != nil {
			h.historyBytes -= old.size
			h.history[i].rev = nil
		}
	}
}

func (h *Hub) removeLocked(w *watcher) {
	if w.closed {
		return
	}
	w.closed = true
	close(w.ch)
	delete(h.watchers, w)
	currentWatchers.Dec()
}

// Run sends the periodic bookmarks until ctx is done, then closes every
// watcher.
func (h *Hub) Run(ctx context.Context) {
	t := h.cfg.Clock.NewTicker(h.cfg.BookmarkInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			h.Shutdown()
			return
		case <-t.C():
			h.sendBookmarks()
		}
	}
}

// sendBookmarks sends a bookmark with the current resourceVersion to every
// watcher that asked for bookmarks and has nothing pending. A bookmark only
// reports progress, so a watcher with an event pending needs none.
func (h *Hub) sendBookmarks() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.current == nil {
		return
	}
	var ev watch.Event
	sent := 0
	for w := range h.watchers {
		if !w.bookmarks || len(w.ch) > 0 {
			continue
		}
		if ev.Object == nil {
			ev = watch.Event{Type: watch.Bookmark, Object: bookmarkObject(h.current.rvString, false)}
		}
		w.ch <- ev
		sent++
	}
	countEventsSent(watch.Bookmark, sent)
}

// Shutdown closes every watcher and refuses new ones.
func (h *Hub) Shutdown() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for w := range h.watchers {
		h.removeLocked(w)
	}
}

// bookmarkObject returns a bookmark carrying resourceVersion rv, annotated as
// the end of the initial events when initialEnd is true.
func bookmarkObject(rv string, initialEnd bool) *cachedObject {
	obj := &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}
	if initialEnd {
		obj.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return newCachedObject(obj)
}

// revisionAt returns the revision to serve for a GET or LIST with the given
// resourceVersion and resourceVersionMatch.
func (h *Hub) revisionAt(ctx context.Context, rvString string, match metav1.ResourceVersionMatch) (*revision, error) {
	rv, err := parseRequestResourceVersion(rvString)
	if err != nil {
		return nil, err
	}
	if rv > 0 {
		if err := h.waitFresh(ctx, rv); err != nil {
			return nil, err
		}
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.current == nil {
		return nil, notReadyError()
	}
	if match != metav1.ResourceVersionMatchExact || rv == h.current.rv {
		return h.current, nil
	}
	for i := len(h.history) - 1; i >= 0; i-- {
		if e := h.history[i]; e.rv == rv && e.rev != nil {
			return e.rev, nil
		}
	}
	return nil, apierrors.NewResourceExpired(fmt.Sprintf("resourceVersion %d is not retained (current %d)", rv, h.current.rv))
}

// waitFresh waits until the current revision is at least rv, for at most
// FreshnessTimeout.
func (h *Hub) waitFresh(ctx context.Context, rv uint64) error {
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		h.mu.RLock()
		cur, changed := h.current, h.changed
		h.mu.RUnlock()
		if cur != nil && cur.rv >= rv {
			return nil
		}
		if timer == nil {
			timer = h.cfg.Clock.NewTimer(h.cfg.FreshnessTimeout)
		}
		select {
		case <-changed:
		case <-timer.C():
			var currentRV uint64
			if cur != nil {
				currentRV = cur.rv
			}
			return storage.NewTooLargeResourceVersionError(rv, currentRV, 1)
		case <-ctx.Done():
			return apierrors.NewTimeoutError(fmt.Sprintf("request ended while waiting for resourceVersion %d", rv), 1)
		}
	}
}

// parseRequestResourceVersion parses a resourceVersion from a request; "" and
// "0" give 0.
func parseRequestResourceVersion(s string) (uint64, error) {
	rv, err := view.ParseResourceVersion(s)
	if err != nil {
		return 0, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q: %v", s, err))
	}
	return rv, nil
}

func notReadyError() error {
	return apierrors.NewTooManyRequests("the UpdateStatus is not computed yet: the source caches are still syncing", 1)
}

// currentRevision returns the current revision if the hub is ready.
func (h *Hub) currentRevision() (*revision, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if !h.ready || h.current == nil {
		return nil, notReadyError()
	}
	return h.current, nil
}

// rvString formats rv.
func rvString(rv uint64) string { return strconv.FormatUint(rv, 10) }
