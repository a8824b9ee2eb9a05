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
	"encoding/json"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
)

// t0 is when the test update started; tests observe the cluster at now.
var (
	t0  = time.Date(2024, 6, 1, 10, 0, 0, 0, time.UTC)
	now = t0.Add(30 * time.Minute)
)

const (
	fromV = "4.15.0"
	toV   = "4.16.0"
)

func mt(t time.Time) metav1.Time { return metav1.NewTime(t) }

func ccond(typ configv1.ClusterStatusConditionType, status configv1.ConditionStatus, reason, msg string, at time.Time) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: mt(at)}
}

// newCV is a ClusterVersion updating from fromV to toV since t0.
func newCV() *configv1.ClusterVersion {
	done := mt(t0.Add(-24 * time.Hour))
	return &configv1.ClusterVersion{
		ObjectMeta: metav1.ObjectMeta{Name: "version", UID: "cv", ResourceVersion: "1", CreationTimestamp: mt(t0.Add(-48 * time.Hour))},
		Status: configv1.ClusterVersionStatus{
			Desired: configv1.Release{Version: toV},
			History: []configv1.UpdateHistory{
				{State: configv1.PartialUpdate, Version: toV, Image: "img-new", StartedTime: mt(t0)},
				{State: configv1.CompletedUpdate, Version: fromV, Image: "img-old", StartedTime: mt(t0.Add(-48 * time.Hour)), CompletionTime: &done},
			},
			Conditions: []configv1.ClusterOperatorStatusCondition{
				ccond(configv1.OperatorProgressing, configv1.ConditionTrue, "", "Working towards "+toV, t0),
				ccond(failingCondition, configv1.ConditionFalse, "", "", t0.Add(-time.Hour)),
			},
		},
	}
}

// newCO is a healthy platform ClusterOperator at version, not progressing.
func newCO(name, version string) *configv1.ClusterOperator {
	return &configv1.ClusterOperator{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("co-" + name), ResourceVersion: "1",
			Annotations: map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"}},
		Status: configv1.ClusterOperatorStatus{
			Versions: []configv1.OperandVersion{{Name: "operator", Version: version}},
			Conditions: []configv1.ClusterOperatorStatusCondition{
				ccond(configv1.OperatorAvailable, configv1.ConditionTrue, "AsExpected", "", t0.Add(-time.Hour)),
				ccond(configv1.OperatorDegraded, configv1.ConditionFalse, "AsExpected", "", t0.Add(-time.Hour)),
				ccond(configv1.OperatorProgressing, configv1.ConditionFalse, "AsExpected", "", t0.Add(time.Minute)),
			},
		},
	}
}

func setCOCondition(co *configv1.ClusterOperator, c configv1.ClusterOperatorStatusCondition) {
	for i := range co.Status.Conditions {
		if co.Status.Conditions[i].Type == c.Type {
			co.Status.Conditions[i] = c
			return
		}
	}
	co.Status.Conditions = append(co.Status.Conditions, c)
}

func removeCOCondition(co *configv1.ClusterOperator, typ configv1.ClusterStatusConditionType) {
	out := co.Status.Conditions[:0]
	for _, c := range co.Status.Conditions {
		if c.Type != typ {
			out = append(out, c)
		}
	}
	co.Status.Conditions = out
}

// newPool selects nodes labelled node-role.kubernetes.io/<name> and targets
// rendered-<name>-new.
func newPool(name string) *mcfgv1.MachineConfigPool {
	return &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("mcp-" + name), ResourceVersion: "1", CreationTimestamp: mt(t0.Add(-48 * time.Hour))},
		Spec: mcfgv1.MachineConfigPoolSpec{
			NodeSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/" + name: ""}},
			Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: "rendered-" + name + "-new"}},
		},
	}
}

// newNode is a ready node of pool that runs the old rendered config.
func newNode(name, pool string) *Node {
	old := "rendered-" + pool + "-old"
	return NodeOf(&corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1",
			Labels: map[string]string{"node-role.kubernetes.io/" + pool: ""},
			Annotations: map[string]string{
				CurrentConfigAnnotation: old, DesiredConfigAnnotation: old, MCDStateAnnotation: MCDStateDone,
				DesiredDrainAnnotation: "uncordon-" + old, LastAppliedDrainAnnotation: "uncordon-" + old,
			},
		},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: mt(t0.Add(-time.Hour))},
			{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, LastTransitionTime: mt(t0.Add(-time.Hour))},
		}},
	}, nil)
}

