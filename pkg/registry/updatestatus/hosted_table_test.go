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

	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/internal/registrytest"
)

func TestHostedTable(t *testing.T) {
	hosted := func(name string, us *update.UpdateStatus) *update.HostedClusterUpdateStatus {
		meta := us.ObjectMeta
		meta.Namespace, meta.Name = "clusters", name
		return &update.HostedClusterUpdateStatus{ObjectMeta: meta, Status: us.Status}
	}
	updating := hosted("a", objectOf(rv1, viewtest.Synthetic(2500, 1)))
	healthy := hosted("b", objectOf(rv2, viewtest.Synthetic(3, 1)))
	healthy.Status.ControlPlane.Informers[0].Insights = healthy.Status.ControlPlane.Informers[0].Insights[:1]
	for i := range healthy.Status.WorkerPools {
		healthy.Status.WorkerPools[i].Informers = nil
	}
	updatingRow := []interface{}{"a", "Progressing 97%", "4.20.1", "0/3", "Error", "120m", "4.19.10", "33/34", "405/2500", "overdue", "True/AsExpected"}
	healthyRow := []interface{}{"b", "Progressing 97%", "4.20.1", "0/1", "None", "120m", "4.19.10", "0/0", "0/0", "overdue", "True/AsExpected"}
	tests := []struct {
		name     string
		obj      runtime.Object
		wantRows [][]interface{}
	}{
		{name: "object", obj: registrytest.Cacheable{Object: updating}, wantRows: [][]interface{}{updatingRow}},
		{name: "list", obj: &update.HostedClusterUpdateStatusList{Items: []update.HostedClusterUpdateStatus{*updating, *healthy}}, wantRows: [][]interface{}{updatingRow, healthyRow}},
		{name: "an UpdateStatus", obj: objectOf(rv1, viewtest.Synthetic(3, 1))},
	}
	conv := NewHostedTable(clocktesting.NewFakePassiveClock(t0))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := conv.ConvertToTable(context.Background(), tt.obj, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(table.ColumnDefinitions) != len(hostedColumns) {
				t.Errorf("%d column definitions", len(table.ColumnDefinitions))
			}
			var rows [][]interface{}
			for _, r := range table.Rows {
				if _, ok := r.Object.Object.(*update.HostedClusterUpdateStatus); !ok {
					t.Errorf("row object %T", r.Object.Object)
				}
				rows = append(rows, r.Cells)
			}
			if !reflect.DeepEqual(rows, tt.wantRows) {
				t.Errorf("rows\n got %v\nwant %v", rows, tt.wantRows)
			}
		})
	}
	for _, c := range hostedColumns {
		if wide := c.Priority == 1; wide != (c.Name == "Previous" || c.Name == "Components" || c.Name == "Nodes" || c.Name == "Est. Remaining" || c.Name == "Available") {
			t.Errorf("column %s: priority %d", c.Name, c.Priority)
		}
	}
}
