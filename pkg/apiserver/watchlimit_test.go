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

package apiserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/update-status/apiserver/pkg/apis/update"
)

// TestWatchLimit holds watches open in a handler that blocks until
// released: the watch beyond the limit gets 429 with a Retry-After and a
// Status; other requests, and watches of other groups, go through; a watch
// that ends frees its place.
func TestWatchLimit(t *testing.T) {
	const limit = 2
	release := make(chan struct{})
	entered := make(chan struct{}, 8)
	h := withWatchLimit(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		entered <- struct{}{}
		if info, _ := request.RequestInfoFrom(req.Context()); info.Verb == "watch" && info.APIGroup == update.GroupName {
			<-release
		}
		w.WriteHeader(http.StatusOK)
	}), limit, Codecs)
	serve := func(verb, group string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/apis/"+group+"/v1alpha1/nodeprogressinsights?watch=1", nil)
		req = req.WithContext(request.WithRequestInfo(req.Context(), &request.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	done := make(chan int, limit)
	for range limit {
		go func() { done <- serve("watch", update.GroupName).Code }()
		<-entered
	}

	refused := serve("watch", update.GroupName)
	if refused.Code != http.StatusTooManyRequests || refused.Header().Get("Retry-After") == "" {
		t.Fatalf("watch beyond the limit: %d, Retry-After %q; want 429 with a Retry-After", refused.Code, refused.Header().Get("Retry-After"))
	}
	var status metav1.Status
	if err := json.Unmarshal(refused.Body.Bytes(), &status); err != nil || status.Reason != metav1.StatusReasonTooManyRequests {
		t.Errorf("body %q (%v): want a TooManyRequests Status", refused.Body, err)
	}
	for _, tt := range []struct{ verb, group string }{{"list", update.GroupName}, {"get", update.GroupName}, {"watch", "apps"}} {
		if rec := serve(tt.verb, tt.group); rec.Code != http.StatusOK {
			t.Errorf("%s of %s while the watches are full: %d", tt.verb, tt.group, rec.Code)
		}
		<-entered
	}

	release <- struct{}{}
	if code := <-done; code != http.StatusOK {
		t.Fatalf("released watch: %d", code)
	}
	go func() { done <- serve("watch", update.GroupName).Code }()
	<-entered // the freed place is taken
	close(release)
	for range limit {
		if code := <-done; code != http.StatusOK {
			t.Errorf("watch: %d", code)
		}
	}
}
