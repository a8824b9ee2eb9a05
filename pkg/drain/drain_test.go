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

package drain

import (
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

var t0 = time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC)

// drainingNode is a worker the drain controller cordoned for the daemon's
// drain request, as the machine-config operator leaves it.
func drainingNode(name string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"node-role.kubernetes.io/worker": ""},
			Annotations: map[string]string{
				insights.DesiredConfigAnnotation:    "rendered-worker-new",
				insights.CurrentConfigAnnotation:    "rendered-worker-old",
				insights.MCDStateAnnotation:         insights.MCDStateWorking,
				insights.DesiredDrainAnnotation:     "drain-rendered-worker-new",
				insights.LastAppliedDrainAnnotation: "uncordon-rendered-worker-old",
			}},
		Spec: corev1.NodeSpec{Unschedulable: true},
	}
}

// pod is a running, ready pod of a ReplicaSet on node.
func pod(ns, name, node string, lbls map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name[:strings.LastIndex(name, "-")], UID: "rs", Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}

// budget is a PodDisruptionBudget with the status the disruption controller
// writes.
func budget(ns, name string, lbls map[string]string, current, desired, expected int32) *policyv1.PodDisruptionBudget {
	allowed := max(current-desired, 0)
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(desired)),
			Selector: &metav1.LabelSelector{MatchLabels: lbls}},
		Status: policyv1.PodDisruptionBudgetStatus{CurrentHealthy: current, DesiredHealthy: desired, ExpectedPods: expected, DisruptionsAllowed: allowed},
	}
}

func mcn(node string, conds ...metav1.Condition) *mcfgv1.MachineConfigNode {
	return &mcfgv1.MachineConfigNode{
		ObjectMeta: metav1.ObjectMeta{Name: node},
		Spec:       mcfgv1.MachineConfigNodeSpec{Node: mcfgv1.MCOObjectReference{Name: node}, Pool: mcfgv1.MCOObjectReference{Name: "infra"}},
		Status:     mcfgv1.MachineConfigNodeStatus{Conditions: conds},
	}
}

// The MachineConfigNode conditions as the machine-config operator writes
// them (reasons and messages of its drain controller and upgrade monitor).
const (
	desiredDrainer = "drain-rendered-worker-new"
	currentDrainer = "uncordon-rendered-worker-old"
	evictionError  = `[error when evicting pods/"router-default-7d9f8-x2k4q" -n "openshift-ingress": global timeout reached: 1m30s, ` +
		`error when evicting pods/"db-1" -n "shop": global timeout reached: 1m30s]`
)

var (
	mcoCordonedAt = t0.Add(-20 * time.Minute)
	// mcoFresh: every condition False, NotYetOccurred, as created.
	mcoFresh = func(t mcfgv1.StateProgress) metav1.Condition {
		return metav1.Condition{Type: string(t), Status: metav1.ConditionFalse, Reason: "NotYetOccurred",
			Message: "This node has not yet entered the " + string(t) + " phase", LastTransitionTime: metav1.NewTime(t0.Add(-48 * time.Hour))}
	}
	mcoCordoned = metav1.Condition{Type: "Cordoned", Status: metav1.ConditionTrue, Reason: "UpdateExecutedCordoned",
		Message: "Cordoned node. The node is reporting Unschedulable = true", LastTransitionTime: metav1.NewTime(mcoCordonedAt)}
	mcoDraining = metav1.Condition{Type: "Drained", Status: metav1.ConditionUnknown, Reason: "UpdateExecutedDrained",
		Message:            "Draining node. The drain will not be complete until desired drainer " + desiredDrainer + " matches current drainer " + currentDrainer,
		LastTransitionTime: metav1.NewTime(t0.Add(-19 * time.Minute))}
	mcoDrainFailed = metav1.Condition{Type: "Drained", Status: metav1.ConditionUnknown, Reason: "UpdateExecutedDrained",
		Message: "Error: Node Drain has not succeeded. Error is: " + evictionError + " The drain will not be complete until desired drainer " +
			desiredDrainer + " matches current drainer " + currentDrainer,
		LastTransitionTime: metav1.NewTime(t0.Add(-time.Minute))}
	mcoDrained = metav1.Condition{Type: "Drained", Status: metav1.ConditionTrue, Reason: "UpdateExecutedDrained",
		Message: "Drained node. The drain is complete as the desired drainer matches current drainer: " + desiredDrainer, LastTransitionTime: metav1.NewTime(t0)}
	mcoDegraded = metav1.Condition{Type: "NodeDegraded", Status: metav1.ConditionTrue, Reason: "NodeDegraded",
		Message: `Node w is reporting: "failed to drain node: w after 1 hour. Please see machine-config-controller logs for more information"`, LastTransitionTime: metav1.NewTime(t0)}
	// mcoReset: Updated True resets the others to False.
	mcoReset = func(t mcfgv1.StateProgress) metav1.Condition {
		c := mcoFresh(t)
		c.Reason, c.Message = string(t), "Action during update to rendered-worker-new: "+c.Message
		return c
	}
)

