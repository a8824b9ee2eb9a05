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
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Thresholds of docs/insights.md#time.
const (
	coUnavailableWarn = 5 * time.Minute
	coUnavailableErr  = 20 * time.Minute
	coDegradedWarn    = 5 * time.Minute
	coDegradedErr     = 40 * time.Minute
	trustProgressMin  = 5 * time.Minute
)

// cvFacts are the control plane's facts every other rule reads.
type cvFacts struct {
	cp          *ControlPlane
	progressing *metav1.Condition
	// latest is history[0].version, what node versions are compared with.
	latest string
	// target is status.desired.version, what operator versions are compared with.
	target string
	// multiArchHistory: history looks like a migration to multi-arch (3.2).
	multiArchHistory bool
	// multiArchInProgress additionally requires Progressing=True (2.2).
	multiArchInProgress bool
	// updateStartedAt is history[0].startedTime, or the Progressing LTT.
	updateStartedAt time.Time
	changed         time.Time
}

func newCVFacts(cp *ControlPlane) cvFacts {
	f := cvFacts{cp: cp}
	if cp == nil {
		return f
	}
	f.progressing = cp.Progressing
	f.target = cp.DesiredVersion
	h := cp.History
	if len(h) > 0 {
		f.latest = h[0].Version
		f.updateStartedAt = h[0].StartedAt
	} else if f.progressing != nil {
		f.updateStartedAt = f.progressing.LastTransitionTime.Time
	}
	f.multiArchHistory = len(h) > 1 && h[0].Version == h[1].Version && h[0].Image != h[1].Image
	f.multiArchInProgress = f.multiArchHistory && f.progressing != nil && f.progressing.Status == metav1.ConditionTrue
	f.changed = cp.Changed
	return f
}

// coFacts are one platform ClusterOperator's facts
// (docs/insights.md#operator-counts).
type coFacts struct {
	co                               *Component
	updated                          bool
	available, degraded, progressing *metav1.Condition
	changed                          time.Time
}

func newCOFacts(co *Component, target string) coFacts {
	f := coFacts{co: co, available: co.Available, degraded: co.Degraded, progressing: co.Progressing, changed: co.Changed}
	f.updated = !co.RolloutPending && slices.Contains(co.Versions, target)
	return f
}

// coInsight builds the ClusterOperator status insight
// (docs/insights.md#clusteroperator-insights).
func coInsight(f *coFacts) *v1alpha1.ClusterOperatorStatusInsight {
	name := f.co.Name
	changed := f.changed
	var updating metav1.Condition
	progressingAt := changed
	progressingMsg := ""
	if p := f.progressing; p != nil {
		progressingAt = firstSet(p.LastTransitionTime.Time, changed)
		progressingMsg = conventions.EncodeReasonMessage(p.Reason, p.Message)
	}
	typ := string(v1alpha1.ClusterOperatorStatusInsightUpdating)
	switch {
	case f.updated:
		updating = condition(typ, metav1.ConditionFalse, string(v1alpha1.ClusterOperatorUpdatingReasonUpdated), progressingMsg, progressingAt)
	case f.progressing == nil:
		updating = condition(typ, metav1.ConditionUnknown, string(v1alpha1.ClusterOperatorUpdatingCannotDetermine),
			"The operator has not reached the target version and reports no Progressing condition", changed)
	case f.progressing.Status == metav1.ConditionTrue:
		updating = condition(typ, metav1.ConditionTrue, string(v1alpha1.ClusterOperatorUpdatingReasonProgressing), progressingMsg, progressingAt)
	case f.progressing.Status == metav1.ConditionFalse:
		updating = condition(typ, metav1.ConditionFalse, string(v1alpha1.ClusterOperatorUpdatingReasonPending), progressingMsg, progressingAt)
	default:
		updating = condition(typ, metav1.ConditionUnknown, string(v1alpha1.ClusterOperatorUpdatingCannotDetermine), progressingMsg, progressingAt)
	}

	htyp := string(v1alpha1.ClusterOperatorStatusInsightHealthy)
	var healthy metav1.Condition
	a, d := f.available, f.degraded
	switch {
	case a == nil:
		healthy = condition(htyp, metav1.ConditionUnknown, string(v1alpha1.ClusterOperatorHealthyReasonCannotDetermine),
			"The cluster operator reports no Available condition, so it counts as unavailable", changed)
	case a.Status == metav1.ConditionFalse:
		healthy = condition(htyp, metav1.ConditionFalse, string(v1alpha1.ClusterOperatorHealthyReasonUnavailable), a.Message,
			firstSet(a.LastTransitionTime.Time, changed))
	case a.Status != metav1.ConditionTrue:
		healthy = condition(htyp, metav1.ConditionUnknown, string(v1alpha1.ClusterOperatorHealthyReasonCannotDetermine),
			conventions.EncodeReasonMessage(a.Reason, a.Message), firstSet(a.LastTransitionTime.Time, changed))
	case d != nil && d.Status == metav1.ConditionTrue:
		healthy = condition(htyp, metav1.ConditionFalse, string(v1alpha1.ClusterOperatorHealthyReasonDegraded), d.Message,
			firstSet(d.LastTransitionTime.Time, changed))
	default:
		at := a.LastTransitionTime.Time
		if d != nil {
			at = latest(at, d.LastTransitionTime.Time)
		}
		healthy = condition(htyp, metav1.ConditionTrue, string(v1alpha1.ClusterOperatorHealthyReasonAsExpected), "", firstSet(at, changed))
	}
	return &v1alpha1.ClusterOperatorStatusInsight{
		Name:       name,
		Resource:   f.co.ref(),
		Conditions: []metav1.Condition{updating, healthy},
	}
}

