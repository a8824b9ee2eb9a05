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

package viewtest

import (
	"fmt"
	"math/rand"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// PoolSize is the most nodes a synthetic worker pool holds, below the limit
// of 1024 insights per pool informer.
const PoolSize = 1000

// Synthetic returns a status of a cluster in the middle of 4.16.21 → 4.17.5
// with 3 control-plane nodes, workers worker nodes in pools of at most
// PoolSize, 30 cluster operators and a few health insights. The node states
// come from a generator seeded with seed, so equal arguments give equal
// statuses.
func Synthetic(workers int, seed int64) v1alpha1.UpdateStatusStatus {
	rng := rand.New(rand.NewSource(seed))
	t0 := time.Date(2025, 3, 12, 9, 14, 3, 0, time.UTC)
	at := func(minutes int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(minutes) * time.Minute)) }
	cond := func(t string, s metav1.ConditionStatus, reason, msg string, minutes int) metav1.Condition {
		return metav1.Condition{Type: t, Status: s, Reason: reason, Message: msg, LastTransitionTime: at(minutes)}
	}
	mcpRef := func(name string) v1alpha1.PoolResourceRef {
		return v1alpha1.PoolResourceRef{ResourceRef: v1alpha1.ResourceRef{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: name}}
	}
	updating := cond("Updating", metav1.ConditionTrue, "ClusterVersionProgressing", "Working towards 4.17.5", 0)

	cpi := v1alpha1.ControlPlaneInformer{Name: "cpi"}
	cpi.Insights = append(cpi.Insights, v1alpha1.ControlPlaneInsight{
		UID: "cv-version", AcquiredAt: at(48),
		Insight: v1alpha1.ControlPlaneInsightUnion{
			Type: v1alpha1.ClusterVersionStatusInsightType,
			ClusterVersionStatusInsight: &v1alpha1.ClusterVersionStatusInsight{
				Resource:   v1alpha1.ResourceRef{Group: "config.openshift.io", Resource: "clusterversions", Name: "version"},
				Assessment: v1alpha1.ControlPlaneAssessmentProgressing,
				Versions: v1alpha1.ControlPlaneUpdateVersions{
					Previous: v1alpha1.Version{Version: "4.16.21"},
					Target:   v1alpha1.Version{Version: "4.17.5"},
				},
				Completion: 94, StartedAt: at(0), EstimatedCompletedAt: ptrTime(at(81)),
				Conditions: []metav1.Condition{updating},
			},
		},
	})
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf("operator-%02d", i)
		upd := cond("Updating", metav1.ConditionFalse, "Updated", "Operator reports 4.17.5", 17)
		if i == 29 {
			upd = cond("Updating", metav1.ConditionTrue, "Progressing", "Working towards 4.17.5", 44)
		}
		cpi.Insights = append(cpi.Insights, v1alpha1.ControlPlaneInsight{
			UID: "co-" + name, AcquiredAt: at(17),
			Insight: v1alpha1.ControlPlaneInsightUnion{
				Type: v1alpha1.ClusterOperatorStatusInsightType,
				ClusterOperatorStatusInsight: &v1alpha1.ClusterOperatorStatusInsight{
					Name:     name,
					Resource: v1alpha1.ResourceRef{Group: "config.openshift.io", Resource: "clusteroperators", Name: name},
					Conditions: []metav1.Condition{upd,
						cond("Healthy", metav1.ConditionTrue, "AsExpected", "", -60)},
				},
			},
		})
	}

	cpNodes := v1alpha1.ControlPlaneInformer{Name: "nodes"}
	cpNodes.Insights = append(cpNodes.Insights, v1alpha1.ControlPlaneInsight{
		UID: "mcp-master", AcquiredAt: at(40),
		Insight: v1alpha1.ControlPlaneInsightUnion{
			Type:                           v1alpha1.MachineConfigPoolStatusInsightType,
			MachineConfigPoolStatusInsight: poolInsight("master", v1alpha1.ControlPlaneScope, 3, 0, at(40)),
		},
	})
	for i := 0; i < 3; i++ {
		name := fmt.Sprintf("master-%d.example.internal", i)
		cpNodes.Insights = append(cpNodes.Insights, v1alpha1.ControlPlaneInsight{
			UID: nodeUID(name), AcquiredAt: at(40),
			Insight: v1alpha1.ControlPlaneInsightUnion{
				Type:              v1alpha1.NodeStatusInsightType,
				NodeStatusInsight: nodeInsight(name, "master", v1alpha1.ControlPlaneScope, 0, at),
			},
		})
	}

	status := v1alpha1.UpdateStatusStatus{
		ControlPlane: &v1alpha1.ControlPlane{
			Resource:     &v1alpha1.ResourceRef{Group: "config.openshift.io", Resource: "clusterversions", Name: "version"},
			PoolResource: ptrPool(mcpRef("master")),
			Conditions:   []metav1.Condition{updating},
			Informers:    []v1alpha1.ControlPlaneInformer{cpi, cpNodes},
		},
	}

	for p := 0; p*PoolSize < workers; p++ {
		poolName := fmt.Sprintf("worker-%d", p)
		n := min(PoolSize, workers-p*PoolSize)
		informer := v1alpha1.WorkerPoolInformer{Name: "nodes"}
		outdated := 0
		var nodes []v1alpha1.WorkerPoolInsight
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("ip-10-%d-%d-%d.us-east-2.compute.internal", p, i/250, i%250)
			state := rng.Intn(10)
			if state > 2 {
				outdated++
			}
			nodes = append(nodes, v1alpha1.WorkerPoolInsight{
				UID: nodeUID(name), AcquiredAt: at(40 + state),
				Insight: v1alpha1.WorkerPoolInsightUnion{
					Type:              v1alpha1.NodeStatusInsightType,
					NodeStatusInsight: nodeInsight(name, poolName, v1alpha1.WorkerPoolScope, state, at),
				},
			})
		}
		informer.Insights = append(informer.Insights, v1alpha1.WorkerPoolInsight{
			UID: "mcp-" + poolName, AcquiredAt: at(45),
			Insight: v1alpha1.WorkerPoolInsightUnion{
				Type:                           v1alpha1.MachineConfigPoolStatusInsightType,
				MachineConfigPoolStatusInsight: poolInsight(poolName, v1alpha1.WorkerPoolScope, n, outdated, at(45)),
			},
		})
		informer.Insights = append(informer.Insights, nodes...)
		if p == 0 {
			informer.Insights = append(informer.Insights, v1alpha1.WorkerPoolInsight{
				UID: "health-drain-" + poolName, AcquiredAt: at(50),
				Insight: v1alpha1.WorkerPoolInsightUnion{
					Type: v1alpha1.HealthInsightType,
					HealthInsight: &v1alpha1.HealthStatusInsight{
						StartedAt: at(30),
						Scope: v1alpha1.InsightScope{Type: v1alpha1.WorkerPoolScope, Resources: []v1alpha1.ResourceRef{
							{Resource: "nodes", Name: nodes[0].Insight.NodeStatusInsight.Name}}},
						Impact: v1alpha1.InsightImpact{Level: v1alpha1.WarningImpactLevel, Type: v1alpha1.UpdateSpeedImpactType,
							Summary: "Drain is blocked by a PodDisruptionBudget"},
						Remediation: v1alpha1.InsightRemediation{Reference: "https://docs.openshift.com/container-platform/4.17/updating/"},
					},
				},
			})
		}
		status.WorkerPools = append(status.WorkerPools, v1alpha1.Pool{
			Name:       poolName,
			Resource:   mcpRef(poolName),
			Conditions: []metav1.Condition{cond("Updating", metav1.ConditionTrue, "Progressing", fmt.Sprintf("%d of %d nodes updated", n-outdated, n), 45)},
			Informers:  []v1alpha1.WorkerPoolInformer{informer},
		})
	}
	return status
}

