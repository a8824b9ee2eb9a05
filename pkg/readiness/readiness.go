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

// Package readiness is the pure rule engine of the readiness kinds
// (UpdateReadiness, UpdateCandidate): it judges a ClusterVersion and the
// firing alerts as `oc adm upgrade recommend` does (docs/insights.md#readiness).
// It does no I/O and reads no clock.
package readiness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// Input is what the rules read.
type Input struct {
	// ClusterVersion is the cluster's ClusterVersion; nil when absent.
	ClusterVersion *configv1.ClusterVersion
	// Alerts are the alerts as /api/v1/alerts lists them; nil when unknown.
	Alerts []insights.Alert
	// AlertsUnavailable, when not empty, says why the alerts could not be
	// read; the prechecks are then incomplete.
	AlertsUnavailable string
	// NoTestDataPath, when not empty, is where a run from object dumps
	// looked for alerts and found none (oc's mock mode).
	NoTestDataPath string
}

// Result is the judgement: nil objects when there is no ClusterVersion.
type Result struct {
	Readiness *v1alpha1.UpdateReadiness
	// Candidates are sorted by name.
	Candidates []*v1alpha1.UpdateCandidate
}

// The ClusterVersion conditions readiness reports.
var reportedConditions = []configv1.ClusterStatusConditionType{
	"Failing", configv1.OperatorProgressing, configv1.RetrievedUpdates, configv1.OperatorUpgradeable,
}

// Compute applies the rules.
func Compute(in Input) Result {
	cv := in.ClusterVersion
	if cv == nil {
		return Result{}
	}
	r := &v1alpha1.UpdateReadiness{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "UpdateReadiness"},
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.ReadinessObjectName},
	}
	st := &r.Status
	st.Version = cv.Status.Desired.Version
	st.Channel = cv.Spec.Channel
	st.AvailableChannels = append([]string(nil), cv.Status.Desired.Channels...)
	st.Upstream = string(cv.Spec.Upstream)
	issues := sets.New[string]()
	for _, t := range reportedConditions {
		if c := findCVCondition(cv, t); c != nil {
			st.ClusterVersionConditions = append(st.ClusterVersionConditions, v1alpha1.ClusterVersionCondition{
				Type: string(c.Type), Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message,
				LastTransitionTime: c.LastTransitionTime,
			})
		}
	}
	if c := findCVCondition(cv, "Failing"); c == nil || c.Status != configv1.ConditionFalse {
		issues.Insert(v1alpha1.IssueFailing)
	}
	if c := findCVCondition(cv, configv1.OperatorProgressing); c != nil && c.Status == configv1.ConditionTrue && c.Message != "" {
		issues.Insert(v1alpha1.IssueProgressing)
	}
	if c := findCVCondition(cv, configv1.RetrievedUpdates); c != nil && c.Status != configv1.ConditionTrue {
		issues.Insert(v1alpha1.IssueCannotRetrieveUpdates)
	}
	switch {
	case in.NoTestDataPath != "":
		st.Prechecks = []v1alpha1.Precheck{{
			Name: "Alert", Status: metav1.ConditionUnknown, Reason: "NoTestData", Issue: v1alpha1.IssueAlertNoTestData,
			Message: "This --mock-clusterversion run did not have alert data available at " + in.NoTestDataPath,
		}}
	case in.AlertsUnavailable != "" && in.Alerts == nil:
		st.PrechecksIncomplete = in.AlertsUnavailable
	default:
		st.PrechecksIncomplete = in.AlertsUnavailable
		st.Prechecks = Prechecks(in.Alerts)
	}
	if st.PrechecksIncomplete != "" {
		issues.Insert(v1alpha1.IssueFailedToCompletePrecheck)
	}
	for _, p := range st.Prechecks {
		if p.Status == metav1.ConditionTrue {
			continue
		}
		if p.Issue != "" {
			issues.Insert(p.Issue)
		}
		for _, a := range p.Alerts {
			issues.Insert(a.Name)
		}
	}
	if issues.Len() > 0 {
		st.Issues = sets.List(issues)
	}
	return Result{Readiness: r, Candidates: Candidates(cv)}
}

func findCVCondition(cv *configv1.ClusterVersion, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range cv.Status.Conditions {
		if cv.Status.Conditions[i].Type == t {
			return &cv.Status.Conditions[i]
		}
	}
	return nil
}