// coHealth returns the operator health insights of
// docs/insights.md#health-rules and the next instant at which their presence or
// level changes by time alone (zero when none).
func coHealth(f *coFacts, now time.Time) ([]*healthItem, time.Time) {
	var out []*healthItem
	var next time.Time
	for _, r := range []struct {
		cond           *metav1.Condition
		bad            metav1.ConditionStatus
		warn, errAfter time.Duration
		kind           v1alpha1.HealthKind
		state, runbook string
	}{
		{f.available, metav1.ConditionFalse, coUnavailableWarn, coUnavailableErr, v1alpha1.HealthCOUnavailable, "unavailable", refCODown},
		{f.degraded, metav1.ConditionTrue, coDegradedWarn, coDegradedErr, v1alpha1.HealthCODegraded, "degraded", refCODeg},
	} {
		if r.cond == nil || r.cond.Status != r.bad {
			continue
		}
		since := r.cond.LastTransitionTime.Time
		level, show, n := thresholdLevel(since, now, r.warn, r.errAfter)
		next = earliest(next, n)
		if !show {
			continue
		}
		desc := r.cond.Message
		if desc == "" {
			desc = "<no message>"
		}
		ref := f.co.ref()
		if h := newHealth(r.kind, f.co.Name, &ref, v1alpha1.ControlPlaneScope, since, level, v1alpha1.ApiAvailabilityImpactType,
			fmt.Sprintf("Cluster Operator %s is %s (%s)", f.co.Name, r.state, r.cond.Reason), desc, r.runbook); h != nil {
			h.acquired = f.changed
			out = append(out, h)
		}
	}
	return out, next
}

// thresholdLevel applies oc's strict thresholds: shown once now is after
// since+warn, an Error once after since+errAfter. next is the first instant
// at which the answer changes, zero when it never will.
func thresholdLevel(since, now time.Time, warn, errAfter time.Duration) (level v1alpha1.InsightImpactLevel, show bool, next time.Time) {
	switch {
	case now.After(since.Add(errAfter)):
		return v1alpha1.ErrorImpactLevel, true, time.Time{}
	case now.After(since.Add(warn)):
		return v1alpha1.WarningImpactLevel, true, since.Add(errAfter).Add(time.Nanosecond)
	default:
		return v1alpha1.WarningImpactLevel, false, since.Add(warn).Add(time.Nanosecond)
	}
}

// earliest returns the earlier of two instants, ignoring zero ones.
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero():
		return a
	case b.Before(a):
		return b
	}
	return a
}

