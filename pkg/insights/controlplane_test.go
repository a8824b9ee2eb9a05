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
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

func TestOperatorUpdatingCondition(t *testing.T) {
	for _, tc := range []struct {
		name        string
		version     string
		progressing *configv1.ClusterOperatorStatusCondition
		wantStatus  metav1.ConditionStatus
		wantReason  v1alpha1.ClusterOperatorUpdatingReason
		wantMessage string
	}{
		{name: "at the target version is updated", version: toV, wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.ClusterOperatorUpdatingReasonUpdated, wantMessage: "(AsExpected)"},
		{name: "old version and progressing is updating", version: fromV,
			progressing: ptr(ccond(configv1.OperatorProgressing, configv1.ConditionTrue, "NodeInstaller", "2 nodes are at revision 3", t0)),
			wantStatus:  metav1.ConditionTrue, wantReason: v1alpha1.ClusterOperatorUpdatingReasonProgressing, wantMessage: "(NodeInstaller) 2 nodes are at revision 3"},
		{name: "progressing without a reason keeps the message", version: fromV,
			progressing: ptr(ccond(configv1.OperatorProgressing, configv1.ConditionTrue, "", "Working towards 4.16.0", t0)),
			wantStatus:  metav1.ConditionTrue, wantReason: v1alpha1.ClusterOperatorUpdatingReasonProgressing, wantMessage: "Working towards 4.16.0"},
		{name: "old version and not progressing is pending", version: fromV,
			progressing: ptr(ccond(configv1.OperatorProgressing, configv1.ConditionFalse, "", "", t0)),
			wantStatus:  metav1.ConditionFalse, wantReason: v1alpha1.ClusterOperatorUpdatingReasonPending},
		{name: "old version and progressing unknown cannot be determined", version: fromV,
			progressing: ptr(ccond(configv1.OperatorProgressing, configv1.ConditionUnknown, "", "", t0)),
			wantStatus:  metav1.ConditionUnknown, wantReason: v1alpha1.ClusterOperatorUpdatingCannotDetermine},
		{name: "old version without progressing cannot be determined", version: fromV, progressing: &configv1.ClusterOperatorStatusCondition{},
			wantStatus: metav1.ConditionUnknown, wantReason: v1alpha1.ClusterOperatorUpdatingCannotDetermine,
			wantMessage: "The operator has not reached the target version and reports no Progressing condition"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			co := newCO("dns", tc.version)
			if tc.progressing != nil {
				if tc.progressing.Type == "" {
					removeCOCondition(co, configv1.OperatorProgressing)
				} else {
					setCOCondition(co, *tc.progressing)
				}
			}
			src.ClusterOperators = append(src.ClusterOperators, co)
			res := Compute(src, now)
			mustValid(t, res)
			got := cond(coOf(res, "dns").Conditions, "Updating")
			if got.Status != tc.wantStatus || got.Reason != string(tc.wantReason) || got.Message != tc.wantMessage {
				t.Errorf("Updating = %s/%s %q, want %s/%s %q", got.Status, got.Reason, got.Message, tc.wantStatus, tc.wantReason, tc.wantMessage)
			}
			if tc.wantStatus == metav1.ConditionTrue && !got.LastTransitionTime.Equal(&metav1.Time{Time: t0}) {
				t.Errorf("Updating=True must start at the Progressing transition %v, got %v", t0, got.LastTransitionTime)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestOperatorHealthyCondition(t *testing.T) {
	for _, tc := range []struct {
		name       string
		available  *configv1.ClusterOperatorStatusCondition // nil: remove
		degraded   configv1.ConditionStatus
		wantStatus metav1.ConditionStatus
		wantReason v1alpha1.ClusterOperatorHealthyReason
	}{
		{name: "available", available: ptr(ccond(configv1.OperatorAvailable, configv1.ConditionTrue, "", "", t0)), degraded: configv1.ConditionFalse,
			wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.ClusterOperatorHealthyReasonAsExpected},
		{name: "unavailable", available: ptr(ccond(configv1.OperatorAvailable, configv1.ConditionFalse, "Down", "gone", t0)), degraded: configv1.ConditionFalse,
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.ClusterOperatorHealthyReasonUnavailable},
		{name: "unavailable wins over degraded", available: ptr(ccond(configv1.OperatorAvailable, configv1.ConditionFalse, "Down", "gone", t0)), degraded: configv1.ConditionTrue,
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.ClusterOperatorHealthyReasonUnavailable},
		{name: "available but degraded", available: ptr(ccond(configv1.OperatorAvailable, configv1.ConditionTrue, "", "", t0)), degraded: configv1.ConditionTrue,
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.ClusterOperatorHealthyReasonDegraded},
		{name: "availability unknown", available: ptr(ccond(configv1.OperatorAvailable, configv1.ConditionUnknown, "", "", t0)), degraded: configv1.ConditionFalse,
			wantStatus: metav1.ConditionUnknown, wantReason: v1alpha1.ClusterOperatorHealthyReasonCannotDetermine},
		{name: "no Available condition", degraded: configv1.ConditionFalse,
			wantStatus: metav1.ConditionUnknown, wantReason: v1alpha1.ClusterOperatorHealthyReasonCannotDetermine},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			co := newCO("dns", toV)
			if tc.available == nil {
				removeCOCondition(co, configv1.OperatorAvailable)
			} else {
				setCOCondition(co, *tc.available)
			}
			setCOCondition(co, ccond(configv1.OperatorDegraded, tc.degraded, "Bad", "bad", t0))
			src.ClusterOperators = append(src.ClusterOperators, co)
			res := Compute(src, now)
			mustValid(t, res)
			got := cond(coOf(res, "dns").Conditions, "Healthy")
			if got.Status != tc.wantStatus || got.Reason != string(tc.wantReason) {
				t.Errorf("Healthy = %s/%s, want %s/%s", got.Status, got.Reason, tc.wantStatus, tc.wantReason)
			}
		})
	}
}

func TestOperatorHealthThresholds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		typ       configv1.ClusterStatusConditionType
		status    configv1.ConditionStatus
		age       time.Duration
		message   string
		wantKind  v1alpha1.HealthKind
		wantLevel v1alpha1.InsightImpactLevel // "" when no insight
		wantDesc  string
		wantNext  time.Duration // from the transition; 0 when none
	}{
		{name: "unavailable for exactly 5m is not reported", typ: configv1.OperatorAvailable, status: configv1.ConditionFalse, age: 5 * time.Minute,
			wantKind: v1alpha1.HealthCOUnavailable, wantNext: 5*time.Minute + 1},
		{name: "unavailable just over 5m is a warning", typ: configv1.OperatorAvailable, status: configv1.ConditionFalse, age: 5*time.Minute + 1, message: "down",
			wantKind: v1alpha1.HealthCOUnavailable, wantLevel: v1alpha1.WarningImpactLevel, wantDesc: "down", wantNext: 20*time.Minute + 1},
		{name: "unavailable for exactly 20m is still a warning", typ: configv1.OperatorAvailable, status: configv1.ConditionFalse, age: 20 * time.Minute,
			wantKind: v1alpha1.HealthCOUnavailable, wantLevel: v1alpha1.WarningImpactLevel, wantDesc: "<no message>", wantNext: 20*time.Minute + 1},
		{name: "unavailable over 20m is an error", typ: configv1.OperatorAvailable, status: configv1.ConditionFalse, age: 20*time.Minute + time.Second,
			wantKind: v1alpha1.HealthCOUnavailable, wantLevel: v1alpha1.ErrorImpactLevel, wantDesc: "<no message>"},
		{name: "availability unknown is never reported", typ: configv1.OperatorAvailable, status: configv1.ConditionUnknown, age: time.Hour,
			wantKind: v1alpha1.HealthCOUnavailable},
		{name: "degraded for exactly 5m is not reported", typ: configv1.OperatorDegraded, status: configv1.ConditionTrue, age: 5 * time.Minute,
			wantKind: v1alpha1.HealthCODegraded, wantNext: 5*time.Minute + 1},
		{name: "degraded just over 5m is a warning", typ: configv1.OperatorDegraded, status: configv1.ConditionTrue, age: 5*time.Minute + time.Second, message: "meh",
			wantKind: v1alpha1.HealthCODegraded, wantLevel: v1alpha1.WarningImpactLevel, wantDesc: "meh", wantNext: 40*time.Minute + 1},
		{name: "degraded for exactly 40m is still a warning", typ: configv1.OperatorDegraded, status: configv1.ConditionTrue, age: 40 * time.Minute, message: "meh",
			wantKind: v1alpha1.HealthCODegraded, wantLevel: v1alpha1.WarningImpactLevel, wantDesc: "meh", wantNext: 40*time.Minute + 1},
		{name: "degraded over 40m is an error", typ: configv1.OperatorDegraded, status: configv1.ConditionTrue, age: 41 * time.Minute, message: "meh",
			wantKind: v1alpha1.HealthCODegraded, wantLevel: v1alpha1.ErrorImpactLevel, wantDesc: "meh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			co := newCO("dns", toV)
			since := now.Add(-tc.age)
			setCOCondition(co, ccond(tc.typ, tc.status, "Reason", tc.message, since))
			src.ClusterOperators = append(src.ClusterOperators, co)
			src.ClusterVersion.Status.Conditions = append(src.ClusterVersion.Status.Conditions[:0:0], src.ClusterVersion.Status.Conditions...)
			res := Compute(src, now)
			mustValid(t, res)
			hs := healthOf(res, tc.wantKind)
			if tc.wantLevel == "" {
				if len(hs) != 0 {
					t.Fatalf("unexpected insight %+v", hs[0].h.Impact)
				}
			} else {
				if len(hs) != 1 {
					t.Fatalf("got %d insights of kind %s, want 1", len(hs), tc.wantKind)
				}
				h := hs[0].h
				if h.Impact.Level != tc.wantLevel || h.Impact.Description != tc.wantDesc || h.Impact.Type != v1alpha1.ApiAvailabilityImpactType {
					t.Errorf("got %s %s %q, want %s %q", h.Impact.Level, h.Impact.Type, h.Impact.Description, tc.wantLevel, tc.wantDesc)
				}
				if !h.StartedAt.Time.Equal(since.Truncate(time.Second)) {
					t.Errorf("startedAt = %v, want %v", h.StartedAt, since)
				}
				if hs[0].where != "controlPlane/cpi" || h.Scope.Type != v1alpha1.ControlPlaneScope {
					t.Errorf("placed at %s with scope %s", hs[0].where, h.Scope.Type)
				}
			}
			if tc.wantNext != 0 {
				want := since.Add(tc.wantNext)
				if res.NextChange.IsZero() || res.NextChange.After(want) {
					t.Errorf("NextChange = %v, want at most %v", res.NextChange, want)
				}
				if res.NextChange.Equal(want) {
					// At that instant the result must indeed differ.
					before, after := Compute(src, want.Add(-1)), Compute(src, want)
					if healthJSON(t, healthOf(before, tc.wantKind)) == healthJSON(t, healthOf(after, tc.wantKind)) {
						t.Errorf("nothing changed at NextChange %v", want)
					}
				}
			}
		})
	}
}

