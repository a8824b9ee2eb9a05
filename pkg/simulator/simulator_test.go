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
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/insights"
)

func TestOptionsValidate(t *testing.T) {
	pct := intstr.FromString("10%")
	bad := intstr.FromString("ten")
	neg := intstr.FromInt32(-1)
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "defaults with nodes", opts: Options{Nodes: 6}},
		{name: "single node", opts: Options{Nodes: 1}},
		{name: "largest cluster", opts: Options{Nodes: MaxNodes, WorkerPools: []PoolOptions{{Name: "worker", MaxUnavailable: &pct}, {Name: "infra", Nodes: 30}}}},
		{name: "no nodes", opts: Options{}, wantErr: "nodes must be between 1 and 10000"},
		{name: "too many nodes", opts: Options{Nodes: MaxNodes + 1}, wantErr: "nodes must be between"},
		{name: "control plane larger than cluster", opts: Options{Nodes: 2, ControlPlaneNodes: 3}, wantErr: "control-plane nodes must be between"},
		{name: "duplicate pool", opts: Options{Nodes: 9, WorkerPools: []PoolOptions{{Name: "worker"}, {Name: "worker"}}}, wantErr: "duplicate or reserved name"},
		{name: "master as worker pool", opts: Options{Nodes: 9, WorkerPools: []PoolOptions{{Name: "master"}}}, wantErr: "duplicate or reserved name"},
		{name: "bad pool name", opts: Options{Nodes: 9, WorkerPools: []PoolOptions{{Name: "Infra"}}}, wantErr: "invalid name"},
		{name: "pools claim too many", opts: Options{Nodes: 9, WorkerPools: []PoolOptions{{Name: "worker", Nodes: 7}}}, wantErr: "claim 7 nodes but only 6"},
		{name: "bad maxUnavailable", opts: Options{Nodes: 9, WorkerPools: []PoolOptions{{Name: "worker", MaxUnavailable: &bad}}}, wantErr: "invalid maxUnavailable"},
		{name: "negative maxUnavailable", opts: Options{Nodes: 9, WorkerPools: []PoolOptions{{Name: "worker", MaxUnavailable: &neg}}}, wantErr: "invalid maxUnavailable"},
		{name: "bad from version", opts: Options{Nodes: 3, FromVersion: "four"}, wantErr: `from version "four"`},
		{name: "same versions", opts: Options{Nodes: 3, FromVersion: "4.20.1", ToVersion: "4.20.1"}, wantErr: "must differ"},
		{name: "negative speed", opts: Options{Nodes: 3, Speed: -1}, wantErr: "speed must be"},
		{name: "inverted range", opts: Options{Nodes: 3, Timing: Timing{DrainMin: time.Hour, DrainMax: time.Minute}}, wantErr: "drain range"},
		{name: "several problems at once", opts: Options{Nodes: 0, Speed: -2}, wantErr: "speed must be"},
		{name: "node images", opts: Options{Nodes: 3, NodeImages: MaxNodeImages}},
		{name: "negative node images", opts: Options{Nodes: 3, NodeImages: -1}, wantErr: "node images must be between 0 and 60"},
		{name: "too many node images", opts: Options{Nodes: 3, NodeImages: MaxNodeImages + 1}, wantErr: "node images must be between"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Validate()
			if !testio.WantError(t, err, tc.wantErr) {
				return
			}
			if _, err := New(tc.opts); err == nil {
				t.Fatalf("New accepted invalid options")
			}
		})
	}
}

// TestNodeImages checks that NodeImages gives every Node a kubelet's image
// list, which brings it to a real Node's size (a node of an OpenShift
// cluster with 50 images is about 14 KB of JSON without managedFields).
func TestNodeImages(t *testing.T) {
	for _, n := range []int{0, 50} {
		sim, err := New(Options{Nodes: 5, Seed: 3, NodeImages: n})
		if err != nil {
			t.Fatal(err)
		}
		if err := sim.Create(context.Background()); err != nil {
			t.Fatal(err)
		}
		snap := sim.Snapshot()
		if len(snap.Nodes) != 5 {
			t.Fatalf("%d nodes, want 5", len(snap.Nodes))
		}
		for _, node := range snap.Nodes {
			if got := len(node.Status.Images); got != n {
				t.Errorf("NodeImages %d: node %s reports %d images", n, node.Name, got)
			}
			b, err := json.Marshal(node)
			if err != nil {
				t.Fatal(err)
			}
			if n == 50 && (len(b) < 10_000 || len(b) > 20_000) {
				t.Errorf("node %s with 50 images is %d bytes of JSON, want a real node's 10-20 KB", node.Name, len(b))
			}
		}
	}
}

