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
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
)

func uidColumn(what string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: "Insight UID", Type: "string", Priority: 1, Description: "UID of the " + what + " insight inside UpdateStatus."}
}

var clusterVersionTable = cells.KindOf([]metav1.TableColumnDefinition{
	cells.NameColumn,
	{Name: "Assessment", Type: "string", Description: "One-word summary of the control-plane update."},
	{Name: "Completion", Type: "string", Description: "How much of the control-plane update is done."},
	{Name: "Target", Type: "string", Description: "Version the cluster is updating (or was updated) to."},
	{Name: "Previous", Type: "string", Description: "Version the cluster updated from."},
	{Name: "Est. Remaining", Type: "string", Description: "Estimated time until the control plane completes."},
	{Name: "Started", Type: "string", Priority: 1, Description: "Time since the update started."},
	uidColumn("ClusterVersion"),
}, func(o *update.ClusterVersionProgressInsight, now time.Time) []interface{} {
	cv := &o.Status.ClusterVersionStatusInsight
	return []interface{}{
		o.Name,
		cells.OrUnknown(string(cv.Assessment)),
		fmt.Sprintf("%d%%", cv.Completion),
		cells.OrUnknown(cv.Versions.Target.Version),
		cells.Previous(&cv.Versions.Previous),
		cells.Remaining(cv.CompletedAt, cv.EstimatedCompletedAt, now),
		cells.Age(cv.StartedAt.Time, now),
		cells.OrUnknown(o.Status.InsightUID),
	}
})

var clusterOperatorTable = cells.KindOf([]metav1.TableColumnDefinition{
	cells.NameColumn,
	{Name: "Updating", Type: "string", Description: "Status of the Updating condition: is the operator updating now."},
	{Name: "Healthy", Type: "string", Description: "Status of the Healthy condition."},
	{Name: "Message", Type: "string", Description: "Why the operator is unhealthy, else what its update is doing."},
	{Name: "Updating Reason", Type: "string", Priority: 1, Description: "Reason of the Updating condition (Pending, Progressing, Updated)."},
	{Name: "Healthy Reason", Type: "string", Priority: 1, Description: "Reason of the Healthy condition."},
	uidColumn("ClusterOperator"),
}, func(o *update.ClusterOperatorProgressInsight, _ time.Time) []interface{} {
	conds := o.Status.Conditions
	upd := meta.FindStatusCondition(conds, string(v1alpha1.ClusterOperatorStatusInsightUpdating))
	healthy := meta.FindStatusCondition(conds, string(v1alpha1.ClusterOperatorStatusInsightHealthy))
	var message string
	switch {
	case healthy != nil && healthy.Status != metav1.ConditionTrue:
		_, message = conventions.DecodeReasonMessage(healthy.Message)
	case upd != nil && upd.Status == metav1.ConditionTrue:
		_, message = conventions.DecodeReasonMessage(upd.Message)
	}
	return []interface{}{
		o.Name,
		conditionStatus(upd),
		conditionStatus(healthy),
		message,
		conditionReason(upd),
		conditionReason(healthy),
		cells.OrUnknown(o.Status.InsightUID),
	}
})

var poolTable = cells.KindOf([]metav1.TableColumnDefinition{
	cells.NameColumn,
	{Name: "Scope", Type: "string", Description: "ControlPlane or WorkerPool."},
	{Name: "Assessment", Type: "string", Description: "One-word summary of the pool update."},
	{Name: "Completion", Type: "string", Description: "How much of the pool update is done."},
	{Name: "Nodes", Type: "string", Description: "Nodes updated / all nodes of the pool."},
	{Name: "Progressing", Type: "integer", Priority: 1, Description: "Nodes updating now."},
	{Name: "Draining", Type: "integer", Priority: 1, Description: "Nodes draining now."},
	{Name: "Excluded", Type: "integer", Priority: 1, Description: "Nodes left out of the update (paused)."},
	{Name: "Degraded", Type: "integer", Priority: 1, Description: "Degraded nodes."},
	uidColumn("MachineConfigPool"),
}, func(o *update.MachineConfigPoolProgressInsight, _ time.Time) []interface{} {
	p := &o.Status.MachineConfigPoolStatusInsight
	count := func(t v1alpha1.NodeSummaryType) int64 {
		for _, s := range p.Summaries {
			if string(s.Type) == string(t) {
				return int64(s.Count)
			}
		}
		return 0
	}
	total := count(v1alpha1.NodesTotal)
	return []interface{}{
		o.Name,
		cells.OrUnknown(string(p.Scope)),
		cells.OrUnknown(string(p.Assessment)),
		fmt.Sprintf("%d%%", p.Completion),
		fmt.Sprintf("%d/%d", total-count(v1alpha1.NodesOutdated), total),
		count(v1alpha1.NodesProgressing),
		count(v1alpha1.NodesDraining),
		count(v1alpha1.NodesExcluded),
		count(v1alpha1.NodesDegraded),
		cells.OrUnknown(o.Status.InsightUID),
	}
})