func TestOperatorCountsAndNonPlatformOperators(t *testing.T) {
	src := cluster()
	plain := newCO("not-in-payload", fromV)
	plain.Annotations = nil
	setCOCondition(plain, ccond(configv1.OperatorAvailable, configv1.ConditionFalse, "Down", "down", now.Add(-time.Hour)))
	unknown := newCO("dns", toV)
	setCOCondition(unknown, ccond(configv1.OperatorAvailable, configv1.ConditionUnknown, "", "", now.Add(-time.Hour)))
	src.ClusterOperators = append(src.ClusterOperators, plain, unknown)
	res := Compute(src, now)
	mustValid(t, res)
	if coOf(res, "not-in-payload") != nil {
		t.Error("a ClusterOperator that is not part of the payload must not get an insight")
	}
	if n := len(healthOf(res, v1alpha1.HealthCOUnavailable)); n != 0 {
		t.Errorf("got %d unavailable insights; Available=Unknown and non-payload operators produce none", n)
	}
	cv := cvOf(t, res)
	// etcd, kube-apiserver, dns updated; machine-config not: 3 of 4.
	if cv.Completion != 75 {
		t.Errorf("completion = %d, want 75", cv.Completion)
	}
}

func TestMachineConfigOperatorImage(t *testing.T) {
	for _, tc := range []struct {
		name        string
		deployImage string // "" means no Deployment
		coImage     string // "" means no operator-image entry
		wantUpdated bool
	}{
		{name: "no operator-image entry: the version decides", wantUpdated: true},
		{name: "image matches the Deployment", deployImage: "mco@sha256:new", coImage: "mco@sha256:new", wantUpdated: true},
		{name: "image differs from the Deployment", deployImage: "mco@sha256:new", coImage: "mco@sha256:old"},
		{name: "no Deployment: an operator-image entry never matches", coImage: "mco@sha256:new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			mco := newCO("machine-config", toV)
			if tc.coImage != "" {
				mco.Status.Versions = append(mco.Status.Versions, configv1.OperandVersion{Name: "operator-image", Version: tc.coImage})
			}
			src.ClusterOperators[2] = mco
			if tc.deployImage != "" {
				src.MCODeployment = &appsv1.Deployment{}
				src.MCODeployment.Spec.Template.Spec.Containers = []corev1.Container{{Name: "machine-config-operator", Image: tc.deployImage}}
			}
			res := Compute(src, now)
			mustValid(t, res)
			got := cond(coOf(res, "machine-config").Conditions, "Updating").Reason == string(v1alpha1.ClusterOperatorUpdatingReasonUpdated)
			if got != tc.wantUpdated {
				t.Errorf("updated = %v, want %v", got, tc.wantUpdated)
			}
		})
	}
}

