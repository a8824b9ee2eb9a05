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

package web

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// TestDrainBlockedCell: a node that an external informer's Health insight
// names with a PodDisruptionBudget carries the budgets (bb) and pods (bp)
// in its cell, from either source, and loses them with the insight; other
// insights leave the cell as it was.
func TestDrainBlockedCell(t *testing.T) {
	const drainInformer = "drain.update-status-drain"
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	node := func(name string) *v1alpha1.NodeStatusInsight {
		return &v1alpha1.NodeStatusInsight{Name: name, Scope: v1alpha1.WorkerPoolScope, Version: "4.15.0",
			PoolResource: v1alpha1.PoolResourceRef{ResourceRef: v1alpha1.ResourceRef{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: "worker"}}}
	}
	nodeRef := func(name string) v1alpha1.ResourceRef { return v1alpha1.ResourceRef{Resource: "nodes", Name: name} }
	podRef := func(ns, name string) v1alpha1.ResourceRef {
		return v1alpha1.ResourceRef{Resource: "pods", Namespace: ns, Name: name}
	}
	pdbRef := func(ns, name string) v1alpha1.ResourceRef {
		return v1alpha1.ResourceRef{Group: "policy", Resource: "poddisruptionbudgets", Namespace: ns, Name: name}
	}
	health := func(refs ...v1alpha1.ResourceRef) *v1alpha1.HealthStatusInsight {
		return &v1alpha1.HealthStatusInsight{Scope: v1alpha1.InsightScope{Type: v1alpha1.WorkerPoolScope, Resources: refs},
			Impact:      v1alpha1.InsightImpact{Level: v1alpha1.WarningImpactLevel, Type: v1alpha1.UpdateStalledImpactType, Summary: "Drain is blocked"},
			Remediation: v1alpha1.InsightRemediation{Reference: "https://example.com/drain"}}
	}
	type insight struct {
		uid, informer string
		h             *v1alpha1.HealthStatusInsight
	}
	type blocked struct{ budgets, pods []string }
	blockedA := insight{"drain-a", drainInformer, health(nodeRef("node-a"), podRef("shop", "db-0"), pdbRef("shop", "db"))}

	for _, tc := range []struct {
		name     string
		insights []insight
		// want are the blocked cells; the others carry nothing.
		want map[string]blocked
	}{
		{name: "the drain informer's insight", insights: []insight{blockedA},
			want: map[string]blocked{"node-a": {[]string{"shop/db"}, []string{"shop/db-0"}}}},
		{name: "two informers on one node, merged and sorted", insights: []insight{blockedA,
			{"other", "ns.other", health(nodeRef("node-a"), podRef("auth", "sso-1"), pdbRef("auth", "sso"), pdbRef("shop", "db"))}},
			want: map[string]blocked{"node-a": {[]string{"auth/sso", "shop/db"}, []string{"auth/sso-1", "shop/db-0"}}}},
		{name: "a node without a budget", insights: []insight{{"drain-a", drainInformer, health(nodeRef("node-a"), podRef("shop", "db-0"))}}},
		{name: "the server's own informer", insights: []insight{{"drain-a", v1alpha1.InformerNodes, health(nodeRef("node-a"), pdbRef("shop", "db"))}}},
		{name: "a node the page does not show", insights: []insight{{"drain-c", drainInformer, health(nodeRef("node-c"), pdbRef("shop", "db"))}}},
	} {
		check := func(t *testing.T, m *model, step string, blockedCells map[string]blocked) {
			t.Helper()
			s := m.snapshot(now)
			if len(s.Nodes) != 2 {
				t.Fatalf("%s: nodes %+v", step, s.Nodes)
			}
			for _, n := range s.Nodes {
				want := blockedCells[n.Name]
				if !reflect.DeepEqual(n.BlockedBy, want.budgets) || !reflect.DeepEqual(n.BlockingPods, want.pods) {
					t.Errorf("%s: cell %s blocked by %v (pods %v), want %v (pods %v)", step, n.Name, n.BlockedBy, n.BlockingPods, want.budgets, want.pods)
				}
				b, err := json.Marshal(n)
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Contains(string(b), `"bb":`); got != (want.budgets != nil) {
					t.Errorf("%s: the page gets %s", step, b)
				}
				if want.budgets != nil {
					wantJSON, _ := json.Marshal(map[string][]string{"bb": want.budgets, "bp": want.pods})
					if !strings.Contains(string(b), strings.Trim(string(wantJSON), "{}")) {
						t.Errorf("%s: the page gets %s, want it to hold %s", step, b, wantJSON)
					}
				}
			}
		}
		t.Run(tc.name+"/insights", func(t *testing.T) {
			m := newModel()
			m.setNode(node("node-a"))
			m.setNode(node("node-b"))
			m.flush(now)
			for _, in := range tc.insights {
				m.setHealth(in.uid, in.informer, in.h)
			}
			d, _, _ := m.flush(now)
			check(t, m, "after the insights", tc.want)
			// The delta resends exactly the cells that changed.
			var sent []string
			for _, n := range d.Nodes {
				sent = append(sent, n.Name)
			}
			var want []string
			if len(tc.want) > 0 {
				want = []string{"node-a"}
			}
			if !reflect.DeepEqual(sent, want) {
				t.Errorf("the delta resends cells %v, want %v", sent, want)
			}
			// A node that comes back after the insight is marked too.
			m.deleteNode("node-a")
			m.setNode(node("node-a"))
			check(t, m, "after the node came back", tc.want)
			for _, in := range tc.insights {
				m.setHealth(in.uid, in.informer, nil)
			}
			d, _, _ = m.flush(now)
			if len(tc.want) > 0 && (len(d.Nodes) != 1 || d.Nodes[0].BlockedBy != nil || d.Nodes[0].BlockingPods != nil) {
				t.Errorf("after the insights went, the delta sends %+v", d.Nodes)
			}
			check(t, m, "after the insights went", nil)
		})
		t.Run(tc.name+"/updatestatus", func(t *testing.T) {
			st := &v1alpha1.UpdateStatusStatus{WorkerPools: []v1alpha1.Pool{{Name: "worker", Informers: []v1alpha1.WorkerPoolInformer{{Name: v1alpha1.InformerNodes,
				Insights: []v1alpha1.WorkerPoolInsight{
					{UID: "node-a", Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.NodeStatusInsightType, NodeStatusInsight: node("node-a")}},
					{UID: "node-b", Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.NodeStatusInsightType, NodeStatusInsight: node("node-b")}}}}}}}}
			for _, in := range tc.insights {
				wp := &st.WorkerPools[0]
				wp.Informers = append(wp.Informers, v1alpha1.WorkerPoolInformer{Name: in.informer, Insights: []v1alpha1.WorkerPoolInsight{
					{UID: in.uid, Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.HealthInsightType, HealthInsight: in.h}}}})
			}
			m := newModel()
			m.setStatus(st)
			check(t, m, "from UpdateStatus", tc.want)
		})
	}
}