func TestCreateClusterShape(t *testing.T) {
	two := intstr.FromInt32(2)
	tests := []struct {
		name      string
		opts      Options
		wantPools map[string]int // nodes per pool
		compact   bool
	}{
		{name: "default six nodes", opts: Options{Nodes: 6}, wantPools: map[string]int{"master": 3, "worker": 3}},
		{name: "single node", opts: Options{Nodes: 1}, wantPools: map[string]int{"master": 1, "worker": 0}, compact: true},
		{name: "compact three nodes", opts: Options{Nodes: 3}, wantPools: map[string]int{"master": 3, "worker": 0}, compact: true},
		{
			name: "custom pools share the rest",
			opts: Options{Nodes: 20, WorkerPools: []PoolOptions{
				{Name: "worker", MaxUnavailable: &two}, {Name: "infra", Nodes: 3}, {Name: "gpu"}, {Name: "edge", Nodes: 1},
			}},
			wantPools: map[string]int{"master": 3, "worker": 7, "infra": 3, "gpu": 6, "edge": 1},
		},
	}
	renderedPattern := regexp.MustCompile(`^rendered-([a-z0-9-]+)-[0-9a-f]{32}$`)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _, api := newTestSimulator(t, tc.opts)
			if err := s.Create(context.Background()); err != nil {
				t.Fatalf("Create: %v", err)
			}
			st := s.Snapshot()
			o := s.Options()
			if s.Phase() != PhaseIdle {
				t.Errorf("phase = %s, want Idle", s.Phase())
			}

			// Nodes per pool, counted by selector as OpenShift assigns them.
			got := map[string]int{}
			for _, p := range st.MachineConfigPools {
				got[p.Name] = 0
			}
			for _, n := range st.Nodes {
				got[poolOf(t, st.MachineConfigPools, n)]++
			}
			if !reflect.DeepEqual(got, tc.wantPools) {
				t.Errorf("nodes per pool = %v, want %v", got, tc.wantPools)
			}
			for _, n := range st.Nodes {
				_, worker := n.Labels["node-role.kubernetes.io/worker"]
				_, master := n.Labels["node-role.kubernetes.io/master"]
				if master && worker != tc.compact {
					t.Errorf("node %s: master with worker role = %v, want %v", n.Name, worker, tc.compact)
				}
				a := n.Annotations
				if a[insights.CurrentConfigAnnotation] == "" || a[insights.CurrentConfigAnnotation] != a[insights.DesiredConfigAnnotation] || a[insights.MCDStateAnnotation] != "Done" ||
					a[insights.DesiredDrainAnnotation] != "uncordon-"+a[insights.CurrentConfigAnnotation] || a[insights.LastAppliedDrainAnnotation] != a[insights.DesiredDrainAnnotation] {
					t.Errorf("node %s is not settled: %v", n.Name, a)
				}
				if nodeReady(n) != corev1.ConditionTrue || n.Spec.Unschedulable {
					t.Errorf("node %s is not Ready and schedulable", n.Name)
				}
			}

			// Operators: the payload's platform operators, all at the starting version.
			if len(st.ClusterOperators) < 30 || len(st.ClusterOperators) > 40 {
				t.Errorf("%d ClusterOperators, want about 35", len(st.ClusterOperators))
			}
			for _, co := range st.ClusterOperators {
				if co.Annotations["include.release.openshift.io/self-managed-high-availability"] != "true" {
					t.Errorf("operator %s lacks the release include annotation", co.Name)
				}
				if v := versionOf(co, "operator"); v != o.FromVersion {
					t.Errorf("operator %s version %q, want %q", co.Name, v, o.FromVersion)
				}
				if c := ocp.FindClusterCondition(co.Status.Conditions, configv1.OperatorAvailable); c == nil || c.Status != configv1.ConditionTrue {
					t.Errorf("operator %s not Available", co.Name)
				}
				if c := ocp.FindClusterCondition(co.Status.Conditions, configv1.OperatorProgressing); c == nil || c.Status != configv1.ConditionFalse {
					t.Errorf("operator %s Progressing is not False", co.Name)
				}
			}
			mco := operator(st, "machine-config")
			if mco == nil || st.ClusterOperators[len(st.ClusterOperators)-1] != mco {
				t.Fatalf("machine-config is not the last operator")
			}
			if img := versionOf(mco, "operator-image"); img == "" || img != mcoContainerImage(st) {
				t.Errorf("machine-config operator-image %q, MCO Deployment image %q: want equal", img, mcoContainerImage(st))
			}
			if st.MCODeployment.Namespace != "openshift-machine-config-operator" || st.MCODeployment.Name != "machine-config-operator" {
				t.Errorf("MCO Deployment is %s/%s", st.MCODeployment.Namespace, st.MCODeployment.Name)
			}

			// Rendered MachineConfigs: one per pool, named and annotated like the controller's.
			versions := st.MachineConfigVersions()
			for _, p := range st.MachineConfigPools {
				name := p.Spec.Configuration.Name
				m := renderedPattern.FindStringSubmatch(name)
				if m == nil || m[1] != p.Name {
					t.Errorf("pool %s targets %q, want rendered-%s-<hash>", p.Name, name, p.Name)
				}
				if versions[name] != o.FromVersion {
					t.Errorf("MachineConfig %s release-image-version %q, want %q", name, versions[name], o.FromVersion)
				}
				if p.Status.Configuration.Name != name {
					t.Errorf("pool %s status configuration %q, want %q", p.Name, p.Status.Configuration.Name, name)
				}
				c := recount(t, st, p)
				if p.Status.MachineCount != c.total || p.Status.UpdatedMachineCount != c.total || p.Status.ReadyMachineCount != c.total || p.Status.UnavailableMachineCount != 0 {
					t.Errorf("pool %s status counts %+v, want all %d updated and ready", p.Name, p.Status, c.total)
				}
			}

			// ClusterVersion: settled at the starting version, with history.
			cv := st.ClusterVersion
			if len(cv.Status.History) < 1 || cv.Status.History[0].Version != o.FromVersion || cv.Status.History[0].State != configv1.CompletedUpdate {
				t.Errorf("history = %+v, want FromVersion Completed first", cv.Status.History)
			}
			if c := ocp.FindClusterCondition(cv.Status.Conditions, configv1.OperatorProgressing); c == nil || c.Status != configv1.ConditionFalse {
				t.Errorf("ClusterVersion Progressing is not False")
			}
			if c := ocp.FindClusterCondition(cv.Status.Conditions, "Failing"); c == nil || c.Status != configv1.ConditionFalse {
				t.Errorf("ClusterVersion Failing is not False")
			}

			// The API holds the same objects, statuses included.
			nodes, err := api.kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
			if err != nil || len(nodes.Items) != tc.opts.Nodes {
				t.Fatalf("API has %d nodes (err %v), want %d", len(nodes.Items), err, tc.opts.Nodes)
			}
			if len(nodes.Items[0].Status.Conditions) == 0 {
				t.Errorf("node status was not written")
			}
			apiCV, err := api.config.ConfigV1().ClusterVersions().Get(context.Background(), "version", metav1.GetOptions{})
			if err != nil || len(apiCV.Status.History) == 0 {
				t.Fatalf("API ClusterVersion %v, err %v", apiCV, err)
			}
			for _, co := range st.ClusterOperators {
				if len(co.OwnerReferences) != 1 || co.OwnerReferences[0].UID != apiCV.UID {
					t.Errorf("operator %s owner references %v, want the ClusterVersion", co.Name, co.OwnerReferences)
				}
			}
			if _, err := api.kube.AppsV1().Deployments("openshift-machine-config-operator").Get(context.Background(), "machine-config-operator", metav1.GetOptions{}); err != nil {
				t.Errorf("MCO Deployment not written: %v", err)
			}
			if _, err := api.kube.CoreV1().Namespaces().Get(context.Background(), "openshift-machine-config-operator", metav1.GetOptions{}); err != nil {
				t.Errorf("namespace not written: %v", err)
			}
		})
	}
}

