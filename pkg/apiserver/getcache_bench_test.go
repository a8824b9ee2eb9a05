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
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/update-status/apiserver/internal/cputime"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
)

// BenchmarkGetCache compares, at 5,000 nodes, GETs through the whole
// handler chain of a server whose UpdateStatus GETs go through the encoding
// cache (path=cache, pkg/registry/updatestatus/encodings.go) with a server
// that encodes every GET anew (path=plain), in JSON and protobuf, with and
// without gzip. The GET of one NodeProgressInsight takes the same path on
// both servers (the cache is for UpdateStatus only): its ratio is the
// benchmark's noise. cpu-ns/op is the process's CPU time per GET, steadier
// than the wall clock on a busy machine. docs/watch.md ("Why the library")
// has the figures.
//
//	go test -run '^$' -bench BenchmarkGetCache -count 6 ./pkg/apiserver/ >FILE
//	go run golang.org/x/perf/cmd/benchstat@latest -col /path FILE
func BenchmarkGetCache(b *testing.B) {
	cached, list := newClusterServer(b, 4997, 2, 7, false)
	plain, _ := newClusterServer(b, 4997, 2, 7, true)
	var nodes v1alpha1.NodeProgressInsightList
	if err := json.Unmarshal(list, &nodes); err != nil {
		b.Fatal(err)
	}
	npi := base + "/nodeprogressinsights/" + nodes.Items[0].Name

	for _, obj := range []struct{ name, path string }{{"updatestatus", objPath}, {"npi", npi}} {
		for _, enc := range []struct{ name, accept, acceptEncoding string }{
			{"json", "application/json", ""},
			{"json-gzip", "application/json", "gzip"},
			{"protobuf", protobufOnly, ""},
			{"protobuf-gzip", protobufOnly, "gzip"},
		} {
			for _, srv := range []struct {
				name string
				s    *testServer
			}{{"cache", cached}, {"plain", plain}} {
				b.Run("obj="+obj.name+"/enc="+enc.name+"/path="+srv.name, func(b *testing.B) {
					req := httptest.NewRequest(http.MethodGet, obj.path, nil)
					req.Header.Set("Accept", enc.accept)
					if enc.acceptEncoding != "" {
						req.Header.Set("Accept-Encoding", enc.acceptEncoding)
					}
					w := apiserver.NewDiscardWriter()
					b.ReportAllocs()
					cpu := cputime.Now()
					for b.Loop() {
						w.Reset()
						srv.s.handler.ServeHTTP(w, req)
						if w.Code != http.StatusOK {
							b.Fatalf("GET %s: %d", obj.path, w.Code)
						}
					}
					b.ReportMetric(float64(cputime.Now()-cpu)/float64(b.N), "cpu-ns/op")
					b.ReportMetric(float64(w.N), "resp-bytes")
				})
			}
		}
	}
}
