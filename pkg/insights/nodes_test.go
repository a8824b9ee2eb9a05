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

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// nodeWant is what a test expects of worker-0's insight.
type nodeWant struct {
	phase     v1alpha1.NodeUpdatingReason
	updating  bool
	available string // "" = True, else the False reason
	degraded  bool
	est       string // "?" none, "-" zero, else a duration
	version   string
	health    []v1alpha1.HealthKind
}

func estText(d *metav1.Duration) string {
	switch {
	case d == nil:
		return "?"
	case d.Duration == 0:
		return "-"
	}
	return d.Duration.String()
}

func TestNodeRules(t *testing.T) {
	notReady := func(age time.Duration) func(*Sources) {
		return func(s *Sources) {
			setNodeCondition(s.Nodes[3], corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Message: `kubelet "stopped"`,
				LastTransitionTime: mt(now.Add(-age))})
		}
	}
	for _, tc := range []struct {
		name string
		edit func(s *Sources)
		want nodeWant
	}{
		{name: "pending", edit: func(*Sources) {},
			want: nodeWant{phase: v1alpha1.NodeUpdatePending, est: "?", version: fromV}},
		{name: "updated", edit: func(s *Sources) { updated(s.Nodes[3]) },
			want: nodeWant{phase: v1alpha1.NodeCompleted, est: "-", version: toV}},
		{name: "updating: the daemon works, unavailable but not reported", edit: func(s *Sources) { updating(s.Nodes[3], MCDStateWorking) },
			want: nodeWant{phase: v1alpha1.NodeUpdating, updating: true, available: NodeAvailableReasonMCDProcessing, est: "5m0s", version: fromV}},
		{name: "rebooting", edit: func(s *Sources) { updating(s.Nodes[3], MCDStateRebooting) },
			want: nodeWant{phase: v1alpha1.NodeRebooting, updating: true, available: NodeAvailableReasonMCDProcessing, est: "5m0s", version: fromV}},
		{name: "draining", edit: func(s *Sources) {
			updating(s.Nodes[3], MCDStateWorking).Annotations[DesiredDrainAnnotation] = "drain-rendered-worker-new"
		}, want: nodeWant{phase: v1alpha1.NodeDraining, updating: true, available: NodeAvailableReasonMCDProcessing, est: "10m0s", version: fromV}},
		{name: "daemon still Done with drain annotations counts as draining", edit: func(s *Sources) { updating(s.Nodes[3], MCDStateDone) },
			want: nodeWant{phase: v1alpha1.NodeDraining, updating: true, available: NodeAvailableReasonMCDProcessing, est: "10m0s", version: fromV}},
		{name: "daemon still Done without drain annotations shows Updated while updating", edit: func(s *Sources) {
			n := updating(s.Nodes[3], MCDStateDone)
			delete(n.Annotations, DesiredDrainAnnotation)
			delete(n.Annotations, LastAppliedDrainAnnotation)
		}, want: nodeWant{phase: v1alpha1.NodeCompleted, updating: true, available: NodeAvailableReasonMCDProcessing, est: "-", version: fromV}},
		{name: "paused pool", edit: func(s *Sources) { s.MachineConfigPools[1].Spec.Paused = true },
			want: nodeWant{phase: v1alpha1.NodePaused, est: "-", version: fromV, health: []v1alpha1.HealthKind{v1alpha1.HealthPoolPaused}}},
		{name: "paused pool keeps an updating node updating", edit: func(s *Sources) {
			s.MachineConfigPools[1].Spec.Paused = true
			updating(s.Nodes[3], MCDStateWorking)
		}, want: nodeWant{phase: v1alpha1.NodeUpdating, updating: true, available: NodeAvailableReasonMCDProcessing, est: "5m0s", version: fromV,
			health: []v1alpha1.HealthKind{v1alpha1.HealthPoolPaused}}},
		{name: "not ready for under 5m is not serious", edit: notReady(5*time.Minute - time.Second),
			want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: v1alpha1.NodeAvailableReasonNotReady, est: "?", version: fromV}},
		{name: "not ready for 5m is serious", edit: notReady(5 * time.Minute),
			want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: v1alpha1.NodeAvailableReasonNotReady, est: "?", version: fromV,
				health: []v1alpha1.HealthKind{v1alpha1.HealthNodeUnavailable}}},
		{name: "not ready and updated shows no estimate", edit: func(s *Sources) { notReady(time.Hour)(s); updated(s.Nodes[3]) },
			want: nodeWant{phase: v1alpha1.NodeCompleted, available: v1alpha1.NodeAvailableReasonNotReady, est: "-", version: toV,
				health: []v1alpha1.HealthKind{v1alpha1.HealthNodeUnavailable}}},
		{name: "disk pressure for under a minute is not serious", edit: func(s *Sources) {
			setNodeCondition(s.Nodes[3], corev1.NodeCondition{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue, LastTransitionTime: mt(now.Add(-59 * time.Second))})
		}, want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: NodeAvailableReasonDiskPressure, est: "?", version: fromV}},
		{name: "disk pressure for a minute is serious", edit: func(s *Sources) {
			setNodeCondition(s.Nodes[3], corev1.NodeCondition{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue, LastTransitionTime: mt(now.Add(-time.Minute))})
		}, want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: NodeAvailableReasonDiskPressure, est: "?", version: fromV,
			health: []v1alpha1.HealthKind{v1alpha1.HealthNodeUnavailable}}},
		{name: "network unavailable for a minute is serious", edit: func(s *Sources) {
			setNodeCondition(s.Nodes[3], corev1.NodeCondition{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionTrue, LastTransitionTime: mt(now.Add(-2 * time.Minute))})
		}, want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: NodeAvailableReasonNetworkUnavailable, est: "?", version: fromV,
			health: []v1alpha1.HealthKind{v1alpha1.HealthNodeUnavailable}}},
		{name: "unschedulable is never serious", edit: func(s *Sources) { s.Nodes[3].Unschedulable = true },
			want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: v1alpha1.NodeAvailableReasonUnschedulable, est: "?", version: fromV}},
		{name: "degraded", edit: func(s *Sources) {
			s.Nodes[3].Annotations[MCDStateAnnotation] = MCDStateDegraded
			s.Nodes[3].Annotations[MCDReasonAnnotation] = "boom"
		}, want: nodeWant{phase: v1alpha1.NodeUpdatePending, degraded: true, est: "?", version: fromV, health: []v1alpha1.HealthKind{v1alpha1.HealthNodeDegraded}}},
		{name: "degraded without a reason reports no insight", edit: func(s *Sources) { s.Nodes[3].Annotations[MCDStateAnnotation] = MCDStateUnreconcilable },
			want: nodeWant{phase: v1alpha1.NodeUpdatePending, degraded: true, est: "?", version: fromV}},
		{name: "degraded without a desired config is not degraded", edit: func(s *Sources) {
			s.Nodes[3].Annotations[MCDStateAnnotation] = MCDStateDegraded
			delete(s.Nodes[3].Annotations, DesiredConfigAnnotation)
		}, want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: NodeAvailableReasonMCDProcessing, est: "?", version: fromV}},
		{name: "degraded and seriously unavailable", edit: func(s *Sources) {
			notReady(time.Hour)(s)
			s.Nodes[3].Annotations[MCDStateAnnotation] = MCDStateDegraded
			s.Nodes[3].Annotations[MCDReasonAnnotation] = "boom"
		}, want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: v1alpha1.NodeAvailableReasonNotReady, degraded: true, est: "?", version: fromV,
			health: []v1alpha1.HealthKind{v1alpha1.HealthNodeDegraded, v1alpha1.HealthNodeUnavailable}}},
		{name: "layered pool: a node without the pool's image is not unavailable", edit: func(s *Sources) {
			notReady(time.Hour)(s)
			s.MachineConfigPools[1].Labels = map[string]string{LayeringEnabledLabel: ""}
			s.MachineConfigPools[1].Annotations = map[string]string{NewestImageEquivalentConfigAnnotation: "img@sha256:1"}
		}, want: nodeWant{phase: v1alpha1.NodeUpdatePending, est: "?", version: fromV}},
		{name: "layered pool: a node with the pool's image can be unavailable", edit: func(s *Sources) {
			notReady(time.Hour)(s)
			s.MachineConfigPools[1].Labels = map[string]string{LayeringEnabledLabel: ""}
			s.MachineConfigPools[1].Annotations = map[string]string{NewestImageEquivalentConfigAnnotation: "img@sha256:1"}
			s.Nodes[3].Annotations[DesiredImageAnnotation] = "img@sha256:1"
		}, want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: v1alpha1.NodeAvailableReasonNotReady, est: "?", version: fromV,
			health: []v1alpha1.HealthKind{v1alpha1.HealthNodeUnavailable}}},
		{name: "plain pool: a node with a desired image is not unavailable", edit: func(s *Sources) {
			notReady(time.Hour)(s)
			s.Nodes[3].Annotations[DesiredImageAnnotation] = "img@sha256:1"
		}, want: nodeWant{phase: v1alpha1.NodeUpdatePending, est: "?", version: fromV}},
		{name: "a node that just joined has no annotations", edit: func(s *Sources) { s.Nodes[3].Annotations = nil },
			want: nodeWant{phase: v1alpha1.NodeUpdatePending, available: NodeAvailableReasonMCDProcessing, est: "?"}},
		{name: "a missing MachineConfig gives no version", edit: func(s *Sources) { delete(s.MachineConfigVersions, "rendered-worker-old") },
			want: nodeWant{phase: v1alpha1.NodeUpdatePending, est: "?"}},
		{name: "a MachineConfig without a version annotation gives no version", edit: func(s *Sources) { s.MachineConfigVersions["rendered-worker-old"] = "" },
			want: nodeWant{phase: v1alpha1.NodeUpdatePending, est: "?"}},
		{name: "a same-version configuration roll counts as updated", edit: func(s *Sources) {
			s.MachineConfigVersions["rendered-worker-old"] = toV
			updating(s.Nodes[3], MCDStateWorking)
		}, want: nodeWant{phase: v1alpha1.NodeCompleted, available: NodeAvailableReasonMCDProcessing, est: "-", version: toV}},
		{name: "multi-arch migration: the configs decide", edit: func(s *Sources) {
			s.ClusterVersion.Status.History[1].Version = toV
			s.MachineConfigVersions["rendered-worker-old"] = toV
			updating(s.Nodes[3], MCDStateWorking)
		}, want: nodeWant{phase: v1alpha1.NodeUpdating, updating: true, available: NodeAvailableReasonMCDProcessing, est: "5m0s", version: toV}},
		{name: "multi-arch migration: a node on the target config is updated", edit: func(s *Sources) {
			s.ClusterVersion.Status.History[1].Version = toV
			updated(s.Nodes[3])
		}, want: nodeWant{phase: v1alpha1.NodeCompleted, est: "-", version: toV}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			tc.edit(src)
			res := Compute(src, now)
			mustValid(t, res)
			n := nodeOf(res, "worker-0")
			if n == nil {
				t.Fatal("no insight for worker-0")
			}
			upd, avail, deg := cond(n.Conditions, "Updating"), cond(n.Conditions, "Available"), cond(n.Conditions, "Degraded")
			got := nodeWant{
				phase:    v1alpha1.NodeUpdatingReason(upd.Reason),
				updating: upd.Status == metav1.ConditionTrue,
				degraded: deg.Status == metav1.ConditionTrue,
				est:      estText(n.EstimatedToComplete),
				version:  n.Version,
			}
			if avail.Status == metav1.ConditionFalse {
				got.available = avail.Reason
			}
			for _, f := range healthOf(res, "") {
				if len(f.h.Scope.Resources) > 0 && (f.h.Scope.Resources[0].Name == "worker-0" || f.h.Scope.Resources[0].Name == "worker") {
					got.health = append(got.health, conventions.KindOf(f.uid))
				}
			}
			if mustJSON(t, got) != mustJSON(t, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if n.Scope != v1alpha1.WorkerPoolScope || n.PoolResource.Name != "worker" {
				t.Errorf("scope %s pool %s", n.Scope, n.PoolResource.Name)
			}
		})
	}
}

