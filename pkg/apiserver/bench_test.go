package apiserver_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
	"github.com/update-status/apiserver/pkg/view/viewtest"
)

// discardWriter is a ResponseWriter that keeps nothing but the status code
// and the byte count, so the benchmark measures the server, not a buffer.
type discardWriter struct {
	header http.Header
	code   int
	n      int
}

func (w *discardWriter) Header() http.Header  { return w.header }
func (w *discardWriter) WriteHeader(code int) { w.code = code }
func (w *discardWriter) Flush()               {}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}

// BenchmarkGet compares, at 5,000 worker nodes, a GET of an unchanged status
// through the whole handler chain with encoding the same object alone. The
// goal is get-unchanged within 1.5x of encode-alone.
//
//	go test -run XXX -bench BenchmarkGet -benchtime 20x ./pkg/apiserver/
func BenchmarkGet(b *testing.B) {
	status := viewtest.Synthetic(5000, 1)
	s := newTestServer(b, serverOptions{computer: view.ComputerFunc(func(*insights.Sources, time.Time) insights.Result {
		return insights.Result{Status: status}
	})})
	s.waitReady(b)

	first := s.do(b, http.MethodGet, objPath, "", map[string]string{"Accept": "application/json"})
	size := first.Body.Len()
	obj := decode[v1alpha1.UpdateStatus](b, first)
	if len(obj.Status.WorkerPools) != 5 {
		b.Fatalf("%d pools", len(obj.Status.WorkerPools))
	}
	b.Logf("object: %d bytes of JSON", size)

	b.Run("get-unchanged", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, objPath, nil)
		req.Header.Set("Accept", "application/json")
		w := &discardWriter{header: http.Header{}}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			w.code, w.n = 0, 0
			clear(w.header)
			s.handler.ServeHTTP(w, req)
			if w.code != http.StatusOK || w.n != size {
				b.Fatalf("GET: %d with %d bytes, want 200 with %d", w.code, w.n, size)
			}
		}
	})

	b.Run("encode-alone", func(b *testing.B) {
		info, _ := runtime.SerializerInfoForMediaType(apiserver.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
		enc := apiserver.Codecs.EncoderForVersion(info.Serializer, v1alpha1.SchemeGroupVersion)
		var buf bytes.Buffer
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			buf.Reset()
			if err := enc.Encode(&obj, &buf); err != nil {
				b.Fatal(err)
			}
			if buf.Len() < size*9/10 {
				b.Fatalf("encoded %d bytes, GET served %d", buf.Len(), size)
			}
		}
	})
}