// labelMap returns l as a map; nil when l is.
func labelMap(l NodeLabels) map[string]string {
	if l == nil {
		return nil
	}
	out := make(map[string]string, len(l))
	for _, e := range l {
		out[e.Key] = e.Value
	}
	return out
}

// withLabel returns l with the label key="" added.
func withLabel(l NodeLabels, key string) NodeLabels {
	m := labelMap(l)
	if m == nil {
		m = map[string]string{}
	}
	m[key] = ""
	return NodeLabelsOf(m, nil)
}

// mcVersions knows the old and new rendered configs of the usual pools.
func mcVersions() map[string]string {
	m := map[string]string{}
	for _, p := range []string{"master", "worker", "infra"} {
		m["rendered-"+p+"-old"] = fromV
		m["rendered-"+p+"-new"] = toV
	}
	return m
}

// cluster is a small cluster in the middle of an update: two operators done,
// machine-config progressing, three masters and two workers pending.
func cluster() *Sources {
	mco := newCO("machine-config", fromV)
	setCOCondition(mco, ccond(configv1.OperatorProgressing, configv1.ConditionTrue, "", "Working towards "+toV, t0.Add(20*time.Minute)))
	return &Sources{
		ClusterVersion:        newCV(),
		ClusterOperators:      []*configv1.ClusterOperator{newCO("etcd", toV), newCO("kube-apiserver", toV), mco},
		MachineConfigPools:    []*mcfgv1.MachineConfigPool{newPool("master"), newPool("worker")},
		MachineConfigVersions: mcVersions(),
		Nodes: []*Node{
			newNode("master-0", "master"), newNode("master-1", "master"), newNode("master-2", "master"),
			newNode("worker-0", "worker"), newNode("worker-1", "worker"),
		},
	}
}

// object wraps a status into a served object.
func object(st v1alpha1.UpdateStatusStatus) *v1alpha1.UpdateStatus {
	return &v1alpha1.UpdateStatus{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "UpdateStatus"},
		ObjectMeta: metav1.ObjectMeta{Name: resources.UpdateStatusName},
		Status:     st,
	}
}

