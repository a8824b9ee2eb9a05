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

package readiness

import (
	"context"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
	"github.com/update-status/apiserver/pkg/view"
)

type fakeSource struct{ snap view.Snapshot }

func (f *fakeSource) Snapshot() view.Snapshot          { return f.snap }
func (f *fakeSource) AddListener(func(string, string)) {}

func cv(rv string, updates ...string) *configv1.ClusterVersion {
	c := &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version", UID: "0d7ec1f4-9a4e-4d43-a0a4-6a0b2c0f6b39", ResourceVersion: rv}}
	c.Status.Desired.Version = "4.20.1"
	for _, u := range updates {
		c.Status.AvailableUpdates = append(c.Status.AvailableUpdates, configv1.Release{Version: u, Image: "img@" + u})
	}
	return c
}

func candidates(t *testing.T, p *Publisher) map[string]string {
	t.Helper()
	var list update.UpdateCandidateList
	if err := p.Candidates.GetList(context.Background(), "/"+resources.UpdateCandidate.Resource, storage.ListOptions{Predicate: storage.Everything, Recursive: true}, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range list.Items {
		out[c.Name] = c.ResourceVersion
	}
	return out
}

// TestPublisher: objects are published with the sources' resourceVersion,
// an unchanged object keeps its own, a change of the alerts alone moves the
// readiness object, and no ClusterVersion removes everything.
func TestPublisher(t *testing.T) {
	src := &fakeSource{snap: view.Snapshot{InitialSyncDone: true, MaxResourceVersion: 7, Inputs: &insights.Sources{ClusterVersion: cv("7", "4.20.2", "4.20.3")}}}
	p, err := NewPublisher(src, clocktesting.NewFakeClock(metav1.Now().Time))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		snap  view.Snapshot
		want  map[string]string
		check func(t *testing.T)
	}{
		{name: "first", snap: src.snap, want: map[string]string{"4.20.2": "7000000", "4.20.3": "7000000"}},
		{name: "unchanged", snap: src.snap, want: map[string]string{"4.20.2": "7000000", "4.20.3": "7000000"}},
		{
			name: "one more update",
			snap: view.Snapshot{InitialSyncDone: true, MaxResourceVersion: 9, Inputs: &insights.Sources{ClusterVersion: cv("9", "4.20.2", "4.20.3", "4.20.4")}},
			want: map[string]string{"4.20.2": "7000000", "4.20.3": "7000000", "4.20.4": "9000000"},
		},
		{
			name: "alerts alone",
			snap: view.Snapshot{InitialSyncDone: true, MaxResourceVersion: 9, Inputs: &insights.Sources{ClusterVersion: cv("9", "4.20.2", "4.20.3", "4.20.4"),
				Alerts: []insights.Alert{{Labels: map[string]string{"alertname": "X", "severity": "critical"}, State: "firing"}}}},
			want: map[string]string{"4.20.2": "7000000", "4.20.3": "7000000", "4.20.4": "9000000"},
			check: func(t *testing.T) {
				var r update.UpdateReadiness
				if err := p.Readiness.Get(context.Background(), "/"+resources.UpdateReadiness.Resource+"/cluster", storage.GetOptions{}, &r); err != nil {
					t.Fatal(err)
				}
				if r.ResourceVersion != "9000001" || len(r.Status.Issues) == 0 || r.UID == "" {
					t.Errorf("readiness rv %s issues %v uid %q, want 9000001 with the alert's issue and a uid", r.ResourceVersion, r.Status.Issues, r.UID)
				}
			},
		},
		{name: "no ClusterVersion", snap: view.Snapshot{InitialSyncDone: true, MaxResourceVersion: 10, Inputs: &insights.Sources{}}, want: map[string]string{}},
	}
	for _, s := range steps {
		src.snap = s.snap
		p.Publish()
		if got := candidates(t, p); !mapsEqual(got, s.want) {
			t.Errorf("%s: candidates %v, want %v", s.name, got, s.want)
		}
		if s.check != nil {
			s.check(t)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestTables(t *testing.T) {
	c := &update.UpdateCandidate{ObjectMeta: metav1.ObjectMeta{Name: "4.20.3"}, Status: update.UpdateCandidateStatus{
		Version: "4.20.3", Recommended: metav1.ConditionFalse, Reason: "MultipleReasons",
		Risks: []update.UpdateRisk{{Name: "A", Applies: metav1.ConditionTrue}, {Name: "B", Applies: metav1.ConditionUnknown}, {Name: "C", Applies: metav1.ConditionFalse}},
	}}
	r := &update.UpdateReadiness{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: update.UpdateReadinessStatus{
		Version: "4.20.1", Channel: "stable-4.20", PrechecksIncomplete: "x",
		Prechecks: []update.Precheck{{Name: "CriticalAlerts", Status: metav1.ConditionTrue}, {Name: "NodeAlerts", Status: metav1.ConditionFalse}},
	}}
	for _, tc := range []struct {
		table cells.Kind
		obj   runtimeObject
		want  []interface{}
	}{
		{candidateTable, c, []interface{}{"4.20.3", "4.20.3", "False", "A,B?", "MultipleReasons", ""}},
		{readinessTable, r, []interface{}{"cluster", "4.20.1", "stable-4.20", "1/2 (incomplete)", "none"}},
	} {
		tbl, err := cells.Convertor{Kind: tc.table, Clock: &clocktesting.FakePassiveClock{}}.ConvertToTable(context.Background(), tc.obj, nil)
		if err != nil || len(tbl.Rows) != 1 {
			t.Fatalf("%s: %v %v", tc.obj.GetName(), err, tbl)
		}
		for i, cell := range tc.want {
			if tbl.Rows[0].Cells[i] != cell {
				t.Errorf("%s: cell %d = %v, want %v", tc.obj.GetName(), i, tbl.Rows[0].Cells[i], cell)
			}
		}
		if len(tbl.ColumnDefinitions) != len(tc.want) {
			t.Errorf("%s: %d columns, want %d", tc.obj.GetName(), len(tbl.ColumnDefinitions), len(tc.want))
		}
	}
}

// runtimeObject is an object with a name.
type runtimeObject interface {
	runtime.Object
	GetName() string
}
