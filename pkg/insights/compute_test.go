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
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// bigCluster is cluster() with n extra worker nodes in assorted states.
func bigCluster(n int) *Sources {
	src := cluster()
	for i := 0; i < n; i++ {
		node := newNode(fmt.Sprintf("node-%04d.example.com", i), "worker")
		switch i % 7 {
		case 0:
			updated(node)
		case 1:
			updating(node, MCDStateWorking)
		case 2:
			node.Annotations[MCDStateAnnotation] = MCDStateDegraded
			node.Annotations[MCDReasonAnnotation] = "boom"
		case 3:
			setNodeCondition(node, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastTransitionTime: mt(t0)})
		}
		src.Nodes = append(src.Nodes, node)
	}
	return src
}

// finishNodeUpdate replaces node i of src by a copy at resourceVersion 2 that
// has finished its update, as an informer hands out a new object for each
// change, and returns the copy.
func finishNodeUpdate(src *Sources, i int) *Node {
	n := src.Nodes[i].DeepCopy()
	n.ResourceVersion = "2"
	updated(n)
	src.Nodes[i] = n
	return n
}

func shuffled(src *Sources, seed int64) *Sources {
	rng := rand.New(rand.NewSource(seed))
	out := *src
	out.Nodes = append([]*Node(nil), src.Nodes...)
	out.ClusterOperators = append([]*configv1.ClusterOperator(nil), src.ClusterOperators...)
	out.MachineConfigPools = append([]*mcfgv1.MachineConfigPool(nil), src.MachineConfigPools...)
	rng.Shuffle(len(out.Nodes), func(i, j int) { out.Nodes[i], out.Nodes[j] = out.Nodes[j], out.Nodes[i] })
	rng.Shuffle(len(out.ClusterOperators), func(i, j int) {
		out.ClusterOperators[i], out.ClusterOperators[j] = out.ClusterOperators[j], out.ClusterOperators[i]
	})
	rng.Shuffle(len(out.MachineConfigPools), func(i, j int) {
		out.MachineConfigPools[i], out.MachineConfigPools[j] = out.MachineConfigPools[j], out.MachineConfigPools[i]
	})
	return &out
}

func TestDeterministicWhateverTheInputOrder(t *testing.T) {
	src := bigCluster(40)
	src.MachineConfigPools = append(src.MachineConfigPools, newPool("infra"))
	want := mustJSON(t, Compute(src, now).Status)
	for seed := int64(1); seed <= 5; seed++ {
		if got := mustJSON(t, Compute(shuffled(src, seed), now).Status); got != want {
			t.Fatalf("seed %d: the result depends on the input order", seed)
		}
	}
}

func TestOrderingAndUIDs(t *testing.T) {
	src := bigCluster(20)
	long := newNode("build0-gstfj-w-b-infra-2stfh.c.openshift-ci-build-farm.internal", "worker")
	src.Nodes = append(src.Nodes, long)
	res := Compute(src, now)
	mustValid(t, res)
	order := map[v1alpha1.InsightType]int{"ClusterVersion": 0, "ClusterOperator": 1, "MachineConfigPool": 2, "Node": 3, "Health": 4}
	check := func(where string, types []v1alpha1.InsightType, uids []string) {
		for i := range uids {
			if !conventions.IsDNSLabel(uids[i]) {
				t.Errorf("%s: uid %q is not valid", where, uids[i])
			}
			if i > 0 && (order[types[i-1]] > order[types[i]] || order[types[i-1]] == order[types[i]] && uids[i-1] >= uids[i]) {
				t.Errorf("%s: %s/%s is listed after %s/%s", where, types[i], uids[i], types[i-1], uids[i-1])
			}
		}
	}
	cp := res.Status.ControlPlane
	for i, inf := range cp.Informers {
		if i > 0 && cp.Informers[i-1].Name >= inf.Name {
			t.Errorf("informers out of order")
		}
		var ts []v1alpha1.InsightType
		var us []string
		for _, in := range inf.Insights {
			ts, us = append(ts, in.Insight.Type), append(us, in.UID)
		}
		check("controlPlane/"+inf.Name, ts, us)
	}
	for i, p := range res.Status.WorkerPools {
		if i > 0 && res.Status.WorkerPools[i-1].Name >= p.Name {
			t.Errorf("pools out of order")
		}
		for _, inf := range p.Informers {
			var ts []v1alpha1.InsightType
			var us []string
			for _, in := range inf.Insights {
				ts, us = append(ts, in.Insight.Type), append(us, in.UID)
			}
			check("workerPools/"+p.Name, ts, us)
		}
	}
	for _, f := range all(&res.Status) {
		if f.node != nil && f.node.Name == long.Name {
			if want := "node-" + conventions.Hash16("", "nodes", "", long.Name); f.uid != want {
				t.Errorf("long node uid %q, want %q", f.uid, want)
			}
		}
		if f.node != nil && f.node.Name == "worker-0" && f.uid != "node-worker-0" {
			t.Errorf("uid %q", f.uid)
		}
	}
	if cvOf(t, res) == nil || all(&res.Status)[0].uid != "cv-version" {
		t.Error("the ClusterVersion insight must come first, as cv-version")
	}
}