// TestEstimateVectors checks the estimator against oc's own unit vectors
// (docs/insights.md#estimated-completion): the projection the object carries,
// read back the way a client reads it, gives oc's estimate.
func TestEstimateVectors(t *testing.T) {
	for _, tc := range []struct {
		baseline, toLastProgress, updatingFor time.Duration
		x                                     float64
		want                                  time.Duration
	}{
		{time.Hour, 30 * time.Minute, 30 * time.Minute, 0, 36 * time.Minute},
		{time.Hour, 30 * time.Minute, 31 * time.Minute, 0, 35 * time.Minute},
		{time.Hour, 30 * time.Minute, 30 * time.Minute, 0.2, time.Hour + 9*time.Minute},
		{time.Hour, 30 * time.Minute, 35 * time.Minute, 0.2, time.Hour + 3*time.Minute},
		{time.Hour, 30 * time.Minute, 30 * time.Minute, 0.75, 50 * time.Minute},
		{time.Hour, 20 * time.Minute, 20 * time.Minute, 0.99, 4*time.Minute + 50*time.Second},
		{80 * time.Minute, 4 * time.Minute, 10 * time.Minute, 0.05, time.Hour + 24*time.Minute},
	} {
		p := projection{started: t0, baseline: tc.baseline, lastProgress: t0.Add(tc.toLastProgress), x: tc.x}
		at := t0.Add(tc.updatingFor)
		if got := conventions.Remaining(t0, p.at(at).total, at); got != tc.want {
			t.Errorf("baseline %v, progress %v, updating for %v, x %v: estimate %v, want %v",
				tc.baseline, tc.toLastProgress, tc.updatingFor, tc.x, got, tc.want)
		}
	}
}

