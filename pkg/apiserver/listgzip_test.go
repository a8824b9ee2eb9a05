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
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/endpoints/request"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	genericfeatures "k8s.io/apiserver/pkg/features"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apiserver"
)

// TestListGzip checks which LIST answers go out compressed: a large one
// when the client accepts gzip (and it decompresses to the uncompressed
// answer), never a small one, an error, or one the client did not ask to
// compress, and none when the library's compression gate is off.
func TestListGzip(t *testing.T) {
	s, plain := newClusterServer(t, 1497, 1, 3, false)
	nodes := base + "/nodeprogressinsights"
	if len(plain) < 4*apiserver.ListGzipChunk {
		t.Fatalf("the node list is %d bytes, too small for the test", len(plain))
	}

	for _, tc := range []struct {
		name, path, acceptEncoding string
		wantCode                   int
		wantGzip                   bool
	}{
		{name: "large list, gzip accepted", path: nodes, acceptEncoding: "gzip", wantCode: http.StatusOK, wantGzip: true},
		{name: "large list, gzip among others", path: nodes, acceptEncoding: "br, gzip", wantCode: http.StatusOK, wantGzip: true},
		{name: "large list, gzip not accepted", path: nodes, acceptEncoding: "br", wantCode: http.StatusOK},
		{name: "large list, no Accept-Encoding", path: nodes, wantCode: http.StatusOK},
		{name: "small list", path: base + "/updatestatuses?fieldSelector=metadata.name%3Dnone", acceptEncoding: "gzip", wantCode: http.StatusOK},
		{name: "error", path: nodes + "?fieldSelector=spec.x%3Dy", acceptEncoding: "gzip", wantCode: http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{"Accept": "application/json"}
			if tc.acceptEncoding != "" {
				h["Accept-Encoding"] = tc.acceptEncoding
			}
			rec := s.do(t, http.MethodGet, tc.path, "", h)
			if rec.Code != tc.wantCode {
				t.Fatalf("%d, want %d: %.200s", rec.Code, tc.wantCode, rec.Body)
			}
			gotGzip := rec.Header().Get("Content-Encoding") == "gzip"
			if gotGzip != tc.wantGzip {
				t.Fatalf("Content-Encoding %q, want gzip %v", rec.Header().Get("Content-Encoding"), tc.wantGzip)
			}
			body := rec.Body.Bytes()
			if gotGzip {
				if !strings.Contains(strings.Join(rec.Header().Values("Vary"), ","), "Accept-Encoding") {
					t.Errorf("Vary = %q, want Accept-Encoding", rec.Header().Values("Vary"))
				}
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if tc.path == nodes && tc.wantCode == http.StatusOK && !bytes.Equal(body, plain) {
				t.Errorf("the answer (%d bytes) differs from the uncompressed list (%d bytes)", len(body), len(plain))
			}
			if tc.wantCode != http.StatusOK && !strings.Contains(string(body), `"kind":"Status"`) {
				t.Errorf("error answer is not a Status: %.200s", body)
			}
		})
	}

	t.Run("compressed answer written in chunks", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, nodes, nil)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Accept-Encoding", "gzip")
		w := &writeSizes{ResponseRecorder: httptest.NewRecorder()}
		s.handler.ServeHTTP(w, req)
		if w.Code != http.StatusOK || w.Header().Get("Content-Encoding") != "gzip" {
			t.Fatalf("%d, Content-Encoding %q; want a compressed list", w.Code, w.Header().Get("Content-Encoding"))
		}
		if len(w.sizes) < 2 {
			t.Fatalf("%d writes (%v): the compressed list is too small for the test", len(w.sizes), w.sizes)
		}
		for i, n := range w.sizes[:len(w.sizes)-1] {
			if n < apiserver.ListGzipChunk {
				t.Fatalf("write %d of %d is %d bytes, want at least %d but for the last: %v", i+1, len(w.sizes), n, apiserver.ListGzipChunk, w.sizes)
			}
		}
	})

	t.Run("compression gate off", func(t *testing.T) {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, genericfeatures.APIResponseCompression, false)
		rec := s.do(t, http.MethodGet, nodes, "", map[string]string{"Accept": "application/json", "Accept-Encoding": "gzip"})
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "" || !bytes.Equal(rec.Body.Bytes(), plain) {
			t.Errorf("%d, Content-Encoding %q, %d bytes; want the uncompressed list", rec.Code, rec.Header().Get("Content-Encoding"), rec.Body.Len())
		}
	})
}

// TestListGzipSize checks where the filter starts compressing: an answer
// longer than one chunk, however the handler writes it, unless the handler
// flushed before the chunk filled.
func TestListGzipSize(t *testing.T) {
	chunk := apiserver.ListGzipChunk
	for _, tc := range []struct {
		name     string
		writes   []int // sizes; 0 is a Flush
		status   int
		wantGzip bool
	}{
		{name: "one chunk", writes: []int{chunk}},
		{name: "one chunk in pieces", writes: []int{1, chunk/2 - 1, chunk / 2}},
		{name: "a byte more", writes: []int{chunk + 1}, wantGzip: true},
		{name: "a byte more in pieces", writes: []int{1, chunk - 1, 1}, wantGzip: true},
		{name: "several chunks", writes: []int{5 * chunk}, wantGzip: true},
		{name: "flushed before the chunk filled", writes: []int{100, 0, 2 * chunk}},
		{name: "an error", writes: []int{2 * chunk}, status: http.StatusInternalServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []byte
			handler := apiserver.WithListGzip(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.status != 0 {
					w.WriteHeader(tc.status)
				}
				for _, n := range tc.writes {
					if n == 0 {
						w.(http.Flusher).Flush()
						continue
					}
					p := bytes.Repeat([]byte{byte('a' + len(want)%26)}, n)
					want = append(want, p...)
					if _, err := w.Write(p); err != nil {
						t.Error(err)
					}
				}
			}))
			req := httptest.NewRequest(http.MethodGet, "/apis/"+update.GroupName+"/v1alpha1/nodeprogressinsights", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			req = req.WithContext(request.WithRequestInfo(req.Context(), &request.RequestInfo{IsResourceRequest: true, Verb: "list", APIGroup: update.GroupName}))
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)

			wantStatus := http.StatusOK
			if tc.status != 0 {
				wantStatus = tc.status
			}
			gotGzip := rec.Header().Get("Content-Encoding") == "gzip"
			if rec.Code != wantStatus || gotGzip != tc.wantGzip {
				t.Fatalf("%d, Content-Encoding %q; want %d, gzip %v", rec.Code, rec.Header().Get("Content-Encoding"), wantStatus, tc.wantGzip)
			}
			body := rec.Body.Bytes()
			if gotGzip {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(body, want) {
				t.Errorf("the answer (%d bytes) differs from what the handler wrote (%d bytes)", len(body), len(want))
			}
		})
	}
}

// writeSizes records the size of each write a handler makes.
type writeSizes struct {
	*httptest.ResponseRecorder
	sizes []int
}

func (w *writeSizes) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	return w.ResponseRecorder.Write(p)
}
