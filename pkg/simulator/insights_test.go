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

package simulator

// These tests run the insight engine (pkg/insights) on the states the
// simulator writes as files and assert what a person watching the update
// would expect to be told. They are written against the UpdateStatus API
// fields only.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// report indexes the insights of one computed UpdateStatus.
type report struct {
	cv     *v1alpha1.ClusterVersionStatusInsight
	cos    map[string]*v1alpha1.ClusterOperatorStatusInsight
	pools  map[string]*v1alpha1.MachineConfigPoolStatusInsight
	nodes  map[string]*v1alpha1.NodeStatusInsight
	health []*v1alpha1.HealthStatusInsight
}

func newReport(st v1alpha1.UpdateStatusStatus) *report {
	r := &report{cos: map[string]*v1alpha1.ClusterOperatorStatusInsight{}, pools: map[string]*v1alpha1.MachineConfigPoolStatusInsight{}, nodes: map[string]*v1alpha1.NodeStatusInsight{}}
	seenHealth := map[string]bool{}
	addHealth := func(uid string, h *v1alpha1.HealthStatusInsight) {
		if h != nil && !seenHealth[uid] {
			seenHealth[uid] = true
			r.health = append(r.health, h)
		}
	}
	if cp := st.ControlPlane; cp != nil {
		for _, inf := range cp.Informers {
			for _, i := range inf.Insights {
				u := i.Insight
				if u.ClusterVersionStatusInsight != nil {
					r.cv = u.ClusterVersionStatusInsight
				}
				if u.ClusterOperatorStatusInsight != nil {
					r.cos[u.ClusterOperatorStatusInsight.Name] = u.ClusterOperatorStatusInsight
				}
				if u.MachineConfigPoolStatusInsight != nil {
					r.pools[u.MachineConfigPoolStatusInsight.Name] = u.MachineConfigPoolStatusInsight
				}
				if u.NodeStatusInsight != nil {
					r.nodes[u.NodeStatusInsight.Name] = u.NodeStatusInsight
				}
				addHealth(i.UID, u.HealthInsight)
			}
		}
	}
	for _, pool := range st.WorkerPools {
		for _, inf := range pool.Informers {
			for _, i := range inf.Insights {
				u := i.Insight
				if u.MachineConfigPoolStatusInsight != nil {
					r.pools[u.MachineConfigPoolStatusInsight.Name] = u.MachineConfigPoolStatusInsight
				}
				if u.NodeStatusInsight != nil {
					r.nodes[u.NodeStatusInsight.Name] = u.NodeStatusInsight
				}
				addHealth(i.UID, u.HealthInsight)
			}
		}
	}
	return r
}

// decodeCache decodes each distinct file content once: most files of a
// step are the same as the step before.
type decodeCache map[string][]runtime.Object

func (c decodeCache) decode(raw []byte) ([]runtime.Object, error) {
	if objs, ok := c[string(raw)]; ok {
		return objs, nil
	}
	objs, err := DecodeObjects(raw)
	if err == nil {
		c[string(raw)] = objs
	}
	return objs, err
}