func TestBaselineDuration(t *testing.T) {
	done := func(start time.Time, d time.Duration) configv1.UpdateHistory {
		c := mt(start.Add(d))
		return configv1.UpdateHistory{State: configv1.CompletedUpdate, StartedTime: mt(start), CompletionTime: &c}
	}
	partial := configv1.UpdateHistory{State: configv1.PartialUpdate, StartedTime: mt(t0)}
	for _, tc := range []struct {
		name    string
		history []configv1.UpdateHistory
		want    time.Duration
	}{
		{"two entries use an hour", []configv1.UpdateHistory{partial, done(t0, 5*time.Hour)}, time.Hour},
		{"the last completed update before the current one", []configv1.UpdateHistory{partial, done(t0, 80*time.Minute), done(t0, 3*time.Hour)}, 80 * time.Minute},
		{"partial updates are skipped", []configv1.UpdateHistory{partial, partial, done(t0, 70*time.Minute), done(t0, 3*time.Hour)}, 70 * time.Minute},
		{"the installation does not count", []configv1.UpdateHistory{partial, partial, done(t0, 3*time.Hour)}, time.Hour},
	} {
		cv := &configv1.ClusterVersion{Status: configv1.ClusterVersionStatus{History: tc.history}}
		var s standalone
		s.fillControlPlane(cv)
		if got := baselineDuration(s.cp.History); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestControlPlaneAssessment(t *testing.T) {
	for _, tc := range []struct {
		name string
		// mcoProgressingAt is when machine-config started updating (the
		// last progress), relative to t0; completed marks every operator
		// updated.
		mcoProgressingAt time.Duration
		at               time.Duration
		completed        bool
		want             v1alpha1.ControlPlaneAssessment
		wantText         string
	}{
		{name: "on time", mcoProgressingAt: 20 * time.Minute, at: 25 * time.Minute, want: v1alpha1.ControlPlaneAssessmentProgressing},
		// 2 of 3 operators updated, the last progress 20m after the start:
		// the projection is 20m/tw(2/3) = 49.6m after the start.
		{name: "behind the projection is degraded (slow)", mcoProgressingAt: 20 * time.Minute, at: 55 * time.Minute, want: v1alpha1.ControlPlaneAssessmentDegraded, wantText: "slow"},
		{name: "far behind is degraded (stalled)", mcoProgressingAt: 20 * time.Minute, at: 70 * time.Minute, want: v1alpha1.ControlPlaneAssessmentDegraded, wantText: "stalled"},
		{name: "every operator updated while Progressing=True is completed", at: 25 * time.Minute, completed: true, want: v1alpha1.ControlPlaneAssessmentCompleted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			mco := src.ClusterOperators[2]
			if tc.completed {
				src.ClusterOperators[2] = newCO("machine-config", toV)
			} else {
				setCOCondition(mco, ccond(configv1.OperatorProgressing, configv1.ConditionTrue, "", "", t0.Add(tc.mcoProgressingAt)))
			}
			at := t0.Add(tc.at)
			res := Compute(src, at)
			mustValid(t, res)
			cv := cvOf(t, res)
			if cv.Assessment != tc.want {
				t.Fatalf("assessment = %s, want %s", cv.Assessment, tc.want)
			}
			if tc.completed {
				if cv.EstimatedCompletedAt != nil || cv.Completion != 100 || cv.CompletedAt != nil {
					t.Errorf("completed: eca %v completion %d completedAt %v", cv.EstimatedCompletedAt, cv.Completion, cv.CompletedAt)
				}
				return
			}
			e, ok := conventions.InsightRemaining(cv, at)
			if !ok || cv.EstimatedDurationNanoseconds == nil {
				t.Fatalf("no estimate: eca %v, duration %v", cv.EstimatedCompletedAt, cv.EstimatedDurationNanoseconds)
			}
			switch tc.wantText {
			case "slow":
				if e >= 0 || e < -10*time.Minute {
					t.Errorf("estimate %v is not slow", e)
				}
			case "stalled":
				if e >= -10*time.Minute {
					t.Errorf("estimate %v is not stalled", e)
				}
			default:
				if e < 0 {
					t.Errorf("estimate %v is negative", e)
				}
			}
		})
	}
}

func TestVersions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		edit       func(cv *configv1.ClusterVersion)
		wantTarget v1alpha1.Version
		wantPrev   v1alpha1.Version
		wantNoCV   bool
	}{
		{name: "an update", wantTarget: v1alpha1.Version{Version: toV}, wantPrev: v1alpha1.Version{Version: fromV}},
		{name: "a new install", edit: func(cv *configv1.ClusterVersion) { cv.Status.History = cv.Status.History[:1] },
			wantTarget: v1alpha1.Version{Version: toV},
			wantPrev:   v1alpha1.Version{Version: "<none>", Metadata: []v1alpha1.VersionMetadata{{Key: v1alpha1.InstallationMetadata}}}},
		{name: "from an incomplete update", edit: func(cv *configv1.ClusterVersion) { cv.Status.History[1].State = configv1.PartialUpdate },
			wantTarget: v1alpha1.Version{Version: toV},
			wantPrev:   v1alpha1.Version{Version: fromV, Metadata: []v1alpha1.VersionMetadata{{Key: v1alpha1.PartialMetadata}}}},
		{name: "a migration to multi-arch", edit: func(cv *configv1.ClusterVersion) { cv.Status.History[1].Version = toV },
			wantTarget: v1alpha1.Version{Version: toV, Metadata: []v1alpha1.VersionMetadata{{Key: v1alpha1.ArchitectureMetadata, Value: "Multi"}}},
			wantPrev:   v1alpha1.Version{Version: toV}},
		{name: "empty history", edit: func(cv *configv1.ClusterVersion) { cv.Status.History = nil }, wantNoCV: true},
		{name: "garbage target version", edit: func(cv *configv1.ClusterVersion) { cv.Status.History[0].Version = "not a version" }, wantNoCV: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			if tc.edit != nil {
				tc.edit(src.ClusterVersion)
			}
			res := Compute(src, now)
			mustValid(t, res)
			cv := cvOf(t, res)
			if tc.wantNoCV {
				if cv != nil {
					t.Fatal("got a ClusterVersion insight for an unrepresentable history")
				}
				if len(healthOf(res, v1alpha1.HealthCVBadHistory)) != 1 {
					t.Error("missing the health insight that explains the missing ClusterVersion insight")
				}
				return
			}
			if got, want := mustJSON(t, cv.Versions), mustJSON(t, v1alpha1.ControlPlaneUpdateVersions{Previous: tc.wantPrev, Target: tc.wantTarget}); got != want {
				t.Errorf("versions = %s, want %s", got, want)
			}
		})
	}
}

