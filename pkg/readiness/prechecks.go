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
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// The precheck groups, in the order they are listed.
const (
	GroupCritical       = "CriticalAlerts"
	GroupPDB            = "PodDisruptionBudgetAlerts"
	GroupImagePull      = "PodImagePullAlerts"
	GroupNodes          = "NodeAlerts"
	GroupUpdatePrecheck = "UpdatePrecheckAlerts"
	GroupVirt           = "VirtAlerts"
)

// groups are the groups with their message when no alert of theirs fires
// (VirtAlerts is listed only when one does).
var groups = []struct{ name, happy string }{
	{GroupCritical, "No critical alerts firing."},
	{GroupPDB, "No PodDisruptionBudget alerts firing."},
	{GroupImagePull, "No Pod container image pull alerts firing."},
	{GroupNodes, "No Node alerts firing."},
	{GroupUpdatePrecheck, "No alerts with the openShiftUpdatePrecheck label true are firing."},
	{GroupVirt, ""},
}

var nodeAlerts = map[string]bool{"KubeletHealthState": true, "KubeNodeNotReady": true, "KubeNodeReadinessFlapping": true, "KubeNodeUnreachable": true}

var virtAlerts = map[string]bool{"VirtHandlerDaemonSetRolloutFailing": true, "VMCannotBeEvicted": true}

// classify returns the group of a firing alert and what it means for an
// update; "" when the alert is no precheck's concern.
func classify(name string, labels map[string]string) (group, meaning string) {
	switch {
	case labels["severity"] == "critical":
		return GroupCritical, "suggesting significant cluster issues worth investigating."
	case name == "PodDisruptionBudgetAtLimit":
		return GroupPDB, "which might slow node drains."
	case name == "KubeContainerWaiting":
		return GroupImagePull, "which may slow workload redistribution during rolling node updates."
	case nodeAlerts[name]:
		return GroupNodes, "which may slow workload redistribution during rolling node updates."
	case labels["openShiftUpdatePrecheck"] == "true":
		return GroupUpdatePrecheck, "suggesting issues worth investigating before updating the cluster."
	case virtAlerts[name]:
		return GroupVirt, "which may slow workload redistribution during rolling node updates."
	}
	return "", ""
}

// Prechecks judges the alerts: every group, with the firing alerts that
// found cause for concern numbered in the order listed. Pending alerts and
// alerts without a name are skipped. A critical PodDisruptionBudgetLimit is
// filed under CriticalAlerts and leaves PodDisruptionBudgetAlerts out.
func Prechecks(alerts []insights.Alert) []v1alpha1.Precheck {
	byGroup := map[string][]v1alpha1.PrecheckAlert{}
	pdbConcern := false
	var index int32
	for i := range alerts {
		a := &alerts[i]
		name := a.Labels["alertname"]
		if name == "" || a.State == "pending" {
			continue
		}
		group, meaning := classify(name, a.Labels)
		if group == "" {
			continue
		}
		details := alertDetails(name, a)
		if name == "PodDisruptionBudgetAtLimit" || name == "PodDisruptionBudgetLimit" && group == GroupCritical {
			pdbConcern = true
			details = fmt.Sprintf("Namespace=%s, PodDisruptionBudget=%s. %s", a.Labels["namespace"], a.Labels["poddisruptionbudget"], details)
		}
		byGroup[group] = append(byGroup[group], v1alpha1.PrecheckAlert{
			Index: index, Name: name, Namespace: a.Labels["namespace"], Severity: a.Labels["severity"], State: a.State,
			Reason:  "Alert:" + a.State,
			Message: fmt.Sprintf("%s alert %s %s, %s %s", a.Labels["severity"], name, a.State, meaning, details),
		})
		index++
	}
	var out []v1alpha1.Precheck
	for _, g := range groups {
		firing := byGroup[g.name]
		switch {
		case len(firing) > 0:
			out = append(out, v1alpha1.Precheck{
				Name: g.name, Status: metav1.ConditionFalse, Reason: "AlertsFiring",
				Message: fmt.Sprintf("%d alerts firing.", len(firing)), Alerts: firing,
			})
		case g.happy == "" || g.name == GroupPDB && pdbConcern:
		default:
			out = append(out, v1alpha1.Precheck{Name: g.name, Status: metav1.ConditionTrue, Reason: "AsExpected", Message: g.happy})
		}
	}
	return out
}

// alertDetails is the summary, description and runbook of an alert.
func alertDetails(name string, a *insights.Alert) string {
	summary := a.Annotations["summary"]
	if summary == "" {
		summary = name
	}
	if !strings.HasSuffix(summary, ".") {
		summary += "."
	}
	description, message := a.Annotations["description"], a.Annotations["message"]
	var desc string
	switch {
	case message != "" && description != "":
		desc = " The alert description is: " + description + " | " + message
	case description != "":
		desc = " The alert description is: " + description
	case message != "":
		desc = " The alert description is: " + message
	default:
		desc = " The alert has no description."
	}
	runbook := a.Annotations["runbook_url"]
	if runbook == "" {
		runbook = "<alert does not have a runbook_url annotation>"
	}
	return summary + desc + " " + runbook
}