// timewiseComplete maps the fraction of updated operators to the fraction of
// the update's duration that has typically passed
// (docs/insights.md#estimated-completion).
func timewiseComplete(x float64) float64 {
	x2, x3, x4 := x*x, x*x*x, x*x*x*x
	switch {
	case x < 0.25:
		return -0.03078788 + 2.62886*x - 3.823954*x2
	case x < 0.9:
		return 0.1851215 + 1.64994*x - 4.676898*x2 + 5.451824*x3 - 2.125286*x4
	default:
		return 25053.32 - 107394.3*x + 172527.2*x2 - 123107*x3 + 32921.81*x4
	}
}

// baselineDuration is the duration of the last completed update before the
// current one (not counting the installation), or an hour.
func baselineDuration(h []Update) time.Duration {
	if len(h) < 3 {
		return time.Hour
	}
	for _, item := range h[1 : len(h)-1] {
		if item.State == UpdateCompleted && item.CompletedAt != nil {
			return item.CompletedAt.Sub(item.StartedAt)
		}
	}
	return time.Hour
}

// projection computes the control plane's estimate: its total duration
// (estimatedDurationNanoseconds) and the update's start plus that duration at whole
// seconds (estimatedCompletedAt) (docs/insights.md#estimated-completion).
type projection struct {
	started      time.Time
	baseline     time.Duration
	lastProgress time.Time // zero when oc would use "now"
	x            float64
}

// estimate is the projection evaluated at one instant.
type estimate struct {
	total     time.Duration // to the nanosecond
	projected time.Time     // started + total, at whole seconds
}

// at evaluates the projection at now. When the total grows with the clock
// (dependsOnNow), it is published at whole seconds, like the projection, so
// that the object changes at most once a second.
func (p projection) at(now time.Time) estimate {
	last := p.lastProgress
	if !last.After(p.started) {
		last = now
	}
	toLast := last.Sub(p.started)
	total := p.baseline.Seconds()
	if tw := timewiseComplete(p.x); p.x > 0 && tw > 0 && toLast > trustProgressMin {
		total = toLast.Seconds() / tw
	}
	const limit = 50 * 365 * 24 * 3600.0
	total = math.Max(-limit, math.Min(limit, total))
	e := estimate{total: time.Duration(math.Round(total * float64(time.Second)))}
	e.projected = p.started.Add(e.total).Round(time.Second)
	if p.dependsOnNow() {
		e.total = e.projected.Sub(p.started)
	}
	return e
}

// dependsOnNow reports whether at(now) changes with now (oc takes "now" as
// the last progress when no operator progressed since the update started).
func (p projection) dependsOnNow() bool { return !p.lastProgress.After(p.started) }

// controlPlaneSignature is everything in the ClusterVersion insight that
// depends on the clock.
type controlPlaneSignature struct {
	estimate
	negative bool
}

// signature evaluates the time-dependent part of the control-plane verdict.
func (p projection) signature(now time.Time, completedAt *time.Time) controlPlaneSignature {
	e := p.at(now)
	ref := now
	if completedAt != nil {
		ref = *completedAt
	}
	return controlPlaneSignature{estimate: e, negative: conventions.Remaining(p.started, e.total, ref) < 0}
}

// nextChange finds the first instant after now at which the signature
// changes, zero when it never does.
func (p projection) nextChange(now time.Time, completedAt *time.Time) time.Time {
	cur := p.signature(now, completedAt)
	var hints []time.Time
	if !cur.negative {
		// Remaining turns negative 1.2 s after the estimated total passes.
		hints = append(hints, p.started.Add(cur.total).Add(1200*time.Millisecond))
	}
	if p.dependsOnNow() {
		hints = append(hints, p.started.Add(trustProgressMin).Add(time.Nanosecond))
		if tw := timewiseComplete(p.x); p.x > 0 && tw > 0 && now.Sub(p.started) > trustProgressMin {
			// The projection moves by 1/tw per second; it next rounds to
			// another second when it passes the next half second.
			boundary := cur.projected.Add(500 * time.Millisecond)
			hints = append(hints, p.started.Add(time.Duration(float64(boundary.Sub(p.started))*tw)))
		}
	}
	var best time.Time
	for _, h := range hints {
		if t := refineChange(now, h, func(t time.Time) bool { return p.signature(t, completedAt) != cur }); !t.IsZero() {
			best = earliest(best, t)
		}
	}
	return best
}