// TestRecomputationIsByteIdentical: nothing in the object moves with the
// clock unless a threshold is crossed.
func TestRecomputationIsByteIdentical(t *testing.T) {
	src := bigCluster(30)
	first := Compute(src, now)
	if first.NextChange.IsZero() || !first.NextChange.After(now) {
		t.Fatalf("NextChange %v", first.NextChange)
	}
	again := Compute(src, first.NextChange.Add(-time.Nanosecond))
	if mustJSON(t, first.Status) != mustJSON(t, again.Status) {
		t.Error("the object changed before NextChange")
	}
	if later := Compute(src, first.NextChange); mustJSON(t, first.Status) == mustJSON(t, later.Status) {
		t.Error("the object did not change at NextChange")
	}
}

// TestIncrementalMatchesFresh runs a sequence of changes through one Engine
// and checks every result against a fresh computation.
func TestIncrementalMatchesFresh(t *testing.T) {
	src := bigCluster(60)
	src.MachineConfigVersions["rendered-worker-older"] = "4.14.9"
	e := NewEngine()
	steps := []struct {
		name string
		edit func(s *Sources)
	}{
		{"nothing", func(*Sources) {}},
		{"one node changes", func(s *Sources) { finishNodeUpdate(s, 10) }},
		{"one node changes but no count does", func(s *Sources) {
			n := s.Nodes[9].DeepCopy()
			n.ResourceVersion = "2"
			n.Annotations[CurrentConfigAnnotation], n.Annotations[DesiredConfigAnnotation] = "rendered-worker-older", "rendered-worker-older"
			s.Nodes[9] = n
		}},
		{"one node becomes degraded", func(s *Sources) {
			n := s.Nodes[11].DeepCopy()
			n.ResourceVersion = "2"
			n.Annotations[MCDStateAnnotation], n.Annotations[MCDReasonAnnotation] = MCDStateDegraded, "bad"
			s.Nodes[11] = n
		}},
		{"a node is removed", func(s *Sources) { s.Nodes = append(s.Nodes[:12:12], s.Nodes[13:]...) }},
		{"a node is added", func(s *Sources) { s.Nodes = append(s.Nodes, newNode("zz-new", "worker")) }},
		{"a node is recreated with a new UID", func(s *Sources) {
			n := s.Nodes[14].DeepCopy()
			n.UID = "recreated"
			updated(n)
			s.Nodes[14] = n
		}},
		{"a node moves to another pool", func(s *Sources) {
			n := s.Nodes[15].DeepCopy()
			n.ResourceVersion = "3"
			n.Labels = NodeLabelsOf(map[string]string{"node-role.kubernetes.io/infra": ""}, nil)
			s.Nodes[15] = n
			s.MachineConfigPools = append(s.MachineConfigPools, newPool("infra"))
		}},
		{"a MachineConfig version changes", func(s *Sources) {
			s.MachineConfigVersions = mcVersions()
			s.MachineConfigVersions["rendered-worker-older"] = "4.14.9"
			s.MachineConfigVersions["rendered-worker-old"] = "4.15.1"
		}},
		{"the pool is paused", func(s *Sources) {
			p := s.MachineConfigPools[1].DeepCopy()
			p.Spec.Paused = true
			s.MachineConfigPools[1] = p
		}},
		{"the selector changes", func(s *Sources) {
			p := s.MachineConfigPools[1].DeepCopy()
			p.Spec.NodeSelector = &metav1.LabelSelector{}
			s.MachineConfigPools[1] = p
		}},
		{"the target changes", func(s *Sources) {
			cv := s.ClusterVersion.DeepCopy()
			cv.Status.History[0].Version = "4.15.1"
			cv.Status.Desired.Version = "4.15.1"
			s.ClusterVersion = cv
		}},
		{"an operator changes", func(s *Sources) {
			co := s.ClusterOperators[0].DeepCopy()
			co.ResourceVersion = "9"
			setCOCondition(co, ccond(configv1.OperatorDegraded, configv1.ConditionTrue, "X", "x", t0))
			s.ClusterOperators[0] = co
		}},
		{"the same node is listed twice", func(s *Sources) { s.Nodes = append(s.Nodes, s.Nodes[3]) }},
	}
	at := now
	for _, step := range steps {
		step.edit(src)
		at = at.Add(time.Minute)
		got := e.Compute(src, at)
		want := Compute(src, at)
		mustValid(t, got)
		if mustJSON(t, got.Status) != mustJSON(t, want.Status) || !got.NextChange.Equal(want.NextChange) {
			t.Fatalf("after %q the engine's result differs from a fresh computation", step.name)
		}
	}
	if len(e.nodes) != len(src.Nodes)-1 {
		t.Errorf("the engine remembers %d nodes, want %d", len(e.nodes), len(src.Nodes)-1)
	}
}