func TestNodeTexts(t *testing.T) {
	src := cluster()
	n := src.Nodes[3]
	setNodeCondition(n, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Message: `kubelet "stopped"`, LastTransitionTime: mt(t0)})
	n.Unschedulable = true
	res := Compute(src, now)
	mustValid(t, res)
	ni := nodeOf(res, "worker-0")
	if got, want := cond(ni.Conditions, "Available").Message, "Not ready | Node is marked unschedulable"; got != want {
		t.Errorf("Available message %q, want oc's reason list %q", got, want)
	}
	if ni.Message != "Not ready | Node is marked unschedulable" {
		t.Errorf("message %q", ni.Message)
	}
	hs := healthOf(res, v1alpha1.HealthNodeUnavailable)
	if len(hs) != 1 {
		t.Fatalf("got %d unavailable insights", len(hs))
	}
	h := hs[0].h
	if want := "Node worker-0 is not ready | Node is marked unschedulable"; h.Impact.Summary != want {
		t.Errorf("summary %q, want %q", h.Impact.Summary, want)
	}
	if want := `Node has a Ready!=True condition with Reason "Not ready" and message "kubelet \"stopped\"" | Node is marked unschedulable`; h.Impact.Description != want {
		t.Errorf("description %q, want %q", h.Impact.Description, want)
	}
	if !h.StartedAt.Time.Equal(t0) || h.Impact.Level != v1alpha1.WarningImpactLevel || h.Impact.Type != v1alpha1.UpdateSpeedImpactType {
		t.Errorf("got %v %s %s", h.StartedAt, h.Impact.Level, h.Impact.Type)
	}
	if hs[0].where != "workerPools/worker/nodes" || h.Scope.Type != v1alpha1.WorkerPoolScope {
		t.Errorf("placed at %s scope %s", hs[0].where, h.Scope.Type)
	}
}

