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

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/update-status/apiserver/internal/ocp"
)

func pdbLabels(ns, name string) map[string]string {
	return map[string]string{"namespace": ns, "poddisruptionbudget": name}
}

// pdbValues returns current, desired and expected of one budget.
func pdbValues(t *testing.T, samples []Sample, ns, name string) (current, desired, expected float64) {
	t.Helper()
	var ok [3]bool
	current, ok[0] = SampleValue(samples, MetricPDBCurrentHealthy, pdbLabels(ns, name))
	desired, ok[1] = SampleValue(samples, MetricPDBDesiredHealthy, pdbLabels(ns, name))
	expected, ok[2] = SampleValue(samples, MetricPDBExpectedPods, pdbLabels(ns, name))
	if !ok[0] || !ok[1] || !ok[2] {
		t.Fatalf("budget %s/%s is missing a series: %v", ns, name, ok)
	}
	return current, desired, expected
}

func readyValue(t *testing.T, samples []Sample, node, status string) float64 {
	t.Helper()
	v, ok := SampleValue(samples, MetricNodeStatusCondition, map[string]string{"node": node, "condition": "Ready", "status": status})
	if !ok {
		t.Fatalf("no Ready=%s series for node %s", status, node)
	}
	return v
}

// TestMetricsPerPhase follows a whole update: nodes and budgets agree with the
// objects at every step, nothing is disrupted outside the node rollout, and
// both budgets reach their limit while their pool's nodes drain, never below
// (maxUnavailable 1).
func TestMetricsPerPhase(t *testing.T) {
	s, fc, _ := newTestSimulator(t, Options{Nodes: 6, Seed: 3})
	if got := s.Metrics(); len(got) != 0 {
		t.Fatalf("before Create: %d samples, want none", len(got))
	}
	ctx := context.Background()
	if err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := s.PodDisruptionBudgets(), []string{"openshift-etcd/etcd-guard-pdb", "openshift-ingress/router-default"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("budgets = %v, want %v", got, want)
	}
	if err := s.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	atLimit := map[string]Phase{}
	phases := map[Phase]bool{}
	check := func(st *State) {
		phases[st.Phase] = true
		m := s.Metrics()
		for _, n := range st.Nodes {
			ready := "unknown"
			if c := ocp.FindNodeCondition(n.Status.Conditions, corev1.NodeReady); c != nil && c.Status != corev1.ConditionUnknown {
				ready = strings.ToLower(string(c.Status))
			}
			for _, status := range []string{"true", "false", "unknown"} {
				if got, want := readyValue(t, m, n.Name, status), boolValue(status == ready); got != want {
					t.Fatalf("phase %s: node %s Ready=%s is %v, want %v", st.Phase, n.Name, status, got, want)
				}
			}
			if got, _ := SampleValue(m, MetricNodeUnschedulable, map[string]string{"node": n.Name}); got != boolValue(n.Spec.Unschedulable) {
				t.Fatalf("phase %s: node %s unschedulable %v, spec says %v", st.Phase, n.Name, got, n.Spec.Unschedulable)
			}
		}
		for _, b := range [][2]string{{"openshift-etcd", "etcd-guard-pdb"}, {"openshift-ingress", "router-default"}} {
			cur, des, exp := pdbValues(t, m, b[0], b[1])
			wantExp := 3.0
			if exp != wantExp || des != wantExp-1 {
				t.Fatalf("%s: expected %v desired %v, want %v and %v", b[1], exp, des, wantExp, wantExp-1)
			}
			switch st.Phase {
			case PhaseNodes, PhaseWorkerPools:
				if cur < des || cur > exp {
					t.Fatalf("phase %s: %s current %v outside [%v, %v]", st.Phase, b[1], cur, des, exp)
				}
				if cur == des {
					atLimit[b[1]] = st.Phase
				}
			default:
				if cur != exp {
					t.Fatalf("phase %s: %s current %v, want %v (no node is disrupted)", st.Phase, b[1], cur, exp)
				}
			}
		}
	}
	check(s.Snapshot())
	final := stepUntil(t, s, fc, check, nil)
	if final.Phase != PhaseCompleted {
		t.Fatalf("phase %s, want Completed", final.Phase)
	}
	for _, p := range []Phase{PhaseOperators, PhaseNodes, PhaseCompleted} {
		if !phases[p] {
			t.Errorf("phase %s never seen", p)
		}
	}
	for _, name := range []string{"etcd-guard-pdb", "router-default"} {
		if _, ok := atLimit[name]; !ok {
			t.Errorf("%s never reached its limit during the node rollout", name)
		}
	}
}