// refineChange returns the first instant in (now, ...] at which changed
// becomes true, searching from the hint: when the hint is too early it
// doubles the distance (a few times), then it bisects to the nanosecond.
// It returns zero when no change is found.
func refineChange(now, hint time.Time, changed func(time.Time) bool) time.Time {
	if !hint.After(now) {
		hint = now.Add(time.Nanosecond)
	}
	hi := hint
	for i := 0; !changed(hi); i++ {
		if i == 8 {
			return time.Time{}
		}
		hi = now.Add(2 * hi.Sub(now))
	}
	lo := now // changed(lo) is false
	for hi.Sub(lo) > time.Nanosecond {
		mid := lo.Add(hi.Sub(lo) / 2)
		if changed(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// coEntry is the memory kept for one ClusterOperator.
type coEntry struct {
	rv, target string
	pending    bool
	facts      coFacts
	insight    *v1alpha1.ClusterOperatorStatusInsight
	seen       uint64
}

// operatorSet is the evaluated platform ClusterOperators, by name.
type operatorSet struct {
	facts    []coFacts
	insights []coItem
	health   []*healthItem
}

// coItem is a ClusterOperator insight on its way into the object.
type coItem struct {
	uid      string
	acquired time.Time
	insight  *v1alpha1.ClusterOperatorStatusInsight
}

// operators evaluates the control plane's components, reusing the work for
// components whose resourceVersion and inputs did not change.
func (e *Engine) operators(components []*Component, target string) operatorSet {
	list := sortedByName(components, func(co *Component) (string, types.UID) { return co.Name, co.UID })
	var out operatorSet
	seen := 0
	for i, co := range list {
		if i > 0 && list[i-1].Name == co.Name {
			continue
		}
		key := co.Name
		ent := e.cos[key]
		if ent == nil {
			ent = &coEntry{}
			e.cos[key] = ent
		}
		if ent.seen != e.gen {
			seen++
		}
		ent.seen = e.gen
		if ent.facts.co == nil || ent.facts.co.Name != co.Name || co.ResourceVersion == "" ||
			ent.rv != co.ResourceVersion || ent.target != target || ent.pending != co.RolloutPending {
			ent.rv, ent.target, ent.pending = co.ResourceVersion, target, co.RolloutPending
			ent.facts = newCOFacts(co, target)
			ent.insight = nil
			if isOperatorNameValid(co.Name) {
				ent.insight = coInsight(&ent.facts)
			}
		}
		out.facts = append(out.facts, ent.facts)
		if ent.insight != nil {
			out.insights = append(out.insights, coItem{uid: refUID(uidPrefixCO, co.ref()), acquired: ent.facts.changed, insight: ent.insight})
		} else if h := unrepresentableOperator(&ent.facts); h != nil {
			out.health = append(out.health, h)
		}
	}
	if seen != len(e.cos) {
		for k, ent := range e.cos {
			if ent.seen != e.gen {
				delete(e.cos, k)
			}
		}
	}
	return out
}

// isOperatorNameValid reports whether a ClusterOperator insight can carry the
// name (docs/api-decisions.md#insight-engine, inputs oc rejects).
func isOperatorNameValid(name string) bool {
	return conventions.IsOperatorName(name) && conventions.IsDNSSubdomain(name)
}

// unrepresentableOperator reports a platform operator the API cannot
// describe (docs/insights.md#inputs-oc-rejects).
func unrepresentableOperator(f *coFacts) *healthItem {
	name := f.co.Name
	h := newHealth(v1alpha1.HealthUnrepresentable, "co/"+name, nil, v1alpha1.ControlPlaneScope, time.Time{},
		v1alpha1.InfoImpactLevel, v1alpha1.UnknownImpactType,
		"A cluster operator has a name the API cannot carry, it is left out",
		fmt.Sprintf("ClusterOperator %q is counted, but no insight describes it: insight names must match ^[a-z0-9-]+$ and have at most 64 characters.",
			conventions.Short(name, 300)), refAPIIntro)
	if h != nil {
		h.acquired = f.changed
	}
	return h
}