func TestUpdatePhasesAndFinalState(t *testing.T) {
	pct := intstr.FromString("25%")
	tests := []struct {
		name       string
		opts       Options
		wantPhases []Phase
	}{
		{
			name:       "control plane finishes before the workers",
			opts:       Options{Nodes: 9, Seed: 7},
			wantPhases: []Phase{PhaseIdle, PhaseAccepted, PhaseOperators, PhaseMachineConfig, PhaseNodes, PhaseWorkerPools, PhaseCompleted},
		},
		{
			name:       "compact cluster has no worker phase",
			opts:       Options{Nodes: 3, Seed: 1},
			wantPhases: []Phase{PhaseIdle, PhaseAccepted, PhaseOperators, PhaseMachineConfig, PhaseNodes, PhaseCompleted},
		},
		{
			name:       "single node",
			opts:       Options{Nodes: 1, Seed: 2},
			wantPhases: []Phase{PhaseIdle, PhaseAccepted, PhaseOperators, PhaseMachineConfig, PhaseNodes, PhaseCompleted},
		},
		{
			name: "custom pools with percentages",
			opts: Options{Nodes: 40, Seed: 3, WorkerPools: []PoolOptions{
				{Name: "worker", MaxUnavailable: &pct}, {Name: "infra", Nodes: 3}, {Name: "gpu", Nodes: 10, MaxUnavailable: ptr.To(intstr.FromInt32(3))},
			}},
			wantPhases: []Phase{PhaseIdle, PhaseAccepted, PhaseOperators, PhaseMachineConfig, PhaseNodes, PhaseWorkerPools, PhaseCompleted},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var phases []Phase
			tc.opts.OnProgress = func(p Progress) {
				if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
					phases = append(phases, p.Phase)
				}
			}
			s, fc, api := newTestSimulator(t, tc.opts)
			ctx := context.Background()
			if err := s.RunVirtual(ctx, fc, 100000); err != nil {
				t.Fatalf("RunVirtual: %v", err)
			}
			if !reflect.DeepEqual(phases, tc.wantPhases) {
				t.Errorf("phases = %v, want %v", phases, tc.wantPhases)
			}
			o := s.Options()

			// Read the final state back from the API.
			cv, err := api.config.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			h := cv.Status.History
			if len(h) < 2 || h[0].Version != o.ToVersion || h[0].State != configv1.CompletedUpdate || h[0].CompletionTime == nil || h[1].Version != o.FromVersion {
				t.Errorf("history = %+v, want ToVersion Completed on top of FromVersion", h)
			}
			if c := ocp.FindClusterCondition(cv.Status.Conditions, configv1.OperatorProgressing); c == nil || c.Status != configv1.ConditionFalse || c.Message != "Cluster version is "+o.ToVersion {
				t.Errorf("Progressing = %+v, want False, Cluster version is %s", c, o.ToVersion)
			}
			if cv.Status.Desired.Version != o.ToVersion || cv.Spec.DesiredUpdate == nil || cv.Spec.DesiredUpdate.Version != o.ToVersion {
				t.Errorf("desired = %+v / %+v, want %s", cv.Status.Desired, cv.Spec.DesiredUpdate, o.ToVersion)
			}
			cos, err := api.config.ConfigV1().ClusterOperators().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range cos.Items {
				co := &cos.Items[i]
				if v := versionOf(co, "operator"); v != o.ToVersion {
					t.Errorf("operator %s at %q, want %q", co.Name, v, o.ToVersion)
				}
			}
			dep, err := api.kube.AppsV1().Deployments("openshift-machine-config-operator").Get(ctx, "machine-config-operator", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			mcoCO, err := api.config.ConfigV1().ClusterOperators().Get(ctx, "machine-config", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := versionOf(mcoCO, "operator-image"), dep.Spec.Template.Spec.Containers[0].Image; got != want || want != ocp.MCOImage(o.ToVersion) {
				t.Errorf("machine-config operator-image %q, Deployment image %q, want both %q", got, want, ocp.MCOImage(o.ToVersion))
			}
			pools, err := api.mcfg.MachineconfigurationV1().MachineConfigPools().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			mcs, err := api.mcfg.MachineconfigurationV1().MachineConfigs().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			mcVersion := map[string]string{}
			for _, mc := range mcs.Items {
				mcVersion[mc.Name] = mc.Annotations[insights.ReleaseImageVersionAnnotation]
			}
			targets := map[string]string{}
			for _, p := range pools.Items {
				target := p.Spec.Configuration.Name
				targets[p.Name] = target
				if mcVersion[target] != o.ToVersion {
					t.Errorf("pool %s targets %s rendered for %q, want %q", p.Name, target, mcVersion[target], o.ToVersion)
				}
				st := p.Status
				if st.Configuration.Name != target || st.UpdatedMachineCount != st.MachineCount || st.ReadyMachineCount != st.MachineCount || st.UnavailableMachineCount != 0 || st.DegradedMachineCount != 0 {
					t.Errorf("pool %s status %+v, want everything updated to %s", p.Name, st, target)
				}
			}
			nodes, err := api.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(nodes.Items) != tc.opts.Nodes {
				t.Fatalf("%d nodes, want %d", len(nodes.Items), tc.opts.Nodes)
			}
			snap := s.Snapshot()
			for i := range nodes.Items {
				n := &nodes.Items[i]
				a := n.Annotations
				want := targets[poolOf(t, snap.MachineConfigPools, n)]
				if a[insights.CurrentConfigAnnotation] != want || a[insights.DesiredConfigAnnotation] != want || a[insights.MCDStateAnnotation] != "Done" ||
					a[insights.DesiredDrainAnnotation] != "uncordon-"+want || a[insights.LastAppliedDrainAnnotation] != "uncordon-"+want {
					t.Errorf("node %s annotations %v, want settled on %s", n.Name, a, want)
				}
				if n.Spec.Unschedulable || nodeReady(n) != corev1.ConditionTrue {
					t.Errorf("node %s unschedulable=%v ready=%s", n.Name, n.Spec.Unschedulable, nodeReady(n))
				}
				if n.Status.NodeInfo.KubeletVersion != "v"+ocp.KubeVersion(o.ToVersion) {
					t.Errorf("node %s kubelet %s, want v%s", n.Name, n.Status.NodeInfo.KubeletVersion, ocp.KubeVersion(o.ToVersion))
				}
			}
		})
	}
}

