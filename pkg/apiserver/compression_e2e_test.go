package apiserver_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"
)

// TestCachedCompressionEndToEnd checks the compression filter that Complete
// installs, through the whole handler chain, with a status of 1,000 workers
// (about 800 KB of JSON).
func TestCachedCompressionEndToEnd(t *testing.T) {
	s := newSyntheticServer(t, 1000)
	get := func(path, acceptEncoding string) *http.Response {
		rec := s.do(t, http.MethodGet, path, "", map[string]string{"Accept": "application/json", "Accept-Encoding": acceptEncoding})
		return rec.Result()
	}
	body := func(resp *http.Response) []byte {
		t.Helper()
		var r io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			r = zr
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := s.srv.CachedCompressions()
	if before < 0 {
		t.Fatal("Complete installed no compression filter")
	}
	plain := get(objPath, "")
	plainBody := body(plain)
	if plain.StatusCode != http.StatusOK || plain.Header.Get("Content-Encoding") != "" || len(plainBody) < 128<<10 {
		t.Fatalf("plain GET: %d, Content-Encoding %q, %d bytes", plain.StatusCode, plain.Header.Get("Content-Encoding"), len(plainBody))
	}
	for i := range 2 {
		resp := get(objPath, "gzip")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" ||
			resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Audit-Id") == "" {
			t.Fatalf("GET %d: %d, headers %v", i, resp.StatusCode, resp.Header)
		}
		if !bytes.Equal(body(resp), plainBody) {
			t.Fatalf("GET %d: the decompressed body differs from the plain GET", i)
		}
		if n := s.srv.CachedCompressions() - before; n != 1 {
			t.Errorf("GET %d: %d compressions, want 1", i, n)
		}
	}
	// The list holds the same object in another envelope: another entry.
	if list := get(base+"/updatestatuses", "gzip"); list.StatusCode != http.StatusOK || list.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("LIST: %d, headers %v", list.StatusCode, list.Header)
	}
	if n := s.srv.CachedCompressions() - before; n != 2 {
		t.Errorf("after LIST: %d compressions, want 2", n)
	}
	// Discovery is not a resource request: the filter leaves it alone.
	if resp := get(base, "gzip"); resp.StatusCode != http.StatusOK {
		t.Errorf("discovery: %d", resp.StatusCode)
	}
	if n := s.srv.CachedCompressions() - before; n != 2 {
		t.Errorf("after discovery: %d compressions, want 2", n)
	}
}