// TestIncrementalWorkIsLocal: after one node changes, only that node's facts
// are recomputed.
func TestIncrementalWorkIsLocal(t *testing.T) {
	src := bigCluster(100)
	e := NewEngine()
	e.Compute(src, now)
	before := map[string]*nodeFacts{}
	for k, ent := range e.nodes {
		before[k] = ent.facts
	}
	n := finishNodeUpdate(src, 20)
	e.Compute(src, now)
	changed := 0
	for k, ent := range e.nodes {
		if before[k] != ent.facts {
			changed++
			if k != n.Name {
				t.Errorf("node %s was recomputed", k)
			}
		}
	}
	if changed != 1 {
		t.Errorf("%d nodes recomputed, want 1", changed)
	}
}

// TestRelistRecomputesNothing: new objects with the same resourceVersions
// (an informer relist, or a copy) reuse every node's facts.
func TestRelistRecomputesNothing(t *testing.T) {
	src := bigCluster(50)
	e := NewEngine()
	first := e.Compute(src, now)
	before := map[string]*nodeFacts{}
	for k, ent := range e.nodes {
		before[k] = ent.facts
	}
	relisted := shuffled(src, 3)
	for i, n := range relisted.Nodes {
		relisted.Nodes[i] = n.DeepCopy()
	}
	again := e.Compute(relisted, now)
	for k, ent := range e.nodes {
		if before[k] != ent.facts {
			t.Errorf("node %s was recomputed", k)
		}
	}
	if mustJSON(t, first.Status) != mustJSON(t, again.Status) {
		t.Error("the result changed")
	}
}

// TestUnchangedInsightsKeepTheirEntries: in a recomputation where one node
// changed, the entries of Result.Insights of every other node and of every
// health insight (most of the list) are the same Insights as before, which
// the view recognises by pointer; the changed node's is a new one.
func TestUnchangedInsightsKeepTheirEntries(t *testing.T) {
	src := bigCluster(200)
	e := NewEngine()
	first := e.Compute(src, now)
	before := map[string]*Insight{}
	health := 0
	for _, in := range first.Insights {
		before[in.UID] = in
		if in.Health != nil {
			health++
		}
	}
	if health == 0 {
		t.Fatal("the cluster has no health insight to check")
	}
	n := finishNodeUpdate(src, 20)
	again := e.Compute(src, now)
	var renewed []string
	for _, in := range again.Insights {
		if (in.Node != nil || in.Health != nil) && before[in.UID] != in {
			renewed = append(renewed, in.UID)
		}
	}
	if want := []string{"node-" + strings.ReplaceAll(n.Name, ".", "-")}; !reflect.DeepEqual(renewed, want) {
		t.Errorf("renewed node and health entries %v, want %v", renewed, want)
	}
}

