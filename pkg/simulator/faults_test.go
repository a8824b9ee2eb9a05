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
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/insights"
)

// faultCase injects one fault when the update reaches a phase and checks
// what the objects show while it is active and after it ends.
type faultCase struct {
	name  string
	opts  Options
	at    Phase // inject when this phase is reached
	fault Fault
	// seen must hold at some step while the fault is active (read from the API).
	seen func(t *testing.T, api *fakeAPI) bool
	// always must hold at every step while the fault is active.
	always func(t *testing.T, st *State) error
	// clearAfter clears a fault without an end this long after injection.
	clearAfter time.Duration
	// wantStall: without clearing, the update stalls.
	wantStall bool
	// after checks the final state.
	after func(t *testing.T, st *State)
}

func TestFaults(t *testing.T) {
	ctx := context.Background()
	tests := []faultCase{
		{
			name: "operator degraded for a while",
			opts: Options{Nodes: 6, Seed: 1}, at: PhaseOperators,
			fault: Fault{Kind: FaultOperatorDegraded, Target: "kube-apiserver", For: 30 * time.Minute},
			seen: func(t *testing.T, api *fakeAPI) bool {
				co := getCO(t, api, "kube-apiserver")
				c := ocp.FindClusterCondition(co.Status.Conditions, configv1.OperatorDegraded)
				return c.Status == configv1.ConditionTrue && c.Reason == "DeploymentDegraded" && strings.Contains(c.Message, "kube-apiserver")
			},
			after: func(t *testing.T, st *State) {
				if c := ocp.FindClusterCondition(operator(st, "kube-apiserver").Status.Conditions, configv1.OperatorDegraded); c.Status != configv1.ConditionFalse {
					t.Errorf("kube-apiserver still Degraded=%s", c.Status)
				}
			},
		},
		{
			name: "operator unavailable holds its update",
			opts: Options{Nodes: 6, Seed: 2}, at: PhaseAccepted,
			fault: Fault{Kind: FaultOperatorUnavailable, Target: "etcd", For: 40 * time.Minute, Reason: "EtcdMembersUnavailable", Message: "2 of 3 members are available"},
			seen: func(t *testing.T, api *fakeAPI) bool {
				c := ocp.FindClusterCondition(getCO(t, api, "etcd").Status.Conditions, configv1.OperatorAvailable)
				return c.Status == configv1.ConditionFalse && c.Reason == "EtcdMembersUnavailable" && c.Message == "2 of 3 members are available"
			},
			always: func(t *testing.T, st *State) error {
				if v := versionOf(operator(st, "etcd"), "operator"); v != st.ClusterVersion.Status.History[1].Version {
					return fmt.Errorf("unavailable etcd reported version %s", v)
				}
				return nil
			},
			after: func(t *testing.T, st *State) {
				if c := ocp.FindClusterCondition(operator(st, "etcd").Status.Conditions, configv1.OperatorAvailable); c.Status != configv1.ConditionTrue {
					t.Errorf("etcd still Available=%s", c.Status)
				}
			},
		},
		{
			name: "drain blocked by a PodDisruptionBudget degrades the node",
			opts: Options{Nodes: 6, Seed: 3}, at: PhaseAccepted,
			fault: Fault{Kind: FaultDrainBlocked, Target: "worker", For: 2 * time.Hour},
			seen: func(t *testing.T, api *fakeAPI) bool {
				nodes := listNodes(t, api)
				for _, n := range nodes.Items {
					a := n.Annotations
					if a[insights.MCDStateAnnotation] == "Degraded" && a[insights.MCDReasonAnnotation] == "failed to drain node: "+n.Name+" after 1 hour. Please see machine-config-controller logs for more information" &&
						strings.HasPrefix(a[insights.DesiredDrainAnnotation], "drain-") && strings.HasPrefix(a[insights.LastAppliedDrainAnnotation], "uncordon-") && n.Spec.Unschedulable {
						pool := getPool(t, api, "worker")
						c := poolCondition(pool, mcfgv1.MachineConfigPoolNodeDegraded)
						return pool.Status.DegradedMachineCount == 1 && c != nil && c.Status == corev1.ConditionTrue &&
							c.Reason == "1 nodes are reporting degraded status on sync" && strings.Contains(c.Message, "Node "+n.Name+" is reporting")
					}
				}
				return false
			},
			always: func(t *testing.T, st *State) error {
				for _, n := range st.Nodes {
					if n.Annotations[insights.MCDStateAnnotation] == "Degraded" && !strings.HasPrefix(n.Annotations[insights.DesiredDrainAnnotation], "drain-") {
						return fmt.Errorf("degraded node %s is not draining", n.Name)
					}
				}
				return nil
			},
		},
		{
			name: "paused pool stalls its nodes until unpaused",
			opts: Options{Nodes: 6, Seed: 4}, at: PhaseAccepted,
			fault:      Fault{Kind: FaultPoolPaused, Target: "worker"},
			wantStall:  true,
			clearAfter: 3 * time.Hour,
			seen: func(t *testing.T, api *fakeAPI) bool {
				cv, err := api.config.ConfigV1().ClusterVersions().Get(context.Background(), "version", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				pool := getPool(t, api, "worker")
				return pool.Spec.Paused && cv.Status.History[0].State == configv1.CompletedUpdate && pool.Status.UpdatedMachineCount == 0
			},
			always: func(t *testing.T, st *State) error {
				versions := st.MachineConfigVersions()
				for _, n := range st.Nodes {
					if poolOf(t, st.MachineConfigPools, n) == "worker" && versions[n.Annotations[insights.DesiredConfigAnnotation]] != st.ClusterVersion.Status.History[1].Version {
						return fmt.Errorf("paused pool's node %s got desiredConfig %s", n.Name, n.Annotations[insights.DesiredConfigAnnotation])
					}
				}
				return nil
			},
		},
		{
			name: "node NotReady outside the update",
			opts: Options{Nodes: 6, Seed: 5}, at: PhaseOperators,
			fault: Fault{Kind: FaultNodeNotReady, Target: "worker", For: 30 * time.Minute},
			seen: func(t *testing.T, api *fakeAPI) bool {
				nodes := listNodes(t, api)
				notReady := 0
				for i := range nodes.Items {
					n := &nodes.Items[i]
					for _, c := range n.Status.Conditions {
						if c.Type == corev1.NodeReady && c.Status == corev1.ConditionFalse && c.Reason == "KubeletNotReady" && strings.HasPrefix(c.Message, "PLEG is not healthy") {
							if n.Annotations[insights.MCDStateAnnotation] != "Done" || n.Annotations[insights.CurrentConfigAnnotation] != n.Annotations[insights.DesiredConfigAnnotation] {
								t.Errorf("NotReady node %s is updating", n.Name)
							}
							notReady++
						}
					}
				}
				return notReady == 1
			},
		},
		{
			name: "failing ClusterVersion",
			opts: Options{Nodes: 6, Seed: 6}, at: PhaseOperators,
			fault: Fault{Kind: FaultClusterVersionFailing, Target: "etcd", For: 15 * time.Minute},
			seen: func(t *testing.T, api *fakeAPI) bool {
				cv, err := api.config.ConfigV1().ClusterVersions().Get(context.Background(), "version", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				failing := ocp.FindClusterCondition(cv.Status.Conditions, "Failing")
				progressing := ocp.FindClusterCondition(cv.Status.Conditions, configv1.OperatorProgressing)
				return failing.Status == configv1.ConditionTrue && failing.Reason == "ClusterOperatorDegraded" && failing.Message == "Cluster operator etcd is degraded" &&
					progressing.Status == configv1.ConditionTrue && strings.HasPrefix(progressing.Message, "Unable to apply "+cv.Status.Desired.Version+": ")
			},
			after: func(t *testing.T, st *State) {
				if c := ocp.FindClusterCondition(st.ClusterVersion.Status.Conditions, "Failing"); c.Status != configv1.ConditionFalse {
					t.Errorf("ClusterVersion still Failing=%s", c.Status)
				}
			},
		},
		{
			name: "delayed fault starts later",
			opts: Options{Nodes: 6, Seed: 7}, at: PhaseAccepted,
			fault: Fault{Kind: FaultOperatorDegraded, Target: "dns", After: 10 * time.Minute, For: 10 * time.Minute},
			seen: func(t *testing.T, api *fakeAPI) bool {
				return ocp.FindClusterCondition(getCO(t, api, "dns").Status.Conditions, configv1.OperatorDegraded).Status == configv1.ConditionTrue
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, fc, api := startedSimulator(t, tc.opts)
			stepUntil(t, s, fc, nil, func(st *State) bool { return st.Phase == tc.at || tc.at.Before(st.Phase) })
			injected := fc.Now()
			id, err := s.Inject(ctx, tc.fault)
			if err != nil {
				t.Fatalf("Inject: %v", err)
			}
			start := injected.Add(tc.fault.After)
			end := start.Add(tc.fault.For)
			if tc.fault.For == 0 {
				end = injected.Add(tc.clearAfter)
			}
			if tc.fault.After > 0 {
				if tc.seen(t, api) {
					t.Fatalf("a fault delayed by %s is visible at once", tc.fault.After)
				}
			}
			seen := false
			active := func() bool { return !fc.Now().Before(start) && fc.Now().Before(end) }
			for i := 0; s.Phase() != PhaseCompleted; i++ {
				if i > 100000 {
					t.Fatalf("the update does not complete")
				}
				res, err := s.Step(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if active() {
					seen = seen || tc.seen(t, api)
					if tc.always != nil {
						if err := tc.always(t, s.Snapshot()); err != nil {
							t.Fatalf("%s while the fault is active: %v", fc.Now(), err)
						}
					}
				}
				if res.Done {
					break
				}
				next := res.Next
				if next.IsZero() {
					if !tc.wantStall {
						t.Fatalf("stalled in phase %s at %s", res.Phase, fc.Now())
					}
					if fc.Now().Before(end) {
						fc.SetTime(end)
						continue
					}
					if err := s.Clear(ctx, id); err != nil {
						t.Fatalf("Clear: %v", err)
					}
					tc.wantStall = false
					continue
				}
				if tc.fault.For == 0 && next.After(end) && fc.Now().Before(end) {
					next = end
				}
				if !next.After(fc.Now()) {
					t.Fatalf("next event %s is not after now %s", next, fc.Now())
				}
				fc.SetTime(next)
			}
			if !seen {
				t.Errorf("the fault never showed on the objects")
			}
			if tc.wantStall {
				t.Errorf("the update never stalled")
			}
			st := s.Snapshot()
			if st.Phase != PhaseCompleted {
				t.Errorf("update ended in phase %s", st.Phase)
			}
			if tc.after != nil {
				tc.after(t, st)
			}
		})
	}
}

func TestInjectValidation(t *testing.T) {
	s, _, _ := newTestSimulator(t, Options{Nodes: 3})
	ctx := context.Background()
	if err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		fault   Fault
		wantErr string
	}{
		{name: "unknown kind", fault: Fault{Kind: "meteor"}, wantErr: "unknown fault kind"},
		{name: "unknown operator", fault: Fault{Kind: FaultOperatorDegraded, Target: "nope"}, wantErr: `no ClusterOperator "nope"`},
		{name: "unknown pool", fault: Fault{Kind: FaultPoolPaused, Target: "gpu"}, wantErr: `no MachineConfigPool "gpu"`},
		{name: "unknown node", fault: Fault{Kind: FaultNodeNotReady, Target: "ip-1"}, wantErr: `no MachineConfigPool or Node "ip-1"`},
		{name: "empty pool", fault: Fault{Kind: FaultDrainBlocked, Target: "worker"}, wantErr: `pool "worker" has no nodes`},
		{name: "negative duration", fault: Fault{Kind: FaultClusterVersionFailing, For: -time.Second}, wantErr: "negative duration"},
		{name: "failing blames an unknown operator", fault: Fault{Kind: FaultClusterVersionFailing, Target: "x"}, wantErr: `no ClusterOperator "x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Inject(ctx, tc.fault); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Inject(%+v) = %v, want an error containing %q", tc.fault, err, tc.wantErr)
			}
		})
	}
	if err := s.Clear(ctx, 99); err == nil {
		t.Error("Clear of an unknown fault succeeded")
	}
}

func TestPermanentPauseStallsRunVirtual(t *testing.T) {
	s, fc, _ := newTestSimulator(t, Options{Nodes: 5, Seed: 1})
	ctx := context.Background()
	if err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PausePool(ctx, "worker", 0); err != nil {
		t.Fatal(err)
	}
	if err := s.RunVirtual(ctx, fc, 0); !errors.Is(err, ErrStalled) {
		t.Fatalf("RunVirtual = %v, want ErrStalled", err)
	}
	if got := s.Phase(); got != PhaseWorkerPools {
		t.Errorf("stalled in phase %s, want WorkerPools", got)
	}
}

func TestConvenienceFaultMethods(t *testing.T) {
	s, _, api := startedSimulator(t, Options{Nodes: 6})
	ctx := context.Background()
	calls := []struct {
		name string
		call func() (FaultID, error)
	}{
		{"DegradeOperator", func() (FaultID, error) { return s.DegradeOperator(ctx, "dns", time.Hour) }},
		{"MakeOperatorUnavailable", func() (FaultID, error) { return s.MakeOperatorUnavailable(ctx, "console", time.Hour) }},
		{"BlockDrain", func() (FaultID, error) { return s.BlockDrain(ctx, "worker", time.Hour) }},
		{"PausePool", func() (FaultID, error) { return s.PausePool(ctx, "worker", time.Hour) }},
		{"MakeNodeNotReady", func() (FaultID, error) { return s.MakeNodeNotReady(ctx, s.NodeNames("master")[0], time.Hour) }},
		{"FailClusterVersion", func() (FaultID, error) { return s.FailClusterVersion(ctx, time.Hour) }},
	}
	for i, c := range calls {
		id, err := c.call()
		if err != nil || id != FaultID(i+1) {
			t.Errorf("%s = %d, %v; want id %d", c.name, id, err, i+1)
		}
	}
	if c := ocp.FindClusterCondition(getCO(t, api, "console").Status.Conditions, configv1.OperatorAvailable); c.Status != configv1.ConditionFalse {
		t.Errorf("console Available=%s right after MakeOperatorUnavailable", c.Status)
	}
	if !getPool(t, api, "worker").Spec.Paused {
		t.Errorf("worker pool not paused right after PausePool")
	}
}

// noErr returns v, failing the test when err is not nil.
func noErr[T any](t *testing.T, v T, err error) T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func getCO(t *testing.T, api *fakeAPI, name string) *configv1.ClusterOperator {
	t.Helper()
	co, err := api.config.ConfigV1().ClusterOperators().Get(context.Background(), name, metav1.GetOptions{})
	return noErr(t, co, err)
}

func listNodes(t *testing.T, api *fakeAPI) *corev1.NodeList {
	t.Helper()
	nodes, err := api.kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	return noErr(t, nodes, err)
}

func getPool(t *testing.T, api *fakeAPI, name string) *mcfgv1.MachineConfigPool {
	t.Helper()
	p, err := api.mcfg.MachineconfigurationV1().MachineConfigPools().Get(context.Background(), name, metav1.GetOptions{})
	return noErr(t, p, err)
}

func poolCondition(p *mcfgv1.MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType) *mcfgv1.MachineConfigPoolCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func TestStallOnDrain(t *testing.T) {
	ctx := context.Background()
	s, fc, _ := newTestSimulator(t, Options{Nodes: 6, Seed: 3})
	if err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	id, err := s.StallOnDrain(ctx, fc, "worker")
	if err != nil {
		t.Fatalf("StallOnDrain: %v", err)
	}
	if p := s.Phase(); p != PhaseWorkerPools {
		t.Errorf("stalled in phase %s, want %s", p, PhaseWorkerPools)
	}
	if err := s.Clear(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.RunVirtual(ctx, fc, 0); err != nil || s.Phase() != PhaseCompleted {
		t.Errorf("after the drain is cleared: RunVirtual = %v in phase %s, want the update completed", err, s.Phase())
	}
	if _, err := s.StallOnDrain(ctx, fc, "no-such-pool"); err == nil {
		t.Error("StallOnDrain of an unknown pool succeeded")
	}
}