// TestLongDaemonReason: the node's message is a short form; the Degraded
// condition and the health description carry the full text (the health
// description is cut at 4096 characters, the condition at 32768).
func TestLongDaemonReason(t *testing.T) {
	src := cluster()
	reason := "failed to run command\n" + strings.Repeat("x", 6000)
	src.Nodes[3].Annotations[MCDStateAnnotation] = MCDStateDegraded
	src.Nodes[3].Annotations[MCDReasonAnnotation] = reason
	res := Compute(src, now)
	mustValid(t, res)
	ni := nodeOf(res, "worker-0")
	if ni.Message != "failed to run command" {
		t.Errorf("message %q, want the first line", ni.Message)
	}
	if got := cond(ni.Conditions, "Degraded").Message; got != reason {
		t.Errorf("Degraded message has %d bytes, want the full %d", len(got), len(reason))
	}
	h := healthOf(res, v1alpha1.HealthNodeDegraded)[0].h
	if len(h.Impact.Description) > 4096 || !conventions.IsTruncated(h.Impact.Description) ||
		!strings.HasPrefix(reason, conventions.TruncatedPrefix(h.Impact.Description)) {
		t.Errorf("description (%d bytes) is not a marked prefix of the reason", len(h.Impact.Description))
	}
}

func TestPools(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     func(s *Sources)
		pool     string
		wantA    v1alpha1.PoolAssessment
		wantC    int32
		wantSums map[v1alpha1.NodeSummaryType]int32
		wantCond string
	}{
		{name: "all pending", pool: "worker", edit: func(*Sources) {}, wantA: v1alpha1.PoolPending, wantC: 0, wantCond: "False/Pending",
			wantSums: map[v1alpha1.NodeSummaryType]int32{v1alpha1.NodesTotal: 2, v1alpha1.NodesAvailable: 2, v1alpha1.NodesOutdated: 2}},
		{name: "all updated", pool: "worker", edit: func(s *Sources) { updated(s.Nodes[3]); updated(s.Nodes[4]) }, wantA: v1alpha1.PoolCompleted, wantC: 100,
			wantCond: "False/Updated", wantSums: map[v1alpha1.NodeSummaryType]int32{v1alpha1.NodesTotal: 2, v1alpha1.NodesOutdated: 0}},
		{name: "progressing", pool: "worker", edit: func(s *Sources) { updated(s.Nodes[3]); updating(s.Nodes[4], MCDStateWorking) }, wantA: v1alpha1.PoolProgressing, wantC: 50,
			wantCond: "True/Progressing", wantSums: map[v1alpha1.NodeSummaryType]int32{v1alpha1.NodesProgressing: 1, v1alpha1.NodesAvailable: 1, v1alpha1.NodesOutdated: 1}},
		{name: "degraded", pool: "worker", edit: func(s *Sources) {
			updated(s.Nodes[3])
			updating(s.Nodes[4], MCDStateDegraded).Annotations[MCDReasonAnnotation] = "x"
		}, wantA: v1alpha1.PoolDegraded, wantC: 50, wantCond: "True/Progressing",
			wantSums: map[v1alpha1.NodeSummaryType]int32{v1alpha1.NodesDegraded: 1, v1alpha1.NodesProgressing: 0}},
		{name: "paused", pool: "worker", edit: func(s *Sources) { s.MachineConfigPools[1].Spec.Paused = true; updated(s.Nodes[3]) },
			wantA: v1alpha1.PoolExcluded, wantC: 50, wantCond: "False/Paused", wantSums: map[v1alpha1.NodeSummaryType]int32{v1alpha1.NodesExcluded: 1}},
		{name: "empty pool", pool: "infra", edit: func(s *Sources) { s.MachineConfigPools = append(s.MachineConfigPools, newPool("infra")) },
			wantA: v1alpha1.PoolCompleted, wantC: 100, wantCond: "False/Updated", wantSums: map[v1alpha1.NodeSummaryType]int32{v1alpha1.NodesTotal: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			tc.edit(src)
			res := Compute(src, now)
			mustValid(t, res)
			m := mcpOf(res, tc.pool)
			if m == nil {
				t.Fatalf("no insight for pool %s", tc.pool)
			}
			c := cond(m.Conditions, "Updating")
			if m.Assessment != tc.wantA || m.Completion != tc.wantC || string(c.Status)+"/"+c.Reason != tc.wantCond {
				t.Errorf("got %s %d%% %s/%s, want %s %d%% %s", m.Assessment, m.Completion, c.Status, c.Reason, tc.wantA, tc.wantC, tc.wantCond)
			}
			for typ, want := range tc.wantSums {
				if got := summary(m, typ); got != want {
					t.Errorf("%s = %d, want %d", typ, got, want)
				}
			}
			if len(m.Summaries) != 7 {
				t.Errorf("%d summaries, want all 7", len(m.Summaries))
			}
			for _, p := range res.Status.WorkerPools {
				if p.Name == tc.pool && mustJSON(t, p.Conditions[0]) != mustJSON(t, c) {
					t.Errorf("workerPools[%s].conditions[Updating] is not a copy of the pool insight's", tc.pool)
				}
			}
		})
	}
}