func TestTruncation(t *testing.T) {
	src := bigCluster(1500)
	res := Compute(src, now)
	mustValid(t, res)
	var worker v1alpha1.Pool
	for _, p := range res.Status.WorkerPools {
		if p.Name == "worker" {
			worker = p
		}
	}
	ins := worker.Informers[0].Insights
	if len(ins) != 1024 {
		t.Fatalf("worker pool lists %d insights, want exactly the limit", len(ins))
	}
	var degradedNodes, omitted int
	var notice *v1alpha1.HealthStatusInsight
	for _, in := range ins {
		if n := in.Insight.NodeStatusInsight; n != nil && cond(n.Conditions, "Degraded").Status == metav1.ConditionTrue {
			degradedNodes++
		}
		if conventions.KindOf(in.UID) == v1alpha1.HealthInsightsOmitted {
			notice = in.Insight.HealthInsight
		}
	}
	// 1500/7 rounded up nodes are degraded; all must be kept.
	if want := (1500 + 4) / 7; degradedNodes != want {
		t.Errorf("kept %d degraded nodes, want all %d", degradedNodes, want)
	}
	if notice == nil || notice.Impact.Level != v1alpha1.InfoImpactLevel {
		t.Fatalf("no Info insight reports the truncation")
	}
	if _, err := fmt.Sscanf(notice.Impact.Summary, "%d", &omitted); err != nil {
		t.Fatalf("the truncation notice %q does not start with a count: %v", notice.Impact.Summary, err)
	}
	if len(res.Truncations) != 1 || res.Truncations[0].Omitted != omitted || omitted == 0 {
		t.Errorf("truncations %+v, notice says %d", res.Truncations, omitted)
	}
	if m := mcpOf(res, "worker"); summary(m, v1alpha1.NodesTotal) != 1502 {
		t.Errorf("the pool summary counts %d nodes, want every node", summary(m, v1alpha1.NodesTotal))
	}
	// The memoized engine truncates the same way.
	e := NewEngine()
	e.Compute(src, now)
	if again := e.Compute(src, now); mustJSON(t, again.Status) != mustJSON(t, res.Status) || len(again.Truncations) != 1 {
		t.Error("a recomputation truncates differently")
	}
}

func TestTooManyPools(t *testing.T) {
	src := cluster()
	for i := 0; i < 40; i++ {
		name := fmt.Sprintf("pool-%02d", i)
		src.MachineConfigPools = append(src.MachineConfigPools, newPool(name))
		for j := 0; j <= i%3; j++ {
			src.Nodes = append(src.Nodes, newNode(fmt.Sprintf("%s-n%d", name, j), name))
		}
	}
	res := Compute(src, now)
	mustValid(t, res)
	if len(res.Status.WorkerPools) != 32 {
		t.Fatalf("%d worker pools, want 32", len(res.Status.WorkerPools))
	}
	found := false
	for _, p := range res.Status.WorkerPools {
		found = found || p.Name == "worker"
	}
	if !found {
		t.Error("the worker pool must be kept")
	}
	if len(healthOf(res, v1alpha1.HealthPoolsOmitted)) != 1 {
		t.Error("no insight reports the left-out pools")
	}
}

