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

	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// TestLibraryStorageSuites runs the parts of k8s.io/apiserver's storage suites
// that apply to a read-only Store (see suiteStore for how they write): behind
// the watch cache, as the server serves it, and against the Store itself where
// the suite checks what the watch cache relies on (watch from a revision,
// initial events, progress notifications). docs/watch.md, "The library's
// storage suites", says which parts do not apply and why.
func TestLibraryStorageSuites(t *testing.T) {
	noCallsCheck := func(*testing.T, uint64, uint64) {} // counts etcd reads
	suites := []struct {
		name   string
		layout keyLayout
		// cache: behind the watch cache; store: against the Store itself.
		cache, store bool
		run          func(context.Context, *testing.T, storage.Interface)
	}{
		// Watch semantics.
		{name: "Watch", cache: true, run: storagetesting.RunTestWatch},
		{name: "WatchFromZero", cache: true, store: true, run: func(ctx context.Context, t *testing.T, s storage.Interface) {
			storagetesting.RunTestWatchFromZero(ctx, t, s, nil)
		}},
		{name: "WatchFromNonZero", cache: true, store: true, run: storagetesting.RunTestWatchFromNonZero},
		{name: "DeleteTriggerWatch", cache: true, store: true, run: storagetesting.RunTestDeleteTriggerWatch},
		{name: "WatchDeleteEventObjectHaveLatestRV", cache: true, store: true, run: storagetesting.RunTestWatchDeleteEventObjectHaveLatestRV},
		{name: "DelayedWatchDelivery", cache: true, run: func(ctx context.Context, t *testing.T, s storage.Interface) {
			// The watch cache waits for a watcher whose buffer is full only
			// as long as its dispatch budget, which starts at zero and
			// accrues 50 ms a second up to 100 ms. Here time passes as in
			// a server whose cache has run for 2 s before the burst: with
			// a budget of zero the test would only measure whether the
			// watcher's goroutine ran before the Store's microsecond-fast
			// updates filled its buffer (it once had not, under -race on
			// a loaded machine, and the watch ended with no event).
			time.Sleep(2 * time.Second)
			storagetesting.RunTestDelayedWatchDelivery(ctx, t, s)
		}},
		{name: "WatcherTimeout", cache: true, store: true, run: storagetesting.RunTestWatcherTimeout},
		{name: "WatchContextCancel", cache: true, store: true, run: storagetesting.RunTestWatchContextCancel},
		{name: "WatchInitializationSignal", cache: true, run: storagetesting.RunTestWatchInitializationSignal},
		{name: "ClusterScopedWatch", layout: clusterKeys, cache: true, run: storagetesting.RunTestClusterScopedWatch},
		{name: "NamespaceScopedWatch", cache: true, run: storagetesting.RunTestNamespaceScopedWatch},

		// Bookmarks and progress notifications.
		{name: "WatchDispatchBookmarkEvents", cache: true, run: func(ctx context.Context, t *testing.T, s storage.Interface) {
			storagetesting.RunTestWatchDispatchBookmarkEvents(ctx, t, s, true)
		}},
		{name: "WatchBookmarksWithCorrectResourceVersion", cache: true, run: storagetesting.RunTestOptionalWatchBookmarksWithCorrectResourceVersion},
		{name: "ProgressNotify", store: true, run: func(ctx context.Context, t *testing.T, s storage.Interface) {
			storagetesting.RunOptionalTestProgressNotify(ctx, t, s, s.(*suiteStore).increaseRV)
		}},

		// Initial events (watch-list).
		{name: "SendInitialEventsBackwardCompatibility", cache: true, store: true, run: storagetesting.RunSendInitialEventsBackwardCompatibility},
		{name: "WatchSemantics", cache: true, store: true, run: storagetesting.RunWatchSemantics},
		{name: "WatchSemanticInitialEventsExtended", cache: true, store: true, run: storagetesting.RunWatchSemanticInitialEventsExtended},
		{name: "WatchListMatchSingle", cache: true, store: true, run: storagetesting.RunWatchListMatchSingle},

		// Lists.
		{name: "ConsistentList", cache: true, store: true, run: func(ctx context.Context, t *testing.T, s storage.Interface) {
			// cacheEnabled=false: the suite's cache expectations are etcd's
			// (a revision outside the resource reaches the cache with the
			// next progress notification only); a Store's cache follows every
			// revision, which the suite expects of a store without a cache.
			storagetesting.RunTestConsistentList(ctx, t, s, s.(*suiteStore).increaseRV, false, true,
				utilfeature.DefaultFeatureGate.Enabled(features.ListFromCacheSnapshot))
		}},
		{name: "GetListRecursivePrefix", cache: true, store: true, run: storagetesting.RunTestGetListRecursivePrefix},
		{name: "NamespaceScopedList", cache: true, run: storagetesting.RunTestNamespaceScopedList},
		{name: "ListPaging", cache: true, run: storagetesting.RunTestListPaging},
		{name: "ListContinuation", cache: true, run: func(ctx context.Context, t *testing.T, s storage.Interface) {
			storagetesting.RunTestListContinuation(ctx, t, s, noCallsCheck)
		}},
		{name: "ListContinuationWithFilter", cache: true, run: func(ctx context.Context, t *testing.T, s storage.Interface) {
			storagetesting.RunTestListContinuationWithFilter(ctx, t, s, noCallsCheck)
		}},
		{name: "ListPaginationRareObject", cache: true, run: func(ctx context.Context, t *testing.T, s storage.Interface) {
			storagetesting.RunTestListPaginationRareObject(ctx, t, s, noCallsCheck)
		}},
		{name: "Stats", layout: clusterKeys, cache: true, run: func(ctx context.Context, t *testing.T, s storage.Interface) {
			// Sizes off: a Store reports object counts only (their one
			// reader, priority and fairness, is off in this server).
			storagetesting.RunTestStats(ctx, t, s, suiteCodec, identity.NewEncryptCheckTransformer(), false)
		}},
	}
	ctx := context.Background()
	for _, s := range suites {
		if s.cache {
			t.Run("cache/"+s.name, func(t *testing.T) { s.run(ctx, t, newSuiteStore(t, s.layout, true)) })
		}
		if s.store {
			t.Run("store/"+s.name, func(t *testing.T) { s.run(ctx, t, newSuiteStore(t, s.layout, false)) })
		}
	}
}