func TestPoolAssignment(t *testing.T) {
	src := cluster()
	src.MachineConfigPools = append(src.MachineConfigPools, newPool("infra"))
	both := newNode("worker-infra", "worker")
	both.Labels = withLabel(both.Labels, "node-role.kubernetes.io/infra")
	compact := newNode("master-worker", "master")
	compact.Labels = withLabel(compact.Labels, "node-role.kubernetes.io/worker")
	stray := newNode("stray", "nothing")
	src.Nodes = append(src.Nodes, both, compact, stray)
	res := Compute(src, now)
	mustValid(t, res)
	for name, pool := range map[string]string{"worker-infra": "infra", "master-worker": "master", "worker-0": "worker"} {
		if n := nodeOf(res, name); n == nil || n.PoolResource.Name != pool {
			t.Errorf("%s: got %+v, want pool %s", name, n, pool)
		}
	}
	if nodeOf(res, "stray") != nil {
		t.Error("a node in no pool must be ignored")
	}
	if n := nodeOf(res, "master-worker"); n.Scope != v1alpha1.ControlPlaneScope {
		t.Errorf("a control-plane node has scope %s", n.Scope)
	}
}

// TestCompactCluster: every node is a control-plane node that also carries
// the worker label; the worker pool is empty.
func TestCompactCluster(t *testing.T) {
	src := cluster()
	src.Nodes = src.Nodes[:3]
	for _, n := range src.Nodes {
		n.Labels = withLabel(n.Labels, "node-role.kubernetes.io/worker")
	}
	res := Compute(src, now)
	mustValid(t, res)
	if m := mcpOf(res, "worker"); m == nil || summary(m, v1alpha1.NodesTotal) != 0 {
		t.Fatalf("worker pool: %+v", m)
	}
	if m := mcpOf(res, "master"); m == nil || summary(m, v1alpha1.NodesTotal) != 3 || m.Scope != v1alpha1.ControlPlaneScope {
		t.Fatalf("master pool: %+v", m)
	}
}