func TestMalformedInputs(t *testing.T) {
	huge := strings.Repeat("é", 50000)
	for _, tc := range []struct {
		name     string
		edit     func(s *Sources) *Sources
		wantKind v1alpha1.HealthKind
		wantCV   v1alpha1.ControlPlaneAssessment
	}{
		{name: "nil sources", edit: func(*Sources) *Sources { return nil }, wantKind: v1alpha1.HealthCVMissing},
		{name: "empty sources", edit: func(*Sources) *Sources { return &Sources{} }, wantKind: v1alpha1.HealthCVMissing},
		{name: "no ClusterVersion", edit: func(s *Sources) *Sources { s.ClusterVersion = nil; return s }, wantKind: v1alpha1.HealthCVMissing},
		{name: "no ClusterOperators", edit: func(s *Sources) *Sources { s.ClusterOperators = nil; return s },
			wantKind: v1alpha1.HealthCONone, wantCV: v1alpha1.ControlPlaneAssessmentUnknown},
		{name: "no Progressing condition", edit: func(s *Sources) *Sources {
			s.ClusterVersion.Status.Conditions = s.ClusterVersion.Status.Conditions[1:]
			return s
		}, wantKind: v1alpha1.HealthCVNoProgressing, wantCV: v1alpha1.ControlPlaneAssessmentUnknown},
		{name: "empty history", edit: func(s *Sources) *Sources { s.ClusterVersion.Status.History = nil; return s }, wantKind: v1alpha1.HealthCVBadHistory},
		{name: "garbage previous version", edit: func(s *Sources) *Sources {
			s.ClusterVersion.Status.History[1].Version = "v\x00x"
			return s
		}, wantKind: v1alpha1.HealthCVBadHistory},
		{name: "nil entries everywhere", edit: func(s *Sources) *Sources {
			s.Nodes = append(s.Nodes, nil)
			s.ClusterOperators = append(s.ClusterOperators, nil)
			s.MachineConfigPools = append(s.MachineConfigPools, nil)
			s.MachineConfigVersions = nil
			return s
		}},
		{name: "nil node annotations, labels and selector", edit: func(s *Sources) *Sources {
			s.Nodes[3].Annotations, s.Nodes[4].Labels = nil, nil
			s.MachineConfigPools[0].Spec.NodeSelector = nil
			return s
		}},
		{name: "huge strings", edit: func(s *Sources) *Sources {
			s.Nodes[3].Annotations[MCDStateAnnotation] = MCDStateDegraded
			s.Nodes[3].Annotations[MCDReasonAnnotation] = huge
			co := s.ClusterOperators[0]
			setCOCondition(co, ccond(configv1.OperatorDegraded, configv1.ConditionTrue, huge, huge, t0))
			setCOCondition(s.ClusterOperators[2], ccond(configv1.OperatorProgressing, configv1.ConditionTrue, huge, huge, t0))
			s.ClusterVersion.Status.Conditions = append(s.ClusterVersion.Status.Conditions[:1],
				ccond(failingCondition, configv1.ConditionTrue, huge, huge, t0))
			s.ClusterVersion.Status.History[0].Version = "4.16.0-" + strings.Repeat("a", 100)
			return s
		}, wantKind: v1alpha1.HealthCVBadHistory},
		{name: "thousands of conditions", edit: func(s *Sources) *Sources {
			for i := 0; i < 5000; i++ {
				s.Nodes[3].Conditions = append(s.Nodes[3].Conditions,
					NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastTransitionTime: t0})
				s.ClusterOperators[0].Status.Conditions = append(s.ClusterOperators[0].Status.Conditions,
					ccond(configv1.OperatorAvailable, configv1.ConditionFalse, "X", "x", t0))
			}
			return s
		}},
		{name: "invalid names", edit: func(s *Sources) *Sources {
			s.Nodes[3].Name = "Not A Name"
			s.ClusterOperators[0].Name = "dotted.operator"
			p := newPool("Bad_Pool")
			s.MachineConfigPools = append(s.MachineConfigPools, p)
			n := newNode("in-bad-pool", "Bad_Pool")
			s.Nodes = append(s.Nodes, n)
			return s
		}, wantKind: v1alpha1.HealthUnrepresentable},
		{name: "duplicate names", edit: func(s *Sources) *Sources {
			dup := s.Nodes[3].DeepCopy()
			dup.UID = "other"
			s.Nodes = append(s.Nodes, dup)
			s.ClusterOperators = append(s.ClusterOperators, s.ClusterOperators[0].DeepCopy())
			s.MachineConfigPools = append(s.MachineConfigPools, s.MachineConfigPools[1].DeepCopy())
			return s
		}},
		{name: "zero times", edit: func(s *Sources) *Sources {
			for i := range s.ClusterVersion.Status.Conditions {
				s.ClusterVersion.Status.Conditions[i].LastTransitionTime = metav1.Time{}
			}
			s.ClusterVersion.Status.History[0].StartedTime = metav1.Time{}
			for _, co := range s.ClusterOperators {
				for i := range co.Status.Conditions {
					co.Status.Conditions[i].LastTransitionTime = metav1.Time{}
				}
			}
			for _, n := range s.Nodes {
				n.Conditions, n.Changed = nil, time.Time{}
			}
			return s
		}},
		{name: "nodes without UIDs or resourceVersions", edit: func(s *Sources) *Sources {
			for _, n := range s.Nodes {
				n.UID, n.ResourceVersion = "", ""
			}
			return s
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.edit(cluster())
			res := Compute(src, now)
			mustValid(t, res)
			if tc.wantKind != "" && len(healthOf(res, tc.wantKind)) == 0 {
				t.Errorf("no %s insight explains the input", tc.wantKind)
			}
			if tc.wantCV != "" {
				if cv := cvOf(t, res); cv == nil || cv.Assessment != tc.wantCV {
					t.Errorf("ClusterVersion insight %+v, want assessment %s", cv, tc.wantCV)
				}
			}
			// An engine that saw the input before agrees.
			e := NewEngine()
			e.Compute(src, now)
			if again := e.Compute(src, now); mustJSON(t, again.Status) != mustJSON(t, res.Status) {
				t.Error("a recomputation differs")
			}
		})
	}
}

