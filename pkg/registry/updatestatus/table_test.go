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

package updatestatus

import (
	"context"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
	"github.com/update-status/apiserver/pkg/registry/internal/registrytest"
)

func TestConvertToTable(t *testing.T) {
	// The simulated cluster (viewtest.Synthetic) started updating at 08:00
	// (simulator.MidwayStart); now is 10:00.
	now := t0
	synthetic := objectOf(rv1, viewtest.Synthetic(2500, 1))
	completed := objectOf(rv2, viewtest.Synthetic(3, 1))
	cv := completed.Status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight
	cv.Assessment, cv.Completion = "Completed", 100
	done := metav1.NewTime(now.Add(-time.Minute))
	cv.CompletedAt = &done
	cv.Versions.Previous.Metadata = []update.VersionMetadata{{Key: update.VersionMetadataKey(v1alpha1.PartialMetadata)}}
	bookmark := &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "7"}}

	syntheticRow := []interface{}{"cluster", "Progressing 97%", "4.20.1", "0/3", "1 Error, 1 Warning", "120m", "4.19.10", "33/34", "405/2500", "overdue", "True/AsExpected"}
	tests := []struct {
		name     string
		obj      runtime.Object
		opts     runtime.Object
		wantRows [][]interface{}
		wantRV   string
		noHeader bool
	}{
		{name: "object", obj: synthetic, wantRows: [][]interface{}{syntheticRow}, wantRV: "1000001"},
		{name: "wrapped object", obj: registrytest.Cacheable{Object: synthetic}, wantRows: [][]interface{}{syntheticRow}, wantRV: "1000001"},
		{name: "list", obj: &update.UpdateStatusList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []update.UpdateStatus{*synthetic}},
			wantRows: [][]interface{}{syntheticRow}, wantRV: "9"},
		{name: "empty list", obj: &update.UpdateStatusList{}, wantRows: [][]interface{}{}},
		{name: "completed update", obj: completed, wantRows: [][]interface{}{
			{"cluster", "Completed 100%", "4.20.1", "0/1", "1 Error", "120m", "4.19.10 (partial)", "33/34", "1/3", "0s", "True/AsExpected"}}, wantRV: "2000001"},
		{name: "bookmark", obj: bookmark, wantRows: [][]interface{}{
			{"", unknown, unknown, "0/0", "None", unknown, unknown, "0/0", "0/0", unknown, unknown}}, wantRV: "7"},
		{name: "no headers", obj: bookmark, opts: &metav1.TableOptions{NoHeaders: true}, noHeader: true, wantRows: [][]interface{}{
			{"", unknown, unknown, "0/0", "None", unknown, unknown, "0/0", "0/0", unknown, unknown}}, wantRV: "7"},
		{name: "anything else", obj: &metav1.Status{}, wantRows: nil},
	}
	conv := cells.Convertor{Kind: statusTable, Clock: clocktesting.NewFakePassiveClock(now)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := conv.ConvertToTable(context.Background(), tt.obj, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.noHeader != (len(table.ColumnDefinitions) == 0) {
				t.Errorf("%d column definitions", len(table.ColumnDefinitions))
			}
			var rows [][]interface{}
			if table.Rows != nil {
				rows = [][]interface{}{}
			}
			for _, r := range table.Rows {
				if len(r.Cells) != len(columns) {
					t.Fatalf("%d cells for %d columns", len(r.Cells), len(columns))
				}
				if _, ok := r.Object.Object.(*update.UpdateStatus); !ok {
					t.Errorf("row object %T", r.Object.Object)
				}
				rows = append(rows, r.Cells)
			}
			if !reflect.DeepEqual(rows, tt.wantRows) {
				t.Errorf("rows\n got %v\nwant %v", rows, tt.wantRows)
			}
			if table.ResourceVersion != tt.wantRV {
				t.Errorf("resourceVersion %q, want %q", table.ResourceVersion, tt.wantRV)
			}
		})
	}
}

func TestWideColumnsArePriorityOne(t *testing.T) {
	normal := 0
	for _, c := range columns {
		if c.Priority == 0 {
			normal++
		}
	}
	if normal != 6 || columns[0].Format != "name" {
		t.Errorf("%d default columns, first %+v", normal, columns[0])
	}
}
