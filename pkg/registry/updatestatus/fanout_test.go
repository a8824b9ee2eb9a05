package updatestatus

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/update-status/apiserver/pkg/apis/update/install"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/view"
	"github.com/update-status/apiserver/pkg/view/viewtest"
)

// openWatchers opens n watchers from the current revision.
func openWatchers(tb testing.TB, r *REST, n int) []watch.Interface {
	tb.Helper()
	ws := make([]watch.Interface, n)
	for i := range ws {
		w, err := r.Watch(context.Background(), &metainternalversion.ListOptions{ResourceVersion: r.hub.current.rvString})
		if err != nil {
			tb.Fatal(err)
		}
		ws[i] = w
	}
	return ws
}

// TestFanOutAllocationsDoNotGrowWithWatchers publishes to 10 and to 1,000
// watchers and compares the allocations of one publication.
func TestFanOutAllocationsDoNotGrowWithWatchers(t *testing.T) {
	revs := []*view.Revision{revisionOf(rv1, viewtest.Synthetic(10, 1)), revisionOf(rv2, viewtest.Synthetic(10, 2))}
	allocs := map[int]float64{}
	for _, n := range []int{10, 1000} {
		h, clk := newTestHub(t, HubConfig{})
		h.Publish(revs[0])
		r := NewREST(h, clk)
		ws := openWatchers(t, r, n)
		i := 0
		allocs[n] = testing.AllocsPerRun(100, func() {
			i++
			h.Publish(revs[i%2])
			for _, w := range ws {
				<-w.ResultChan()
			}
		})
	}
	t.Logf("allocations per publication: %v", allocs)
	if allocs[1000] > allocs[10] {
		t.Errorf("allocations grow with watchers: %v with 10, %v with 1000", allocs[10], allocs[1000])
	}
}

// BenchmarkFanOut publishes a change to N watchers, each of which encodes the
// event as the apiserver's watch encoder does (through CacheEncode), and
// waits until every watcher has written it. allocs/op must not grow with N.
func BenchmarkFanOut(b *testing.B) {
	scheme := runtime.NewScheme()
	install.Install(scheme)
	codecs := serializer.NewCodecFactory(scheme)
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	encoder := codecs.EncoderForVersion(info.Serializer, v1alpha1.SchemeGroupVersion)
	revs := []*view.Revision{revisionOf(rv1, viewtest.Synthetic(100, 1)), revisionOf(rv2, viewtest.Synthetic(100, 2))}

	for _, n := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("watchers=%d", n), func(b *testing.B) {
			h, clk := newTestHub(b, HubConfig{})
			h.Publish(revs[0])
			r := NewREST(h, clk)
			ws := openWatchers(b, r, n)
			var wg sync.WaitGroup
			for _, w := range ws {
				go func() {
					id := encoder.Identifier()
					encode := func(obj runtime.Object, w io.Writer) error { return encoder.Encode(obj, w) }
					for ev := range w.ResultChan() {
						if co, ok := ev.Object.(runtime.CacheableObject); ok {
							if err := co.CacheEncode(id, encode, io.Discard); err != nil {
								b.Error(err)
							}
						}
						wg.Done()
					}
				}()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				wg.Add(n)
				h.Publish(revs[(i+1)%2])
				wg.Wait()
			}
			b.StopTimer()
			// Sanity: every watcher is still open and nobody fell behind.
			h.mu.RLock()
			open := len(h.watchers)
			h.mu.RUnlock()
			if open != n {
				b.Fatalf("%d of %d watchers open", open, n)
			}
			h.Shutdown()
		})
	}
}