func TestNextChange(t *testing.T) {
	t.Run("nothing pending", func(t *testing.T) {
		src := cluster()
		src.ClusterOperators[2] = newCO("machine-config", toV)
		if res := Compute(src, now); !res.NextChange.IsZero() {
			t.Errorf("NextChange %v, want none", res.NextChange)
		}
	})
	t.Run("a node turns seriously unavailable", func(t *testing.T) {
		src := cluster()
		src.ClusterOperators[2] = newCO("machine-config", toV)
		since := now.Add(-2 * time.Minute)
		setNodeCondition(src.Nodes[3], corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastTransitionTime: mt(since)})
		res := Compute(src, now)
		if want := since.Add(5 * time.Minute); !res.NextChange.Equal(want) {
			t.Fatalf("NextChange %v, want %v", res.NextChange, want)
		}
		if len(healthOf(Compute(src, res.NextChange.Add(-1)), v1alpha1.HealthNodeUnavailable)) != 0 ||
			len(healthOf(Compute(src, res.NextChange), v1alpha1.HealthNodeUnavailable)) != 1 {
			t.Error("the insight does not appear exactly at NextChange")
		}
	})
	t.Run("the estimate runs out", func(t *testing.T) {
		src := cluster()
		at := t0.Add(25 * time.Minute)
		res := Compute(src, at)
		next := res.NextChange
		if !next.After(at) {
			t.Fatalf("NextChange %v", next)
		}
		before, after := cvOf(t, Compute(src, next.Add(-1))), cvOf(t, Compute(src, next))
		if before.Assessment != v1alpha1.ControlPlaneAssessmentProgressing || after.Assessment != v1alpha1.ControlPlaneAssessmentDegraded {
			t.Errorf("at NextChange %v the assessment goes %s -> %s", next, before.Assessment, after.Assessment)
		}
	})
	t.Run("no progress since the start: the projection moves with time", func(t *testing.T) {
		src := cluster()
		for _, co := range src.ClusterOperators {
			setCOCondition(co, ccond(configv1.OperatorProgressing, configv1.ConditionFalse, "", "", t0.Add(-time.Hour)))
		}
		at := t0.Add(3 * time.Minute)
		res := Compute(src, at)
		// Until 5m the baseline is used; after it the projection follows time.
		if want := t0.Add(5*time.Minute + 1); !res.NextChange.Equal(want) {
			t.Fatalf("NextChange %v, want %v", res.NextChange, want)
		}
		later := t0.Add(7 * time.Minute)
		res = Compute(src, later)
		if !res.NextChange.After(later) || res.NextChange.After(later.Add(time.Second)) {
			t.Fatalf("NextChange %v, want within a second after %v", res.NextChange, later)
		}
		a, b := cvOf(t, Compute(src, res.NextChange.Add(-1))), cvOf(t, Compute(src, res.NextChange))
		if a.EstimatedCompletedAt.Equal(b.EstimatedCompletedAt) {
			t.Error("the projection did not move at NextChange")
		}
	})
}