func poolInsight(name string, scope v1alpha1.ScopeType, total, outdated int, at metav1.Time) *v1alpha1.MachineConfigPoolStatusInsight {
	assessment, completion := v1alpha1.PoolCompleted, int32(100)
	reason := "Updated"
	status := metav1.ConditionFalse
	if outdated > 0 {
		assessment, completion = v1alpha1.PoolProgressing, int32(100*(total-outdated)/total)
		reason, status = "Progressing", metav1.ConditionTrue
	}
	return &v1alpha1.MachineConfigPoolStatusInsight{
		Name:       name,
		Resource:   v1alpha1.PoolResourceRef{ResourceRef: v1alpha1.ResourceRef{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: name}},
		Scope:      scope,
		Assessment: assessment,
		Completion: completion,
		Summaries: []v1alpha1.NodeSummary{
			{Type: v1alpha1.NodesTotal, Count: int32(total)},
			{Type: v1alpha1.NodesAvailable, Count: int32(total)},
			{Type: v1alpha1.NodesProgressing, Count: 0},
			{Type: v1alpha1.NodesOutdated, Count: int32(outdated)},
			{Type: v1alpha1.NodesDraining, Count: 0},
			{Type: v1alpha1.NodesExcluded, Count: 0},
			{Type: v1alpha1.NodesDegraded, Count: 0},
		},
		Conditions: []metav1.Condition{{Type: "Updating", Status: status, Reason: reason, LastTransitionTime: at}},
	}
}

// nodeInsight returns a node insight; state 0-2 is updated, 3 draining,
// anything else pending.
func nodeInsight(name, pool string, scope v1alpha1.ScopeType, state int, at func(int) metav1.Time) *v1alpha1.NodeStatusInsight {
	in := &v1alpha1.NodeStatusInsight{
		Name:         name,
		Resource:     v1alpha1.ResourceRef{Resource: "nodes", Name: name},
		PoolResource: v1alpha1.PoolResourceRef{ResourceRef: v1alpha1.ResourceRef{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: pool}},
		Scope:        scope,
		Version:      "4.17.5",
		Conditions: []metav1.Condition{
			{Type: "Updating", Status: metav1.ConditionFalse, Reason: "Completed", LastTransitionTime: at(40 + state)},
			{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: at(40 + state)},
			{Type: "Degraded", Status: metav1.ConditionFalse, Reason: "AsExpected", LastTransitionTime: at(-60)},
		},
	}
	switch {
	case state == 3:
		in.Version = "4.16.21"
		in.EstimatedToComplete = &metav1.Duration{Duration: 14 * time.Minute}
		in.Message = "Drain blocked by PodDisruptionBudget shop/checkout"
		in.Conditions[0] = metav1.Condition{Type: "Updating", Status: metav1.ConditionTrue, Reason: "Draining", Message: "Evicting pods", LastTransitionTime: at(43)}
		in.Conditions[1] = metav1.Condition{Type: "Available", Status: metav1.ConditionFalse, Reason: "Unschedulable", Message: "Node is cordoned", LastTransitionTime: at(43)}
	case state > 3:
		in.Version = "4.16.21"
		in.Conditions[0] = metav1.Condition{Type: "Updating", Status: metav1.ConditionFalse, Reason: "Pending", LastTransitionTime: at(0)}
	}
	return in
}

func nodeUID(name string) string {
	b := []byte("node-" + name)
	for i, c := range b {
		if c == '.' {
			b[i] = '-'
		}
	}
	return string(b)
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

func ptrPool(r v1alpha1.PoolResourceRef) *v1alpha1.PoolResourceRef { return &r }
