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

package ocp

import (
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/version"
)

// The simulated risks: one applies to every simulated cluster, one to none.
const (
	RiskApplies        = "SimulatedKernelRegression"
	RiskDoesNotApply   = "SimulatedCloudProviderIssue"
	riskAppliesMessage = "Nodes of this simulated cluster may hit a kernel regression after the update; see the article."
	riskNotMessage     = "Clusters on a cloud provider this simulated cluster does not run on may lose load balancers."
)

// SetUpdates gives cv the updates the update service offers a cluster that
// runs from (x.y.z): x.y.z+1 and x.y.z+2 as available updates, x.y.z+3 as a
// conditional update whose risk applies (Recommended=False), and x.(y+1).0 as
// one whose risk does not (Recommended=True). Channels name the minors.
func SetUpdates(cv *configv1.ClusterVersion, from string, now time.Time) {
	cv.Status.Desired.Channels = nil
	cv.Status.AvailableUpdates = []configv1.Release{}
	cv.Status.ConditionalUpdates = nil
	v, err := version.ParseSemantic(from)
	if err != nil {
		return
	}
	patch := func(n uint) string { return fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch()+n) }
	nextMinor := fmt.Sprintf("%d.%d.0", v.Major(), v.Minor()+1)
	withChannels := func(r configv1.Release) configv1.Release {
		r.Channels = []string{channel(from), channel(nextMinor)}
		return r
	}
	cv.Status.Desired.Channels = []string{channel(from), channel(nextMinor)}
	cv.Status.AvailableUpdates = []configv1.Release{withChannels(Release(patch(1))), withChannels(Release(patch(2)))}
	at := metav1.NewTime(now)
	risk := func(name, message string) []configv1.ConditionalUpdateRisk {
		return []configv1.ConditionalUpdateRisk{{
			Name: name, Message: message, URL: "https://issues.example.com/" + name,
			MatchingRules: []configv1.ClusterCondition{{Type: "PromQL", PromQL: &configv1.PromQLClusterCondition{PromQL: "group(cluster_version)"}}},
		}}
	}
	cv.Status.ConditionalUpdates = []configv1.ConditionalUpdate{
		{
			Release: withChannels(Release(patch(3))), Risks: risk(RiskApplies, riskAppliesMessage),
			Conditions: []metav1.Condition{{Type: "Recommended", Status: metav1.ConditionFalse, Reason: RiskApplies,
				Message: riskAppliesMessage + " https://issues.example.com/" + RiskApplies, LastTransitionTime: at}},
		},
		{
			Release: withChannels(Release(nextMinor)), Risks: risk(RiskDoesNotApply, riskNotMessage),
			Conditions: []metav1.Condition{{Type: "Recommended", Status: metav1.ConditionTrue, Reason: "AsExpected",
				Message: "The update is recommended, because none of the conditional update risks apply to this cluster.", LastTransitionTime: at}},
		},
	}
}