// mcoMCN is the MachineConfigNode of node with every condition type the
// operator creates, from base, then the given ones replacing theirs.
func mcoMCN(node string, base func(mcfgv1.StateProgress) metav1.Condition, set ...metav1.Condition) *mcfgv1.MachineConfigNode {
	var conds []metav1.Condition
	for _, t := range []mcfgv1.StateProgress{mcfgv1.MachineConfigNodeUpdatePrepared, mcfgv1.MachineConfigNodeUpdateExecuted,
		mcfgv1.MachineConfigNodeUpdatePostActionComplete, mcfgv1.MachineConfigNodeUpdateComplete, mcfgv1.MachineConfigNodeResumed,
		mcfgv1.MachineConfigNodeUpdateDrained, mcfgv1.MachineConfigNodeUpdateFilesAndOS, mcfgv1.MachineConfigNodeUpdateCordoned,
		mcfgv1.MachineConfigNodeUpdateRebooted, mcfgv1.MachineConfigNodeUpdated, mcfgv1.MachineConfigNodeUpdateUncordoned,
		mcfgv1.MachineConfigNodeNodeDegraded} {
		c := base(t)
		for _, o := range set {
			if o.Type == string(t) {
				c = o
			}
		}
		conds = append(conds, c)
	}
	return mcn(node, conds...)
}

func TestMCNDraining(t *testing.T) {
	updated := metav1.Condition{Type: "Updated", Status: metav1.ConditionTrue, Reason: "Updated", Message: "Node w Updated", LastTransitionTime: metav1.NewTime(t0)}
	for _, tc := range []struct {
		name        string
		mcn         *mcfgv1.MachineConfigNode
		want        bool
		wantStarted time.Time
		wantFailure string
	}{
		{"none", nil, false, time.Time{}, ""},
		{"created, nothing yet", mcoMCN("w", mcoFresh), false, time.Time{}, ""},
		{"cordoned, drain not begun", mcoMCN("w", mcoFresh, mcoCordoned), true, mcoCordonedAt, ""},
		{"draining", mcoMCN("w", mcoFresh, mcoCordoned, mcoDraining), true, mcoCordonedAt, ""},
		{"drain attempt failed", mcoMCN("w", mcoFresh, mcoCordoned, mcoDrainFailed), true, mcoCordonedAt, evictionError},
		{"failed and degraded: the drainer's error first", mcoMCN("w", mcoFresh, mcoCordoned, mcoDrainFailed, mcoDegraded), true, mcoCordonedAt, evictionError},
		{"degraded while draining", mcoMCN("w", mcoFresh, mcoCordoned, mcoDraining, mcoDegraded), true, mcoCordonedAt, mcoDegraded.Message},
		{"drained", mcoMCN("w", mcoFresh, mcoCordoned, mcoDrained), false, time.Time{}, ""},
		{"updated: the rest reset to False", mcoMCN("w", mcoReset, updated), false, time.Time{}, ""},
		{"Drained Unknown without Cordoned (restarted controller)", mcn("w", mcoDraining), true, time.Time{}, ""},
		{"no Drained condition", mcn("w", mcoCordoned), false, time.Time{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MCNDraining(tc.mcn); got != tc.want {
				t.Errorf("MCNDraining = %v, want %v", got, tc.want)
			}
			if got := DrainStartedAt(tc.mcn); !got.Equal(tc.wantStarted) {
				t.Errorf("DrainStartedAt = %v, want %v", got, tc.wantStarted)
			}
			if got := drainFailure(tc.mcn); got != tc.wantFailure {
				t.Errorf("drainFailure = %q, want %q", got, tc.wantFailure)
			}
		})
	}
}