var nodeTable = cells.KindOf([]metav1.TableColumnDefinition{
	cells.NameColumn,
	{Name: "Pool", Type: "string", Description: "MachineConfigPool of the node."},
	{Name: "Assessment", Type: "string", Description: "Degraded, Unavailable, Progressing, Excluded, Outdated or Completed, as oc adm upgrade status shows."},
	{Name: "Phase", Type: "string", Description: "Draining, Updating, Rebooting, Paused, Pending or Updated."},
	{Name: "Version", Type: "string", Description: "Version of the node."},
	{Name: "Est", Type: "string", Description: "Estimated time until the node completes: - when done, ? when unknown."},
	{Name: "Message", Type: "string", Description: "Why the node is degraded or unavailable."},
	{Name: "Scope", Type: "string", Priority: 1, Description: "ControlPlane or WorkerPool."},
	uidColumn("Node"),
}, func(o *update.NodeProgressInsight, _ time.Time) []interface{} {
	n := &o.Status.NodeStatusInsight
	st := conventions.NodeStateOf(n.Name, n.Conditions, n.EstimatedToComplete)
	message := st.Message
	if message == "" {
		message = n.Message
	}
	return []interface{}{
		o.Name,
		cells.OrUnknown(n.PoolResource.Name),
		cells.OrUnknown(st.Assessment),
		cells.OrUnknown(st.Phase),
		cells.OrUnknown(n.Version),
		st.Est,
		message,
		cells.OrUnknown(string(n.Scope)),
		cells.OrUnknown(o.Status.InsightUID),
	}
})

var healthTable = cells.KindOf([]metav1.TableColumnDefinition{
	cells.NameColumn,
	{Name: "Level", Type: "string", Description: "Impact level: Unknown, Info, Warning, Error or Critical."},
	{Name: "Type", Type: "string", Description: "Impact type."},
	{Name: "Started", Type: "string", Description: "Time since the problem started."},
	{Name: "Summary", Type: "string", Description: "One-line summary of the impact."},
	{Name: "Scope", Type: "string", Priority: 1, Description: "ControlPlane or WorkerPool."},
	{Name: "Resources", Type: "string", Priority: 1, Description: "Resources the insight is about."},
	{Name: "Reference", Type: "string", Priority: 1, Description: "Where the remediation is described."},
}, func(o *update.HealthInsight, now time.Time) []interface{} {
	h := &o.Status.HealthStatusInsight
	started := cells.Unknown
	if !conventions.IsUnknownTime(h.StartedAt.Time) {
		started = cells.Age(h.StartedAt.Time, now)
	}
	return []interface{}{
		o.Name,
		cells.OrUnknown(string(h.Impact.Level)),
		cells.OrUnknown(string(h.Impact.Type)),
		started,
		h.Impact.Summary,
		cells.OrUnknown(string(h.Scope.Type)),
		resourceRefs(h.Scope.Resources),
		h.Remediation.Reference,
	}
})

func conditionStatus(c *metav1.Condition) string {
	if c == nil {
		return cells.Unknown
	}
	return cells.OrUnknown(string(c.Status))
}

func conditionReason(c *metav1.Condition) string {
	if c == nil {
		return ""
	}
	return c.Reason
}

// resourceRefs names the resources as resource.group/name (namespace/name
// inside a namespace), comma-separated.
func resourceRefs(refs []update.ResourceRef) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		kind := r.Resource
		if r.Group != "" {
			kind += "." + r.Group
		}
		name := r.Name
		if r.Namespace != "" {
			name = r.Namespace + "/" + name
		}
		parts[i] = kind + "/" + name
	}
	return strings.Join(parts, ",")
}