// readState reads a step directory through the cache.
func readState(t *testing.T, cache decodeCache, dir string) *State {
	t.Helper()
	st, err := ReadStateDirWith(dir, cache.decode)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// compute runs the engine on a state read back from its files.
func compute(t *testing.T, cache decodeCache, dir string) (*report, *State) {
	t.Helper()
	st := readState(t, cache, dir)
	return newReport(insights.NewEngine().Compute(st.Sources(), st.Time).Status), st
}

func cond(conds []metav1.Condition, t string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// condIs describes a mismatch of a condition, or returns "".
func condIs(conds []metav1.Condition, t string, status metav1.ConditionStatus, reason string) string {
	c := cond(conds, t)
	switch {
	case c == nil:
		return fmt.Sprintf("no %s condition", t)
	case c.Status != status || reason != "" && c.Reason != reason:
		return fmt.Sprintf("%s=%s/%s, want %s/%s", t, c.Status, c.Reason, status, reason)
	}
	return ""
}

func summary(p *v1alpha1.MachineConfigPoolStatusInsight, t v1alpha1.NodeSummaryType) int32 {
	for _, s := range p.Summaries {
		if s.Type == t {
			return s.Count
		}
	}
	return -1
}

// problems returns the health insights at Warning level or above.
func (r *report) problems() []*v1alpha1.HealthStatusInsight {
	var out []*v1alpha1.HealthStatusInsight
	for _, h := range r.health {
		switch h.Impact.Level {
		case v1alpha1.WarningImpactLevel, v1alpha1.ErrorImpactLevel, v1alpha1.CriticalInfoLevel:
			out = append(out, h)
		}
	}
	return out
}

func (r *report) findHealth(summaryPrefix string) *v1alpha1.HealthStatusInsight {
	for _, h := range r.health {
		if strings.HasPrefix(h.Impact.Summary, summaryPrefix) {
			return h
		}
	}
	return nil
}

func describe(hs []*v1alpha1.HealthStatusInsight) string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s/%s %q", h.Impact.Level, h.Impact.Type, h.Impact.Summary))
	}
	return strings.Join(out, "; ")
}

// expectedNodePhase is what a person reads off a node's machine-config
// annotations: its update phase (the Updating condition's reason) and
// whether it is updating.
func expectedNodePhase(n *corev1.Node, versions map[string]string, target string, paused bool) (string, bool) {
	a := n.Annotations
	current, desired := a[insights.CurrentConfigAnnotation], a[insights.DesiredConfigAnnotation]
	switch {
	case versions[current] == target:
		return "Completed", false
	case versions[desired] != target:
		if paused {
			return "Paused", false
		}
		return "Pending", false
	case a[insights.MCDStateAnnotation] == "Rebooting":
		return "Rebooting", true
	case a[insights.MCDStateAnnotation] == "Done" || a[insights.DesiredDrainAnnotation] != a[insights.LastAppliedDrainAnnotation]:
		return "Draining", true
	default:
		return "Updating", true
	}
}

