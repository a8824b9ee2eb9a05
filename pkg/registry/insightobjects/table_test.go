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

package insightobjects

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
	"github.com/update-status/apiserver/pkg/registry/internal/registrytest"
)

// t0 is "now" in the tests of this package.
var t0 = time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)

const u = "<unknown>"

func at(d time.Duration) *metav1.Time { t := metav1.NewTime(t0.Add(d)); return &t }

func objMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, ResourceVersion: "42"}
}

func cond(typ string, status metav1.ConditionStatus, reason, message string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message}
}

func TestTables(t *testing.T) {
	cv := &update.ClusterVersionProgressInsight{ObjectMeta: objMeta("version"), Status: update.ClusterVersionProgressInsightStatus{
		InsightUID: "cv-uid",
		ClusterVersionStatusInsight: update.ClusterVersionStatusInsight{
			Assessment: "Progressing", Completion: 94, StartedAt: *at(-45 * time.Minute), EstimatedCompletedAt: at(35 * time.Minute),
			Versions: update.ControlPlaneUpdateVersions{Target: update.Version{Version: "4.17.5"},
				Previous: update.Version{Version: "4.16.21", Metadata: []update.VersionMetadata{{Key: "Partial"}}}},
		}}}
	co := &update.ClusterOperatorProgressInsight{ObjectMeta: objMeta("etcd"), Status: update.ClusterOperatorProgressInsightStatus{
		InsightUID: "co-uid",
		ClusterOperatorStatusInsight: update.ClusterOperatorStatusInsight{Name: "etcd", Conditions: []metav1.Condition{
			cond("Updating", metav1.ConditionTrue, "Progressing", conventions.EncodeReasonMessage("NodeInstaller", "installing revision 7")),
			cond("Healthy", metav1.ConditionTrue, "AsExpected", ""),
		}}}}
	sick := co.DeepCopy()
	sick.Status.Conditions[1] = cond("Healthy", metav1.ConditionFalse, "Degraded", conventions.EncodeReasonMessage("Quorum", "lost quorum"))
	pool := &update.MachineConfigPoolProgressInsight{ObjectMeta: objMeta("worker"), Status: update.MachineConfigPoolProgressInsightStatus{
		InsightUID: "mcp-uid",
		MachineConfigPoolStatusInsight: update.MachineConfigPoolStatusInsight{Name: "worker", Scope: "WorkerPool", Assessment: "Progressing", Completion: 33,
			Summaries: []update.NodeSummary{{Type: "Total", Count: 3}, {Type: "Outdated", Count: 2}, {Type: "Progressing", Count: 1}, {Type: "Degraded", Count: 1}}},
	}}
	node := &update.NodeProgressInsight{ObjectMeta: objMeta("worker-0"), Status: update.NodeProgressInsightStatus{
		InsightUID: "node-uid",
		NodeStatusInsight: update.NodeStatusInsight{Name: "worker-0", Scope: "WorkerPool", Version: "4.16.21",
			PoolResource:        update.PoolResourceRef{ResourceRef: update.ResourceRef{Resource: "machineconfigpools", Name: "worker"}},
			EstimatedToComplete: &metav1.Duration{Duration: 10 * time.Minute},
			Conditions: []metav1.Condition{
				cond("Updating", metav1.ConditionTrue, "Draining", ""),
				cond("Available", metav1.ConditionTrue, "AsExpected", ""),
				cond("Degraded", metav1.ConditionFalse, "AsExpected", ""),
			}},
	}}
	degraded := node.DeepCopy()
	degraded.Status.Conditions[2] = cond("Degraded", metav1.ConditionTrue, "Degraded", "disk full")
	health := &update.HealthInsight{ObjectMeta: objMeta("hi-uid"), Status: update.HealthInsightStatus{
		InsightUID: "hi-uid",
		HealthStatusInsight: update.HealthStatusInsight{StartedAt: *at(-2 * time.Hour),
			Scope:       update.InsightScope{Type: "ControlPlane", Resources: []update.ResourceRef{{Group: "config.openshift.io", Resource: "clusteroperators", Name: "etcd"}, {Resource: "pods", Namespace: "ns", Name: "p"}}},
			Impact:      update.InsightImpact{Level: "Warning", Type: "API Availability", Summary: "etcd is degraded"},
			Remediation: update.InsightRemediation{Reference: "https://example.com/runbook"}},
	}}
	unknownStart := health.DeepCopy()
	unknownStart.Status.StartedAt = metav1.NewTime(conventions.UnknownTime)

	tests := []struct {
		name string
		kind resources.InsightKind
		obj  runtime.Object
		want [][]interface{}
	}{
		{"cluster version", resources.ClusterVersionInsights, cv, [][]interface{}{{"version", "Progressing", "94%", "4.17.5", "4.16.21 (partial)", "~35m", "45m", "cv-uid"}}},
		{"empty cluster version", resources.ClusterVersionInsights, &update.ClusterVersionProgressInsight{}, [][]interface{}{{"", u, "0%", u, u, u, u, u}}},
		{"operator", resources.ClusterOperatorInsights, co, [][]interface{}{{"etcd", "True", "True", "installing revision 7", "Progressing", "AsExpected", "co-uid"}}},
		{"unhealthy operator", resources.ClusterOperatorInsights, sick, [][]interface{}{{"etcd", "True", "False", "lost quorum", "Progressing", "Degraded", "co-uid"}}},
		{"empty operator", resources.ClusterOperatorInsights, &update.ClusterOperatorProgressInsight{}, [][]interface{}{{"", u, u, "", "", "", u}}},
		{"pool", resources.MachineConfigPoolInsights, pool, [][]interface{}{{"worker", "WorkerPool", "Progressing", "33%", "1/3", int64(1), int64(0), int64(0), int64(1), "mcp-uid"}}},
		{"empty pool", resources.MachineConfigPoolInsights, &update.MachineConfigPoolProgressInsight{}, [][]interface{}{{"", u, u, "0%", "0/0", int64(0), int64(0), int64(0), int64(0), u}}},
		{"node", resources.NodeInsights, node, [][]interface{}{{"worker-0", "worker", "Progressing", "Draining", "4.16.21", "+10m", "", "WorkerPool", "node-uid"}}},
		{"degraded node", resources.NodeInsights, degraded, [][]interface{}{{"worker-0", "worker", "Degraded", "Draining", "4.16.21", "+10m", "disk full", "WorkerPool", "node-uid"}}},
		{"empty node", resources.NodeInsights, &update.NodeProgressInsight{}, [][]interface{}{{"", u, u, u, u, "?", "", u, u}}},
		{"health", resources.HealthInsights, health, [][]interface{}{{"hi-uid", "Warning", "API Availability", "120m", "etcd is degraded", "ControlPlane",
			"clusteroperators.config.openshift.io/etcd,pods/ns/p", "https://example.com/runbook"}}},
		{"health started at an unknown time", resources.HealthInsights, unknownStart, [][]interface{}{{"hi-uid", "Warning", "API Availability", u, "etcd is degraded", "ControlPlane",
			"clusteroperators.config.openshift.io/etcd,pods/ns/p", "https://example.com/runbook"}}},
		{"empty health", resources.HealthInsights, &update.HealthInsight{}, [][]interface{}{{"", u, u, u, "", u, "", ""}}},
		{"node list", resources.NodeInsights, &update.NodeProgressInsightList{ListMeta: metav1.ListMeta{ResourceVersion: "42"}, Items: []update.NodeProgressInsight{*node, *degraded}},
			[][]interface{}{{"worker-0", "worker", "Progressing", "Draining", "4.16.21", "+10m", "", "WorkerPool", "node-uid"},
				{"worker-0", "worker", "Degraded", "Draining", "4.16.21", "+10m", "disk full", "WorkerPool", "node-uid"}}},
		{"wrapped", resources.NodeInsights, registrytest.Cacheable{Object: node}, [][]interface{}{{"worker-0", "worker", "Progressing", "Draining", "4.16.21", "+10m", "", "WorkerPool", "node-uid"}}},
		{"empty list", resources.HealthInsights, &update.HealthInsightList{}, [][]interface{}{}},
		{"another kind", resources.NodeInsights, health, nil},
		{"another kind's list", resources.NodeInsights, &update.HealthInsightList{Items: []update.HealthInsight{*health}}, [][]interface{}{}},
		{"a status", resources.HealthInsights, &metav1.Status{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conv := cells.Convertor{Kind: tables[tt.kind], Clock: clocktesting.NewFakePassiveClock(t0)}
			for _, noHeaders := range []bool{false, true} {
				table, err := conv.ConvertToTable(context.Background(), tt.obj, &metav1.TableOptions{NoHeaders: noHeaders})
				if err != nil {
					t.Fatal(err)
				}
				if noHeaders != (len(table.ColumnDefinitions) == 0) {
					t.Errorf("noHeaders %v: %d column definitions", noHeaders, len(table.ColumnDefinitions))
				}
				var rows [][]interface{}
				if table.Rows != nil {
					rows = [][]interface{}{}
				}
				for _, r := range table.Rows {
					if len(r.Cells) != len(tables[tt.kind].Columns) {
						t.Fatalf("%d cells for %d columns", len(r.Cells), len(tables[tt.kind].Columns))
					}
					if r.Object.Object == nil {
						t.Error("row without its object")
					}
					rows = append(rows, r.Cells)
				}
				if !reflect.DeepEqual(rows, tt.want) {
					t.Errorf("rows\n got %#v\nwant %#v", rows, tt.want)
				}
				if wantRV := "42"; len(tt.want) > 0 && !strings.HasPrefix(tt.name, "empty") && table.ResourceVersion != wantRV {
					t.Errorf("resourceVersion %q", table.ResourceVersion)
				}
			}
		})
	}
}