func TestRolloutInvariants(t *testing.T) {
	pct := intstr.FromString("20%")
	opts := Options{Nodes: 33, Seed: 11, WorkerPools: []PoolOptions{
		{Name: "worker", MaxUnavailable: &pct}, {Name: "infra", Nodes: 5, MaxUnavailable: ptr.To(intstr.FromInt32(2))},
	}}
	s, fc, _ := startedSimulator(t, opts)
	maxSeen := map[string]int32{}
	prevUpdated := map[string]int32{}
	stepUntil(t, s, fc, func(st *State) {
		for _, p := range st.MachineConfigPools {
			c := recount(t, st, p)
			got := counts{p.Status.MachineCount, p.Status.UpdatedMachineCount, p.Status.ReadyMachineCount, p.Status.UnavailableMachineCount, p.Status.DegradedMachineCount}
			if got != c {
				t.Fatalf("%s pool %s: status counts %+v, recount from nodes %+v", st.Time, p.Name, got, c)
			}
			limit := int32(maxUnavailableOf(p.Spec.MaxUnavailable, int(c.total)))
			if c.unavailable > limit {
				t.Fatalf("%s pool %s: %d unavailable nodes, maxUnavailable %d", st.Time, p.Name, c.unavailable, limit)
			}
			maxSeen[p.Name] = max(maxSeen[p.Name], c.unavailable)
			if st.Phase != PhaseIdle && st.Phase.Before(PhaseNodes) && c.updated != 0 && p.Status.Configuration.Name != p.Spec.Configuration.Name {
				t.Fatalf("pool %s counts %d updated before rendering", p.Name, c.updated)
			}
			if !PhaseNodes.Before(st.Phase) && st.Phase != PhaseNodes {
				continue
			}
			if c.updated < prevUpdated[p.Name] {
				t.Fatalf("pool %s: updated count went down from %d to %d", p.Name, prevUpdated[p.Name], c.updated)
			}
			prevUpdated[p.Name] = c.updated
		}
	}, nil)
	want := map[string]int32{"master": 1, "worker": 5, "infra": 2}
	if !reflect.DeepEqual(maxSeen, want) {
		t.Errorf("most unavailable nodes per pool = %v, want the maxUnavailable budgets %v", maxSeen, want)
	}
}