// TestInsightsOfAnUpdate follows a whole update, state by state, through the
// engine.
func TestInsightsOfAnUpdate(t *testing.T) {
	var written []int
	dir, s := runToFiles(t, Options{Nodes: 9, Seed: 7, WorkerPools: []PoolOptions{{Name: "worker"}, {Name: "infra", Nodes: 2}},
		OnProgress: func(p Progress) { written = append(written, p.Step) }}, true)
	o := s.Options()
	sink, _ := NewFileSink(dir)
	prevCompletion := int32(-1)
	prevPool := map[string]int32{}
	phasesChecked := map[Phase]int{}
	cache := decodeCache{}
	for _, step := range written {
		r, st := compute(t, cache, sink.StepDir(step))
		phasesChecked[st.Phase]++
		at := fmt.Sprintf("step %d (%s, %s)", step, st.Phase, st.Time.Format(time.TimeOnly))
		if r.cv == nil {
			t.Fatalf("%s: no ClusterVersion insight", at)
		}
		cv := r.cv
		versions := st.MachineConfigVersions()

		// The control plane: assessment, completion rising to 100 % from
		// the update's start.
		if st.Phase == PhaseIdle {
			prevCompletion = 0
		} else if cv.Completion < prevCompletion {
			t.Errorf("%s: completion fell from %d to %d", at, prevCompletion, cv.Completion)
		} else {
			prevCompletion = cv.Completion
		}
		switch st.Phase {
		case PhaseIdle:
			if cv.Assessment != v1alpha1.ControlPlaneAssessmentCompleted || cv.Completion != 100 || cv.Versions.Target.Version != o.FromVersion {
				t.Errorf("%s: idle cluster judged %s %d%% at %s", at, cv.Assessment, cv.Completion, cv.Versions.Target.Version)
			}
			if m := condIs(cv.Conditions, "Updating", metav1.ConditionFalse, "ClusterVersionNotProgressing"); m != "" {
				t.Errorf("%s: %s", at, m)
			}
		case PhaseAccepted, PhaseOperators, PhaseMachineConfig, PhaseNodes:
			if cv.Versions.Target.Version != o.ToVersion || cv.Versions.Previous.Version != o.FromVersion {
				t.Errorf("%s: versions %+v, want %s -> %s", at, cv.Versions, o.FromVersion, o.ToVersion)
			}
			if m := condIs(cv.Conditions, "Updating", metav1.ConditionTrue, "ClusterVersionProgressing"); m != "" {
				t.Errorf("%s: %s", at, m)
			}
			if !cv.StartedAt.Time.Equal(st.ClusterVersion.Status.History[0].StartedTime.Time) {
				t.Errorf("%s: startedAt %s, want the history's %s", at, cv.StartedAt, st.ClusterVersion.Status.History[0].StartedTime)
			}
			updated := 0
			for _, co := range st.ClusterOperators {
				if versionOf(co, "operator") == o.ToVersion && (co.Name != "machine-config" || versionOf(co, "operator-image") == mcoContainerImage(st)) {
					updated++
				}
			}
			want := int32(math.RoundToEven(float64(updated) * 100 / float64(len(st.ClusterOperators))))
			if updated == len(st.ClusterOperators) {
				if cv.Assessment != v1alpha1.ControlPlaneAssessmentCompleted {
					t.Errorf("%s: every operator updated, assessment %s", at, cv.Assessment)
				}
			} else if cv.Assessment != v1alpha1.ControlPlaneAssessmentProgressing || cv.Completion != want {
				t.Errorf("%s: a healthy update judged %s %d%%, want Progressing %d%%", at, cv.Assessment, cv.Completion, want)
			}
		case PhaseWorkerPools, PhaseCompleted:
			if cv.Assessment != v1alpha1.ControlPlaneAssessmentCompleted || cv.Completion != 100 || cv.CompletedAt == nil {
				t.Errorf("%s: control plane judged %s %d%% (completedAt %v), want Completed 100%%", at, cv.Assessment, cv.Completion, cv.CompletedAt)
			}
			if m := condIs(cv.Conditions, "Updating", metav1.ConditionFalse, "ClusterVersionNotProgressing"); m != "" {
				t.Errorf("%s: %s", at, m)
			}
		}

		// Operators: updating exactly when Progressing=True before reaching the target.
		if st.Phase != PhaseIdle {
			for _, co := range st.ClusterOperators {
				in := r.cos[co.Name]
				if in == nil {
					t.Errorf("%s: no insight for operator %s", at, co.Name)
					continue
				}
				updated := versionOf(co, "operator") == o.ToVersion && (co.Name != "machine-config" || versionOf(co, "operator-image") == mcoContainerImage(st))
				progressing := ocp.FindClusterCondition(co.Status.Conditions, "Progressing").Status == "True"
				want := map[bool]string{true: "Updated", false: "Pending"}[updated]
				status := metav1.ConditionFalse
				if !updated && progressing {
					want, status = "Progressing", metav1.ConditionTrue
				}
				if m := condIs(in.Conditions, "Updating", status, want); m != "" {
					t.Errorf("%s: operator %s: %s", at, co.Name, m)
				}
				if m := condIs(in.Conditions, "Healthy", metav1.ConditionTrue, "AsExpected"); m != "" {
					t.Errorf("%s: operator %s: %s", at, co.Name, m)
				}
			}
		}

		// Nodes: the phase a person reads off the annotations.
		target := o.ToVersion
		if st.Phase == PhaseIdle {
			target = o.FromVersion
		}
		for _, n := range st.Nodes {
			in := r.nodes[n.Name]
			if in == nil {
				t.Errorf("%s: no insight for node %s", at, n.Name)
				continue
			}
			phase, updating := expectedNodePhase(n, versions, target, false)
			status := map[bool]metav1.ConditionStatus{true: metav1.ConditionTrue, false: metav1.ConditionFalse}[updating]
			if m := condIs(in.Conditions, "Updating", status, phase); m != "" {
				t.Errorf("%s: node %s (%s): %s", at, n.Name, n.Annotations[insights.MCDStateAnnotation], m)
			}
			if in.Version != versions[n.Annotations[insights.CurrentConfigAnnotation]] {
				t.Errorf("%s: node %s version %q, want %q", at, n.Name, in.Version, versions[n.Annotations[insights.CurrentConfigAnnotation]])
			}
			if m := condIs(in.Conditions, "Degraded", metav1.ConditionFalse, ""); m != "" {
				t.Errorf("%s: node %s: %s", at, n.Name, m)
			}
		}

		// Pools: completion rising to 100 %, assessment, counts.
		for _, p := range st.MachineConfigPools {
			in := r.pools[p.Name]
			if in == nil {
				t.Errorf("%s: no insight for pool %s", at, p.Name)
				continue
			}
			total := summary(in, v1alpha1.NodesTotal)
			if total != p.Status.MachineCount {
				t.Errorf("%s: pool %s Total %d, want %d", at, p.Name, total, p.Status.MachineCount)
			}
			if st.Phase != PhaseIdle {
				if in.Completion < prevPool[p.Name] {
					t.Errorf("%s: pool %s completion fell from %d to %d", at, p.Name, prevPool[p.Name], in.Completion)
				}
				prevPool[p.Name] = in.Completion
			}
			switch {
			case in.Completion == 100:
				if in.Assessment != v1alpha1.PoolCompleted || summary(in, v1alpha1.NodesOutdated) != 0 {
					t.Errorf("%s: pool %s at 100%% judged %s with %d outdated", at, p.Name, in.Assessment, summary(in, v1alpha1.NodesOutdated))
				}
			case st.Phase.Before(PhaseNodes):
				if in.Assessment != v1alpha1.PoolPending || in.Completion != 0 {
					t.Errorf("%s: pool %s judged %s %d%% before the nodes start, want Pending 0%%", at, p.Name, in.Assessment, in.Completion)
				}
			default:
				if in.Assessment != v1alpha1.PoolProgressing && in.Assessment != v1alpha1.PoolPending {
					t.Errorf("%s: pool %s judged %s, want Progressing or Pending", at, p.Name, in.Assessment)
				}
			}
			if d := summary(in, v1alpha1.NodesDegraded); d > 0 {
				t.Errorf("%s: pool %s has %d degraded nodes", at, p.Name, d)
			}
		}

		// Health: a healthy update has nothing to report.
		if ps := r.problems(); len(ps) > 0 {
			t.Errorf("%s: health insights on a healthy update: %s", at, describe(ps))
		}
	}
	for _, ph := range []Phase{PhaseIdle, PhaseAccepted, PhaseOperators, PhaseMachineConfig, PhaseNodes, PhaseWorkerPools, PhaseCompleted} {
		if phasesChecked[ph] == 0 {
			t.Errorf("no state of phase %s was checked", ph)
		}
	}
	if prevCompletion != 100 {
		t.Errorf("completion ended at %d", prevCompletion)
	}
	for name, c := range prevPool {
		if c != 100 {
			t.Errorf("pool %s ended at %d%%", name, c)
		}
	}
}