// TestColumns checks the default columns against `oc adm upgrade status`
// and that the rest show only with -o wide.
func TestColumns(t *testing.T) {
	want := [resources.NumInsightKinds][]string{
		resources.ClusterVersionInsights:    {"Name", "Assessment", "Completion", "Target", "Previous", "Est. Remaining"},
		resources.ClusterOperatorInsights:   {"Name", "Updating", "Healthy", "Message"},
		resources.MachineConfigPoolInsights: {"Name", "Scope", "Assessment", "Completion", "Nodes"},
		resources.NodeInsights:              {"Name", "Pool", "Assessment", "Phase", "Version", "Est", "Message"},
		resources.HealthInsights:            {"Name", "Level", "Type", "Started", "Summary"},
	}
	for k := range tables {
		var got []string
		for i, c := range tables[k].Columns {
			if i < len(want[k]) {
				got = append(got, c.Name)
				if c.Priority != 0 {
					t.Errorf("%s: column %s is wide", resources.InsightKind(k).Resource(), c.Name)
				}
			} else if c.Priority != 1 {
				t.Errorf("%s: extra column %s is not wide", resources.InsightKind(k).Resource(), c.Name)
			}
		}
		if !reflect.DeepEqual(got, want[k]) || tables[k].Columns[0].Format != "name" {
			t.Errorf("%s: default columns %v, want %v", resources.InsightKind(k).Resource(), got, want[k])
		}
	}
}
