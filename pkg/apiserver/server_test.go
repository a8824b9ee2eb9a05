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
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/view"
)

func TestResourceRequestsWaitForSync(t *testing.T) {
	src := viewtest.NewSnapshotter(100)
	src.Set(view.Snapshot{Unsynced: []string{"nodes"}})
	s := newTestServer(t, serverOptions{sources: src})

	// Resource requests: 429 with Retry-After, until the caches sync.
	for _, path := range []string{objPath, base + "/updatestatuses", base + "/updatestatuses?watch=1", objPath + "/status"} {
		rec := s.do(t, http.MethodGet, path, "", nil)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
			t.Errorf("GET %s: %d, Retry-After %q", path, rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	// Discovery answers.
	rec := s.do(t, http.MethodGet, base, "", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("discovery: %d %s", rec.Code, rec.Body)
	}
	list := decode[metav1.APIResourceList](t, rec)
	var found bool
	for _, r := range list.APIResources {
		if r.Name == "updatestatuses" {
			found = true
			if r.Namespaced || r.SingularName != "updatestatus" || strings.Join(r.ShortNames, ",") != "us" ||
				strings.Join(r.Verbs, ",") != "get,list,watch" || r.Kind != "UpdateStatus" {
				t.Errorf("discovery entry = %+v", r)
			}
		}
	}
	if !found {
		t.Fatalf("updatestatuses missing from discovery: %+v", list.APIResources)
	}
	for _, path := range []string{"/apis", "/apis/update.openshift.io"} {
		if rec := s.do(t, http.MethodGet, path, "", nil); rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", path, rec.Code)
		}
	}
	// readyz names what it waits for; livez is fine.
	rec = s.do(t, http.MethodGet, "/readyz?verbose", "", nil)
	if rec.Code == http.StatusOK || !strings.Contains(rec.Body.String(), "[-]update-status-sources-synced failed") ||
		!strings.Contains(rec.Body.String(), "[-]update-status-computed failed") {
		t.Errorf("readyz before sync: %d\n%s", rec.Code, rec.Body)
	}
	// The library's own post-start hooks finish in the background; livez
	// passes once they have, while the sources are still not synced.
	var live *httptest.ResponseRecorder
	_ = wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		live = s.do(t, http.MethodGet, "/livez", "", nil)
		return live.Code == http.StatusOK, nil
	})
	if live.Code != http.StatusOK {
		t.Errorf("livez before sync: %d %s", live.Code, live.Body)
	}

	src.Set(view.Snapshot{InitialSyncDone: true, MaxResourceVersion: 100})
	s.waitReady(t)
	rec = s.do(t, http.MethodGet, "/readyz?verbose", "", nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "[+]update-status-sources-synced ok") {
		t.Errorf("readyz after sync: %d\n%s", rec.Code, rec.Body)
	}
}

func TestGetAndList(t *testing.T) {
	s := newTestServer(t, serverOptions{})
	s.waitReady(t)
	tests := []struct {
		name      string
		path      string
		wantCode  int
		wantItems int // for lists; -1 for a single object
	}{
		{name: "get", path: objPath, wantCode: http.StatusOK, wantItems: -1},
		{name: "get status", path: objPath + "/status", wantCode: http.StatusOK, wantItems: -1},
		{name: "get another name", path: base + "/updatestatuses/version", wantCode: http.StatusNotFound},
		{name: "get status of another name", path: base + "/updatestatuses/version/status", wantCode: http.StatusNotFound},
		{name: "list", path: base + "/updatestatuses", wantCode: http.StatusOK, wantItems: 1},
		{name: "list by name", path: base + "/updatestatuses?fieldSelector=metadata.name%3Dcluster", wantCode: http.StatusOK, wantItems: 1},
		{name: "list by another name", path: base + "/updatestatuses?fieldSelector=metadata.name%3Dother", wantCode: http.StatusOK, wantItems: 0},
		{name: "list by a label", path: base + "/updatestatuses?labelSelector=app%3Dx", wantCode: http.StatusOK, wantItems: 0},
		{name: "list without a label", path: base + "/updatestatuses?labelSelector=%21app", wantCode: http.StatusOK, wantItems: 1},
		{name: "list by an unknown field", path: base + "/updatestatuses?fieldSelector=spec.x%3Dy", wantCode: http.StatusBadRequest},
		{name: "list with a limit", path: base + "/updatestatuses?limit=1", wantCode: http.StatusOK, wantItems: 1},
		{name: "list at resourceVersion 0", path: base + "/updatestatuses?resourceVersion=0", wantCode: http.StatusOK, wantItems: 1},
		{name: "unknown resource", path: base + "/other", wantCode: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := s.do(t, http.MethodGet, tt.path, "", nil)
			if rec.Code != tt.wantCode {
				t.Fatalf("%d, want %d: %s", rec.Code, tt.wantCode, rec.Body)
			}
			switch {
			case tt.wantCode != http.StatusOK:
				if tt.wantCode == http.StatusNotFound && strings.Contains(tt.path, "updatestatuses") {
					st := decode[metav1.Status](t, rec)
					if st.Reason != metav1.StatusReasonNotFound {
						t.Errorf("status = %+v", st)
					}
				}
			case tt.wantItems < 0:
				us := decode[v1alpha1.UpdateStatus](t, rec)
				if us.Kind != "UpdateStatus" || us.APIVersion != "update.openshift.io/v1alpha1" || us.Name != "cluster" ||
					us.ResourceVersion == "" || target(&us) != simulator.DefaultToVersion {
					t.Errorf("object = %s %s %s rv %q", us.APIVersion, us.Kind, us.Name, us.ResourceVersion)
				}
				if len(us.Status.Conditions) != 1 || us.Status.Conditions[0].Reason != v1alpha1.AvailableReasonAsExpected {
					t.Errorf("conditions = %+v", us.Status.Conditions)
				}
			default:
				list := decode[v1alpha1.UpdateStatusList](t, rec)
				if list.Kind != "UpdateStatusList" || len(list.Items) != tt.wantItems || list.ResourceVersion == "" {
					t.Errorf("list = %s with %d items at %q", list.Kind, len(list.Items), list.ResourceVersion)
				}
			}
		})
	}
}

