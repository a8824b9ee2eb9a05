package apiserver_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
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
	for _, bc := range []struct{ name, acceptEncoding, contentEncoding string }{
		{name: "get-unchanged"},
		{name: "get-unchanged-gzip", acceptEncoding: "gzip", contentEncoding: "gzip"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, objPath, nil)
			req.Header.Set("Accept", "application/json")
			if bc.acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", bc.acceptEncoding)
			}
			w := apiserver.NewDiscardWriter()
			b.ReportAllocs()
			for b.Loop() {
				w.Reset()
				s.handler.ServeHTTP(w, req)
				if w.Code != http.StatusOK || w.Head.Get("Content-Encoding") != bc.contentEncoding || (bc.contentEncoding == "" && w.N != size) {
					b.Fatalf("GET: %d with %d bytes (Content-Encoding %q), want 200 with %d", w.Code, w.N, w.Head.Get("Content-Encoding"), size)
				}
			}
		})
	}

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