func TestFailingCondition(t *testing.T) {
	for _, tc := range []struct {
		name      string
		failing   *configv1.ClusterOperatorStatusCondition // nil: removed
		wantKind  v1alpha1.HealthKind
		wantText  string
		wantStart time.Time
	}{
		{name: "no Failing condition", wantKind: v1alpha1.HealthCVNoFailing, wantText: "Cluster Version version has no Failing condition", wantStart: t0},
		{name: "failing", failing: ptr(ccond(failingCondition, configv1.ConditionTrue, "ClusterOperatorsDegraded", "etcd is degraded", t0.Add(time.Minute))),
			wantKind: v1alpha1.HealthCVFailing, wantText: "Cluster Version version is failing to proceed with the update (ClusterOperatorsDegraded)", wantStart: t0.Add(time.Minute)},
		{name: "maybe failing", failing: ptr(ccond(failingCondition, configv1.ConditionUnknown, "Hmm", "who knows", t0.Add(time.Minute))),
			wantKind: v1alpha1.HealthCVFailing, wantText: "Cluster Version version may be failing to proceed with the update (Hmm)", wantStart: t0.Add(time.Minute)},
		{name: "failing without a message is dropped", failing: ptr(ccond(failingCondition, configv1.ConditionTrue, "X", "", t0)), wantKind: v1alpha1.HealthCVFailing},
		{name: "not failing", failing: ptr(ccond(failingCondition, configv1.ConditionFalse, "", "", t0)), wantKind: v1alpha1.HealthCVFailing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			cv := src.ClusterVersion
			cv.Status.Conditions = cv.Status.Conditions[:1]
			if tc.failing != nil {
				cv.Status.Conditions = append(cv.Status.Conditions, *tc.failing)
			}
			hs := computedHealth(t, src, tc.wantKind, tc.wantText != "")
			if tc.wantText == "" {
				return
			}
			if len(hs) != 1 || hs[0].h.Impact.Summary != tc.wantText || !hs[0].h.StartedAt.Time.Equal(tc.wantStart) {
				t.Fatalf("got %+v, want %q since %v", hs, tc.wantText, tc.wantStart)
			}
			if again := Compute(src, now.Add(time.Hour)); healthJSON(t, healthOf(again, tc.wantKind)) != healthJSON(t, hs) {
				t.Error("the insight changed with time alone")
			}
		})
	}
}