// faultExpectation is what the engine must say about a fault.
type faultExpectation struct {
	name  string
	opts  Options
	at    Phase
	fault Fault
	// check is called for every state while the fault is active, with the
	// time since it started; it returns true once the expected insight was
	// seen (it may fail the test for insights that come too early).
	check func(t *testing.T, since time.Duration, r *report, st *State) bool
}

// operatorFaultCheck is the check of a fault on the ClusterOperator name:
// the operator's Healthy condition is False with reason healthyReason at
// once; the health insight "Cluster Operator name is <state> (<reason>)"
// appears after 5 minutes, about that operator, with an API availability
// impact (and description, unless empty) at level Warning, and Error after
// escalateAfter.
func operatorFaultCheck(name, healthyReason, state, reason, description string, escalateAfter time.Duration) func(*testing.T, time.Duration, *report, *State) bool {
	return func(t *testing.T, since time.Duration, r *report, st *State) bool {
		if m := condIs(r.cos[name].Conditions, "Healthy", metav1.ConditionFalse, healthyReason); m != "" {
			t.Errorf("after %s: %s %s", since, name, m)
		}
		h := r.findHealth(fmt.Sprintf("Cluster Operator %s is %s (%s)", name, state, reason))
		about := v1alpha1.ResourceRef{Group: "config.openshift.io", Resource: "clusteroperators", Name: name}
		switch {
		case since <= 5*time.Minute:
			if h != nil {
				t.Errorf("after %s: %s insight before 5m", since, state)
			}
			return false
		case h == nil:
			t.Errorf("after %s: no %s insight; health: %s", since, state, describe(r.health))
			return false
		case h.Scope.Type != v1alpha1.ControlPlaneScope || len(h.Scope.Resources) != 1 || h.Scope.Resources[0] != about ||
			h.Impact.Type != v1alpha1.ApiAvailabilityImpactType || (description != "" && h.Impact.Description != description):
			t.Errorf("after %s: %s insight %+v", since, state, h)
		case since <= escalateAfter && h.Impact.Level != v1alpha1.WarningImpactLevel,
			since > escalateAfter && h.Impact.Level != v1alpha1.ErrorImpactLevel:
			t.Errorf("after %s: %s insight level %s", since, state, h.Impact.Level)
		}
		return since > escalateAfter
	}
}

