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
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
)

const unknown = cells.Unknown

// columns of the table; priority 1 columns show only with -o wide.
var columns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the UpdateStatus (always cluster)."},
	controlPlaneColumn,
	{Name: "Target", Type: "string", Description: "Version the cluster is updating (or was updated) to."},
	{Name: "Worker Pools", Type: "string", Description: "Worker pools whose update completed / all worker pools."},
	{Name: "Health", Type: "string", Description: "Health insights by impact level."},
	ageColumn,
	{Name: "Previous", Type: "string", Priority: 1, Description: "Version the cluster updated from."},
	{Name: "Operators", Type: "string", Priority: 1, Description: "Cluster operators updated / all cluster operators."},
	{Name: "Worker Nodes", Type: "string", Priority: 1, Description: "Worker nodes updated / all worker nodes."},
	remainingColumn,
	availableColumn,
}

// The columns the UpdateStatus and HostedClusterUpdateStatus tables share.
var (
	controlPlaneColumn = metav1.TableColumnDefinition{Name: "Control Plane", Type: "string", Description: "Assessment and completion of the control-plane update."}
	ageColumn          = metav1.TableColumnDefinition{Name: "Update Age", Type: "string", Description: "Time since the current (or last) update started."}
	remainingColumn    = metav1.TableColumnDefinition{Name: "Est. Remaining", Type: "string", Priority: 1, Description: "Estimated time until the control plane completes."}
	availableColumn    = metav1.TableColumnDefinition{Name: "Available", Type: "string", Priority: 1, Description: "Outer Available condition: can the content be trusted."}
)

// levelOrder is the order of the impact levels in the Health column.
var levelOrder = []string{
	string(v1alpha1.CriticalInfoLevel),
	string(v1alpha1.ErrorImpactLevel),
	string(v1alpha1.WarningImpactLevel),
	string(v1alpha1.InfoImpactLevel),
	string(v1alpha1.UnknownImpactLevel),
}

// statusTable is the kubectl table of UpdateStatus. A nearly empty object (a
// bookmark) gives a row of unknowns.
var statusTable = cells.KindOf(columns, func(o *update.UpdateStatus, now time.Time) []interface{} {
	s := summarize(o)
	return s.cells(o.Name, s.health(), now)
})

// cells are the cells of a row of name, health being the text of its
// Health column.
func (s *summary) cells(name, health string, now time.Time) []interface{} {
	return []interface{}{
		name,
		s.controlPlane(),
		cells.OrUnknown(s.target),
		s.pools(),
		health,
		s.age(now),
		s.previous,
		s.operators(),
		s.nodes(),
		s.remaining(now),
		s.available,
	}
}

// summary is what the table shows, gathered in one pass over the insights.
type summary struct {
	hasCV              bool
	assessment         string
	completion         int32
	target, previous   string
	startedAt          time.Time
	completedAt        *metav1.Time
	estimatedAt        *metav1.Time
	operatorsUpdated   int
	operatorsTotal     int
	poolsTotal         int
	poolsCompleted     int
	nodesTotal         int32
	nodesOutdated      int32
	healthByLevel      map[string]int
	available          string
	seenHealthInsights map[string]bool
}

func summarize(obj *update.UpdateStatus) *summary {
	s := &summary{available: unknown, previous: unknown}
	for _, c := range obj.Status.Conditions {
		if c.Type == v1alpha1.UpdateStatusAvailable {
			s.available = fmt.Sprintf("%s/%s", c.Status, c.Reason)
		}
	}
	if cp := obj.Status.ControlPlane; cp != nil {
		for i := range cp.Informers {
			for j := range cp.Informers[i].Insights {
				s.addControlPlane(&cp.Informers[i].Insights[j].Insight)
			}
		}
	}
	s.poolsTotal = len(obj.Status.WorkerPools)
	for i := range obj.Status.WorkerPools {
		pool := &obj.Status.WorkerPools[i]
		for j := range pool.Informers {
			for k := range pool.Informers[j].Insights {
				s.addWorkerPool(&pool.Informers[j].Insights[k])
			}
		}
	}
	return s
}