func TestNodeUpdateSequence(t *testing.T) {
	s, fc, _ := startedSimulator(t, Options{Nodes: 4, Seed: 5})
	name := s.NodeNames("worker")[0]
	type obs struct {
		state, desiredDrain, lastAppliedDrain string
		desiredNew, currentNew                bool
		ready                                 corev1.ConditionStatus
		unschedulable                         bool
	}
	var seen []obs
	to := s.Options().ToVersion
	stepUntil(t, s, fc, func(st *State) {
		versions := st.MachineConfigVersions()
		for _, n := range st.Nodes {
			if n.Name != name {
				continue
			}
			a := n.Annotations
			o := obs{
				state: a[insights.MCDStateAnnotation], desiredDrain: strings.SplitN(a[insights.DesiredDrainAnnotation], "-", 2)[0], lastAppliedDrain: strings.SplitN(a[insights.LastAppliedDrainAnnotation], "-", 2)[0],
				desiredNew: versions[a[insights.DesiredConfigAnnotation]] == to, currentNew: versions[a[insights.CurrentConfigAnnotation]] == to,
				ready: nodeReady(n), unschedulable: n.Spec.Unschedulable,
			}
			if len(seen) == 0 || seen[len(seen)-1] != o {
				seen = append(seen, o)
			}
		}
	}, nil)
	want := []obs{
		{state: "Done", desiredDrain: "uncordon", lastAppliedDrain: "uncordon", ready: "True"},                                                           // before the update
		{state: "Done", desiredDrain: "uncordon", lastAppliedDrain: "uncordon", desiredNew: true, ready: "True"},                                         // controller set desiredConfig
		{state: "Working", desiredDrain: "drain", lastAppliedDrain: "uncordon", desiredNew: true, ready: "True", unschedulable: true},                    // drain requested, cordoned
		{state: "Working", desiredDrain: "drain", lastAppliedDrain: "drain", desiredNew: true, ready: "True", unschedulable: true},                       // drained
		{state: "Rebooting", desiredDrain: "drain", lastAppliedDrain: "drain", desiredNew: true, ready: "True", unschedulable: true},                     // rebooting
		{state: "Rebooting", desiredDrain: "drain", lastAppliedDrain: "drain", desiredNew: true, ready: "Unknown", unschedulable: true},                  // kubelet gone
		{state: "Rebooting", desiredDrain: "drain", lastAppliedDrain: "drain", desiredNew: true, ready: "False", unschedulable: true},                    // kubelet back, NotReady
		{state: "Done", desiredDrain: "uncordon", lastAppliedDrain: "drain", desiredNew: true, currentNew: true, ready: "True", unschedulable: true},     // Ready, new config
		{state: "Done", desiredDrain: "uncordon", lastAppliedDrain: "uncordon", desiredNew: true, currentNew: true, ready: "True", unschedulable: false}, // uncordoned
	}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("node %s went through\n%+v\nwant\n%+v", name, seen, want)
	}
}

