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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
)

// hostedColumns are the columns of the HostedClusterUpdateStatus table;
// kubectl adds the namespace with -A.
var hostedColumns = []metav1.TableColumnDefinition{
	{Name: "Hosted Cluster", Type: "string", Format: "name", Description: "Name of the HostedCluster (and of the object)."},
	controlPlaneColumn,
	{Name: "Target", Type: "string", Description: "Version the hosted cluster is updating (or was updated) to."},
	{Name: "Node Pools", Type: "string", Description: "NodePools whose update completed / all NodePools."},
	{Name: "Worst Health", Type: "string", Description: "Highest impact level among the Health insights, None without any."},
	ageColumn,
	{Name: "Previous", Type: "string", Priority: 1, Description: "Version the hosted cluster updated from."},
	{Name: "Components", Type: "string", Priority: 1, Description: "Control-plane components updated / all components."},
	{Name: "Nodes", Type: "string", Priority: 1, Description: "Nodes updated / all nodes."},
	remainingColumn,
	availableColumn,
}

// hostedTable is the kubectl table of HostedClusterUpdateStatus, from the
// summary UpdateStatus's table makes of the same status.
var hostedTable = cells.KindOf(hostedColumns, func(o *update.HostedClusterUpdateStatus, now time.Time) []interface{} {
	s := summarize(&update.UpdateStatus{ObjectMeta: o.ObjectMeta, Status: o.Status})
	return s.cells(o.Name, s.worstHealth(), now)
})

// NewHostedTable returns the kubectl table of HostedClusterUpdateStatus;
// clock gives the ages and estimates.
func NewHostedTable(clock clock.PassiveClock) rest.TableConvertor {
	return cells.Convertor{Kind: hostedTable, Clock: clock}
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
