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
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"

	"github.com/update-status/apiserver/pkg/apis/update"
)

// obj is a served object named name whose content last changed at rv.
func obj(name string, rv uint64, lbls ...string) *update.UpdateStatus {
	o := &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: fmt.Sprint(rv)}}
	if len(lbls) == 2 {
		o.Labels = map[string]string{lbls[0]: lbls[1]}
	}
	return o
}

func newStore(t testing.TB, history int) *Store {
	t.Helper()
	s, err := New(Config{
		Resource:      update.Resource("updatestatuses"),
		Prefix:        "/updatestatuses",
		New:           func() runtime.Object { return &update.UpdateStatus{} },
		NewList:       func() runtime.Object { return &update.UpdateStatusList{} },
		HistoryLength: history,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func publish(t testing.TB, s *Store, rv uint64, objs ...runtime.Object) {
	t.Helper()
	if err := s.Publish(rv, objs, true); err != nil {
		t.Fatal(err)
	}
}

// request is a context as a client's request has it.
func request() context.Context {
	return genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{})
}

var everything = storage.ListOptions{Predicate: storage.Everything, Recursive: true}

// event is what a test expects of a watch event.
type ev struct {
	typ  watch.EventType
	name string
	rv   string
}

func describe(e watch.Event) ev {
	o := e.Object.(*update.UpdateStatus)
	return ev{e.Type, o.Name, o.ResourceVersion}
}

func receive(t *testing.T, w watch.Interface, n int) []ev {
	t.Helper()
	var got []ev
	for len(got) < n {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %v", got)
			}
			if e.Type == watch.Error {
				t.Fatalf("error event %v", e.Object)
			}
			got = append(got, describe(e))
		case <-time.After(5 * time.Second):
			t.Fatalf("got %v, want %d events", got, n)
		}
	}
	return got
}

func equal(t *testing.T, got, want []ev) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
}

func TestNotReadyUntilSynced(t *testing.T) {
	s := newStore(t, 0)
	if err := s.Publish(5, []runtime.Object{obj("a", 5)}, false); err != nil {
		t.Fatal(err)
	}
	ctx := request()
	out := &update.UpdateStatus{}
	for name, err := range map[string]error{
		"get":  s.Get(ctx, "/updatestatuses/a", storage.GetOptions{}, out),
		"list": s.GetList(ctx, "/updatestatuses", everything, &update.UpdateStatusList{}),
	} {
		if !apierrors.IsTooManyRequests(err) {
			t.Errorf("%s before sync: %v, want 429", name, err)
		}
	}
	if _, err := s.Watch(ctx, "/updatestatuses", everything); !apierrors.IsTooManyRequests(err) {
		t.Errorf("watch before sync: %v, want 429", err)
	}
	if s.ReadinessCheck() == nil {
		t.Error("ready before sync")
	}

	// The first synced revision may be older than an unsynced one.
	publish(t, s, 3, obj("a", 3))
	if err := s.Get(ctx, "/updatestatuses/a", storage.GetOptions{}, out); err != nil || out.ResourceVersion != "3" {
		t.Fatalf("get after sync: %v %q", err, out.ResourceVersion)
	}
	if rv, err := s.GetCurrentResourceVersion(ctx); err != nil || rv != 3 {
		t.Fatalf("current %d %v", rv, err)
	}
	if err := s.Publish(3, []runtime.Object{obj("a", 3)}, true); err == nil {
		t.Error("a revision that does not grow was accepted")
	}
}