// TestSingleNode: one node, in the master pool; no worker pool at all.
func TestSingleNode(t *testing.T) {
	src := cluster()
	src.Nodes = src.Nodes[:1]
	src.Nodes[0].Labels = withLabel(src.Nodes[0].Labels, "node-role.kubernetes.io/worker")
	src.MachineConfigPools = src.MachineConfigPools[:1]
	res := Compute(src, now)
	mustValid(t, res)
	if len(res.Status.WorkerPools) != 0 {
		t.Errorf("got %d worker pools", len(res.Status.WorkerPools))
	}
	if n := nodeOf(res, "master-0"); n == nil || n.Scope != v1alpha1.ControlPlaneScope {
		t.Fatalf("node: %+v", n)
	}
	if cp := res.Status.ControlPlane; cp.PoolResource == nil || cp.PoolResource.Name != "master" {
		t.Errorf("poolResource %+v", cp.PoolResource)
	}
}

func TestBadPoolSelector(t *testing.T) {
	src := cluster()
	src.MachineConfigPools[1].Spec.NodeSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bogus"}}}
	res := Compute(src, now)
	mustValid(t, res)
	hs := healthOf(res, v1alpha1.HealthPoolBadSelector)
	if len(hs) != 1 || hs[0].h.Impact.Summary != "failed to get label selector from the pool: worker" {
		t.Fatalf("got %+v", hs)
	}
	if m := mcpOf(res, "worker"); m == nil || summary(m, v1alpha1.NodesTotal) != 0 {
		t.Errorf("a pool with a bad selector must count no nodes: %+v", m)
	}
}

