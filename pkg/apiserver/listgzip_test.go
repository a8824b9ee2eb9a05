package apiserver_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	genericfeatures "k8s.io/apiserver/pkg/features"

	"github.com/update-status/apiserver/internal/synth"
	"github.com/update-status/apiserver/pkg/apiserver"
)

// TestListGzip checks which LIST answers go out compressed: a large one
// when the client accepts gzip (and it decompresses to the uncompressed
// answer), never a small one, an error, or one the client did not ask to
// compress, and none when the library's compression gate is off.
func TestListGzip(t *testing.T) {
	s, plain := newClusterServer(t, synth.Options{Nodes: 1500, Seed: 3})
	nodes := base + "/nodeprogressinsights"
	if len(plain) < 128<<10 {
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

// writeSizes records the size of each write a handler makes.
type writeSizes struct {
	*httptest.ResponseRecorder
	sizes []int
}

func (w *writeSizes) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	return w.ResponseRecorder.Write(p)
}