func TestEveryWriteIs405(t *testing.T) {
	s := newTestServer(t, serverOptions{})
	s.waitReady(t)
	body := `{"apiVersion":"update.openshift.io/v1alpha1","kind":"UpdateStatus","metadata":{"name":"cluster"},"spec":{}}`
	tests := []struct {
		method, path, contentType, verb string
	}{
		{http.MethodPost, base + "/updatestatuses", "application/json", "create"},
		{http.MethodPut, objPath, "application/json", "update"},
		{http.MethodPatch, objPath, "application/merge-patch+json", "patch"},
		{http.MethodPatch, objPath, "application/apply-patch+yaml", "patch"},
		{http.MethodDelete, objPath, "", "delete"},
		{http.MethodDelete, base + "/updatestatuses", "", "deletecollection"},
		{http.MethodPut, objPath + "/status", "application/json", "update"},
		{http.MethodPatch, objPath + "/status", "application/merge-patch+json", "patch"},
		{http.MethodPost, base + "/updatestatuses?dryRun=All", "application/json", "create"},
		{http.MethodDelete, base + "/updatestatuses/other", "", "delete"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path+" "+tt.contentType, func(t *testing.T) {
			b := body
			if tt.method == http.MethodDelete {
				b = ""
			}
			rec := s.do(t, tt.method, tt.path, b, map[string]string{"Content-Type": tt.contentType})
			if rec.Code != http.StatusMethodNotAllowed {
				t.Fatalf("%d: %s", rec.Code, rec.Body)
			}
			st := decode[metav1.Status](t, rec)
			if st.Kind != "Status" || st.Reason != metav1.StatusReasonMethodNotAllowed || st.Code != http.StatusMethodNotAllowed ||
				!strings.Contains(st.Message, tt.verb) {
				t.Errorf("status = %+v", st)
			}
		})
	}
	// The object is unchanged.
	if rec := s.do(t, http.MethodGet, objPath, "", nil); rec.Code != http.StatusOK {
		t.Errorf("GET after writes: %d", rec.Code)
	}
}

func TestTable(t *testing.T) {
	s := newTestServer(t, serverOptions{})
	s.waitReady(t)
	accept := map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
	tests := []struct {
		name, path string
		wantRows   int
	}{
		{name: "object", path: objPath, wantRows: 1},
		{name: "list", path: base + "/updatestatuses", wantRows: 1},
		{name: "empty list", path: base + "/updatestatuses?fieldSelector=metadata.name%3Dx", wantRows: 0},
		{name: "include the object", path: objPath + "?includeObject=Object", wantRows: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := s.do(t, http.MethodGet, tt.path, "", accept)
			if rec.Code != http.StatusOK {
				t.Fatalf("%d: %s", rec.Code, rec.Body)
			}
			table := decode[metav1.Table](t, rec)
			if table.Kind != "Table" || len(table.ColumnDefinitions) < 6 || len(table.Rows) != tt.wantRows {
				t.Fatalf("table %s with %d columns and %d rows", table.Kind, len(table.ColumnDefinitions), len(table.Rows))
			}
			if tt.wantRows == 0 {
				return
			}
			cells := table.Rows[0].Cells
			if cells[0] != "cluster" || cells[1] != "Progressing 97%" || cells[2] != simulator.DefaultToVersion {
				t.Errorf("cells = %v", cells)
			}
			if !strings.Contains(string(table.Rows[0].Object.Raw), `"name":"cluster"`) {
				t.Errorf("row object = %s", table.Rows[0].Object.Raw)
			}
		})
	}
	// Metadata-only clients (garbage collector, quota) get PartialObjectMetadata.
	rec := s.do(t, http.MethodGet, objPath, "", map[string]string{"Accept": "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"})
	if pom := decode[metav1.PartialObjectMetadata](t, rec); rec.Code != http.StatusOK || pom.Kind != "PartialObjectMetadata" || pom.Name != "cluster" {
		t.Errorf("partial object metadata: %d %+v", rec.Code, pom)
	}
	rec = s.do(t, http.MethodGet, base+"/updatestatuses", "", map[string]string{"Accept": "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"})
	if pom := decode[metav1.PartialObjectMetadataList](t, rec); rec.Code != http.StatusOK || len(pom.Items) != 1 {
		t.Errorf("partial object metadata list: %d %+v", rec.Code, pom)
	}
}

