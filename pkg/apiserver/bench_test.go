package apiserver_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/internal/synth"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sources"
	"github.com/update-status/apiserver/pkg/view/viewtest"
)

// BenchmarkGet compares, at 5,000 worker nodes, a GET of an unchanged status
// through the whole handler chain with encoding the same object alone. The
// goal is get-unchanged within 1.5x of encode-alone.
//
//	go test -run XXX -bench BenchmarkGet -benchtime 20x ./pkg/apiserver/
func BenchmarkGet(b *testing.B) {
	s := newSyntheticServer(b, 5000)

	first := s.do(b, http.MethodGet, objPath, "", map[string]string{"Accept": "application/json"})
	size := first.Body.Len()
	obj := decode[v1alpha1.UpdateStatus](b, first)
	if len(obj.Status.WorkerPools) != 5 {
		b.Fatalf("%d pools", len(obj.Status.WorkerPools))
	}
	b.Logf("object: %d bytes of JSON", size)

	// A client that accepts gzip (client-go and kubectl do) gets the cached
	// compressed encoding.
	for _, bc := range []struct{ name, acceptEncoding string }{
		{name: "get-unchanged"},
		{name: "get-unchanged-gzip", acceptEncoding: "gzip"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			serveLoop(b, s.handler, objPath, bc.acceptEncoding, func(w *apiserver.DiscardWriter) bool {
				return bc.acceptEncoding != "" || w.N == size
			})
		})
	}

	b.Run("encode-alone", func(b *testing.B) {
		if n := encodeLoop(b, &obj); n < size*9/10 {
			b.Fatalf("encoded %d bytes, GET served %d", n, size)
		}
	})
}

// BenchmarkListNodeInsights compares, at 5,000 nodes, a LIST of every
// NodeProgressInsight through the whole handler chain (the watch cache, the
// list encoding, gzip when the client accepts it) with encoding the same
// list alone. The goal is list within 2x of encode-alone.
//
//	go test -run XXX -bench BenchmarkListNodeInsights -benchtime 20x ./pkg/apiserver/
func BenchmarkListNodeInsights(b *testing.B) {
	const path = base + "/nodeprogressinsights"
	src, _ := synth.Cluster(synth.Options{Nodes: 5000, ExtraPools: 1, Seed: 7})
	source := viewtest.NewSource(1000)
	source.Set(sources.Snapshot{Inputs: src, MaxResourceVersion: 1000, InitialSyncDone: true})
	s := newTestServer(b, serverOptions{sources: source, computer: insights.NewEngine()})
	s.waitReady(b)
	var list v1alpha1.NodeProgressInsightList
	eventually(b, "every node listed", func() bool {
		rec := s.do(b, http.MethodGet, path, "", map[string]string{"Accept": "application/json"})
		list = decode[v1alpha1.NodeProgressInsightList](b, rec)
		return len(list.Items) == 5000
	})

	for _, bc := range []struct{ name, acceptEncoding string }{
		{name: "list"},
		{name: "list-gzip", acceptEncoding: "gzip"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			serveLoop(b, s.handler, path, bc.acceptEncoding, func(*apiserver.DiscardWriter) bool { return true })
		})
	}
	b.Run("encode-alone", func(b *testing.B) { encodeLoop(b, &list) })
}

// serveLoop sends a GET of path (JSON; gzip when acceptEncoding is "gzip")
// through h b.N times and fails unless each answer is a 200 in that content
// encoding that ok accepts.
func serveLoop(b *testing.B, h http.Handler, path, acceptEncoding string, ok func(*apiserver.DiscardWriter) bool) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Accept", "application/json")
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	w := apiserver.NewDiscardWriter()
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK || w.Head.Get("Content-Encoding") != acceptEncoding || !ok(w) {
			b.Fatalf("GET %s: %d with %d bytes (Content-Encoding %q)", path, w.Code, w.N, w.Head.Get("Content-Encoding"))
		}
	}
}

// encodeLoop encodes obj in JSON b.N times, as the server's codec does, and
// returns the size of the encoding.
func encodeLoop(b *testing.B, obj runtime.Object) int {
	info, _ := runtime.SerializerInfoForMediaType(apiserver.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	enc := apiserver.Codecs.EncoderForVersion(info.Serializer, v1alpha1.SchemeGroupVersion)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := enc.Encode(obj, &buf); err != nil {
			b.Fatal(err)
		}
	}
	return buf.Len()
}
