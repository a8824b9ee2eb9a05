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
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
)

// insightResources are the per-insight resources with their short names
// and kinds.
var insightResources = []struct{ resource, short, kind string }{
	{"clusterversionprogressinsights", "cvpi", "ClusterVersionProgressInsight"},
	{"clusteroperatorprogressinsights", "copi", "ClusterOperatorProgressInsight"},
	{"machineconfigpoolprogressinsights", "mcppi", "MachineConfigPoolProgressInsight"},
	{"nodeprogressinsights", "npi", "NodeProgressInsight"},
	{"healthinsights", "hi", "HealthInsight"},
}

func nodeInsight(name, pool string, scope v1alpha1.ScopeType, reason string) *insights.Insight {
	return &insights.Insight{UID: "node-" + name, Scope: scope, Pool: pool, Informer: "nodes", AcquiredAt: metav1.NewTime(time.Unix(1741773600, 0)),
		Node: &v1alpha1.NodeStatusInsight{Name: name, Scope: scope, Version: "4.16.21",
			Resource:     v1alpha1.ResourceRef{Resource: "nodes", Name: name},
			PoolResource: v1alpha1.PoolResourceRef{ResourceRef: v1alpha1.ResourceRef{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: pool}},
			Conditions:   []metav1.Condition{{Type: "Updating", Status: metav1.ConditionTrue, Reason: reason, LastTransitionTime: metav1.NewTime(time.Unix(1741773600, 0))}},
		}}
}

// newInsightServer serves the synthetic status with three node insights:
// master-0 in pool master, worker-0 and worker-1 in pool worker.
func newInsightServer(t *testing.T) *testServer {
	status := viewtest.Synthetic(3, 1)
	list := []*insights.Insight{
		nodeInsight("master-0", "master", v1alpha1.ControlPlaneScope, string(v1alpha1.NodeCompleted)),
		nodeInsight("worker-0", "worker", v1alpha1.WorkerPoolScope, string(v1alpha1.NodeDraining)),
		nodeInsight("worker-1", "worker", v1alpha1.WorkerPoolScope, string(v1alpha1.NodeUpdatePending)),
	}
	s := newTestServer(t, serverOptions{computer: view.ComputerFunc(func(*insights.Sources, time.Time) insights.Result {
		return insights.Result{Status: status, Insights: list}
	})})
	s.waitReady(t)
	return s
}

func TestInsightResourcesInDiscovery(t *testing.T) {
	s := newTestServer(t, serverOptions{})
	rec := s.do(t, http.MethodGet, base, "", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("discovery: %d %s", rec.Code, rec.Body)
	}
	byName := map[string]metav1.APIResource{}
	for _, r := range decode[metav1.APIResourceList](t, rec).APIResources {
		byName[r.Name] = r
	}
	for _, want := range insightResources {
		r, ok := byName[want.resource]
		if !ok {
			t.Errorf("%s missing from discovery", want.resource)
			continue
		}
		if r.Namespaced || r.Kind != want.kind || r.SingularName != strings.ToLower(want.kind) ||
			strings.Join(r.ShortNames, ",") != want.short || strings.Join(r.Verbs, ",") != "get,list,watch" {
			t.Errorf("discovery entry = %+v", r)
		}
		if _, ok := byName[want.resource+"/status"]; ok {
			t.Errorf("%s has a status subresource", want.resource)
		}
	}
}

func TestInsightWritesAre405(t *testing.T) {
	s := newTestServer(t, serverOptions{})
	s.waitReady(t)
	for _, r := range insightResources {
		col := base + "/" + r.resource
		body := `{"apiVersion":"update.openshift.io/v1alpha1","kind":"` + r.kind + `","metadata":{"name":"x"}}`
		for _, tt := range []struct{ method, path, contentType, verb string }{
			{http.MethodPost, col, "application/json", "create"},
			{http.MethodPut, col + "/x", "application/json", "update"},
			{http.MethodPatch, col + "/x", "application/merge-patch+json", "patch"},
			{http.MethodPatch, col + "/x", "application/apply-patch+yaml", "patch"},
			{http.MethodDelete, col + "/x", "", "delete"},
			{http.MethodDelete, col, "", "deletecollection"},
		} {
			b := body
			if tt.method == http.MethodDelete {
				b = ""
			}
			rec := s.do(t, tt.method, tt.path, b, map[string]string{"Content-Type": tt.contentType})
			if rec.Code != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: %d %s", tt.method, tt.path, rec.Code, rec.Body)
				continue
			}
			if st := decode[metav1.Status](t, rec); st.Reason != metav1.StatusReasonMethodNotAllowed || !strings.Contains(st.Message, tt.verb) {
				t.Errorf("%s %s: status = %+v", tt.method, tt.path, st)
			}
		}
	}
}

