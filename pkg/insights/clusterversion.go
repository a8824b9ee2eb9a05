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
	"fmt"
	"math"
	"regexp"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// semverRE is P-NODEVERSION for a non-empty value
// (docs/api-decisions.md#validation-rules).
var semverRE = regexp.MustCompile(`^(?:0|[1-9]\d*)[.](?:0|[1-9]\d*)[.](?:0|[1-9]\d*)` +
	`(?:-(?:(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:[.](?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$`)

// architectureMulti is the target's architecture metadata of a migration to
// multi-arch when the control plane reports none (docs/insights.md#versions).
const architectureMulti = "Multi"

// isVersion reports whether v can be carried in a Version field.
func isVersion(v string) bool { return v != "" && len(v) <= maxVersion && semverRE.MatchString(v) }

// operatorCounts are the control-plane counts of
// docs/insights.md#operator-counts.
type operatorCounts struct {
	total, updated, updating, waiting int
	// lastProgress is the latest Progressing transition among platform
	// operators, after the MCO override of
	// docs/insights.md#last-observed-progress.
	lastProgress time.Time
	changed      time.Time
}

func countOperators(cos []coFacts) operatorCounts {
	var c operatorCounts
	var mcoStarted time.Time
	for i := range cos {
		f := &cos[i]
		c.total++
		c.changed = latest(c.changed, f.changed)
		if f.updated {
			c.updated++
		}
		if p := f.progressing; p != nil {
			c.lastProgress = latest(c.lastProgress, p.LastTransitionTime.Time)
			if !f.updated && p.Status == metav1.ConditionTrue {
				c.updating++
				if f.co.RollsOutNodes {
					mcoStarted = p.LastTransitionTime.Time
				}
			}
			if !f.updated && p.Status == metav1.ConditionFalse {
				c.waiting++
			}
		}
	}
	if !mcoStarted.IsZero() && c.total-c.updated == 1 {
		c.lastProgress = mcoStarted
	}
	return c
}

// completionPercent formats a fraction as oc's "%.0f" does (half to even).
func completionPercent(done, total int) int32 {
	if total <= 0 {
		return 100
	}
	return int32(math.RoundToEven(float64(done) / float64(total) * 100))
}

// cvResult is the control-plane verdict of one evaluation.
type cvResult struct {
	insight  *v1alpha1.ClusterVersionStatusInsight
	updating metav1.Condition
	health   []*healthItem
	next     time.Time
	acquired time.Time
}