func TestAlerts(t *testing.T) {
	alert := func(name, severity, state string, activeAt time.Time, ann map[string]string) Alert {
		return Alert{Labels: map[string]string{"alertname": name, "severity": severity, "namespace": "openshift-monitoring"},
			Annotations: ann, State: state, ActiveAt: activeAt}
	}
	during, before := t0.Add(10*time.Minute+500*time.Millisecond), t0.Add(-time.Hour)
	for _, tc := range []struct {
		name       string
		alert      Alert
		wantLevel  v1alpha1.InsightImpactLevel // "" when skipped
		wantDesc   string
		wantRef    string
		wantSumm   string
		wantStart  time.Time
		wantObject string
	}{
		{name: "fired during the update", alert: alert("KubePodNotReady", "warning", "firing", during, map[string]string{"description": "d", "summary": "s", "runbook_url": "https://x/r.md"}),
			wantLevel: v1alpha1.WarningImpactLevel, wantDesc: "Alert started firing during the update. The alert description is: d", wantRef: "https://x/r.md",
			wantSumm: "Alert is firing: s", wantStart: t0.Add(10*time.Minute + time.Second), wantObject: "kube-pod-not-ready"},
		{name: "fired before the update is skipped", alert: alert("KubePodNotReady", "warning", "firing", before, nil)},
		{name: "known to affect updates, before", alert: alert("PodDisruptionBudgetAtLimit", "critical", "firing", before, map[string]string{"message": "m"}),
			wantLevel: v1alpha1.CriticalInfoLevel, wantDesc: "Alert known to affect updates has been firing since before the update started. The alert description is: m",
			wantRef: conventions.NoRunbookReference, wantSumm: "Alert is firing: PodDisruptionBudgetAtLimit", wantStart: before, wantObject: "pod-disruption-budget-at-limit"},
		{name: "known to affect updates, during", alert: alert("PodDisruptionBudgetLimit", "warning", "firing", during, map[string]string{"description": "d", "message": "m"}),
			wantLevel: v1alpha1.WarningImpactLevel, wantDesc: "Alert known to affect updates started firing during the update. The alert description is: d | m",
			wantRef: conventions.NoRunbookReference, wantSumm: "Alert is firing: PodDisruptionBudgetLimit", wantStart: t0.Add(10*time.Minute + time.Second),
			wantObject: "pod-disruption-budget-limit"},
		{name: "pending is skipped", alert: alert("KubePodNotReady", "warning", "pending", during, nil)},
		{name: "info is skipped", alert: alert("KubePodNotReady", "info", "firing", during, nil)},
		{name: "no severity is skipped", alert: alert("KubePodNotReady", "", "firing", during, nil)},
		{name: "no name is skipped", alert: alert("", "warning", "firing", during, nil)},
		{name: "no description; a runbook that is not a URL; a lower-case name", alert: alert("up_down", "warning", "firing", during, map[string]string{"runbook_url": "see wiki"}),
			wantLevel: v1alpha1.WarningImpactLevel, wantDesc: "Alert started firing during the update. The alert has no description.",
			wantRef: conventions.TextReference("see wiki"), wantSumm: "Alert is firing: up_down", wantStart: t0.Add(10*time.Minute + time.Second),
			wantObject: conventions.EncodeAlertName("up_down")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := cluster()
			src.Alerts = []Alert{tc.alert}
			hs := computedHealth(t, src, v1alpha1.HealthAlert, tc.wantLevel != "")
			if tc.wantLevel == "" {
				return
			}
			if len(hs) != 1 {
				t.Fatalf("got %d alert insights", len(hs))
			}
			h := hs[0].h
			if h.Impact.Level != tc.wantLevel || h.Impact.Description != tc.wantDesc || h.Remediation.Reference != tc.wantRef ||
				h.Impact.Summary != tc.wantSumm || !h.StartedAt.Time.Equal(tc.wantStart) || h.Impact.Type != v1alpha1.UnknownImpactType {
				t.Errorf("got %s %q %q %q %v", h.Impact.Level, h.Impact.Summary, h.Impact.Description, h.Remediation.Reference, h.StartedAt)
			}
			if r := h.Scope.Resources; len(r) != 1 || r[0].Name != tc.wantObject || r[0].Resource != "alerts" || r[0].Namespace != "openshift-monitoring" ||
				conventions.DecodeAlertName(r[0].Name) != tc.alert.Labels["alertname"] {
				t.Errorf("resources %+v", r)
			}
			if hs[0].where != "controlPlane/alerts" || h.Scope.Type != v1alpha1.ControlPlaneScope {
				t.Errorf("placed at %s scope %s", hs[0].where, h.Scope.Type)
			}
		})
	}
	t.Run("alerts that share every label get distinct uids", func(t *testing.T) {
		src := cluster()
		a := alert("PodDisruptionBudgetAtLimit", "warning", "firing", before, map[string]string{"summary": "one"})
		b := alert("PodDisruptionBudgetAtLimit", "warning", "firing", before, map[string]string{"summary": "two"})
		src.Alerts = []Alert{a, b}
		res := Compute(src, now)
		mustValid(t, res)
		if hs := healthOf(res, v1alpha1.HealthAlert); len(hs) != 2 {
			t.Fatalf("got %d alert insights, want 2", len(hs))
		}
	})
	t.Run("unknown alerts leave no informer", func(t *testing.T) {
		res := Compute(cluster(), now)
		for _, inf := range res.Status.ControlPlane.Informers {
			if inf.Name == v1alpha1.InformerAlerts {
				t.Error("an alerts informer without alerts")
			}
		}
	})
}