// TestMetricsBlockedDrainAndNotReady: a drain held by a fault keeps the
// worker budget at its limit and the node cordoned but Ready; a NotReady
// master shows as Ready=false and puts the etcd budget at its limit.
func TestMetricsBlockedDrainAndNotReady(t *testing.T) {
	s, fc, _ := startedSimulator(t, Options{Nodes: 6, Seed: 3})
	ctx := context.Background()
	if _, err := s.BlockDrain(ctx, "worker", 0); err != nil {
		t.Fatal(err)
	}
	if err := s.RunVirtual(ctx, fc, 0); !errors.Is(err, ErrStalled) {
		t.Fatalf("RunVirtual = %v, want ErrStalled", err)
	}
	m := s.Metrics()
	cur, des, _ := pdbValues(t, m, "openshift-ingress", "router-default")
	if cur != des {
		t.Errorf("router-default current %v, want desired %v (at its limit)", cur, des)
	}
	cur, _, exp := pdbValues(t, m, "openshift-etcd", "etcd-guard-pdb")
	if cur != exp {
		t.Errorf("etcd-guard-pdb current %v, want %v (masters are done)", cur, exp)
	}
	cordoned := 0
	for _, name := range s.NodeNames("worker") {
		if v, _ := SampleValue(m, MetricNodeUnschedulable, map[string]string{"node": name}); v == 1 {
			cordoned++
			if readyValue(t, m, name, "true") != 1 {
				t.Errorf("draining node %s is not Ready", name)
			}
		}
	}
	if cordoned != 1 {
		t.Errorf("%d cordoned workers, want 1", cordoned)
	}

	if _, err := s.MakeNodeNotReady(ctx, "master", 0); err != nil {
		t.Fatal(err)
	}
	m = s.Metrics()
	notReady := 0
	for _, name := range s.NodeNames("master") {
		if readyValue(t, m, name, "false") == 1 {
			notReady++
		}
	}
	if notReady != 1 {
		t.Errorf("%d masters with Ready=false, want 1", notReady)
	}
	cur, des, _ = pdbValues(t, m, "openshift-etcd", "etcd-guard-pdb")
	if cur != des {
		t.Errorf("etcd-guard-pdb current %v, want desired %v with a NotReady master", cur, des)
	}
}

// TestMetricsHandler: the handler serves the series in the text format.
func TestMetricsHandler(t *testing.T) {
	s, _, _ := startedSimulator(t, Options{Nodes: 5, Seed: 1, WorkerPools: []PoolOptions{{Name: "infra", Nodes: 1}, {Name: "worker"}}})
	srv := httptest.NewServer(s.MetricsHandler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# TYPE kube_poddisruptionbudget_status_current_healthy gauge",
		`kube_poddisruptionbudget_status_current_healthy{namespace="openshift-ingress",poddisruptionbudget="router-default"} 1`,
		`kube_poddisruptionbudget_status_desired_healthy{namespace="openshift-ingress",poddisruptionbudget="router-infra"} 0`,
		`kube_poddisruptionbudget_status_expected_pods{namespace="openshift-etcd",poddisruptionbudget="etcd-guard-pdb"} 3`,
		`kube_node_spec_unschedulable{node=`,
		`kube_node_status_condition{condition="Ready",node=`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
}