// evaluateClusterVersion applies docs/insights.md#control-plane and the
// ClusterVersion rules of docs/insights.md#health-rules.
func evaluateClusterVersion(f *cvFacts, ops *operatorCounts, haveOperators bool, now time.Time) cvResult {
	var r cvResult
	cv := f.cp
	typ := string(v1alpha1.ClusterVersionStatusInsightUpdating)
	if cv == nil {
		r.updating = condition(typ, metav1.ConditionUnknown, string(v1alpha1.ClusterVersionCannotDetermineUpdating),
			"ClusterVersion version not found", time.Time{})
		if h := newHealth(v1alpha1.HealthCVMissing, "", nil, v1alpha1.ControlPlaneScope, time.Time{},
			v1alpha1.ErrorImpactLevel, v1alpha1.UnknownImpactType,
			"no cluster version information available - you must be connected to an OpenShift version 4 server to fetch the current version",
			"The ClusterVersion named version does not exist, so the update cannot be assessed.", refAPIIntro); h != nil {
			h.acquired = ops.changed
			r.health = append(r.health, h)
		}
		return r
	}
	r.acquired = latest(f.changed, ops.changed)
	ref := cv.ref()

	// The Updating condition mirrors Progressing
	// (docs/insights.md#clusterversion-updating-condition).
	p := f.progressing
	switch {
	case p == nil:
		r.updating = condition(typ, metav1.ConditionUnknown, string(v1alpha1.ClusterVersionCannotDetermineUpdating),
			"No Progressing condition in ClusterVersion", f.changed)
	case p.Status == metav1.ConditionTrue:
		r.updating = condition(typ, metav1.ConditionTrue, string(v1alpha1.ClusterVersionProgressing), p.Message,
			firstSet(p.LastTransitionTime.Time, f.changed))
	case p.Status == metav1.ConditionFalse:
		r.updating = condition(typ, metav1.ConditionFalse, string(v1alpha1.ClusterVersionNotProgressing), p.Message,
			firstSet(p.LastTransitionTime.Time, f.changed))
	default:
		r.updating = condition(typ, metav1.ConditionUnknown, string(v1alpha1.ClusterVersionCannotDetermineUpdating),
			conventions.EncodeReasonMessage(p.Reason, p.Message), firstSet(p.LastTransitionTime.Time, f.changed))
	}

	r.health = append(r.health, failingHealth(f, &ref)...)
	if p == nil {
		if h := newHealth(v1alpha1.HealthCVNoProgressing, cv.Name, &ref, v1alpha1.ControlPlaneScope, f.changed,
			v1alpha1.ErrorImpactLevel, v1alpha1.UnknownImpactType,
			"no current Progressing info, see `oc describe clusterversion` for more details.",
			"The ClusterVersion has no Progressing condition, so whether an update is in progress cannot be determined.",
			refHistory); h != nil {
			h.acquired = f.changed
			r.health = append(r.health, h)
		}
	}
	fromHistory := !haveOperators && cv.CompletionFromHistory
	if !haveOperators && !fromHistory {
		if h := newHealth(v1alpha1.HealthCONone, "", nil, v1alpha1.ControlPlaneScope, f.changed,
			v1alpha1.ErrorImpactLevel, v1alpha1.UnknownImpactType,
			"no cluster operator information available - you must be connected to an OpenShift version 4 server",
			"There are no ClusterOperators, so the control plane update cannot be assessed.", refAPIIntro); h != nil {
			h.acquired = f.changed
			r.health = append(r.health, h)
		}
	}

	h := cv.History
	completed := ops.updated == ops.total
	if fromHistory {
		completed = len(h) > 0 && h[0].State == UpdateCompleted
	}
	versions, ok := historyVersions(f)
	if !ok || !conventions.IsDNSSubdomain(cv.Name) {
		if hi := newHealth(v1alpha1.HealthCVBadHistory, cv.Name, &ref, v1alpha1.ControlPlaneScope, f.changed,
			v1alpha1.WarningImpactLevel, v1alpha1.UnknownImpactType,
			fmt.Sprintf("Cluster Version %s has an update history this server cannot represent", cv.Name),
			"The update history of the ClusterVersion is empty or names a version that is not a semantic version, "+
				"so the versions of the update cannot be reported: "+historySummary(h), refHistory); hi != nil {
			hi.acquired = f.changed
			r.health = append(r.health, hi)
		}
		return r
	}

	if !completed && len(h) > 1 && h[1].State == UpdatePartial {
		lastComplete := "unknown"
		for _, item := range h[2:] {
			if item.State == UpdateCompleted {
				lastComplete = item.Version
				break
			}
		}
		if hi := newHealth(v1alpha1.HealthPreviousPartial, cv.Name, &ref, v1alpha1.ControlPlaneScope, h[0].StartedAt,
			v1alpha1.WarningImpactLevel, v1alpha1.NoneImpactType,
			fmt.Sprintf("Previous update to %s never completed, last complete update was %s", h[1].Version, lastComplete),
			fmt.Sprintf("Current update to %s was initiated while the previous update to version %s was still in progress", h[0].Version, h[1].Version),
			refHistory); hi != nil {
			hi.acquired = f.changed
			r.health = append(r.health, hi)
		}
	}

	in := &v1alpha1.ClusterVersionStatusInsight{
		Resource:   ref,
		Versions:   versions,
		Completion: completionPercent(ops.updated, ops.total),
		StartedAt:  wire(h[0].StartedAt),
		Conditions: []metav1.Condition{r.updating},
	}
	if fromHistory && !completed {
		in.Completion = 0
	}
	var completedAt *time.Time
	if h[0].State == UpdateCompleted && h[0].CompletedAt != nil && !h[0].CompletedAt.IsZero() {
		t := wire(h[0].CompletedAt.Time)
		in.CompletedAt = &t
		ct := h[0].CompletedAt.Time
		completedAt = &ct
	}
	switch {
	case p == nil || (!haveOperators && !fromHistory):
		in.Assessment = v1alpha1.ControlPlaneAssessmentUnknown
	case completed:
		in.Assessment = v1alpha1.ControlPlaneAssessmentCompleted
	default:
		proj := projection{
			started:      h[0].StartedAt,
			baseline:     baselineDuration(h),
			lastProgress: ops.lastProgress,
		}
		if ops.total > 0 {
			proj.x = float64(ops.updated) / float64(ops.total)
		}
		sig := proj.signature(now, completedAt)
		eca := wire(sig.projected)
		in.EstimatedCompletedAt = &eca
		total := int64(sig.total)
		in.EstimatedDurationNanoseconds = &total
		in.Assessment = v1alpha1.ControlPlaneAssessmentProgressing
		if sig.negative {
			in.Assessment = v1alpha1.ControlPlaneAssessmentDegraded
		}
		r.next = proj.nextChange(now, completedAt)
	}
	r.insight = in
	return r
}