func TestPausedControlPlanePool(t *testing.T) {
	src := cluster()
	src.MachineConfigPools[0].Spec.Paused = true
	res := Compute(src, now)
	mustValid(t, res)
	hs := healthOf(res, v1alpha1.HealthPoolPaused)
	if len(hs) != 1 || hs[0].where != "controlPlane/nodes" || hs[0].h.Scope.Type != v1alpha1.ControlPlaneScope {
		t.Fatalf("got %+v", hs)
	}
	if !conventions.IsUnknownTime(hs[0].h.StartedAt.Time) {
		t.Errorf("startedAt %v, want the unknown instant", hs[0].h.StartedAt)
	}
}

// TestNoMasterPool: nodes labelled for a pool that does not exist are
// ignored, and nothing crashes (oc would dereference a missing selector).
func TestNoMasterPool(t *testing.T) {
	src := cluster()
	src.MachineConfigPools = []*mcfgv1.MachineConfigPool{newPool("worker")}
	res := Compute(src, now)
	mustValid(t, res)
	if nodeOf(res, "master-0") != nil || res.Status.ControlPlane.PoolResource != nil {
		t.Error("control-plane nodes without a master pool must be ignored")
	}
	if nodeOf(res, "worker-0") == nil {
		t.Error("worker nodes must still be reported")
	}
}
