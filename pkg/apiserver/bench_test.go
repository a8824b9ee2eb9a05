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

package apiserver_test

import (
	"bytes"
	"encoding/json"
	"io"
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
	s := newSyntheticServer(b, 5000, false)

	first := s.do(b, http.MethodGet, objPath, "", map[string]string{"Accept": "application/json"})
	size := first.Body.Len()
	obj := decode[v1alpha1.UpdateStatus](b, first)
	if len(obj.Status.WorkerPools) != 5 {
		b.Fatalf("%d pools", len(obj.Status.WorkerPools))
	}
	b.Logf("object: %d bytes of JSON", size)

	// A client that accepts gzip (client-go and kubectl do) gets the cached
	// encoding, compressed by the library for each request.
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
	s, body := newClusterServer(b, 4997, 2, 7, false)
	var list v1alpha1.NodeProgressInsightList
	if err := json.Unmarshal(body, &list); err != nil {
		b.Fatal(err)
	}

	for _, bc := range []struct{ name, acceptEncoding string }{
		{name: "list"},
		{name: "list-gzip", acceptEncoding: "gzip"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			serveLoop(b, s.handler, path, bc.acceptEncoding, func(*apiserver.DiscardWriter) bool { return true })
		})
	}
	// The same LIST with gzip through a TLS listener and a client, over
	// HTTP/1.1 and over HTTP/2, where the server hands a handler's writes to
	// the connection's goroutine (the 32 KiB writes of listgzip.go).
	for _, h2 := range []bool{false, true} {
		name := "list-gzip-http1"
		if h2 {
			name = "list-gzip-http2"
		}
		b.Run(name, func(b *testing.B) { tlsLoop(b, s.handler, path, h2) })
	}
	b.Run("encode-alone", func(b *testing.B) { encodeLoop(b, &list) })
}

// tlsLoop LISTs path with gzip from h behind a TLS listener b.N times, over
// HTTP/2 when h2 is set, else HTTP/1.1, and reads each compressed answer.
func tlsLoop(b *testing.B, h http.Handler, path string, h2 bool) {
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = h2
	srv.StartTLS()
	defer srv.Close()
	client := srv.Client()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Encoding", "gzip")
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" || (resp.ProtoMajor == 2) != h2 {
			b.Fatalf("GET %s: %s %s with %d bytes (Content-Encoding %q): %v", path, resp.Proto, resp.Status, n, resp.Header.Get("Content-Encoding"), err)
		}
	}
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