func TestCacheListWaitsForSync(t *testing.T) {
	s := newStore(t, 0)
	done := make(chan error, 1)
	go func() {
		// No request in the context: the watch cache's own list.
		done <- s.GetList(context.Background(), "/updatestatuses", everything, &update.UpdateStatusList{})
	}()
	select {
	case err := <-done:
		t.Fatalf("the cache's list returned before sync: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	publish(t, s, 7, obj("a", 7))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestGetAndList(t *testing.T) {
	s := newStore(t, 0)
	publish(t, s, 10, obj("b", 9, "pool", "worker"), obj("a", 10, "pool", "master"))
	ctx := request()

	out := &update.UpdateStatus{}
	if err := s.Get(ctx, "/updatestatuses/missing", storage.GetOptions{}, out); !storage.IsNotFound(err) {
		t.Errorf("missing: %v", err)
	}
	if err := s.Get(ctx, "/updatestatuses/missing", storage.GetOptions{IgnoreNotFound: true}, out); err != nil || out.Name != "" {
		t.Errorf("missing, ignored: %v %q", err, out.Name)
	}
	if err := s.Get(ctx, "/updatestatuses/b", storage.GetOptions{ResourceVersion: "11"}, out); !storage.IsTooLargeResourceVersion(err) {
		t.Errorf("future resourceVersion: %v", err)
	}

	tests := []struct {
		name      string
		key       string
		opts      storage.ListOptions
		wantNames string
		wantErr   func(error) bool
	}{
		{name: "all, in key order", key: "/updatestatuses", opts: everything, wantNames: "[a b]"},
		{name: "one key", key: "/updatestatuses/b", opts: storage.ListOptions{Predicate: storage.Everything}, wantNames: "[b]"},
		{name: "label selector", key: "/updatestatuses", opts: storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{
			Label: labels.SelectorFromSet(labels.Set{"pool": "worker"}), Field: fields.Everything(), GetAttrs: storage.DefaultClusterScopedAttr}}, wantNames: "[b]"},
		{name: "exact, current", key: "/updatestatuses", opts: storage.ListOptions{Recursive: true, Predicate: storage.Everything,
			ResourceVersion: "10", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantNames: "[a b]"},
		{name: "exact, past", key: "/updatestatuses", opts: storage.ListOptions{Recursive: true, Predicate: storage.Everything,
			ResourceVersion: "9", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantErr: apierrors.IsResourceExpired},
		{name: "exact, future", key: "/updatestatuses", opts: storage.ListOptions{Recursive: true, Predicate: storage.Everything,
			ResourceVersion: "12", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantErr: storage.IsTooLargeResourceVersion},
		{name: "bad resourceVersion", key: "/updatestatuses", opts: storage.ListOptions{Recursive: true, Predicate: storage.Everything,
			ResourceVersion: "x"}, wantErr: apierrors.IsBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := &update.UpdateStatusList{}
			err := s.GetList(ctx, tt.key, tt.opts, list)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, i := range list.Items {
				names = append(names, i.Name)
			}
			if fmt.Sprint(names) != tt.wantNames || list.ResourceVersion != "10" {
				t.Fatalf("names %v at %q, want %s at 10", names, list.ResourceVersion, tt.wantNames)
			}
		})
	}
}

// Objects in namespaces are keyed by namespace and name, as the registry
// keys them: two of one name are two objects.
func TestNamespacedKeys(t *testing.T) {
	s := newStore(t, 0)
	inNamespace := func(ns string, rv uint64) *update.UpdateStatus {
		o := obj("a", rv)
		o.Namespace = ns
		return o
	}
	publish(t, s, 1, inNamespace("x", 1), inNamespace("y", 1), obj("a", 1))
	ctx := request()
	w, err := s.Watch(ctx, "/updatestatuses/x", storage.ListOptions{ResourceVersion: "1", Predicate: storage.Everything, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	for key, wantNamespace := range map[string]string{"/updatestatuses/x/a": "x", "/updatestatuses/y/a": "y", "/updatestatuses/a": ""} {
		out := &update.UpdateStatus{}
		if err := s.Get(ctx, key, storage.GetOptions{}, out); err != nil || out.Namespace != wantNamespace {
			t.Errorf("get %s: %v, namespace %q", key, err, out.Namespace)
		}
	}
	list := &update.UpdateStatusList{}
	if err := s.GetList(ctx, "/updatestatuses/y", everything, list); err != nil || len(list.Items) != 1 || list.Items[0].Namespace != "y" {
		t.Errorf("list of namespace y: %v, %v", err, list.Items)
	}

	if err := s.PublishChanges(2, []runtime.Object{inNamespace("y", 2)}, []string{"x/a"}, true); err != nil {
		t.Fatal(err)
	}
	equal(t, receive(t, w, 1), []ev{{watch.Deleted, "a", "2"}})
	if err := s.GetList(ctx, "/updatestatuses", everything, list); err != nil || len(list.Items) != 2 {
		t.Errorf("list after the change: %v, %v", err, list.Items)
	}
}

func TestWritesAreRefused(t *testing.T) {
	s := newStore(t, 0)
	ctx := request()
	for name, err := range map[string]error{
		"create": s.Create(ctx, "/updatestatuses/a", obj("a", 0), &update.UpdateStatus{}, 0),
		"delete": s.Delete(ctx, "/updatestatuses/a", &update.UpdateStatus{}, nil, nil, nil, storage.DeleteOptions{}),
		"update": s.GuaranteedUpdate(ctx, "/updatestatuses/a", &update.UpdateStatus{}, false, nil, nil, nil),
	} {
		if !apierrors.IsMethodNotSupported(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestWatchEventsPerRevision: an object whose resourceVersion did not change
// produces no event; a new one ADDED, a changed one MODIFIED, a missing one
// DELETED at the new revision.
func TestWatchEventsPerRevision(t *testing.T) {
	s := newStore(t, 0)
	a1, b1 := obj("a", 1), obj("b", 1)
	publish(t, s, 1, a1, b1)
	w, err := s.Watch(request(), "/updatestatuses", storage.ListOptions{ResourceVersion: "1", Predicate: storage.Everything, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	publish(t, s, 2, a1, obj("b", 2), obj("c", 2))
	equal(t, receive(t, w, 2), []ev{{watch.Modified, "b", "2"}, {watch.Added, "c", "2"}})
	publish(t, s, 3, a1, obj("c", 2))
	equal(t, receive(t, w, 1), []ev{{watch.Deleted, "b", "3"}})
}

func TestWatchResumesFromHistory(t *testing.T) {
	s := newStore(t, 3)
	publish(t, s, 1, obj("a", 1))
	publish(t, s, 2, obj("a", 2))
	publish(t, s, 3, obj("a", 3))
	publish(t, s, 4, obj("a", 4))
	publish(t, s, 5, obj("a", 5))
	ctx := request()
	opts := func(rv string) storage.ListOptions {
		return storage.ListOptions{ResourceVersion: rv, Predicate: storage.Everything, Recursive: true}
	}

	w, err := s.Watch(ctx, "/updatestatuses", opts("3"))
	if err != nil {
		t.Fatal(err)
	}
	equal(t, receive(t, w, 2), []ev{{watch.Modified, "a", "4"}, {watch.Modified, "a", "5"}})
	w.Stop()

	// 3 events kept: those of revisions 3, 4 and 5, so a watch from 2 works
	// and one from 1 would miss revision 2.
	if w, err := s.Watch(ctx, "/updatestatuses", opts("2")); err != nil {
		t.Errorf("from 2: %v", err)
	} else {
		w.Stop()
	}
	if _, err := s.Watch(ctx, "/updatestatuses", opts("1")); !apierrors.IsResourceExpired(err) {
		t.Errorf("from 1: %v, want 410", err)
	}
	if _, err := s.Watch(ctx, "/updatestatuses", opts("6")); !storage.IsTooLargeResourceVersion(err) {
		t.Errorf("from 6: %v", err)
	}
	if got := s.CompactRevision(); got != 2 {
		t.Errorf("compact revision %d, want 2", got)
	}

	// From 0: the current objects, then the changes.
	w, err = s.Watch(ctx, "/updatestatuses", opts("0"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	equal(t, receive(t, w, 1), []ev{{watch.Added, "a", "5"}})
	publish(t, s, 6, obj("a", 6))
	equal(t, receive(t, w, 1), []ev{{watch.Modified, "a", "6"}})
}

// TestProgressBookmarks: a watcher that asked for progress notifications
// gets a bookmark for a revision that brought it nothing, and on
// RequestWatchProgress when it is behind the current revision.
func TestProgressBookmarks(t *testing.T) {
	s := newStore(t, 0)
	publish(t, s, 1, obj("a", 1), obj("b", 1))
	ctx := request()
	onlyA := storage.ListOptions{ResourceVersion: "1", Recursive: false, ProgressNotify: true, Predicate: storage.Everything}
	w, err := s.Watch(ctx, "/updatestatuses/a", onlyA)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	publish(t, s, 2, obj("a", 1), obj("b", 2))
	equal(t, receive(t, w, 1), []ev{{watch.Bookmark, "", "2"}})
	publish(t, s, 3, obj("a", 3), obj("b", 2))
	equal(t, receive(t, w, 1), []ev{{watch.Modified, "a", "3"}})

	// Up to date: RequestWatchProgress has nothing to report; the next
	// event is the change at 4.
	if err := s.RequestWatchProgress(ctx); err != nil {
		t.Fatal(err)
	}
	publish(t, s, 4, obj("a", 4), obj("b", 2))
	equal(t, receive(t, w, 1), []ev{{watch.Modified, "a", "4"}})
}

func TestStoppedWatcherIsForgotten(t *testing.T) {
	s := newStore(t, 0)
	publish(t, s, 1, obj("a", 1))
	w, err := s.Watch(request(), "/updatestatuses", everything)
	if err != nil {
		t.Fatal(err)
	}
	receive(t, w, 1)
	w.Stop()
	for range w.ResultChan() {
	}
	s.mu.RLock()
	n := len(s.watchers)
	s.mu.RUnlock()
	if n != 0 {
		t.Fatalf("%d watchers after Stop", n)
	}
}

func TestNewRESTRefusesAnIncompleteConfig(t *testing.T) {
	if _, err := NewREST(RESTConfig{}); err == nil {
		t.Fatal("an empty RESTConfig was accepted")
	}
}

// TestWatchList checks the streaming list the watch cache's reflector asks
// for: the current objects (the published ones, not copies) whatever the
// requested revision, a bookmark marking the end of the initial events, then
// the changes; and a watch with SendInitialEvents false from 0 starts from
// now.
func TestWatchList(t *testing.T) {
	s := newStore(t, 0)
	a2, b1 := obj("a", 2), obj("b", 1)
	publish(t, s, 1, obj("a", 1), b1)
	publish(t, s, 2, a2, b1)
	yes, no := true, false
	opts := func(rv string, initial *bool) storage.ListOptions {
		p := storage.Everything
		p.AllowWatchBookmarks = true
		return storage.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			SendInitialEvents: initial, Predicate: p, Recursive: true}
	}

	w, err := s.Watch(context.Background(), "/updatestatuses", opts("1", &yes))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []watch.Event
	for len(got) < 3 {
		got = append(got, <-w.ResultChan())
	}
	if got[0].Object != a2 || got[1].Object != b1 {
		t.Errorf("the initial events carry copies, not the published objects")
	}
	equal(t, []ev{describe(got[0]), describe(got[1]), describe(got[2])}, []ev{{watch.Added, "a", "2"}, {watch.Added, "b", "1"}, {watch.Bookmark, "", "2"}})
	if m, _ := meta.Accessor(got[2].Object); m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
		t.Errorf("the bookmark after the initial events has annotations %v", m.GetAnnotations())
	}
	publish(t, s, 3, a2, b1, obj("c", 3))
	equal(t, receive(t, w, 1), []ev{{watch.Added, "c", "3"}})

	if _, err := s.Watch(context.Background(), "/updatestatuses", opts("4", &yes)); !storage.IsTooLargeResourceVersion(err) {
		t.Errorf("watch-list from a future revision: %v, want too large", err)
	}

	fromNow, err := s.Watch(request(), "/updatestatuses", opts("0", &no))
	if err != nil {
		t.Fatal(err)
	}
	defer fromNow.Stop()
	publish(t, s, 4, obj("a", 4), b1, obj("c", 3))
	equal(t, receive(t, fromNow, 1), []ev{{watch.Modified, "a", "4"}})
}

// TestCacheWatchListWaitsForSync checks that the watch cache's watch-list
// (no request in the context) waits for the first synced revision, as its
// list does, instead of failing and being retried later.
func TestCacheWatchListWaitsForSync(t *testing.T) {
	s := newStore(t, 0)
	yes := true
	opts := storage.ListOptions{SendInitialEvents: &yes, Predicate: storage.Everything, Recursive: true}
	type result struct {
		w   watch.Interface
		err error
	}
	done := make(chan result, 1)
	go func() {
		w, err := s.Watch(context.Background(), "/updatestatuses", opts)
		done <- result{w, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("the cache's watch-list returned before sync: %v", r.err)
	case <-time.After(50 * time.Millisecond):
	}
	publish(t, s, 7, obj("a", 7))
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.w.Stop()
	equal(t, receive(t, r.w, 1), []ev{{watch.Added, "a", "7"}})
	if w, err := s.Watch(request(), "/updatestatuses", opts); err != nil {
		t.Errorf("a request's watch-list once synced: %v", err)
	} else {
		w.Stop()
	}
}