func (s *summary) addControlPlane(in *update.ControlPlaneInsightUnion) {
	switch {
	case in.ClusterVersionStatusInsight != nil:
		cv := in.ClusterVersionStatusInsight
		s.hasCV = true
		s.assessment = string(cv.Assessment)
		s.completion = cv.Completion
		s.target = cv.Versions.Target.Version
		s.previous = cells.Previous(&cv.Versions.Previous)
		s.startedAt = cv.StartedAt.Time
		s.completedAt = cv.CompletedAt
		s.estimatedAt = cv.EstimatedCompletedAt
	case in.ClusterOperatorStatusInsight != nil:
		s.operatorsTotal++
		for _, c := range in.ClusterOperatorStatusInsight.Conditions {
			if c.Type == string(v1alpha1.ClusterOperatorStatusInsightUpdating) &&
				c.Status == metav1.ConditionFalse && c.Reason == string(v1alpha1.ClusterOperatorUpdatingReasonUpdated) {
				s.operatorsUpdated++
			}
		}
	case in.HealthInsight != nil:
		s.addHealth(in.HealthInsight)
	}
}

func (s *summary) addWorkerPool(insight *update.WorkerPoolInsight) {
	in := &insight.Insight
	switch {
	case in.MachineConfigPoolStatusInsight != nil:
		mcp := in.MachineConfigPoolStatusInsight
		if string(mcp.Assessment) == string(v1alpha1.PoolCompleted) {
			s.poolsCompleted++
		}
		for _, sum := range mcp.Summaries {
			switch string(sum.Type) {
			case string(v1alpha1.NodesTotal):
				s.nodesTotal += sum.Count
			case string(v1alpha1.NodesOutdated):
				s.nodesOutdated += sum.Count
			}
		}
	case in.HealthInsight != nil:
		// A Health insight about several pools appears under each of them
		// with the same uid; count it once.
		if s.seenHealthInsights == nil {
			s.seenHealthInsights = map[string]bool{}
		}
		if s.seenHealthInsights[insight.UID] {
			return
		}
		s.seenHealthInsights[insight.UID] = true
		s.addHealth(in.HealthInsight)
	}
}

func (s *summary) addHealth(h *update.HealthStatusInsight) {
	if s.healthByLevel == nil {
		s.healthByLevel = map[string]int{}
	}
	s.healthByLevel[string(h.Impact.Level)]++
}

func (s *summary) controlPlane() string {
	if !s.hasCV {
		return unknown
	}
	return fmt.Sprintf("%s %d%%", cells.OrUnknown(s.assessment), s.completion)
}

func (s *summary) pools() string { return fmt.Sprintf("%d/%d", s.poolsCompleted, s.poolsTotal) }

func (s *summary) operators() string {
	return fmt.Sprintf("%d/%d", s.operatorsUpdated, s.operatorsTotal)
}

func (s *summary) nodes() string {
	return fmt.Sprintf("%d/%d", s.nodesTotal-s.nodesOutdated, s.nodesTotal)
}

func (s *summary) health() string {
	if len(s.healthByLevel) == 0 {
		return "None"
	}
	parts := make([]string, 0, len(s.healthByLevel))
	for _, level := range levelOrder {
		if n := s.healthByLevel[level]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, level))
		}
	}
	return strings.Join(parts, ", ")
}

func (s *summary) age(now time.Time) string {
	if !s.hasCV {
		return unknown
	}
	return cells.Age(s.startedAt, now)
}

func (s *summary) remaining(now time.Time) string {
	if !s.hasCV {
		return unknown
	}
	return cells.Remaining(s.completedAt, s.estimatedAt, now)
}