func TestInsightsOfFaults(t *testing.T) {
	tests := []faultExpectation{
		{
			name: "degraded operator", opts: Options{Nodes: 6, Seed: 1}, at: PhaseOperators,
			fault: Fault{Kind: FaultOperatorDegraded, Target: "kube-apiserver", For: 50 * time.Minute},
			check: operatorFaultCheck("kube-apiserver", "Degraded", "degraded", "DeploymentDegraded", "", 40*time.Minute),
		},
		{
			name: "unavailable operator", opts: Options{Nodes: 6, Seed: 2}, at: PhaseAccepted,
			fault: Fault{Kind: FaultOperatorUnavailable, Target: "etcd", For: 30 * time.Minute},
			check: operatorFaultCheck("etcd", "Unavailable", "unavailable", "UnavailableReplicas", "Missing 1 available replica(s)", 20*time.Minute),
		},
		{
			name: "drain blocked by a PodDisruptionBudget", opts: Options{Nodes: 6, Seed: 3}, at: PhaseAccepted,
			fault: Fault{Kind: FaultDrainBlocked, Target: "worker", For: 2 * time.Hour},
			check: func(t *testing.T, since time.Duration, r *report, st *State) bool {
				for _, n := range st.Nodes {
					if n.Annotations[insights.MCDStateAnnotation] != "Degraded" {
						continue
					}
					in := r.nodes[n.Name]
					if m := condIs(in.Conditions, "Degraded", metav1.ConditionTrue, ""); m != "" {
						t.Errorf("node %s: %s", n.Name, m)
					} else if c := cond(in.Conditions, "Degraded"); !strings.Contains(c.Message, "failed to drain node: "+n.Name+" after 1 hour") {
						t.Errorf("node %s Degraded message %q", n.Name, c.Message)
					}
					if m := condIs(in.Conditions, "Updating", metav1.ConditionTrue, "Draining"); m != "" {
						t.Errorf("node %s: %s", n.Name, m)
					}
					pool := r.pools["worker"]
					if pool.Assessment != v1alpha1.PoolDegraded || summary(pool, v1alpha1.NodesDegraded) != 1 {
						t.Errorf("worker pool judged %s with %d degraded", pool.Assessment, summary(pool, v1alpha1.NodesDegraded))
					}
					h := r.findHealth("Node " + n.Name + " is degraded")
					if h == nil {
						t.Errorf("no degraded-node insight; health: %s", describe(r.health))
						return false
					}
					if h.Impact.Level != v1alpha1.ErrorImpactLevel || h.Impact.Type != v1alpha1.UpdateStalledImpactType || h.Scope.Type != v1alpha1.WorkerPoolScope ||
						len(h.Scope.Resources) != 1 || h.Scope.Resources[0].Resource != "nodes" || h.Scope.Resources[0].Name != n.Name || h.Scope.Resources[0].Group != "" {
						t.Errorf("degraded-node insight %+v", h)
					}
					return true
				}
				for _, n := range st.Nodes {
					if strings.HasPrefix(n.Annotations[insights.DesiredDrainAnnotation], "drain-") && n.Annotations[insights.LastAppliedDrainAnnotation] != n.Annotations[insights.DesiredDrainAnnotation] {
						if m := condIs(r.nodes[n.Name].Conditions, "Updating", metav1.ConditionTrue, "Draining"); m != "" {
							t.Errorf("after %s: draining node %s: %s", since, n.Name, m)
						}
					}
				}
				return false
			},
		},
		{
			name: "paused pool", opts: Options{Nodes: 6, Seed: 4}, at: PhaseAccepted,
			fault: Fault{Kind: FaultPoolPaused, Target: "worker", For: 3 * time.Hour},
			check: func(t *testing.T, since time.Duration, r *report, st *State) bool {
				pool := r.pools["worker"]
				if pool.Assessment != v1alpha1.PoolExcluded || summary(pool, v1alpha1.NodesExcluded) != 3 {
					t.Errorf("after %s: paused pool judged %s with %d excluded", since, pool.Assessment, summary(pool, v1alpha1.NodesExcluded))
				}
				for _, n := range st.Nodes {
					if poolOf(t, st.MachineConfigPools, n) == "worker" {
						if m := condIs(r.nodes[n.Name].Conditions, "Updating", metav1.ConditionFalse, "Paused"); m != "" {
							t.Errorf("after %s: node %s: %s", since, n.Name, m)
						}
					}
				}
				h := r.findHealth("Outdated nodes in a paused pool 'worker' will not be updated")
				if h == nil {
					t.Errorf("after %s: no paused-pool insight; health: %s", since, describe(r.health))
					return false
				}
				if h.Impact.Level != v1alpha1.WarningImpactLevel || h.Impact.Type != v1alpha1.UpdateStalledImpactType || h.Scope.Type != v1alpha1.WorkerPoolScope ||
					len(h.Scope.Resources) != 1 || h.Scope.Resources[0] != (v1alpha1.ResourceRef{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: "worker"}) {
					t.Errorf("paused-pool insight %+v", h)
				}
				return true
			},
		},
		{
			name: "node NotReady outside the update", opts: Options{Nodes: 6, Seed: 5}, at: PhaseOperators,
			fault: Fault{Kind: FaultNodeNotReady, Target: "worker", For: 30 * time.Minute},
			check: func(t *testing.T, since time.Duration, r *report, st *State) bool {
				var name string
				for _, n := range st.Nodes {
					if nodeReady(n) == corev1.ConditionFalse {
						name = n.Name
					}
				}
				in := r.nodes[name]
				if m := condIs(in.Conditions, "Available", metav1.ConditionFalse, ""); m != "" {
					t.Errorf("after %s: node %s: %s", since, name, m)
				}
				h := r.findHealth("Node " + name + " is not ready")
				switch {
				case since <= 5*time.Minute:
					if h != nil {
						t.Errorf("after %s: NotReady insight before 5m", since)
					}
					return false
				case h == nil:
					t.Errorf("after %s: no NotReady insight; health: %s", since, describe(r.health))
					return false
				case h.Impact.Level != v1alpha1.WarningImpactLevel || h.Impact.Type != v1alpha1.UpdateSpeedImpactType || h.Scope.Type != v1alpha1.WorkerPoolScope ||
					len(h.Scope.Resources) != 1 || h.Scope.Resources[0].Name != name:
					t.Errorf("NotReady insight %+v", h)
				}
				return true
			},
		},
		{
			name: "failing ClusterVersion", opts: Options{Nodes: 6, Seed: 6}, at: PhaseOperators,
			fault: Fault{Kind: FaultClusterVersionFailing, Target: "etcd", For: 15 * time.Minute},
			check: func(t *testing.T, since time.Duration, r *report, st *State) bool {
				h := r.findHealth("Cluster Version version is failing to proceed with the update (ClusterOperatorDegraded)")
				if h == nil {
					t.Errorf("after %s: no failing insight; health: %s", since, describe(r.health))
					return false
				}
				if h.Impact.Level != v1alpha1.WarningImpactLevel || h.Impact.Type != v1alpha1.UpdateStalledImpactType || h.Scope.Type != v1alpha1.ControlPlaneScope ||
					h.Impact.Description != "Cluster operator etcd is degraded" || len(h.Scope.Resources) != 1 ||
					h.Scope.Resources[0] != (v1alpha1.ResourceRef{Group: "config.openshift.io", Resource: "clusterversions", Name: "version"}) {
					t.Errorf("failing insight %+v", h)
				}
				return true
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sink, err := NewFileSink(dir)
			if err != nil {
				t.Fatal(err)
			}
			sink.JSON = true
			last := -1
			tc.opts.Sink = sink
			tc.opts.OnProgress = func(p Progress) { last = p.Step }
			s, fc, _ := startedSimulator(t, tc.opts)
			stepUntil(t, s, fc, nil, func(st *State) bool { return !st.Phase.Before(tc.at) })
			start := fc.Now()
			if _, err := s.Inject(context.Background(), tc.fault); err != nil {
				t.Fatal(err)
			}
			end := start.Add(tc.fault.For)
			seen := false
			// Look at every written state while the fault lasts, and every
			// five minutes (one second past, so that each of the engine's
			// 5m/20m/40m thresholds is seen just crossed).
			var st *State
			read := -1
			cache := decodeCache{}
			for fc.Now().Before(end) {
				if read != last {
					st = readState(t, cache, sink.StepDir(last))
					read = last
				}
				st.Time = fc.Now()
				r := recompute(t, st)
				if tc.check(t, fc.Now().Sub(start), r, st) {
					seen = true
				}
				if t.Failed() {
					return
				}
				res, err := s.Step(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				since := fc.Now().Sub(start)
				next := start.Add(since.Truncate(5*time.Minute) + 5*time.Minute + time.Second)
				if !res.Next.IsZero() && res.Next.Before(next) {
					next = res.Next
				}
				fc.SetTime(next)
			}
			if !seen {
				t.Errorf("the engine never reported the fault as expected")
			}
			if err := s.RunVirtual(context.Background(), fc, 0); err != nil {
				t.Fatalf("after the fault: %v", err)
			}
			r, st := compute(t, cache, sink.StepDir(last))
			if ps := r.problems(); len(ps) > 0 || st.Phase != PhaseCompleted || r.cv.Assessment != v1alpha1.ControlPlaneAssessmentCompleted {
				t.Errorf("after the fault and the update: phase %s, assessment %s, health %s", st.Phase, r.cv.Assessment, describe(ps))
			}
		})
	}
}

// recompute evaluates a state at its Time (which the caller may have moved
// past the step that wrote it, as a server re-evaluates on a timer).
func recompute(t *testing.T, st *State) *report {
	t.Helper()
	return newReport(insights.NewEngine().Compute(st.Sources(), st.Time).Status)
}

// TestHealthyUpdatesStayOnPace checks the simulator's pacing against the
// engine's estimator: a healthy update must never be judged behind its
// projection (Degraded, oc's "Progressing - Slow" or "Stalled"), whatever
// the seed and the speed.
func TestHealthyUpdatesStayOnPace(t *testing.T) {
	for _, speed := range []float64{1, 60, 3600} {
		for seed := int64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("speed %g seed %d", speed, seed), func(t *testing.T) {
				s, fc, _ := startedSimulator(t, Options{Nodes: 6, Seed: seed, Speed: speed, Sink: discardSink{}})
				stepUntil(t, s, fc, func(st *State) {
					r := recompute(t, st)
					if a := r.cv.Assessment; a != v1alpha1.ControlPlaneAssessmentProgressing && a != v1alpha1.ControlPlaneAssessmentCompleted {
						t.Fatalf("%s (%s): a healthy update judged %s (estimated completion %v)", st.Time.Format(time.TimeOnly), st.Phase, a, r.cv.EstimatedCompletedAt)
					}
				}, nil)
			})
		}
	}
}

// discardSink drops every write.
type discardSink struct{}

func (discardSink) Write(context.Context, *Batch) error { return nil }
