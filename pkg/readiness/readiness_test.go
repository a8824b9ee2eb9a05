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

package readiness

import (
	"reflect"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/insights"
)

func TestCompute(t *testing.T) {
	risk := configv1.ConditionalUpdateRisk{Name: "A", URL: "https://a", Message: "risk A"}
	for _, tc := range []struct {
		name           string
		in             Input
		wantIssues     []string
		wantCandidates map[string]metav1.ConditionStatus
		wantApplies    map[string]metav1.ConditionStatus
	}{
		{name: "no ClusterVersion", in: Input{}},
		{
			name:           "no updates, no conditions, alerts unreadable",
			in:             Input{ClusterVersion: &configv1.ClusterVersion{}, AlertsUnavailable: "Alerts are unavailable: 403."},
			wantIssues:     []string{"FailedToCompletePrecheck", "Failing"},
			wantCandidates: map[string]metav1.ConditionStatus{},
		},
		{
			name: "malformed risks: no conditions, unparsable version",
			in: Input{ClusterVersion: &configv1.ClusterVersion{Status: configv1.ClusterVersionStatus{
				Desired:    configv1.Release{Version: "not-semver"},
				Conditions: []configv1.ClusterOperatorStatusCondition{{Type: "Failing", Status: configv1.ConditionFalse}, {Type: configv1.OperatorUpgradeable, Status: configv1.ConditionFalse}},
				ConditionalUpdates: []configv1.ConditionalUpdate{
					{Release: configv1.Release{Version: "4.1+x", Image: "i1"}, Risks: []configv1.ConditionalUpdateRisk{risk}},
					{Release: configv1.Release{Version: "", Image: "i2"}, Risks: []configv1.ConditionalUpdateRisk{risk}, Conditions: []metav1.Condition{{Type: "Recommended", Status: metav1.ConditionFalse, Reason: "A", Message: "risk A"}}},
				},
				AvailableUpdates: []configv1.Release{{Version: "4.2.0", Image: "i3"}, {Version: "4.1+x", Image: "i1"}},
			}}},
			wantIssues:     nil,
			wantCandidates: map[string]metav1.ConditionStatus{"4.1-x": metav1.ConditionUnknown, "release-": metav1.ConditionFalse, "4.2.0": metav1.ConditionTrue},
			wantApplies:    map[string]metav1.ConditionStatus{"4.1-x": metav1.ConditionUnknown, "release-": metav1.ConditionTrue},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Compute(tc.in)
			if tc.in.ClusterVersion == nil {
				if res.Readiness != nil || res.Candidates != nil {
					t.Fatalf("objects without a ClusterVersion: %+v", res)
				}
				return
			}
			if !reflect.DeepEqual(res.Readiness.Status.Issues, tc.wantIssues) {
				t.Errorf("issues %v, want %v", res.Readiness.Status.Issues, tc.wantIssues)
			}
			got := map[string]metav1.ConditionStatus{}
			for _, c := range res.Candidates {
				name := c.Name
				if len(name) > 8 && name[:8] == "release-" {
					name = "release-"
				}
				got[name] = c.Status.Recommended
				if want, ok := tc.wantApplies[name]; ok && (len(c.Status.Risks) != 1 || c.Status.Risks[0].Applies != want) {
					t.Errorf("%s: risks %+v, want applies %s", name, c.Status.Risks, want)
				}
			}
			if !reflect.DeepEqual(got, tc.wantCandidates) {
				t.Errorf("candidates %v, want %v", got, tc.wantCandidates)
			}
		})
	}
}

func TestPrechecks(t *testing.T) {
	alert := func(name, severity, state string, extra ...string) insights.Alert {
		l := map[string]string{"alertname": name, "severity": severity}
		for i := 0; i+1 < len(extra); i += 2 {
			l[extra[i]] = extra[i+1]
		}
		return insights.Alert{Labels: l, State: state}
	}
	for _, tc := range []struct {
		name    string
		alerts  []insights.Alert
		want    map[string]metav1.ConditionStatus
		alerts0 string
	}{
		{name: "none", want: map[string]metav1.ConditionStatus{GroupCritical: "True", GroupPDB: "True", GroupImagePull: "True", GroupNodes: "True", GroupUpdatePrecheck: "True"}},
		{
			name: "one of each, pending and nameless skipped",
			alerts: []insights.Alert{
				alert("Pending", "critical", "pending"), alert("", "critical", "firing"),
				alert("PodDisruptionBudgetLimit", "critical", "firing", "namespace", "ns", "poddisruptionbudget", "pdb"),
				alert("KubeContainerWaiting", "warning", "firing"), alert("KubeNodeNotReady", "warning", "firing"),
				alert("Mine", "info", "firing", "openShiftUpdatePrecheck", "true"), alert("VMCannotBeEvicted", "warning", "firing"),
				alert("Unrelated", "warning", "firing"),
			},
			want:    map[string]metav1.ConditionStatus{GroupCritical: "False", GroupImagePull: "False", GroupNodes: "False", GroupUpdatePrecheck: "False", GroupVirt: "False"},
			alerts0: "critical alert PodDisruptionBudgetLimit firing, suggesting significant cluster issues worth investigating. Namespace=ns, PodDisruptionBudget=pdb. PodDisruptionBudgetLimit. The alert has no description. <alert does not have a runbook_url annotation>",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]metav1.ConditionStatus{}
			var index int32
			for _, p := range Prechecks(tc.alerts) {
				got[p.Name] = p.Status
				for _, a := range p.Alerts {
					if a.Index != index {
						t.Errorf("%s: index %d, want %d", a.Name, a.Index, index)
					}
					index++
					if a.Index == 0 && a.Message != tc.alerts0 {
						t.Errorf("message %q, want %q", a.Message, tc.alerts0)
					}
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("groups %v, want %v", got, tc.want)
			}
		})
	}
}