func TestOpenAPI(t *testing.T) {
	s := newTestServer(t, serverOptions{})
	tests := []struct {
		path string
		want []string
	}{
		{path: "/openapi/v2", want: []string{`"io.openshift.update.v1alpha1.UpdateStatus"`, `"io.openshift.update.v1alpha1.UpdateStatusList"`,
			`"/apis/update.openshift.io/v1alpha1/updatestatuses/{name}"`, `"x-kubernetes-group-version-kind"`}},
		{path: "/openapi/v3", want: []string{`"apis/update.openshift.io/v1alpha1"`}},
		{path: "/openapi/v3/apis/update.openshift.io/v1alpha1", want: []string{`"io.openshift.update.v1alpha1.UpdateStatus"`,
			`"io.openshift.update.v1alpha1.NodeStatusInsight"`, `"/apis/update.openshift.io/v1alpha1/updatestatuses/{name}/status"`}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rec := s.do(t, http.MethodGet, tt.path, "", map[string]string{"Accept": "application/json"})
			if rec.Code != http.StatusOK {
				t.Fatalf("%d: %.200s", rec.Code, rec.Body)
			}
			for _, w := range tt.want {
				if !strings.Contains(rec.Body.String(), w) {
					t.Errorf("%s lacks %s", tt.path, w)
				}
			}
		})
	}
}

func TestHealthAndMetrics(t *testing.T) {
	s := newTestServer(t, serverOptions{})
	s.waitReady(t)
	// Exercise a watch so that the watch metrics have samples.
	hs := httptest.NewServer(s.handler)
	defer hs.Close()
	events, stop := streamEvents(t, hs.URL+base+"/updatestatuses?watch=1")
	if ev := next(t, events); ev.Type != "ADDED" {
		t.Fatalf("watch: %s", ev.Type)
	}
	stop()
	for path, want := range map[string]string{
		"/livez?verbose":   "[+]update-status-view ok",
		"/healthz?verbose": "[+]update-status-view ok",
		"/readyz?verbose":  "[+]update-status-computed ok",
	} {
		rec := s.do(t, http.MethodGet, path, "", nil)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d\n%s", path, rec.Code, rec.Body)
		}
	}
	rec := s.do(t, http.MethodGet, "/metrics", "", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("metrics: %d", rec.Code)
	}
	for _, want := range []string{
		"update_status_computation_duration_seconds_bucket",
		"update_status_recomputations_total{result=\"changed\",trigger=\"start\"}",
		"apiserver_init_events_total{group=\"update.openshift.io\",resource=\"updatestatuses\"}",
		"update_status_stalled_watchers_closed_total",
		"apiserver_request_total",
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestBadInputIsNeverAServerError: malformed requests get a 4xx with a
// Status, never a 5xx (504 for a resourceVersion from the future aside).
func TestBadInputIsNeverAServerError(t *testing.T) {
	s := newTestServer(t, serverOptions{})
	s.waitReady(t)
	col := base + "/updatestatuses"
	tests := []struct {
		path  string
		codes []int
	}{
		{col + "?labelSelector=!!a%3D%3D", []int{400}},
		{col + "?fieldSelector=%3D%3D%3D", []int{400}},
		{col + "?resourceVersion=abc", []int{400}},
		{objPath + "?resourceVersion=abc", []int{400}},
		{col + "?limit=-5", []int{200, 400}},
		{col + "?continue=garbage", []int{400}},
		{objPath + "/scale", []int{404}},
		{col + "?resourceVersionMatch=Exact", []int{400, 422}},
		{col + "?resourceVersionMatch=Exact&resourceVersion=999999999999999999", []int{504}},
		{col + "?resourceVersion=999999999999999999", []int{504}},
		{col + "?sendInitialEvents=true", []int{400, 422}},
		{col + "?watch=true&resourceVersion=abc", []int{400}},
		{col + "?watch=true&resourceVersionMatch=NotOlderThan", []int{400, 422}},
		{col + "?watch=true&timeoutSeconds=soon", []int{400}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rec := s.do(t, http.MethodGet, tt.path, "", nil)
			if !slices.Contains(tt.codes, rec.Code) {
				t.Fatalf("%d, want one of %v: %s", rec.Code, tt.codes, rec.Body)
			}
			if rec.Code >= 400 {
				if st := decode[metav1.Status](t, rec); st.Kind != "Status" || st.Message == "" {
					t.Fatalf("no Status: %s", rec.Body)
				}
			}
		})
	}
}
