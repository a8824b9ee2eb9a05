package updatestatus

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
)

const (
	rv1 = 1_000_001
	rv2 = 2_000_001
	rv3 = 3_000_001
	rv4 = 4_000_001
	rv5 = 5_000_001
)

// historyHub returns a hub that retains three revisions and has published
// four: rv1 has left the history, rv4 is current.
func historyHub(t *testing.T) (*Hub, *REST) {
	t.Helper()
	h, clk := newTestHub(t, HubConfig{HistoryLength: 3})
	for i, rv := range []uint64{rv1, rv2, rv3, rv4} {
		h.Publish(viewRevision(rv, fmt.Sprintf("4.17.%d", i+1)))
	}
	return h, NewREST(h, clk)
}

func TestWatchSemantics(t *testing.T) {
	added := func(rv int, target string) received {
		return received{Type: watch.Added, ResourceVersion: fmt.Sprint(rv), Target: target}
	}
	modified := func(rv int, target string) received {
		return received{Type: watch.Modified, ResourceVersion: fmt.Sprint(rv), Target: target}
	}
	initialEnd := received{Type: watch.Bookmark, ResourceVersion: fmt.Sprint(rv4), InitialEnd: true}
	nameIs := func(name string) fields.Selector { return fields.OneTermEqualSelector("metadata.name", name) }

	tests := []struct {
		name string
		opts metainternalversion.ListOptions
		// want are the events before the next publication; wantAfter is
		// what the publication of rv5 adds.
		want       []received
		wantClosed bool
		wantAfter  []received
	}{
		{
			name:      `resourceVersion "" sends the current object, then changes`,
			opts:      metainternalversion.ListOptions{Watch: true},
			want:      []received{added(rv4, "4.17.4")},
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name:      `resourceVersion "0" sends the current object, then changes`,
			opts:      metainternalversion.ListOptions{Watch: true, ResourceVersion: "0"},
			want:      []received{added(rv4, "4.17.4")},
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name:      "resourceVersion in the history sends the current object",
			opts:      metainternalversion.ListOptions{Watch: true, ResourceVersion: fmt.Sprint(rv2)},
			want:      []received{modified(rv4, "4.17.4")},
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name:      "resourceVersion between two revisions (another replica's) sends the current object",
			opts:      metainternalversion.ListOptions{Watch: true, ResourceVersion: "2500000"},
			want:      []received{modified(rv4, "4.17.4")},
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name:      "current resourceVersion sends nothing until a change",
			opts:      metainternalversion.ListOptions{Watch: true, ResourceVersion: fmt.Sprint(rv4)},
			want:      nil,
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name:       "resourceVersion older than the history gets 410 Expired",
			opts:       metainternalversion.ListOptions{Watch: true, ResourceVersion: fmt.Sprint(rv1)},
			want:       []received{{Type: watch.Error, Code: 410}},
			wantClosed: true,
		},
		{
			name: "sendInitialEvents with bookmarks: ADDED, the initial-events-end bookmark, changes",
			opts: metainternalversion.ListOptions{Watch: true, SendInitialEvents: ptrBool(true),
				ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true},
			want:      []received{added(rv4, "4.17.4"), initialEnd},
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name: "sendInitialEvents from an older resourceVersion still starts with the current object",
			opts: metainternalversion.ListOptions{Watch: true, SendInitialEvents: ptrBool(true), ResourceVersion: fmt.Sprint(rv2),
				ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true},
			want:      []received{added(rv4, "4.17.4"), initialEnd},
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name: "sendInitialEvents without bookmarks sends no bookmark",
			opts: metainternalversion.ListOptions{Watch: true, SendInitialEvents: ptrBool(true),
				ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			want:      []received{added(rv4, "4.17.4")},
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name: "sendInitialEvents=false starts from now",
			opts: metainternalversion.ListOptions{Watch: true, SendInitialEvents: ptrBool(false),
				ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			want:      nil,
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name:      "named watch (what client-go sends for one object)",
			opts:      metainternalversion.ListOptions{Watch: true, FieldSelector: nameIs("cluster")},
			want:      []received{added(rv4, "4.17.4")},
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
		{
			name:      "a field selector that matches nothing sends nothing",
			opts:      metainternalversion.ListOptions{Watch: true, FieldSelector: nameIs("other")},
			want:      nil,
			wantAfter: nil,
		},
		{
			name: "a watch-list that matches nothing still ends its initial events",
			opts: metainternalversion.ListOptions{Watch: true, FieldSelector: nameIs("other"), SendInitialEvents: ptrBool(true),
				ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true},
			want:      []received{initialEnd},
			wantAfter: nil,
		},
		{
			name:      "a label selector that matches nothing sends nothing",
			opts:      metainternalversion.ListOptions{Watch: true, LabelSelector: labels.SelectorFromSet(labels.Set{"a": "b"})},
			want:      nil,
			wantAfter: nil,
		},
		{
			name:      "a label selector that matches everything",
			opts:      metainternalversion.ListOptions{Watch: true, LabelSelector: labels.Everything()},
			want:      []received{added(rv4, "4.17.4")},
			wantAfter: []received{modified(rv5, "4.17.5")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, r := historyHub(t)
			opts := tt.opts
			w, err := r.Watch(context.Background(), &opts)
			if err != nil {
				t.Fatalf("Watch: %v", err)
			}
			defer w.Stop()
			got, closed := drain(w)
			if !reflect.DeepEqual(got, tt.want) || closed != tt.wantClosed {
				t.Fatalf("initial events = %+v (closed %v), want %+v (closed %v)", got, closed, tt.want, tt.wantClosed)
			}
			if closed {
				return
			}
			h.Publish(viewRevision(rv5, "4.17.5"))
			got, _ = drain(w)
			if !reflect.DeepEqual(got, tt.wantAfter) {
				t.Fatalf("events after a change = %+v, want %+v", got, tt.wantAfter)
			}
		})
	}
}

func TestWatchErrors(t *testing.T) {
	tests := []struct {
		name  string
		opts  metainternalversion.ListOptions
		check func(error) bool
	}{
		{name: "invalid resourceVersion", opts: metainternalversion.ListOptions{ResourceVersion: "abc"}, check: apierrors.IsBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := historyHub(t)
			opts := tt.opts
			if _, err := r.Watch(context.Background(), &opts); !tt.check(err) {
				t.Fatalf("error = %v", err)
			}
		})
	}
}

func TestWatchFromTheFuture(t *testing.T) {
	tests := []struct {
		name string
		// publish, when set, publishes rv5 while the watch waits.
		publish bool
		want    []received
	}{
		{name: "the view catches up within the timeout", publish: true,
			want: []received{{Type: watch.Modified, ResourceVersion: fmt.Sprint(rv5), Target: "4.17.5"}}},
		{name: "the view does not catch up: too large resource version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, clk := newTestHub(t, HubConfig{})
			h.Publish(viewRevision(rv4, "4.17.4"))
			r := NewREST(h, clk)
			type result struct {
				w   watch.Interface
				err error
			}
			done := make(chan result, 1)
			go func() {
				w, err := r.Watch(context.Background(), &metainternalversion.ListOptions{ResourceVersion: "4500000"})
				done <- result{w, err}
			}()
			waitForWaiters(t, clk, 1) // the freshness timer
			if tt.publish {
				h.Publish(viewRevision(rv5, "4.17.5"))
			} else {
				clk.Step(DefaultFreshnessTimeout)
			}
			res := <-done
			if !tt.publish {
				if !storage.IsTooLargeResourceVersion(res.err) {
					t.Fatalf("error = %v, want too large resource version", res.err)
				}
				return
			}
			if res.err != nil {
				t.Fatal(res.err)
			}
			defer res.w.Stop()
			if got, _ := drain(res.w); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("events = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func waitForWaiters(t *testing.T, clk interface{ Waiters() int }, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for clk.Waiters() < n {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %d clock waiters", n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWatcherThatDoesNotReadHoldsOnlyTheNewestState(t *testing.T) {
	modified := func(rv int, target string) received {
		return received{Type: watch.Modified, ResourceVersion: fmt.Sprint(rv), Target: target}
	}
	tests := []struct {
		name string
		opts metainternalversion.ListOptions
		// publishes is how many revisions (rv5, rv6, ...) are published
		// while the watcher reads nothing.
		publishes int
		want      []received
	}{
		{
			name:      "changes collapse into the newest",
			opts:      metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv4)},
			publishes: 12,
			want:      []received{modified(16_000_001, "4.17.16")},
		},
		{
			name:      "an ADDED not yet taken keeps its type and takes the newest object",
			opts:      metainternalversion.ListOptions{},
			publishes: 3,
			want:      []received{{Type: watch.Added, ResourceVersion: fmt.Sprint(7_000_001), Target: "4.17.7"}},
		},
		{
			name: "the initial-events-end bookmark stays between the initial object and the newest state",
			opts: metainternalversion.ListOptions{SendInitialEvents: ptrBool(true),
				ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true},
			publishes: 5,
			want: []received{
				{Type: watch.Added, ResourceVersion: fmt.Sprint(rv4), Target: "4.17.4"},
				{Type: watch.Bookmark, ResourceVersion: fmt.Sprint(rv4), InitialEnd: true},
				modified(9_000_001, "4.17.9"),
			},
		},
		{
			name:      "a resumed watch replays nothing stale",
			opts:      metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv2)},
			publishes: 2,
			want:      []received{modified(6_000_001, "4.17.6")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, r := historyHub(t)
			opts := tt.opts
			opts.Watch = true
			idle, err := r.Watch(context.Background(), &opts)
			if err != nil {
				t.Fatal(err)
			}
			defer idle.Stop()
			reader, err := r.Watch(context.Background(), &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv4)})
			if err != nil {
				t.Fatal(err)
			}
			defer reader.Stop()
			var readerGot []received
			for i := 5; i < 5+tt.publishes; i++ {
				h.Publish(viewRevision(uint64(i)*1_000_000+1, fmt.Sprintf("4.17.%d", i)))
				evs, closed := drain(reader)
				if closed {
					t.Fatalf("the reading watcher was closed at revision %d", i)
				}
				readerGot = append(readerGot, evs...)
			}
			if len(readerGot) != tt.publishes {
				t.Errorf("the reading watcher got %d events, want every one of the %d", len(readerGot), tt.publishes)
			}
			got, closed := drain(idle)
			if closed {
				t.Fatal("the idle watcher was closed")
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("idle watcher got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPendingPeriodicBookmarkGivesWayToANewerState(t *testing.T) {
	h, clk := newTestHub(t, HubConfig{BookmarkInterval: time.Minute})
	h.Publish(viewRevision(rv1, "4.17.1"))
	r := NewREST(h, clk)
	w, err := r.Watch(context.Background(), &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv1), AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	h.sendBookmarks()
	h.sendBookmarks() // a second one while the first is pending: skipped
	if got := len(w.ResultChan()); got != 1 {
		t.Fatalf("%d events queued after two bookmark ticks, want 1", got)
	}
	h.Publish(viewRevision(rv2, "4.17.2"))
	got, _ := drain(w)
	want := []received{{Type: watch.Modified, ResourceVersion: fmt.Sprint(rv2), Target: "4.17.2"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// TestConcurrentReaderSeesOrderedStatesEndingWithTheNewest publishes while
// a reader takes events at its own pace (run with -race): whatever it
// skips, what it gets is strictly newer each time and ends with the last
// publication.
func TestConcurrentReaderSeesOrderedStatesEndingWithTheNewest(t *testing.T) {
	h, clk := newTestHub(t, HubConfig{})
	h.Publish(viewRevision(rv1, "4.17.1"))
	r := NewREST(h, clk)
	w, err := r.Watch(context.Background(), &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv1)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	const last = 300
	done := make(chan []uint64)
	go func() {
		var rvs []uint64
		for ev := range w.ResultChan() {
			rv, err := strconv.ParseUint(describe(ev).ResourceVersion, 10, 64)
			if err != nil {
				t.Error(err)
			}
			rvs = append(rvs, rv)
			if rv == last*1_000_000+1 {
				break
			}
			if len(rvs)%7 == 0 {
				time.Sleep(time.Millisecond) // a slow moment
			}
		}
		done <- rvs
	}()
	for i := 2; i <= last; i++ {
		h.Publish(viewRevision(uint64(i)*1_000_000+1, fmt.Sprintf("4.17.%d", i)))
	}
	var rvs []uint64
	select {
	case rvs = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the reader never got the last state")
	}
	for i := 1; i < len(rvs); i++ {
		if rvs[i] <= rvs[i-1] {
			t.Fatalf("resourceVersions not increasing: %v", rvs)
		}
	}
	if rvs[len(rvs)-1] != last*1_000_000+1 {
		t.Fatalf("last state %d, want %d", rvs[len(rvs)-1], last*1_000_000+1)
	}
}

func TestPeriodicBookmarksOnlyWhenAsked(t *testing.T) {
	h, clk := newTestHub(t, HubConfig{BookmarkInterval: time.Minute})
	h.Publish(viewRevision(rv1, "4.17.1"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.Run(ctx)
	r := NewREST(h, clk)
	cur := &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv1)}
	asked, err := r.Watch(context.Background(), &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv1), AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer asked.Stop()
	notAsked, err := r.Watch(context.Background(), cur)
	if err != nil {
		t.Fatal(err)
	}
	defer notAsked.Stop()

	waitForWaiters(t, clk, 1)
	clk.Step(time.Minute)
	var ev watch.Event
	select {
	case ev = <-asked.ResultChan():
	case <-time.After(5 * time.Second):
		t.Fatal("no bookmark")
	}
	if got := describe(ev); got != (received{Type: watch.Bookmark, ResourceVersion: fmt.Sprint(rv1)}) {
		t.Fatalf("got %+v", got)
	}
	if got, _ := drain(notAsked); len(got) != 0 {
		t.Fatalf("a watcher that did not ask got %+v", got)
	}
}

func TestShutdownClosesWatchers(t *testing.T) {
	h, clk := newTestHub(t, HubConfig{})
	h.Publish(viewRevision(rv1, "4.17.1"))
	r := NewREST(h, clk)
	w, err := r.Watch(context.Background(), &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv1)})
	if err != nil {
		t.Fatal(err)
	}
	r.Destroy()
	if _, closed := drain(w); !closed {
		t.Fatal("watcher open after Destroy")
	}
	if _, err := r.Watch(context.Background(), &metainternalversion.ListOptions{}); !apierrors.IsServiceUnavailable(err) {
		t.Fatalf("watch after Destroy: %v", err)
	}
}

func TestHistoryBytesBudget(t *testing.T) {
	// Each test revision weighs 1000 bytes; a 2500-byte budget keeps two
	// objects of the three retained versions.
	h, clk := newTestHub(t, HubConfig{HistoryLength: 3, HistoryBytes: 2500})
	for i, rv := range []uint64{rv1, rv2, rv3, rv4} {
		h.Publish(viewRevision(rv, fmt.Sprintf("4.17.%d", i+1)))
	}
	if h.historyBytes > 2500 {
		t.Errorf("retained %d bytes, budget 2500", h.historyBytes)
	}
	r := NewREST(h, clk)
	// rv1 left the history; rv2 stays in it without its object; rv3 and rv4
	// keep theirs.
	for _, tt := range []struct {
		rv      uint64
		expired bool
	}{{rv1, true}, {rv2, true}, {rv3, false}, {rv4, false}} {
		_, err := h.revisionAt(context.Background(), fmt.Sprint(tt.rv), metav1.ResourceVersionMatchExact)
		if got := apierrors.IsResourceExpired(err); got != tt.expired {
			t.Errorf("exact read of %d: %v, want expired %v", tt.rv, err, tt.expired)
		}
	}
	// A watch from rv2 (object dropped, version retained) still resumes.
	w, err := r.Watch(context.Background(), &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv2)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	got, _ := drain(w)
	want := []received{{Type: watch.Modified, ResourceVersion: fmt.Sprint(rv4), Target: "4.17.4"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
