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
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/update-status/apiserver/internal/cputime"
	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/install"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// BenchmarkCoalescingWatch compares, with the UpdateStatus of 5,000 worker
// nodes, watches of the watch cache through the coalescing watch
// (path=coalesce, what REST.Watch serves) with the cache's own watches
// (path=plain). Each op publishes one revision and waits until every fast
// watcher has it. Every watcher encodes each event it takes in JSON, as the
// apiserver's watch handler does: the cache shares one encoding of a live
// event among its watchers, and a watch it replays encodes its own. The
// slow watchers take one event for every slowEvery revisions published, so
// the cache finds their buffers full; when the cache ends a plain watch,
// the watcher watches again from the last resourceVersion it received, as
// client-go does (rewatches/op). cpu-ns/op is the process's CPU time per
// revision: the encodings of all watchers and the cache's work.
//
//	go test -run '^$' -bench BenchmarkCoalescingWatch -benchtime 300x -count 6 ./pkg/registry/virtualstore/ >FILE
//	go run golang.org/x/perf/cmd/benchstat@latest -col /path FILE
func BenchmarkCoalescingWatch(b *testing.B) {
	const slowEvery = 4
	status := viewtest.Synthetic(5000, 1)
	big := &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
	if err := v1alpha1.Convert_v1alpha1_UpdateStatusStatus_To_update_UpdateStatusStatus(&status, &big.Status, nil); err != nil {
		b.Fatal(err)
	}
	scheme := install.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	codecs := serializer.NewCodecFactory(scheme)
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	encoder := codecs.EncoderForVersion(info.Serializer, v1alpha1.SchemeGroupVersion)

	for _, tc := range []struct{ fast, slow int }{{10, 0}, {8, 2}} {
		for _, path := range []string{"coalesce", "plain"} {
			b.Run(fmt.Sprintf("watchers=%d+%dslow/path=%s", tc.fast, tc.slow, path), func(b *testing.B) {
				store := newStore(b, 0)
				r, err := NewREST(RESTConfig{
					Store: store, Codec: codecs.LegacyCodec(v1alpha1.SchemeGroupVersion), Typer: scheme, Singular: "updatestatus",
					New:     func() runtime.Object { return &update.UpdateStatus{} },
					NewList: func() runtime.Object { return &update.UpdateStatusList{} },
					Table:   rest.NewDefaultTableConvertor(update.Resource("updatestatuses")),
				})
				if err != nil {
					b.Fatal(err)
				}
				defer r.Destroy()
				rv := uint64(1000)
				revision := func() runtime.Object {
					o := *big
					o.ResourceVersion = strconv.FormatUint(rv, 10)
					return &o
				}
				publish(b, store, rv, revision())
				ctx, cancel := context.WithCancel(request())
				defer cancel()
				if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
					return r.ReadinessCheck() == nil, nil
				}); err != nil {
					b.Fatalf("the watch cache is not ready: %v", err)
				}
				watchFrom := func(from string) (watch.Interface, error) {
					opts := &metainternalversion.ListOptions{ResourceVersion: from}
					if path == "plain" {
						return r.store.Watch(ctx, opts)
					}
					return r.Watch(ctx, opts)
				}
				var (
					mu         sync.Mutex
					published  = sync.NewCond(&mu)
					newest     = rv // the newest revision published, under mu
					rewatches  atomic.Int64
					fastLatest = make([]atomic.Uint64, tc.fast)
					progress   = make(chan struct{}, tc.fast)
					wg         sync.WaitGroup
				)
				// publishedAtLeast waits until revision n is published or ctx ends.
				publishedAtLeast := func(n uint64) {
					mu.Lock()
					defer mu.Unlock()
					for newest < n && ctx.Err() == nil {
						published.Wait()
					}
				}
				// watcher watches from the first revision and takes events
				// until ctx ends, encoding each; a slow one waits for
				// slowEvery more revisions before each.
				first := rv
				watcher := func(latest *atomic.Uint64, slow bool) {
					defer wg.Done()
					last := strconv.FormatUint(first, 10)
					w, err := watchFrom(last)
					for taken := uint64(0); ; taken++ {
						if err != nil {
							b.Error(err)
							return
						}
						if slow {
							publishedAtLeast(first + slowEvery*taken)
						}
						var ev watch.Event
						var ok bool
						select {
						case ev, ok = <-w.ResultChan():
						case <-ctx.Done():
							w.Stop()
							return
						}
						if !ok || ev.Type == watch.Error {
							// The cache ended the watch (or the history no
							// longer reaches last): watch again.
							w.Stop()
							rewatches.Add(1)
							if ev.Type == watch.Error {
								last = ""
							}
							w, err = watchFrom(last)
							continue
						}
						if err := encoder.Encode(ev.Object, io.Discard); err != nil {
							b.Error(err)
							return
						}
						m, err := meta.Accessor(ev.Object)
						if err != nil {
							b.Error(err)
							return
						}
						last = m.GetResourceVersion()
						if latest != nil {
							n, _ := strconv.ParseUint(last, 10, 64)
							latest.Store(n)
							progress <- struct{}{}
						}
					}
				}
				wg.Add(tc.fast + tc.slow)
				for i := range tc.fast {
					go watcher(&fastLatest[i], false)
				}
				for range tc.slow {
					go watcher(nil, true)
				}

				b.ReportAllocs()
				cpu := cputime.Now()
				for b.Loop() {
					rv++
					publish(b, store, rv, revision())
					mu.Lock()
					newest = rv
					published.Broadcast()
					mu.Unlock()
					for i := range fastLatest {
						for fastLatest[i].Load() < rv {
							<-progress
						}
					}
				}
				b.ReportMetric(float64(cputime.Now()-cpu)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(rewatches.Load())/float64(b.N), "rewatches/op")
				cancel()
				mu.Lock()
				published.Broadcast()
				mu.Unlock()
				go func() {
					for range progress {
					}
				}()
				wg.Wait()
				close(progress)
			})
		}
	}
}
