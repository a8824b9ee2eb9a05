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
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
)

// getEncodings are the requests whose answers the encoding cache keeps
// apart: JSON and protobuf, each with and without gzip.
var getEncodings = []map[string]string{
	{"Accept": "application/json"},
	{"Accept": "application/json", "Accept-Encoding": "gzip"},
	{"Accept": protobufOnly},
	{"Accept": protobufOnly, "Accept-Encoding": "gzip"},
}

// TestEveryGetIsCounted sends N GETs of the UpdateStatus, most of them
// answered from the encoding cache, and checks that the library's request
// metrics on /metrics and its audit log each count N more.
func TestEveryGetIsCounted(t *testing.T) {
	var audit testio.SyncBuffer
	s := newTestServer(t, serverOptions{audit: &audit})
	s.waitReady(t)
	series := map[string]string{"group": update.GroupName, "resource": resources.UpdateStatus.Resource, "subresource": "", "verb": "GET"}
	count := func() (requests, durations float64, audited int) {
		return metricSum(t, s, "apiserver_request_total", series),
			metricSum(t, s, "apiserver_request_duration_seconds", series),
			auditedGets(t, &audit)
	}
	requests, durations, audited := count()

	const n = 20
	for i := range n {
		if rec := s.do(t, http.MethodGet, objPath, "", getEncodings[i%len(getEncodings)]); rec.Code != http.StatusOK {
			t.Fatalf("GET %d: %d %s", i, rec.Code, rec.Body)
		}
	}

	r, d, a := count()
	if r-requests != n || d-durations != n || a-audited != n {
		t.Errorf("after %d GETs: apiserver_request_total +%v, apiserver_request_duration_seconds_count +%v, audit events +%d; want +%d each",
			n, r-requests, d-durations, a-audited, n)
	}
}

// TestCachedGetAnswersAsPlain compares the answers of a server with the
// encoding cache and of one without: the same status, headers and bytes in
// every encoding (once decompressed), the first GET of a revision and the
// later ones alike. The object is large enough to be compressed; with the
// cache, every GET of a revision gets the same compressed bytes, its kept
// gzip form.
func TestCachedGetAnswersAsPlain(t *testing.T) {
	cached, plain := newSyntheticServer(t, 1000, false), newSyntheticServer(t, 1000, true)
	for _, header := range getEncodings {
		want := plain.do(t, http.MethodGet, objPath, "", header)
		if want.Code != http.StatusOK || want.Header().Get("Content-Encoding") != header["Accept-Encoding"] {
			t.Fatalf("%v, plain: %d, Content-Encoding %q", header, want.Code, want.Header().Get("Content-Encoding"))
		}
		var first []byte
		for _, round := range []string{"first", "second"} {
			got := cached.do(t, http.MethodGet, objPath, "", header)
			if got.Code != want.Code || !bytes.Equal(plainBody(t, got), plainBody(t, want)) {
				t.Errorf("%v, %s GET: %d with %d bytes, plain %d with %d bytes", header, round, got.Code, got.Body.Len(), want.Code, want.Body.Len())
			}
			if first == nil {
				first = got.Body.Bytes()
			} else if !bytes.Equal(got.Body.Bytes(), first) {
				t.Errorf("%v, %s GET: %d bytes, not the first GET's %d", header, round, got.Body.Len(), len(first))
			}
			for k := range mergeKeys(got.Header(), want.Header()) {
				if k == "Audit-Id" || k == "Date" {
					continue // per request
				}
				if g, w := got.Header().Values(k), want.Header().Values(k); strings.Join(g, ",") != strings.Join(w, ",") {
					t.Errorf("%v, %s GET: header %s %q, plain %q", header, round, k, g, w)
				}
			}
		}
	}
}

// plainBody returns the body of rec, decompressed when it is gzip.
func plainBody(t *testing.T, rec *httptest.ResponseRecorder) []byte {
	t.Helper()
	if rec.Header().Get("Content-Encoding") != "gzip" {
		return rec.Body.Bytes()
	}
	r, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mergeKeys(a, b http.Header) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// metricSum reads the server's /metrics and sums the series of name whose
// labels have the values of want (testio.MetricSum).
func metricSum(t *testing.T, s *testServer, name string, want map[string]string) float64 {
	t.Helper()
	sum, err := testio.MetricSum(s.do(t, http.MethodGet, "/metrics", "", nil).Body.Bytes(), name, want)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// auditedGets counts the audit events of completed GETs of the
// UpdateStatus that logged the object answered.
func auditedGets(t *testing.T, log *testio.SyncBuffer) int {
	t.Helper()
	n := 0
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev struct {
			Stage     string
			Verb      string
			ObjectRef struct {
				Resource, Subresource string
			}
			ResponseStatus struct{ Code int }
			ResponseObject struct{ Kind string }
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("audit line %.100q: %v", sc.Text(), err)
		}
		if ev.Stage == "ResponseComplete" && ev.Verb == "get" && ev.ObjectRef.Resource == resources.UpdateStatus.Resource &&
			ev.ObjectRef.Subresource == "" && ev.ResponseStatus.Code == http.StatusOK && ev.ResponseObject.Kind == "UpdateStatus" {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}
