/*
Copyright The update-status-apiserver Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package apiserver

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/apiserver/pkg/endpoints/request"
)

// TestGetCache drives the GET cache with a handler that counts its calls and
// answers with the revision it saw.
func TestGetCache(t *testing.T) {
	const path = "/apis/update.openshift.io/v1alpha1/updatestatuses/cluster"
	var rv uint64 = 1
	calls := 0
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Audit-Id", "per-request")
		if r.Header.Get("X-Fail") != "" {
			w.WriteHeader(http.StatusTooManyRequests)
		}
		_, _ = w.Write([]byte(r.Header.Get("Accept") + " body"))
	})
	cache := &getCache{revision: func() (uint64, bool) { return rv, true }}
	h := withGetCache(inner, cache)
	get := func(target string, header map[string]string, verb, resource string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		req = req.WithContext(request.WithRequestInfo(req.Context(), &request.RequestInfo{
			IsResourceRequest: true, Verb: verb, APIGroup: "update.openshift.io", Resource: resource,
		}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	json := map[string]string{"Accept": "application/json", "Accept-Encoding": "gzip"}
	pb := map[string]string{"Accept": "application/vnd.kubernetes.protobuf", "Accept-Encoding": "gzip"}

	tests := []struct {
		name      string
		target    string
		header    map[string]string
		verb      string
		resource  string
		step      func()
		wantCalls int
	}{
		{name: "first GET", target: path, header: json, wantCalls: 1},
		{name: "same GET, same revision: cached", target: path, header: json, wantCalls: 0},
		{name: "other media type", target: path, header: pb, wantCalls: 1},
		{name: "other media type again", target: path, header: pb, wantCalls: 0},
		{name: "with a query", target: path + "?resourceVersion=1", header: json, wantCalls: 1},
		{name: "a table", target: path, header: map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}, wantCalls: 1},
		{name: "a list", target: path, header: json, verb: "list", wantCalls: 1},
		{name: "another resource", target: path, header: json, resource: "other", wantCalls: 1},
		{name: "errors are not kept", target: path, header: map[string]string{"X-Fail": "1"}, wantCalls: 1},
		{name: "errors are not kept, again", target: path, header: map[string]string{"X-Fail": "1"}, wantCalls: 1},
		{name: "a new revision", target: path, header: json, step: func() { rv = 2 }, wantCalls: 1},
		{name: "the new revision, cached", target: path, header: json, wantCalls: 0},
		{name: "an older revision never replaces a newer one", target: path, header: json, step: func() { cache.store(1, getCacheKey{path: path}, &cachedAnswer{}) }, wantCalls: 0},
	}
	for _, tt := range tests {
		if tt.step != nil {
			tt.step()
		}
		verb, resource := "get", "updatestatuses"
		if tt.verb != "" {
			verb = tt.verb
		}
		if tt.resource != "" {
			resource = tt.resource
		}
		before := calls
		rec := get(tt.target, tt.header, verb, resource)
		if got := calls - before; got != tt.wantCalls {
			t.Errorf("%s: %d handler calls, want %d", tt.name, got, tt.wantCalls)
		}
		if tt.header["X-Fail"] != "" {
			continue
		}
		if rec.Code != http.StatusOK || !bytes.HasPrefix(rec.Body.Bytes(), []byte(tt.header["Accept"])) {
			t.Errorf("%s: %d, body starts %.40q", tt.name, rec.Code, rec.Body.String())
		}
		if rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: Content-Type %q", tt.name, rec.Header().Get("Content-Type"))
		}
		if tt.wantCalls == 0 && rec.Header().Get("Audit-Id") != "" {
			t.Errorf("%s: a per-request header was replayed", tt.name)
		}
	}
}