func TestOperatorsUpdateLevelByLevel(t *testing.T) {
	s, fc, _ := startedSimulator(t, Options{Nodes: 6, Seed: 9})
	o := s.Options()
	level := map[string]int{}
	for _, spec := range ocp.Operators {
		level[spec.Name] = spec.Level
	}
	var order []string
	done := map[string]bool{}
	sawProgressing := map[string]bool{}
	var mcoImageMismatch bool
	stepUntil(t, s, fc, func(st *State) {
		levels := map[int]bool{}
		for _, co := range st.ClusterOperators {
			updated := versionOf(co, "operator") == o.ToVersion
			progressing := ocp.FindClusterCondition(co.Status.Conditions, configv1.OperatorProgressing).Status == configv1.ConditionTrue
			if !updated && progressing {
				levels[level[co.Name]] = true
				sawProgressing[co.Name] = true
			}
			if updated && !done[co.Name] {
				done[co.Name] = true
				order = append(order, co.Name)
			}
		}
		if len(levels) > 1 {
			t.Fatalf("%s: operators of levels %v update at once", st.Time, levels)
		}
		if mco := operator(st, "machine-config"); versionOf(mco, "operator") != o.ToVersion && mcoContainerImage(st) == ocp.MCOImage(o.ToVersion) {
			mcoImageMismatch = mcoImageMismatch || versionOf(mco, "operator-image") != mcoContainerImage(st)
		}
	}, nil)
	if len(order) != len(ocp.Operators) || order[len(order)-1] != "machine-config" {
		t.Fatalf("operators updated in order %v, want all of them with machine-config last", order)
	}
	for i := 1; i < len(order); i++ {
		if level[order[i]] < level[order[i-1]] {
			t.Errorf("%s (level %d) updated after %s (level %d)", order[i-1], level[order[i-1]], order[i], level[order[i]])
		}
	}
	for _, spec := range ocp.Operators {
		if !sawProgressing[spec.Name] {
			t.Errorf("operator %s never reported Progressing=True while updating", spec.Name)
		}
	}
	if !mcoImageMismatch {
		t.Errorf("machine-config never reported an operator-image that differs from the new Deployment image while updating")
	}
}

func TestDeterministic(t *testing.T) {
	run := func(seed int64) (*State, int) {
		steps := 0
		s, fc, _ := newTestSimulator(t, Options{Nodes: 7, Seed: seed, OnProgress: func(Progress) { steps++ }})
		if err := s.RunVirtual(context.Background(), fc, 0); err != nil {
			t.Fatalf("RunVirtual: %v", err)
		}
		return s.Snapshot(), steps
	}
	a, stepsA := run(42)
	b, stepsB := run(42)
	if stepsA != stepsB || !reflect.DeepEqual(stripVolatile(a), stripVolatile(b)) {
		t.Errorf("two runs with seed 42 differ (%d and %d steps)", stepsA, stepsB)
	}
	c, _ := run(43)
	if reflect.DeepEqual(c.ClusterVersion.Status.History[0].CompletionTime, a.ClusterVersion.Status.History[0].CompletionTime) {
		t.Errorf("seeds 42 and 43 completed at the same time %v", a.ClusterVersion.Status.History[0].CompletionTime)
	}
}