// Candidates returns one object per release the ClusterVersion lists: its
// conditional updates, and its available updates whose image no conditional
// update has. While the ClusterVersion is Upgradeable=False, a minor or major
// update gets the risk UpgradeableFalse.
func Candidates(cv *configv1.ClusterVersion) []*v1alpha1.UpdateCandidate {
	var updates []configv1.ConditionalUpdate
	conditional := map[int]bool{}
	images := sets.New[string]()
	for i := range cv.Status.ConditionalUpdates {
		u := *cv.Status.ConditionalUpdates[i].DeepCopy()
		conditional[len(updates)] = true
		images.Insert(u.Release.Image)
		updates = append(updates, u)
	}
	for _, a := range cv.Status.AvailableUpdates {
		if images.Has(a.Image) {
			continue
		}
		updates = append(updates, configv1.ConditionalUpdate{Release: *a.DeepCopy()})
	}
	if c := findCVCondition(cv, configv1.OperatorUpgradeable); c != nil && c.Status == configv1.ConditionFalse {
		if cur, err := semver.Parse(cv.Status.Desired.Version); err == nil {
			injectUpgradeable(cur, c, updates)
		}
	}
	used := map[string]bool{}
	out := make([]*v1alpha1.UpdateCandidate, 0, len(updates))
	for i := range updates {
		u := &updates[i]
		o := &v1alpha1.UpdateCandidate{
			TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "UpdateCandidate"},
			Status: v1alpha1.UpdateCandidateStatus{
				Version: u.Release.Version, Image: u.Release.Image, URL: string(u.Release.URL),
				Channels: append([]string(nil), u.Release.Channels...), Conditional: conditional[i],
				Recommended: metav1.ConditionTrue,
			},
		}
		verdict := notRecommended(u)
		if verdict != nil {
			o.Status.Recommended, o.Status.Reason, o.Status.Message = verdict.Status, verdict.Reason, verdict.Message
		}
		for _, risk := range u.Risks {
			o.Status.Risks = append(o.Status.Risks, v1alpha1.UpdateRisk{
				Name: risk.Name, URL: risk.URL, Message: risk.Message, Applies: applies(risk, verdict),
			})
		}
		o.Name = candidateName(u.Release, used)
		o.Labels = map[string]string{v1alpha1.LabelRecommended: string(o.Status.Recommended)}
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// notRecommended is the verdict on an update: nil when no known risk applies.
func notRecommended(u *configv1.ConditionalUpdate) *metav1.Condition {
	if len(u.Risks) == 0 {
		return nil
	}
	for i := range u.Conditions {
		if c := &u.Conditions[i]; c.Type == "Recommended" {
			if c.Status == metav1.ConditionTrue {
				return nil
			}
			return c
		}
	}
	names := make([]string, 0, len(u.Risks))
	for _, r := range u.Risks {
		names = append(names, r.Name)
	}
	sort.Strings(names)
	return &metav1.Condition{
		Type: "Recommended", Status: metav1.ConditionUnknown, Reason: "NoConditions",
		Message: fmt.Sprintf("Conditional update to %s has risks (%s), but no conditions.", u.Release.Version, strings.Join(names, ", ")),
	}
}

// applies says whether one risk applies, from the verdict the cluster gave:
// the ClusterVersion says which risks apply only through the Recommended
// condition's reason (the risk's name, or MultipleReasons with the messages
// of those that apply) and message.
func applies(risk configv1.ConditionalUpdateRisk, verdict *metav1.Condition) metav1.ConditionStatus {
	switch {
	case verdict == nil:
		return metav1.ConditionFalse
	case verdict.Reason == risk.Name:
		return metav1.ConditionTrue
	case strings.Contains(verdict.Message, "Exposure to "+risk.Name+" is unknown"):
		return metav1.ConditionUnknown
	case risk.Message != "" && strings.Contains(verdict.Message, risk.Message):
		return metav1.ConditionTrue
	case verdict.Status == metav1.ConditionUnknown:
		return metav1.ConditionUnknown
	}
	return metav1.ConditionFalse
}

// candidateName is the object name of a release: its version where that is a
// valid name, else the version with the characters a name cannot hold
// replaced by -, and a hash of the image where that is taken.
func candidateName(r configv1.Release, used map[string]bool) string {
	name := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' {
			return c
		}
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return '-'
	}, r.Version)
	name = strings.Trim(name, "-.")
	if len(name) > 200 {
		name = name[:200]
	}
	if name == "" || used[name] || len(utilvalidation.IsDNS1123Subdomain(name)) > 0 {
		sum := sha256.Sum256([]byte(r.Image + "\x00" + r.Version))
		name = strings.Trim(name+"-"+hex.EncodeToString(sum[:4]), "-")
		if name == hex.EncodeToString(sum[:4]) || len(utilvalidation.IsDNS1123Subdomain(name)) > 0 {
			name = "release-" + hex.EncodeToString(sum[:4])
		}
	}
	used[name] = true
	return name
}

// injectUpgradeable adds the risk of Upgradeable=False to the minor and
// major updates from cur.
func injectUpgradeable(cur semver.Version, c *configv1.ClusterOperatorStatusCondition, updates []configv1.ConditionalUpdate) {
	uri := fmt.Sprintf("https://docs.openshift.com/container-platform/%d.%d/updating/preparing_for_updates/updating-cluster-prepare.html#cluster-upgradeable_updating-cluster-prepare", cur.Major, cur.Minor)
	if cur.Minor <= 13 {
		uri = fmt.Sprintf("https://docs.openshift.com/container-platform/%d.%d/updating/index.html#understanding_clusteroperator_conditiontypes_updating-clusters-overview", cur.Major, cur.Minor)
	}
	for i := range updates {
		u := &updates[i]
		v, err := semver.Parse(u.Release.Version)
		if err != nil || v.Major < cur.Major || v.Major == cur.Major && v.Minor <= cur.Minor {
			continue
		}
		if hasRiskMessage(u, c.Message) {
			continue
		}
		u.Risks = append(u.Risks, configv1.ConditionalUpdateRisk{
			URL: uri, Name: "UpgradeableFalse", Message: c.Message,
			MatchingRules: []configv1.ClusterCondition{{Type: "Always"}},
		})
		found := false
		for j := range u.Conditions {
			rc := &u.Conditions[j]
			if rc.Type != "Recommended" {
				continue
			}
			if rc.Status == metav1.ConditionTrue {
				rc.Reason, rc.Message = c.Reason, c.Message
			} else {
				rc.Reason, rc.Message = "MultipleReasons", c.Message+"\n\n"+rc.Message
			}
			rc.Status = metav1.ConditionFalse
			found = true
			break
		}
		if !found {
			u.Conditions = append(u.Conditions, metav1.Condition{Type: "Recommended", Status: metav1.ConditionFalse, Reason: c.Reason, Message: c.Message})
		}
	}
}

func hasRiskMessage(u *configv1.ConditionalUpdate, message string) bool {
	for _, r := range u.Risks {
		if strings.Contains(r.Message, message) {
			return true
		}
	}
	return false
}
