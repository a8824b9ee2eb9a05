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

package insights

import (
	"sort"
	"strings"
	"time"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// alertsAffectingUpdates are shown even when they fired before the update
// started (docs/insights.md#alerts).
var alertsAffectingUpdates = map[string]bool{
	"PodDisruptionBudgetLimit":   true,
	"PodDisruptionBudgetAtLimit": true,
}

// alertHealth applies docs/insights.md#alerts. An alert is not a Kubernetes
// object: it is referenced as alerts.config.openshift.io in the alert's
// namespace, named by conventions.EncodeAlertName. Alerts concern the whole
// cluster (oc's scope "Cluster"), which the API cannot say; they are filed
// under the control plane with scope ControlPlane, in informer "alerts".
func alertHealth(alerts []Alert, updateStartedAt time.Time) []*healthItem {
	var out []*healthItem
	for i := range alerts {
		a := &alerts[i]
		name := a.Labels["alertname"]
		if name == "" {
			continue
		}
		during := updateStartedAt.Before(a.ActiveAt)
		var desc string
		switch {
		case alertsAffectingUpdates[name] && during:
			desc = "Alert known to affect updates started firing during the update."
		case alertsAffectingUpdates[name]:
			desc = "Alert known to affect updates has been firing since before the update started."
		case during:
			desc = "Alert started firing during the update."
		default:
			continue
		}
		if a.State == "pending" {
			continue
		}
		var level v1alpha1.InsightImpactLevel
		switch a.Labels["severity"] {
		case "warning":
			level = v1alpha1.WarningImpactLevel
		case "critical":
			level = v1alpha1.CriticalInfoLevel
		default:
			continue // Info, below what oc shows
		}
		description, message := a.Annotations["description"], a.Annotations["message"]
		switch {
		case description != "" && message != "":
			desc += " The alert description is: " + description + " | " + message
		case description != "":
			desc += " The alert description is: " + description
		case message != "":
			desc += " The alert description is: " + message
		default:
			desc += " The alert has no description."
		}
		summary := a.Annotations["summary"]
		if summary == "" {
			summary = name
		}
		reference := a.Annotations["runbook_url"]
		switch {
		case reference == "":
			reference = conventions.NoRunbookReference
		case len(reference) > maxReference || !conventions.IsURL(reference):
			reference = conventions.TextReference(reference)
			if len(reference) > maxReference {
				reference = conventions.TextReference(conventions.Truncate(a.Annotations["runbook_url"], maxReference/3))
			}
		}
		ref := v1alpha1.ResourceRef{Group: groupConfig, Resource: "alerts", Name: conventions.EncodeAlertName(name)}
		if ns := a.Labels["namespace"]; conventions.IsDNSLabel(ns) {
			ref.Namespace = ns
		}
		h := newHealth(v1alpha1.HealthAlert, "", &ref, v1alpha1.ControlPlaneScope, a.ActiveAt, level,
			v1alpha1.UnknownImpactType, "Alert is firing: "+summary, desc, reference)
		if h == nil {
			continue
		}
		h.insight.StartedAt = wireCeil(a.ActiveAt)
		h.acquired = h.insight.StartedAt.Time
		h.uid = alertUID(name, a)
		out = append(out, h)
	}
	return out
}

// alertUID identifies an alert by its name and a hash of its labels and
// annotations (two alerts can share every label, as in one fixture).
func alertUID(name string, a *Alert) string {
	parts := make([]string, 0, len(a.Labels)+len(a.Annotations)+2)
	for k, v := range a.Labels {
		parts = append(parts, "l\x00"+k+"\x00"+v)
	}
	for k, v := range a.Annotations {
		parts = append(parts, "a\x00"+k+"\x00"+v)
	}
	sort.Strings(parts)
	hash := conventions.Hash16(parts...)
	prefix := string(v1alpha1.HealthAlert)
	if k := conventions.EncodeAlertName(name); !strings.HasPrefix(k, "0x") && !strings.HasPrefix(k, "1x") {
		if uid := prefix + "-" + k + "-" + hash[:8]; len(uid) <= conventions.MaxUIDLength {
			return uid
		}
	}
	return prefix + "-" + hash
}