// stripVolatile clears what the fake API server assigns from the wall clock
// or a counter (resource versions, managed fields).
func stripVolatile(st *State) *State {
	st = st.DeepCopy()
	clear := func(m metav1.Object) {
		m.SetResourceVersion("")
		m.SetManagedFields(nil)
	}
	clear(st.ClusterVersion)
	clear(st.MCODeployment)
	for _, o := range st.ClusterOperators {
		clear(o)
	}
	for _, o := range st.MachineConfigPools {
		clear(o)
	}
	for _, o := range st.MachineConfigs {
		clear(o)
	}
	for _, o := range st.Nodes {
		clear(o)
	}
	return st
}

func TestSpeedScalesTheUpdate(t *testing.T) {
	duration := func(speed float64) time.Duration {
		s, fc, _ := newTestSimulator(t, Options{Nodes: 6, Seed: 4, Speed: speed})
		if err := s.RunVirtual(context.Background(), fc, 0); err != nil {
			t.Fatalf("RunVirtual: %v", err)
		}
		return fc.Now().Sub(testStart)
	}
	slow, fast := duration(1), duration(60)
	if slow < 40*time.Minute || slow > 2*time.Hour {
		t.Errorf("an update at speed 1 took %s, want a realistic 40m-2h", slow)
	}
	ratio := float64(slow) / float64(fast)
	if ratio < 59 || ratio > 61 {
		t.Errorf("speed 60 made the update %.1f times faster (%s vs %s), want 60", ratio, slow, fast)
	}
}