func TestNodeInsightsGetListWatch(t *testing.T) {
	s := newInsightServer(t)
	col := base + "/nodeprogressinsights"
	pool := "labelSelector=" + v1alpha1.LabelPool + "%3Dworker"

	rec := s.do(t, http.MethodGet, col+"/worker-0", "", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("get: %d %s", rec.Code, rec.Body)
	}
	obj := decode[v1alpha1.NodeProgressInsight](t, rec)
	if obj.Kind != "NodeProgressInsight" || obj.Name != "worker-0" || obj.ResourceVersion == "" ||
		obj.Labels[v1alpha1.LabelPool] != "worker" || obj.Labels[v1alpha1.LabelScope] != "WorkerPool" ||
		obj.Status.InsightUID != "node-worker-0" || obj.Status.PoolResource.Name != "worker" {
		t.Errorf("object = %+v", obj)
	}
	if rec := s.do(t, http.MethodGet, col+"/nope", "", nil); rec.Code != http.StatusNotFound {
		t.Errorf("get of a missing node: %d", rec.Code)
	}

	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{"master-0", "worker-0", "worker-1"}},
		{pool, []string{"worker-0", "worker-1"}},
		{"fieldSelector=metadata.name%3Dworker-1", []string{"worker-1"}},
		{pool + "&fieldSelector=metadata.name%3Dworker-1", []string{"worker-1"}},
		{pool + "&fieldSelector=metadata.name%3Dmaster-0", nil},
		{"labelSelector=" + v1alpha1.LabelScope + "%3DControlPlane", []string{"master-0"}},
	} {
		rec := s.do(t, http.MethodGet, col+"?"+tt.query, "", nil)
		if rec.Code != http.StatusOK {
			t.Errorf("list ?%s: %d %s", tt.query, rec.Code, rec.Body)
			continue
		}
		var got []string
		for _, item := range decode[v1alpha1.NodeProgressInsightList](t, rec).Items {
			got = append(got, item.Name)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("list ?%s: %v, want %v", tt.query, got, tt.want)
		}
	}

	hs := httptest.NewServer(s.handler)
	defer hs.Close()
	events, stop := streamEvents(t, hs.URL+col+"?watch=1&"+pool+"&fieldSelector=metadata.name%3Dworker-0")
	defer stop()
	ev := next(t, events)
	var watched v1alpha1.NodeProgressInsight
	if err := json.Unmarshal(ev.Raw, &watched); err != nil || ev.Type != "ADDED" || watched.Name != "worker-0" {
		t.Fatalf("watch: %s %s (%v)", ev.Type, ev.Raw, err)
	}
}

func TestNodeInsightsTable(t *testing.T) {
	s := newInsightServer(t)
	accept := map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}
	rec := s.do(t, http.MethodGet, base+"/nodeprogressinsights?labelSelector="+v1alpha1.LabelPool+"%3Dworker", "", accept)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d: %s", rec.Code, rec.Body)
	}
	table := decode[metav1.Table](t, rec)
	var columns []string
	for _, c := range table.ColumnDefinitions {
		if c.Priority == 0 {
			columns = append(columns, strings.ToUpper(c.Name))
		}
	}
	if got := strings.Join(columns, ","); got != "NAME,POOL,ASSESSMENT,PHASE,VERSION,EST,MESSAGE" {
		t.Errorf("columns %s", got)
	}
	if len(table.Rows) != 2 {
		t.Fatalf("%d rows", len(table.Rows))
	}
	cells := table.Rows[0].Cells
	if cells[0] != "worker-0" || cells[1] != "worker" || cells[2] != "Progressing" || cells[3] != "Draining" || cells[4] != "4.16.21" {
		t.Errorf("cells = %v", cells)
	}
	for _, r := range insightResources {
		rec := s.do(t, http.MethodGet, base+"/"+r.resource, "", accept)
		if table := decode[metav1.Table](t, rec); rec.Code != http.StatusOK || table.Kind != "Table" || len(table.ColumnDefinitions) < 4 {
			t.Errorf("%s as table: %d %s", r.resource, rec.Code, rec.Body)
		}
	}
}
