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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/install"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/registry/internal/registrytest"
)

// newREST serves s through the registry and the library's watch cache, and
// returns once the cache has listed s.
func newREST(t *testing.T, s *Store) *REST {
	t.Helper()
	scheme := install.NewScheme()
	r, err := NewREST(RESTConfig{
		Store:   s,
		Codec:   serializer.NewCodecFactory(scheme).LegacyCodec(v1alpha1.SchemeGroupVersion),
		Typer:   scheme,
		New:     func() runtime.Object { return &update.UpdateStatus{} },
		NewList: func() runtime.Object { return &update.UpdateStatusList{} },
		Table:   rest.NewDefaultTableConvertor(s.cfg.Resource),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Destroy)
	if err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return r.ReadinessCheck() == nil, nil
	}); err != nil {
		t.Fatalf("the watch cache is not ready: %v", r.ReadinessCheck())
	}
	return r
}

// TestWatchCacheProgressBookmarks: behind the library's watch cache, a
// watch-list (sendInitialEvents with bookmarks, as client-go's WatchList asks
// for it) gets the current objects, then the bookmark that ends them at the
// store's current revision, even when that revision changed nothing: the
// cache reaches it only through a progress bookmark of the store. The cache
// serves a watch-list only when the storage is declared to support progress
// requests (declareProgressNotifySupport); without that the watch ends with
// an error instead.
func TestWatchCacheProgressBookmarks(t *testing.T) {
	s := newStore(t, 0)
	a := obj("a", 1)
	publish(t, s, 1, a)
	r := newREST(t, s)
	publish(t, s, 2, a) // nothing changes: no event, only progress

	w := registrytest.WatchList(request(), t, r, metainternalversion.ListOptions{})

	type seen struct {
		typ                watch.EventType
		name, rv           string
		initialEventsEnded bool
	}
	want := []seen{{typ: watch.Added, name: "a", rv: "1"}, {typ: watch.Bookmark, rv: "2", initialEventsEnded: true}}
	var got []seen
	timeout := time.After(10 * time.Second)
	for len(got) < len(want) {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended after %v", got)
			}
			if e.Type == watch.Error {
				t.Fatalf("error event after %v: %v", got, e.Object)
			}
			m, err := meta.Accessor(e.Object)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, seen{typ: e.Type, name: m.GetName(), rv: m.GetResourceVersion(),
				initialEventsEnded: m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"})
		case <-timeout:
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events\n got %+v\nwant %+v", got, want)
		}
	}
}
