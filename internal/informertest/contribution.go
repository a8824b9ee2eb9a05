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

package informertest

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Summaries of the insights of Contribution.
const (
	ContributionControlPlaneSummary = "A PodDisruptionBudget blocks the drain of a control-plane node"
	ContributionPoolSummary         = "A PodDisruptionBudget blocks the drain of a worker node"
)

// Contribution is a valid UpdateInformer namespace/name, created an hour
// before now and renewed at now with the default lease: a Health insight
// about the control plane (uid "cp") and one about pool worker (uid "pdb"),
// both Error and UpdateStalled, started three minutes before now.
func Contribution(namespace, name string, now time.Time) *informersv1alpha1.UpdateInformer {
	health := func(scope v1alpha1.ScopeType, summary string) *v1alpha1.HealthStatusInsight {
		return &v1alpha1.HealthStatusInsight{StartedAt: metav1.NewTime(now.Add(-3 * time.Minute)), Scope: v1alpha1.InsightScope{Type: scope},
			Impact: v1alpha1.InsightImpact{Level: v1alpha1.ErrorImpactLevel, Type: v1alpha1.UpdateStalledImpactType,
				Summary: summary, Description: "The PodDisruptionBudget allows no eviction."},
			Remediation: v1alpha1.InsightRemediation{Reference: "https://example.com/pdb"}}
	}
	renewed := metav1.NewMicroTime(now)
	at := metav1.NewTime(now.Add(-time.Minute))
	return &informersv1alpha1.UpdateInformer{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Generation: 1, CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		Spec: informersv1alpha1.UpdateInformerSpec{RenewTime: &renewed,
			ControlPlane: &informersv1alpha1.ControlPlaneContribution{Insights: []v1alpha1.ControlPlaneInsight{{UID: "cp", AcquiredAt: at,
				Insight: v1alpha1.ControlPlaneInsightUnion{Type: v1alpha1.HealthInsightType,
					HealthInsight: health(v1alpha1.ControlPlaneScope, ContributionControlPlaneSummary)}}}},
			WorkerPools: []informersv1alpha1.WorkerPoolContribution{{Name: "worker", Insights: []v1alpha1.WorkerPoolInsight{{UID: "pdb", AcquiredAt: at,
				Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.HealthInsightType,
					HealthInsight: health(v1alpha1.WorkerPoolScope, ContributionPoolSummary)}}}}},
		},
	}
}
