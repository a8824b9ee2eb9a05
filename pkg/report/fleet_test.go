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

package report

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// The hosted clusters of the fleet tests, variations of the hand-written
// testdata/hosted/updating.yaml (clusters/demo, whose drain is held past its
// timeout: an Error Health insight of type Update Stalled).

// fleetMember returns the demo hosted cluster as ns/name, changed by edits.
func fleetMember(t *testing.T, ns, name string, edits ...func(*v1alpha1.HostedClusterUpdateStatus)) v1alpha1.HostedClusterUpdateStatus {
	t.Helper()
	obj := loadHosted(t, "updating")
	obj.Namespace, obj.Name = ns, name
	for _, edit := range edits {
		edit(obj)
	}
	return *obj
}

// fleetCV is obj's ClusterVersion insight.
func fleetCV(obj *v1alpha1.HostedClusterUpdateStatus) *v1alpha1.ClusterVersionStatusInsight {
	return obj.Status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight
}

// withoutDrainHold drops the held drain's Health insight.
func withoutDrainHold(obj *v1alpha1.HostedClusterUpdateStatus) {
	inf := &obj.Status.WorkerPools[0].Informers[0]
	inf.Insights = slices.DeleteFunc(inf.Insights, func(in v1alpha1.WorkerPoolInsight) bool {
		return strings.HasPrefix(in.UID, "health-machine-drain")
	})
}

// lateBy5m makes the control plane's estimate 40m: at hostedNow, 45m after
// the start, it is past it (Progressing - Slow).
func lateBy5m(obj *v1alpha1.HostedClusterUpdateStatus) {
	d := int64(40 * time.Minute)
	cv := fleetCV(obj)
	cv.EstimatedDurationNanoseconds = &d
	at := metav1.NewTime(cv.StartedAt.Add(40 * time.Minute))
	cv.EstimatedCompletedAt = &at
}

// lateBy1h makes the control plane's estimate 20m: at hostedNow it is more
// than ten minutes past it (Stalled).
func lateBy1h(obj *v1alpha1.HostedClusterUpdateStatus) {
	d := int64(20 * time.Minute)
	fleetCV(obj).EstimatedDurationNanoseconds = &d
}

// controlPlaneDone completes the control plane; the NodePools go on.
func controlPlaneDone(obj *v1alpha1.HostedClusterUpdateStatus) {
	cv := fleetCV(obj)
	cv.Assessment, cv.Completion = v1alpha1.ControlPlaneAssessmentCompleted, 100
	done := metav1.NewTime(hostedNow.Add(-5 * time.Minute))
	cv.CompletedAt, cv.EstimatedCompletedAt, cv.EstimatedDurationNanoseconds = &done, nil, nil
	cv.Conditions[0].Status = metav1.ConditionFalse
	obj.Status.ControlPlane.Conditions[0].Status = metav1.ConditionFalse
	// The components' rollout is over: only the worker-pool insights stay.
	inf := &obj.Status.ControlPlane.Informers[0]
	inf.Insights = slices.DeleteFunc(inf.Insights, func(in v1alpha1.ControlPlaneInsight) bool { return in.Insight.HealthInsight != nil })
}

// allDone completes the control plane and every NodePool.
func allDone(obj *v1alpha1.HostedClusterUpdateStatus) {
	controlPlaneDone(obj)
	withoutDrainHold(obj)
	for p := range obj.Status.WorkerPools {
		for i := range obj.Status.WorkerPools[p].Informers[0].Insights {
			mcp := obj.Status.WorkerPools[p].Informers[0].Insights[i].Insight.MachineConfigPoolStatusInsight
			if mcp == nil {
				continue
			}
			mcp.Assessment, mcp.Completion = v1alpha1.PoolCompleted, 100
			for s := range mcp.Summaries {
				if mcp.Summaries[s].Type == v1alpha1.NodesOutdated || mcp.Summaries[s].Type == v1alpha1.NodesProgressing ||
					mcp.Summaries[s].Type == v1alpha1.NodesDraining {
					mcp.Summaries[s].Count = 0
				}
			}
		}
	}
}

// withoutVersion drops the ClusterVersion insight: the control plane's
// progress is unknown.
func withoutVersion(obj *v1alpha1.HostedClusterUpdateStatus) {
	obj.Status.ControlPlane.Informers[0].Insights = obj.Status.ControlPlane.Informers[0].Insights[1:]
}