func TestDrainError(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{mcoDrainFailed.Message, evictionError},
		{"Error: Node Drain has not succeeded. Error is: boom", "boom"},
		{"Error: Failed to Cordon node. Error is  timeout", "Failed to Cordon node. Error is  timeout"},
		{"Error: Node Drain has not succeeded. Error is:  The drain will not be complete until x", "Node Drain has not succeeded. Error is:  The drain will not be complete until x"},
		{"Error: ", ""},
		{"", ""},
	} {
		if got := DrainError(tc.msg); got != tc.want {
			t.Errorf("DrainError(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

func TestIsDraining(t *testing.T) {
	uncordoned := drainingNode("w")
	uncordoned.Spec.Unschedulable = false
	done := drainingNode("w")
	done.Annotations[insights.LastAppliedDrainAnnotation] = "drain-rendered-worker-new"
	admin := drainingNode("w") // cordoned by an administrator, no drain request
	delete(admin.Annotations, insights.DesiredDrainAnnotation)
	for _, tc := range []struct {
		name string
		node *corev1.Node
		mcn  *mcfgv1.MachineConfigNode
		want bool
	}{
		{"cordoned for the daemon's drain", drainingNode("w"), nil, true},
		{"drain requested, not yet cordoned", uncordoned, nil, false},
		{"drain applied", done, nil, false},
		{"cordoned by hand", admin, nil, false},
		{"MCN draining, node annotations silent", admin, mcoMCN("w", mcoFresh, mcoCordoned, mcoDraining), true},
		{"MCN drained, annotations not yet written", drainingNode("w"), mcoMCN("w", mcoFresh, mcoCordoned, mcoDrained), true},
		{"MCN drained", admin, mcoMCN("w", mcoFresh, mcoCordoned, mcoDrained), false},
		{"MCN idle", admin, mcoMCN("w", mcoFresh), false},
		{"no node", nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsDraining(tc.node, tc.mcn); got != tc.want {
				t.Errorf("IsDraining = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBlockers(t *testing.T) {
	app := map[string]string{"app": "db"}
	atLimit := budget("shop", "db", app, 2, 3, 3)
	withRoom := budget("shop", "db", app, 3, 2, 3)

	daemon := pod("shop", "agent-x1", "w", app)
	daemon.OwnerReferences[0].Kind = "DaemonSet"
	mirror := pod("shop", "etcd-w", "w", app)
	mirror.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "w", UID: "n", Controller: ptr.To(true)}}
	mirror.Annotations = map[string]string{mirrorPodAnnotation: "abc"}
	finished := pod("shop", "job-x1", "w", app)
	finished.Status.Phase = corev1.PodSucceeded
	failed := pod("shop", "job-x2", "w", app)
	failed.Status.Phase = corev1.PodFailed
	pending := pod("shop", "db-p", "w", app)
	pending.Status.Phase = corev1.PodPending
	otherNS := pod("other", "db-x1", "w", app)
	unlabelled := pod("shop", "web-x1", "w", map[string]string{"app": "web"})

	unready := pod("shop", "db-u", "w", app)
	unready.Status.Conditions[0].Status = corev1.ConditionFalse
	alwaysAllow := atLimit.DeepCopy()
	alwaysAllow.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.AlwaysAllow)
	met := budget("shop", "db", app, 3, 3, 4) // 0 allowed, but healthy enough: an unready pod may go

	stuck := pod("shop", "db-s", "w", app)
	stuck.DeletionTimestamp = ptr.To(metav1.NewTime(t0.Add(-5 * time.Minute)))
	stuck.Finalizers = []string{"example.com/backup"}
	graceful := pod("shop", "db-g", "w", app)
	graceful.DeletionTimestamp = ptr.To(metav1.NewTime(t0.Add(time.Minute)))

	nilSelector := atLimit.DeepCopy()
	nilSelector.Spec.Selector = nil
	emptySelector := atLimit.DeepCopy()
	emptySelector.Spec.Selector = &metav1.LabelSelector{}

	failing := mcoMCN("w", mcoFresh, mcoCordoned, mcoDrainFailed)
	degraded := mcoMCN("w", mcoFresh, mcoCordoned, mcoDraining, mcoDegraded)
	notYet := mcoMCN("w", mcoFresh, mcoCordoned)

	type want struct {
		kind   BlockerKind
		pod    string
		budget string
		msg    string
	}
	for _, tc := range []struct {
		name    string
		pods    []*corev1.Pod
		budgets []*policyv1.PodDisruptionBudget
		mcn     *mcfgv1.MachineConfigNode
		want    []want
	}{
		{"ready pod under a budget at 0", []*corev1.Pod{pod("shop", "db-1", "w", app)}, []*policyv1.PodDisruptionBudget{atLimit}, nil,
			[]want{{kind: BlockedByBudget, pod: "shop/db-1", budget: "shop/db"}}},
		{"budget with room", []*corev1.Pod{pod("shop", "db-1", "w", app)}, []*policyv1.PodDisruptionBudget{withRoom}, nil, nil},
		{"DaemonSet, mirror and finished pods ignored", []*corev1.Pod{daemon, mirror, finished, failed}, []*policyv1.PodDisruptionBudget{atLimit}, nil, nil},
		{"pending pod: eviction ignores budgets", []*corev1.Pod{pending}, []*policyv1.PodDisruptionBudget{atLimit}, nil, nil},
		{"budget of another namespace or selector", []*corev1.Pod{otherNS, unlabelled}, []*policyv1.PodDisruptionBudget{atLimit}, nil, nil},
		{"unready pod, budget short", []*corev1.Pod{unready}, []*policyv1.PodDisruptionBudget{atLimit}, nil,
			[]want{{kind: BlockedByBudget, pod: "shop/db-u", budget: "shop/db"}}},
		{"unready pod, AlwaysAllow", []*corev1.Pod{unready}, []*policyv1.PodDisruptionBudget{alwaysAllow}, nil, nil},
		{"unready pod, budget met", []*corev1.Pod{unready}, []*policyv1.PodDisruptionBudget{met}, nil, nil},
		{"nil selector selects nothing", []*corev1.Pod{pod("shop", "db-1", "w", app)}, []*policyv1.PodDisruptionBudget{nilSelector}, nil, nil},
		{"empty selector selects all", []*corev1.Pod{unlabelled}, []*policyv1.PodDisruptionBudget{emptySelector}, nil,
			[]want{{kind: BlockedByBudget, pod: "shop/web-x1", budget: "shop/db"}}},
		{"terminating past grace, within grace", []*corev1.Pod{graceful, stuck}, []*policyv1.PodDisruptionBudget{atLimit}, nil,
			[]want{{kind: BlockedByTermination, pod: "shop/db-s"}}},
		{"MCN drain failure", nil, nil, failing, []want{{kind: BlockedByDrainFailure, msg: evictionError}}},
		{"MCN degraded", nil, nil, degraded, []want{{kind: BlockedByDrainFailure, msg: mcoDegraded.Message}}},
		{"MCN Drained False NotYetOccurred is no failure", nil, nil, notYet, nil},
		{"order: budgets by pod, then terminating, then failure",
			[]*corev1.Pod{stuck, pod("shop", "db-2", "w", app), pod("shop", "db-1", "w", app)}, []*policyv1.PodDisruptionBudget{atLimit}, failing,
			[]want{{kind: BlockedByBudget, pod: "shop/db-1", budget: "shop/db"}, {kind: BlockedByBudget, pod: "shop/db-2", budget: "shop/db"},
				{kind: BlockedByTermination, pod: "shop/db-s"}, {kind: BlockedByDrainFailure, msg: evictionError}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Blockers(&Input{Node: drainingNode("w"), Pool: "worker", Pods: tc.pods, Budgets: tc.budgets, MCN: tc.mcn}, t0)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d blockers %+v, want %d", len(got), got, len(tc.want))
			}
			for i, b := range got {
				w := tc.want[i]
				var p, bud string
				if b.Pod != nil {
					p = b.Pod.Namespace + "/" + b.Pod.Name
				}
				if b.Budget != nil {
					bud = b.Budget.Namespace + "/" + b.Budget.Name
				}
				if b.Kind != w.kind || p != w.pod || bud != w.budget || b.Message != w.msg {
					t.Errorf("blocker %d = {%s %s %s %q}, want %+v", i, b.Kind, p, bud, b.Message, w)
				}
			}
		})
	}
}

func TestEvaluate(t *testing.T) {
	app := map[string]string{"app": "db"}
	atLimit := budget("shop", "db", app, 2, 3, 3)
	held := pod("shop", "db-1", "worker-0", app)
	sick := pod("shop", "db-2", "worker-1", app)
	sick.Status.Conditions[0].Status = corev1.ConditionFalse
	in := func(pool string, started time.Time) *Input {
		return &Input{Node: drainingNode("worker-0"), Pool: pool, Pods: []*corev1.Pod{held}, Budgets: []*policyv1.PodDisruptionBudget{atLimit},
			Protected: map[string][]*corev1.Pod{"shop/db": {held, sick}}, DrainStarted: started}
	}
	for _, tc := range []struct {
		name      string
		in        *Input
		wantNil   bool
		wantLevel v1alpha1.InsightImpactLevel
		wantScope v1alpha1.ScopeType
		wantCP    bool
	}{
		{"young drain: Warning", in("worker", t0.Add(-10*time.Minute)), false, v1alpha1.WarningImpactLevel, v1alpha1.WorkerPoolScope, false},
		{"past the timeout: Error", in("worker", t0.Add(-DefaultTimeout)), false, v1alpha1.ErrorImpactLevel, v1alpha1.WorkerPoolScope, false},
		{"master node: control plane", in(MasterPool, t0), false, v1alpha1.WarningImpactLevel, v1alpha1.ControlPlaneScope, true},
		{"not draining", &Input{Node: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-0"}}, Pool: "worker", Pods: []*corev1.Pod{held}, Budgets: []*policyv1.PodDisruptionBudget{atLimit}}, true, "", "", false},
		{"draining, nothing holds it", &Input{Node: drainingNode("worker-0"), Pool: "worker", Pods: []*corev1.Pod{held}}, true, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Evaluate(tc.in, t0, DefaultTimeout)
			if tc.wantNil {
				if f != nil {
					t.Fatalf("Evaluate = %+v, want nil", f.Health.Impact)
				}
				return
			}
			if f == nil {
				t.Fatal("Evaluate = nil, want a finding")
			}
			h := f.Health
			if h.Impact.Level != tc.wantLevel || h.Scope.Type != tc.wantScope || f.ControlPlane != tc.wantCP {
				t.Errorf("level %s scope %s controlPlane %v, want %s %s %v", h.Impact.Level, h.Scope.Type, f.ControlPlane, tc.wantLevel, tc.wantScope, tc.wantCP)
			}
			if want := "Drain of worker-0 is blocked by PodDisruptionBudget shop/db (pod shop/db-1)"; h.Impact.Summary != want {
				t.Errorf("summary %q, want %q", h.Impact.Summary, want)
			}
			for _, s := range []string{"current healthy 2, desired healthy 3", "Unhealthy pods it protects: shop/db-2."} {
				if !strings.Contains(h.Impact.Description, s) {
					t.Errorf("description %q lacks %q", h.Impact.Description, s)
				}
			}
			wantRefs := []v1alpha1.ResourceRef{{Resource: "nodes", Name: "worker-0"}, {Resource: "pods", Namespace: "shop", Name: "db-1"},
				{Group: "policy", Resource: "poddisruptionbudgets", Namespace: "shop", Name: "db"}}
			if len(h.Scope.Resources) != len(wantRefs) {
				t.Fatalf("resources %+v, want %+v", h.Scope.Resources, wantRefs)
			}
			for i := range wantRefs {
				if h.Scope.Resources[i] != wantRefs[i] {
					t.Errorf("resource %d = %+v, want %+v", i, h.Scope.Resources[i], wantRefs[i])
				}
			}
			if h.Remediation.Reference != Runbook {
				t.Errorf("reference %q", h.Remediation.Reference)
			}
			if errs := validation.IsDNS1123Label(f.UID); len(errs) > 0 || f.UID != UID("worker-0") {
				t.Errorf("uid %q: %v", f.UID, errs)
			}
		})
	}
}

// TestDescription checks the description's text: one paragraph of
// sentences, since a reader such as oc's report layout prints each line
// break as a continuation line of its own.
func TestDescription(t *testing.T) {
	app := map[string]string{"app": "db"}
	atLimit := budget("shop", "db", app, 2, 3, 3)
	sick := pod("shop", "db-9", "worker-1", app)
	sick.Status.Conditions[0].Status = corev1.ConditionFalse
	stuck := pod("shop", "db-s", "worker-0", map[string]string{"app": "web"})
	stuck.DeletionTimestamp = ptr.To(metav1.NewTime(t0.Add(-5 * time.Minute)))
	stuck.Finalizers = []string{"example.com/backup", "example.com/audit"}
	multiLine := mcoMCN("worker-0", mcoFresh, mcoCordoned, mcoDegraded)
	multiLine.Status.Conditions[len(multiLine.Status.Conditions)-1].Message = "failed to drain node\n  after 1 hour"
	const head = "Node worker-0 (pool worker) has been draining since 2025-10-01T11:50:00Z (drain timeout 1h0m0s)."
	for _, tc := range []struct {
		name string
		in   *Input
		want string
	}{
		{"two pods under one budget: its status once",
			&Input{Pods: []*corev1.Pod{pod("shop", "db-1", "worker-0", app), pod("shop", "db-2", "worker-0", app)},
				Budgets: []*policyv1.PodDisruptionBudget{atLimit}, Protected: map[string][]*corev1.Pod{"shop/db": {sick}}},
			head + " Pod shop/db-1 cannot be evicted: PodDisruptionBudget shop/db allows 0 disruptions (current healthy 2, desired healthy 3, expected pods 3)." +
				" Unhealthy pods it protects: shop/db-9." +
				" Pod shop/db-2 cannot be evicted: PodDisruptionBudget shop/db allows 0 disruptions."},
		{"a pod stuck terminating",
			&Input{Pods: []*corev1.Pod{stuck}},
			head + " Pod shop/db-s is still terminating after its grace period ended at 2025-10-01T11:55:00Z; finalizers: example.com/backup, example.com/audit."},
		{"the MachineConfigNode's error, closed with a full stop",
			&Input{MCN: mcoMCN("worker-0", mcoFresh, mcoCordoned, mcoDrainFailed)},
			head + " MachineConfigNode worker-0 reports the drain has not succeeded: " + evictionError + "."},
		{"a message that ends with a quotation mark",
			&Input{MCN: mcoMCN("worker-0", mcoFresh, mcoCordoned, mcoDegraded)},
			head + " MachineConfigNode worker-0 reports the drain has not succeeded: " + mcoDegraded.Message + "."},
		{"a message on several lines, joined",
			&Input{MCN: multiLine},
			head + " MachineConfigNode worker-0 reports the drain has not succeeded: failed to drain node after 1 hour."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Node, tc.in.Pool, tc.in.DrainStarted = drainingNode("worker-0"), "worker", t0.Add(-10*time.Minute)
			f := Evaluate(tc.in, t0, DefaultTimeout)
			if f == nil {
				t.Fatal("Evaluate = nil, want a finding")
			}
			if got := f.Health.Impact.Description; got != tc.want {
				t.Errorf("description\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestEvaluateBounds(t *testing.T) {
	app := map[string]string{"app": "db"}
	var pods []*corev1.Pod
	for i := range 40 {
		pods = append(pods, pod("a-very-long-namespace-name-for-the-summary", strings.Repeat("x", 60)+"-"+string(rune('a'+i%26))+string(rune('a'+i/26)), "w", app))
	}
	in := &Input{Node: drainingNode(strings.Repeat("n", 200)), Pool: "worker", Pods: pods,
		Budgets: []*policyv1.PodDisruptionBudget{budget("a-very-long-namespace-name-for-the-summary", "db", app, 0, 40, 40)}}
	f := Evaluate(in, t0, DefaultTimeout)
	if f == nil {
		t.Fatal("no finding")
	}
	if n := len(f.Health.Scope.Resources); n != maxResources {
		t.Errorf("%d resources, want %d", n, maxResources)
	}
	if n := len(f.Health.Impact.Summary); n > maxSummary {
		t.Errorf("summary of %d bytes, want <= %d", n, maxSummary)
	}
	if n := len(f.Health.Impact.Description); n > maxDescription {
		t.Errorf("description of %d bytes, want <= %d", n, maxDescription)
	}
	if !strings.HasSuffix(f.Health.Impact.Description, "…") {
		t.Errorf("a truncated description ends with an ellipsis")
	}
}

func TestPoolOf(t *testing.T) {
	pool := func(name string, lbls map[string]string) *mcfgv1.MachineConfigPool {
		return &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: mcfgv1.MachineConfigPoolSpec{NodeSelector: &metav1.LabelSelector{MatchLabels: lbls}}}
	}
	pools := []*mcfgv1.MachineConfigPool{
		pool("master", map[string]string{"node-role.kubernetes.io/master": ""}),
		pool("worker", map[string]string{"node-role.kubernetes.io/worker": ""}),
		pool("infra", map[string]string{"node-role.kubernetes.io/infra": ""}),
	}
	node := func(roles ...string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{}}}
		for _, r := range roles {
			n.Labels["node-role.kubernetes.io/"+r] = ""
		}
		return n
	}
	for _, tc := range []struct {
		name string
		node *corev1.Node
		mcn  *mcfgv1.MachineConfigNode
		want string
	}{
		{"worker", node("worker"), nil, "worker"},
		{"master wins", node("master", "worker"), nil, "master"},
		{"custom over worker", node("worker", "infra"), nil, "infra"},
		{"none", node("edge"), nil, ""},
		{"MachineConfigNode names it", node("worker"), mcn("n"), "infra"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PoolOf(tc.node, tc.mcn, pools); got != tc.want {
				t.Errorf("PoolOf = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestContributions(t *testing.T) {
	app := map[string]string{"app": "db"}
	mk := func(node, pool string) *Finding {
		return Evaluate(&Input{Node: drainingNode(node), Pool: pool, Pods: []*corev1.Pod{pod("shop", "db-1", node, app)},
			Budgets: []*policyv1.PodDisruptionBudget{budget("shop", "db", app, 1, 1, 1)}}, t0, DefaultTimeout)
	}
	cp, pools := Contributions([]*Finding{mk("w2", "worker"), mk("m0", MasterPool), mk("w1", "worker"), mk("i0", "infra")}, t0)
	if len(cp) != 1 || cp[0].UID != UID("m0") || cp[0].Insight.Type != v1alpha1.HealthInsightType || cp[0].Insight.HealthInsight == nil {
		t.Errorf("control plane = %+v", cp)
	}
	if len(pools) != 2 || pools[0].Name != "infra" || pools[1].Name != "worker" || len(pools[1].Insights) != 2 {
		t.Fatalf("pools = %+v", pools)
	}
	if a, b := pools[1].Insights[0].UID, pools[1].Insights[1].UID; a >= b {
		t.Errorf("worker insights not sorted by uid: %s, %s", a, b)
	}
}