func TestRunInRealTime(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var last Progress
	s, err := New(Options{Nodes: 4, Seed: 8, Speed: 20000, MinStepInterval: time.Millisecond, Clock: clock.RealClock{}, OnProgress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := s.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if s.Phase() != PhaseCompleted || last.Phase != PhaseCompleted || last.OperatorsUpdated != last.OperatorsTotal {
		t.Errorf("after Run: phase %s, last progress %+v", s.Phase(), last)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("Run took %s at speed 20000", took)
	}
}

// TestRunStopsWithContext cancels Run in the middle of an update: after its
// first step, while it waits on the (fake) clock for the next one, which
// only the context can end.
func TestRunStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stepped := make(chan struct{}, 1)
	s, fc, _ := newTestSimulator(t, Options{Nodes: 2, OnProgress: func(Progress) {
		select {
		case stepped <- struct{}{}:
		default:
		}
	}})
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx) }()
	select {
	case <-stepped:
	case err := <-errc:
		t.Fatalf("Run returned before its first step: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("Run never stepped")
	}
	testio.Eventually(t, "Run to wait for its next step", func() bool { return fc.Waiters() > 0 })
	if s.Phase() == PhaseCompleted {
		t.Fatal("the update completed in one step; nothing left to cancel")
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func TestLifecycleErrors(t *testing.T) {
	s, fc, _ := newTestSimulator(t, Options{Nodes: 2})
	ctx := context.Background()
	if _, err := s.Step(ctx); err == nil {
		t.Error("Step before Create succeeded")
	}
	if err := s.StartUpdate(ctx); err == nil {
		t.Error("StartUpdate before Create succeeded")
	}
	if _, err := s.Inject(ctx, Fault{Kind: FaultPoolPaused, Target: "worker"}); err == nil {
		t.Error("Inject before Create succeeded")
	}
	if err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx); err == nil {
		t.Error("second Create succeeded")
	}
	if err := s.RunVirtual(ctx, clocktesting.NewFakeClock(testStart), 1); err == nil {
		t.Error("RunVirtual with a foreign clock succeeded")
	}
	if err := s.RunVirtual(ctx, fc, 3); !errors.Is(err, ErrStepLimit) {
		t.Errorf("RunVirtual with 3 steps = %v, want ErrStepLimit", err)
	}
	if err := s.StartUpdate(ctx); err == nil {
		t.Error("second StartUpdate succeeded")
	}
}

func TestConcurrentUse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := New(Options{Nodes: 5, Seed: 3, Speed: 5000, MinStepInterval: time.Millisecond, Clock: clock.RealClock{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	// Inject, read and clear while Run steps.
	for i := 0; i < 20; i++ {
		id, err := s.DegradeOperator(ctx, "dns", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if st := s.Snapshot(); st.ClusterVersion == nil || len(st.Nodes) != 5 {
			t.Fatalf("snapshot while running: %+v", st)
		}
		_ = s.NodeNames("worker")
		_ = s.Phase()
		if err := s.Clear(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if s.Phase() != PhaseCompleted {
		t.Errorf("phase %s", s.Phase())
	}
}

func TestStartNextUpdate(t *testing.T) {
	s, fc, api := newTestSimulator(t, Options{Nodes: 5, Seed: 2})
	ctx := context.Background()
	if err := s.StartNextUpdate(ctx, "4.21.0"); err == nil {
		t.Error("StartNextUpdate before Create succeeded")
	}
	if err := s.RunVirtual(ctx, fc, 0); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"4.20.1", "next"} {
		if err := s.StartNextUpdate(ctx, bad); err == nil {
			t.Errorf("StartNextUpdate(%q) succeeded", bad)
		}
	}
	if err := s.StartNextUpdate(ctx, "4.20.3"); err != nil {
		t.Fatal(err)
	}
	if o := s.Options(); o.FromVersion != "4.20.1" || o.ToVersion != "4.20.3" {
		t.Errorf("versions %s -> %s after StartNextUpdate", o.FromVersion, o.ToVersion)
	}
	var phases []Phase
	stepUntil(t, s, fc, func(st *State) {
		if len(phases) == 0 || phases[len(phases)-1] != st.Phase {
			phases = append(phases, st.Phase)
		}
		if st.Phase == PhaseOperators {
			r := recompute(t, st)
			if r.cv.Versions.Previous.Version != "4.20.1" || r.cv.Versions.Target.Version != "4.20.3" || r.cv.Assessment != "Progressing" {
				t.Fatalf("second update judged %s, %+v", r.cv.Assessment, r.cv.Versions)
			}
		}
	}, nil)
	if len(phases) < 5 || phases[0] != PhaseAccepted || phases[len(phases)-1] != PhaseCompleted {
		t.Errorf("second update phases %v, want Accepted ... Completed", phases)
	}
	for i := 1; i < len(phases); i++ {
		if !phases[i-1].Before(phases[i]) {
			t.Errorf("second update phases %v go back", phases)
		}
	}
	cv, err := api.config.ConfigV1().ClusterVersions().Get(ctx, "version", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range cv.Status.History {
		got = append(got, h.Version+"/"+string(h.State))
	}
	if want := []string{"4.20.3/Completed", "4.20.1/Completed", "4.19.10/Completed", "4.18.0/Completed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("history %v, want %v", got, want)
	}
	st := s.Snapshot()
	versions := st.MachineConfigVersions()
	for _, n := range st.Nodes {
		if v := versions[n.Annotations[insights.CurrentConfigAnnotation]]; v != "4.20.3" {
			t.Errorf("node %s runs %s", n.Name, v)
		}
	}
	if r := recompute(t, st); r.cv.Assessment != "Completed" || len(r.problems()) > 0 {
		t.Errorf("after the second update: %s, %s", r.cv.Assessment, describe(r.problems()))
	}
}

func TestStartNextUpdatePastPausedPool(t *testing.T) {
	s, fc, _ := newTestSimulator(t, Options{Nodes: 5, Seed: 2})
	ctx := context.Background()
	if err := s.Create(ctx); err != nil {
		t.Fatal(err)
	}
	installed := s.Options().FromVersion
	id, err := s.PausePool(ctx, "worker", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunVirtual(ctx, fc, 0); !errors.Is(err, ErrStalled) {
		t.Fatalf("RunVirtual = %v, want ErrStalled", err)
	}
	if res, err := s.Step(ctx); err != nil || !res.PausedOnly || res.Done {
		t.Fatalf("Step = %+v, %v; want PausedOnly", res, err)
	}
	if err := s.StartNextUpdate(ctx, "4.20.3"); err != nil {
		t.Fatalf("StartNextUpdate with only a paused pool behind: %v", err)
	}
	if res, err := s.Step(ctx); err != nil || res.PausedOnly {
		t.Fatalf("Step after StartNextUpdate = %+v, %v; want the update under way", res, err)
	}
	workers := map[string]bool{}
	for _, n := range s.NodeNames("worker") {
		workers[n] = true
	}
	st := s.Snapshot()
	versions := st.MachineConfigVersions()
	for _, n := range st.Nodes {
		if v := versions[n.Annotations[insights.CurrentConfigAnnotation]]; workers[n.Name] && v != installed {
			t.Errorf("paused worker %s runs %s, want %s, the version installed", n.Name, v, installed)
		}
	}
	if err := s.Clear(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := s.RunVirtual(ctx, fc, 0); err != nil {
		t.Fatal(err)
	}
	st = s.Snapshot()
	versions = st.MachineConfigVersions()
	for _, n := range st.Nodes {
		if v := versions[n.Annotations[insights.CurrentConfigAnnotation]]; v != "4.20.3" {
			t.Errorf("node %s runs %s after the pause, want 4.20.3", n.Name, v)
		}
	}
}