func TestPreviousUpdateNeverCompleted(t *testing.T) {
	for _, tc := range []struct {
		name      string
		history   func(h []configv1.UpdateHistory) []configv1.UpdateHistory
		completed bool
		want      string
	}{
		{name: "an older complete update is named", history: func(h []configv1.UpdateHistory) []configv1.UpdateHistory {
			h[1].State = configv1.PartialUpdate
			return append(h, configv1.UpdateHistory{State: configv1.CompletedUpdate, Version: "4.14.9", StartedTime: mt(t0.Add(-72 * time.Hour))})
		}, want: "Previous update to 4.15.0 never completed, last complete update was 4.14.9"},
		{name: "no complete update is unknown", history: func(h []configv1.UpdateHistory) []configv1.UpdateHistory {
			h[1].State = configv1.PartialUpdate
			return h
		}, want: "Previous update to 4.15.0 never completed, last complete update was unknown"},
		{name: "not reported once the control plane completed", history: func(h []configv1.UpdateHistory) []configv1.UpdateHistory {
			h[1].State = configv1.PartialUpdate
			return h
		}, completed: true},
		{name: "not reported when the previous update completed", history: func(h []configv1.UpdateHistory) []configv1.UpdateHistory { return h }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			src.ClusterVersion.Status.History = tc.history(src.ClusterVersion.Status.History)
			if tc.completed {
				src.ClusterOperators[2] = newCO("machine-config", toV)
			}
			hs := computedHealth(t, src, v1alpha1.HealthPreviousPartial, tc.want != "")
			if tc.want == "" {
				return
			}
			if len(hs) != 1 || hs[0].h.Impact.Summary != tc.want || hs[0].h.Impact.Level != v1alpha1.WarningImpactLevel ||
				!hs[0].h.StartedAt.Time.Equal(t0) {
				t.Fatalf("got %+v, want %q", hs, tc.want)
			}
			if !strings.HasPrefix(hs[0].h.Impact.Description, "Current update to "+toV) {
				t.Errorf("description %q", hs[0].h.Impact.Description)
			}
		})
	}
}
