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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
)

// hostedColumns are the columns of the HostedClusterUpdateStatus table;
// kubectl adds the namespace with -A.
var hostedColumns = []metav1.TableColumnDefinition{
	{Name: "Hosted Cluster", Type: "string", Format: "name", Description: "Name of the HostedCluster (and of the object)."},
	{Name: "Control Plane", Type: "string", Description: "Assessment and completion of the control-plane update."},
	{Name: "Target", Type: "string", Description: "Version the hosted cluster is updating (or was updated) to."},
	{Name: "Node Pools", Type: "string", Description: "NodePools whose update completed / all NodePools."},
	{Name: "Worst Health", Type: "string", Description: "Highest impact level among the Health insights, None without any."},
	{Name: "Update Age", Type: "string", Description: "Time since the current (or last) update started."},
	{Name: "Previous", Type: "string", Priority: 1, Description: "Version the hosted cluster updated from."},
	{Name: "Components", Type: "string", Priority: 1, Description: "Control-plane components updated / all components."},
	{Name: "Nodes", Type: "string", Priority: 1, Description: "Nodes updated / all nodes."},
	{Name: "Est. Remaining", Type: "string", Priority: 1, Description: "Estimated time until the control plane completes."},
	{Name: "Available", Type: "string", Priority: 1, Description: "Outer Available condition: can the content be trusted."},
}

// hostedTableConvertor renders HostedClusterUpdateStatus for kubectl,
// from the summary UpdateStatus's table makes of the same status.
type hostedTableConvertor struct {
	clock clock.PassiveClock
}

// NewHostedTable returns the kubectl table of HostedClusterUpdateStatus;
// clock gives the ages and estimates.
func NewHostedTable(clock clock.PassiveClock) rest.TableConvertor {
	return hostedTableConvertor{clock: clock}
}

// ConvertToTable implements rest.TableConvertor. It takes a
// HostedClusterUpdateStatus or a list of them, wrapped or not, and returns
// an empty table for anything else.
func (c hostedTableConvertor) ConvertToTable(_ context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	now := c.clock.Now()
	return convertToTable(object, tableOptions, hostedColumns, func(obj runtime.Object) ([]metav1.TableRow, *metav1.ListMeta, string) {
		switch obj := obj.(type) {
		case *update.HostedClusterUpdateStatus:
			return []metav1.TableRow{hostedRow(obj, now)}, nil, obj.ResourceVersion
		case *update.HostedClusterUpdateStatusList:
			rows := make([]metav1.TableRow, 0, len(obj.Items))
			for i := range obj.Items {
				rows = append(rows, hostedRow(&obj.Items[i], now))
			}
			return rows, &obj.ListMeta, ""
		}
		return nil, nil, ""
	}), nil
}

func hostedRow(obj *update.HostedClusterUpdateStatus, now time.Time) metav1.TableRow {
	s := summarize(&update.UpdateStatus{ObjectMeta: obj.ObjectMeta, Status: obj.Status})
	return metav1.TableRow{
		Cells: []interface{}{
			obj.Name,
			s.controlPlane(),
			cells.OrUnknown(s.target),
			s.pools(),
			s.worstHealth(),
			s.age(now),
			s.previous,
			s.operators(),
			s.nodes(),
			s.remaining(now),
			s.available,
		},
		Object: runtime.RawExtension{Object: obj},
	}
}

// worstHealth is the highest impact level among the Health insights.
func (s *summary) worstHealth() string {
	for _, level := range levelOrder {
		if s.healthByLevel[level] > 0 {
			return level
		}
	}
	return "None"
}