// mustValid fails the test when the status is not a valid object.
func mustValid(t testing.TB, res Result) {
	t.Helper()
	if errs := validation.ValidateUpdateStatus(object(res.Status)); len(errs) > 0 {
		t.Fatalf("invalid object: %v", errs.ToAggregate())
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// insights lists every insight of a status with its uid.
type found struct {
	uid   string
	where string
	cv    *v1alpha1.ClusterVersionStatusInsight
	co    *v1alpha1.ClusterOperatorStatusInsight
	mcp   *v1alpha1.MachineConfigPoolStatusInsight
	node  *v1alpha1.NodeStatusInsight
	h     *v1alpha1.HealthStatusInsight
}

func all(st *v1alpha1.UpdateStatusStatus) []found {
	var out []found
	if cp := st.ControlPlane; cp != nil {
		for _, inf := range cp.Informers {
			for _, in := range inf.Insights {
				u := in.Insight
				out = append(out, found{uid: in.UID, where: "controlPlane/" + inf.Name, cv: u.ClusterVersionStatusInsight,
					co: u.ClusterOperatorStatusInsight, mcp: u.MachineConfigPoolStatusInsight, node: u.NodeStatusInsight, h: u.HealthInsight})
			}
		}
	}
	for _, p := range st.WorkerPools {
		for _, inf := range p.Informers {
			for _, in := range inf.Insights {
				u := in.Insight
				out = append(out, found{uid: in.UID, where: "workerPools/" + p.Name + "/" + inf.Name,
					mcp: u.MachineConfigPoolStatusInsight, node: u.NodeStatusInsight, h: u.HealthInsight})
			}
		}
	}
	return out
}

// firstInsight returns the first of res's insights that match, or a found
// without an insight when none does.
func firstInsight(res Result, match func(found) bool) found {
	for _, f := range all(&res.Status) {
		if match(f) {
			return f
		}
	}
	return found{}
}

func cvOf(t testing.TB, res Result) *v1alpha1.ClusterVersionStatusInsight {
	t.Helper()
	return firstInsight(res, func(f found) bool { return f.cv != nil }).cv
}

func coOf(res Result, name string) *v1alpha1.ClusterOperatorStatusInsight {
	return firstInsight(res, func(f found) bool { return f.co != nil && f.co.Name == name }).co
}

func nodeOf(res Result, name string) *v1alpha1.NodeStatusInsight {
	return firstInsight(res, func(f found) bool { return f.node != nil && f.node.Name == name }).node
}

func mcpOf(res Result, name string) *v1alpha1.MachineConfigPoolStatusInsight {
	return firstInsight(res, func(f found) bool { return f.mcp != nil && f.mcp.Name == name }).mcp
}

// healthOf returns the health insights of a kind (all when kind is empty),
// each uid once.
func healthOf(res Result, kind v1alpha1.HealthKind) []found {
	var out []found
	seen := map[string]bool{}
	for _, f := range all(&res.Status) {
		if f.h == nil || seen[f.uid] || (kind != "" && conventions.KindOf(f.uid) != kind) {
			continue
		}
		seen[f.uid] = true
		out = append(out, f)
	}
	return out
}

// computedHealth computes src at now, checks the result and returns its
// health insights of kind; when wanted is false, it fails the test if there
// is one.
func computedHealth(t testing.TB, src *Sources, kind v1alpha1.HealthKind, wanted bool) []found {
	t.Helper()
	res := Compute(src, now)
	mustValid(t, res)
	hs := healthOf(res, kind)
	if !wanted && len(hs) != 0 {
		t.Fatalf("unexpected insight %q", hs[0].h.Impact.Summary)
	}
	return hs
}

func cond(conds []metav1.Condition, typ string) metav1.Condition {
	for _, c := range conds {
		if c.Type == typ {
			return c
		}
	}
	return metav1.Condition{}
}

func summary(m *v1alpha1.MachineConfigPoolStatusInsight, typ v1alpha1.NodeSummaryType) int32 {
	for _, s := range m.Summaries {
		if s.Type == typ {
			return s.Count
		}
	}
	return -1
}

// setNodeCondition replaces or adds a node condition, and moves the node's
// change time to its transition when that is later (as NodeOf would).
func setNodeCondition(n *Node, c corev1.NodeCondition) {
	if c.LastTransitionTime.After(n.Changed) {
		n.Changed = c.LastTransitionTime.Time
	}
	nc := NodeCondition{Type: c.Type, Status: c.Status, Message: c.Message, LastTransitionTime: c.LastTransitionTime.Time}
	for i := range n.Conditions {
		if n.Conditions[i].Type == c.Type {
			n.Conditions[i] = nc
			return
		}
	}
	n.Conditions = append(n.Conditions, nc)
}

// updating makes a node updating to the new config in the given daemon state.
func updating(n *Node, state string) *Node {
	pool := strings.TrimPrefix(strings.TrimSuffix(n.Annotations[CurrentConfigAnnotation], "-old"), "rendered-")
	n.Annotations[DesiredConfigAnnotation] = "rendered-" + pool + "-new"
	n.Annotations[MCDStateAnnotation] = state
	return n
}

// updated makes a node run the new config.
func updated(n *Node) *Node {
	pool := strings.TrimPrefix(strings.TrimSuffix(n.Annotations[CurrentConfigAnnotation], "-old"), "rendered-")
	n.Annotations[CurrentConfigAnnotation] = "rendered-" + pool + "-new"
	n.Annotations[DesiredConfigAnnotation] = "rendered-" + pool + "-new"
	return n
}

// healthJSON encodes the health insights (with their uids) of a list.
func healthJSON(t testing.TB, fs []found) string {
	t.Helper()
	type entry struct {
		UID    string
		Health *v1alpha1.HealthStatusInsight
	}
	out := make([]entry, len(fs))
	for i, f := range fs {
		out[i] = entry{f.uid, f.h}
	}
	return mustJSON(t, out)
}