// outage adds a Critical Health insight that does not stall the update.
func outage(obj *v1alpha1.HostedClusterUpdateStatus) {
	inf := &obj.Status.ControlPlane.Informers[0]
	inf.Insights = append(inf.Insights, v1alpha1.ControlPlaneInsight{UID: "health-outage", Insight: v1alpha1.ControlPlaneInsightUnion{
		Type: v1alpha1.HealthInsightType,
		HealthInsight: &v1alpha1.HealthStatusInsight{
			StartedAt: metav1.NewTime(hostedNow.Add(-time.Minute)),
			Scope:     v1alpha1.InsightScope{Type: v1alpha1.ControlPlaneScope},
			Impact: v1alpha1.InsightImpact{Level: v1alpha1.CriticalInfoLevel, Type: v1alpha1.ApplicationOutageImpactType,
				Summary: "Ingress is down"},
			Remediation: v1alpha1.InsightRemediation{Reference: "https://example.com/ingress"},
		},
	}})
}

// TestFleetGolden renders fleets and compares them with the golden files
// testdata/fleet/*.output (go test -run TestFleetGolden -update rewrites
// them; read the diff before committing it).
func TestFleetGolden(t *testing.T) {
	tests := []struct {
		name  string
		fleet []v1alpha1.HostedClusterUpdateStatus
	}{{
		name: "mixed",
		fleet: []v1alpha1.HostedClusterUpdateStatus{
			fleetMember(t, "team-a", "calm", withoutDrainHold),
			fleetMember(t, "team-b", "done", allDone),
			fleetMember(t, "team-a", "late", withoutDrainHold, lateBy5m),
			fleetMember(t, "team-c", "blind", withoutDrainHold, withoutVersion),
			fleetMember(t, "team-b", "nodes", controlPlaneDone, withoutDrainHold),
			fleetMember(t, "clusters", "demo"),
			fleetMember(t, "team-a", "stuck", withoutDrainHold, lateBy1h),
			fleetMember(t, "team-c", "done", allDone),
		},
	}, {
		name: "all-completed",
		fleet: []v1alpha1.HostedClusterUpdateStatus{
			fleetMember(t, "team-a", "one", allDone), fleetMember(t, "team-b", "two", allDone), fleetMember(t, "team-c", "three", allDone),
		},
	}, {
		// The held drain comes first: before a hosted cluster named
		// earlier, and before one whose worst insight is more severe but
		// does not stall its update.
		name: "held-drain-first",
		fleet: []v1alpha1.HostedClusterUpdateStatus{
			fleetMember(t, "aaa", "outage", withoutDrainHold, outage),
			fleetMember(t, "aaa", "calm", withoutDrainHold),
			fleetMember(t, "zzz", "held", controlPlaneDone),
			fleetMember(t, "aaa", "done", allDone),
		},
	}, {
		// Past five, the hosted clusters not updating are only counted.
		name: "many-completed",
		fleet: func() []v1alpha1.HostedClusterUpdateStatus {
			out := []v1alpha1.HostedClusterUpdateStatus{fleetMember(t, "team-a", "calm", withoutDrainHold)}
			for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
				out = append(out, fleetMember(t, "done", name, allDone))
			}
			return out
		}(),
	}, {
		name: "empty",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := RenderFleet(&got, tc.fleet, hostedNow); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "fleet", tc.name+".output"), got.Bytes())
		})
	}
}

// TestFleetOrder checks the order of the rows, whatever the order of the
// objects: every permutation of a fleet renders the same.
func TestFleetOrder(t *testing.T) {
	fleet := []v1alpha1.HostedClusterUpdateStatus{
		fleetMember(t, "a", "calm", withoutDrainHold),
		fleetMember(t, "b", "held", controlPlaneDone),
		fleetMember(t, "c", "late", withoutDrainHold, lateBy5m),
		fleetMember(t, "d", "blind", withoutDrainHold, withoutVersion),
		fleetMember(t, "e", "outage", withoutDrainHold, outage),
	}
	want := []string{"b/held", "c/late", "d/blind", "e/outage", "a/calm"}
	for i := range fleet {
		rotated := append(slices.Clone(fleet[i:]), fleet[:i]...)
		var out bytes.Buffer
		if err := RenderFleet(&out, rotated, hostedNow); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
			got = append(got, strings.Fields(line)[0])
		}
		if !slices.Equal(got, want) {
			t.Errorf("rotation %d: rows %v, want %v\n%s", i, got, want, out.String())
		}
	}
}