// historyVersions builds the update edge
// (docs/api.md#controlplaneupdateversions) from the history; ok is false when
// the history cannot be represented.
func historyVersions(f *cvFacts) (v1alpha1.ControlPlaneUpdateVersions, bool) {
	var out v1alpha1.ControlPlaneUpdateVersions
	h := f.cp.History
	if len(h) == 0 || !isVersion(h[0].Version) {
		return out, false
	}
	out.Target.Version = h[0].Version
	if f.multiArchHistory {
		arch := f.cp.DesiredArchitecture
		if arch == "" || len(arch) > maxMetadataValue {
			arch = architectureMulti
		}
		out.Target.Metadata = []v1alpha1.VersionMetadata{{Key: v1alpha1.ArchitectureMetadata, Value: arch}}
	}
	if len(h) == 1 {
		out.Previous = v1alpha1.Version{Version: "<none>", Metadata: []v1alpha1.VersionMetadata{{Key: v1alpha1.InstallationMetadata}}}
		return out, true
	}
	if !isVersion(h[1].Version) {
		return out, false
	}
	out.Previous.Version = h[1].Version
	if h[1].State == UpdatePartial {
		out.Previous.Metadata = []v1alpha1.VersionMetadata{{Key: v1alpha1.PartialMetadata}}
	}
	return out, true
}

// historySummary quotes the first two history versions for a message.
func historySummary(h []Update) string {
	switch len(h) {
	case 0:
		return "the history is empty"
	case 1:
		return fmt.Sprintf("current %q", conventions.Short(h[0].Version, 80))
	default:
		return fmt.Sprintf("current %q, previous %q", conventions.Short(h[0].Version, 80), conventions.Short(h[1].Version, 80))
	}
}

// failingHealth applies the Failing rules of docs/insights.md#health-rules.
// A missing Failing condition has no source time; its insight starts at the
// ClusterVersion's last change instead of oc's "now" so that it does not
// change between evaluations.
func failingHealth(f *cvFacts, ref *v1alpha1.ResourceRef) []*healthItem {
	cv := f.cp
	c := cv.Failing
	var h *healthItem
	switch {
	case c == nil:
		h = newHealth(v1alpha1.HealthCVNoFailing, cv.Name, ref, v1alpha1.ControlPlaneScope, f.changed,
			v1alpha1.WarningImpactLevel, v1alpha1.UpdateStalledImpactType,
			fmt.Sprintf("Cluster Version %s has no Failing condition", cv.Name),
			"Current status of Cluster Version reconciliation is unclear.  See 'oc -n openshift-cluster-version logs -l k8s-app=cluster-version-operator --tail -1' to debug.",
			refCODeg)
	case c.Status != metav1.ConditionFalse:
		verb := "is"
		if c.Status == metav1.ConditionUnknown {
			verb = "may be"
		}
		h = newHealth(v1alpha1.HealthCVFailing, cv.Name, ref, v1alpha1.ControlPlaneScope, c.LastTransitionTime.Time,
			v1alpha1.WarningImpactLevel, v1alpha1.UpdateStalledImpactType,
			fmt.Sprintf("Cluster Version %s %s failing to proceed with the update (%s)", cv.Name, verb, c.Reason),
			c.Message, refCODeg)
	}
	if h == nil {
		return nil
	}
	h.acquired = f.changed
	return []*healthItem{h}
}
