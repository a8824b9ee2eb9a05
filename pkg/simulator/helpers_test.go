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
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	mcfgfake "github.com/openshift/client-go/machineconfiguration/clientset/versioned/fake"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/insights"
)

// testStart is the fake clock's starting time in every test.
var testStart = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fakeAPI holds the fake clientsets behind an APISink.
type fakeAPI struct {
	kube   *kubefake.Clientset
	config *configfake.Clientset
	mcfg   *mcfgfake.Clientset
	sink   *APISink
}

func newFakeAPI() *fakeAPI {
	// The simple object trackers: the field-managed ones cannot convert a
	// ClusterOperator's status.extension (a RawExtension), and the one of
	// the Kubernetes fake rebuilds a REST mapper on every write, which
	// makes a whole update several times slower.
	f := &fakeAPI{kube: kubefake.NewSimpleClientset(), config: configfake.NewSimpleClientset(), mcfg: mcfgfake.NewSimpleClientset()}
	f.sink = NewAPISinkForClients(f.kube, f.config, f.mcfg, APISinkOptions{Workers: 4})
	return f
}

// newTestSimulator returns a simulator on a fake clock writing to fake
// clientsets, with exact event steps (no step floor).
func newTestSimulator(t *testing.T, o Options) (*Simulator, *clocktesting.FakeClock, *fakeAPI) {
	t.Helper()
	fc := clocktesting.NewFakeClock(testStart)
	api := newFakeAPI()
	o.Clock = fc
	o.MinStepInterval = -1
	if o.Sink == nil {
		o.Sink = api.sink
	}
	s, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s, fc, api
}

// stepUntil steps the simulator, moving the fake clock to each next event,
// calling check after every step, until stop returns true or the update
// completes. It fails the test when the simulator stalls or loops.
func stepUntil(t *testing.T, s *Simulator, fc *clocktesting.FakeClock, check func(*State), stop func(*State) bool) *State {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < 200000; i++ {
		res, err := s.Step(ctx)
		if err != nil {
			t.Fatalf("Step: %v", err)
		}
		st := s.Snapshot()
		if check != nil {
			check(st)
		}
		if res.Done || (stop != nil && stop(st)) {
			return st
		}
		if res.Next.IsZero() {
			t.Fatalf("simulator stalled in phase %s at %s", res.Phase, fc.Now())
		}
		if !res.Next.After(fc.Now()) {
			t.Fatalf("next event %s is not after now %s", res.Next, fc.Now())
		}
		fc.SetTime(res.Next)
	}
	t.Fatalf("update did not complete")
	return nil
}

// startedSimulator creates the cluster and requests the update.
func startedSimulator(t *testing.T, o Options) (*Simulator, *clocktesting.FakeClock, *fakeAPI) {
	t.Helper()
	s, fc, api := newTestSimulator(t, o)
	ctx := context.Background()
	if err := s.Create(ctx); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := s.StartUpdate(ctx); err != nil {
		t.Fatalf("StartUpdate: %v", err)
	}
	return s, fc, api
}

// poolOf assigns a node to a pool the way OpenShift does: master first,
// then custom pools (by name), then worker. "" when no pool selects it.
func poolOf(t *testing.T, pools []*mcfgv1.MachineConfigPool, node *corev1.Node) string {
	t.Helper()
	matches := func(p *mcfgv1.MachineConfigPool) bool {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.NodeSelector)
		if err != nil {
			t.Fatalf("pool %s selector: %v", p.Name, err)
		}
		return sel.Matches(labels.Set(node.Labels))
	}
	var worker *mcfgv1.MachineConfigPool
	var custom []*mcfgv1.MachineConfigPool
	for _, p := range pools {
		switch p.Name {
		case "master":
			if matches(p) {
				return "master"
			}
		case "worker":
			worker = p
		default:
			custom = append(custom, p)
		}
	}
	for _, p := range custom {
		if matches(p) {
			return p.Name
		}
	}
	if worker != nil && matches(worker) {
		return "worker"
	}
	return ""
}

// counts are a pool's counters recomputed from its nodes, independently of
// the simulator, with the machine-config controller's definitions.
type counts struct{ total, updated, ready, unavailable, degraded int32 }

func recount(t *testing.T, st *State, pool *mcfgv1.MachineConfigPool) counts {
	t.Helper()
	var c counts
	target := pool.Spec.Configuration.Name
	for _, n := range st.Nodes {
		if poolOf(t, st.MachineConfigPools, n) != pool.Name {
			continue
		}
		c.total++
		a := n.Annotations
		ready := false
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				ready = cond.Status == corev1.ConditionTrue
			}
		}
		done := a[insights.CurrentConfigAnnotation] == a[insights.DesiredConfigAnnotation] && a[insights.MCDStateAnnotation] == "Done"
		if done && a[insights.CurrentConfigAnnotation] == target {
			c.updated++
			if ready && !n.Spec.Unschedulable {
				c.ready++
			}
		}
		if !ready || n.Spec.Unschedulable || !done {
			c.unavailable++
		}
		if a[insights.MCDStateAnnotation] == "Degraded" || a[insights.MCDStateAnnotation] == "Unreconcilable" {
			c.degraded++
		}
	}
	return c
}

// operator returns a ClusterOperator of a state by name.
func operator(st *State, name string) *configv1.ClusterOperator {
	for _, co := range st.ClusterOperators {
		if co.Name == name {
			return co
		}
	}
	return nil
}

// versionOf returns a named entry of an operator's status.versions.
func versionOf(co *configv1.ClusterOperator, name string) string {
	for _, v := range co.Status.Versions {
		if v.Name == name {
			return v.Version
		}
	}
	return ""
}

// nodeReady returns a node's Ready condition status.
func nodeReady(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// mcoContainerImage returns the image of the machine-config-operator container.
func mcoContainerImage(st *State) string {
	for _, c := range st.MCODeployment.Spec.Template.Spec.Containers {
		if c.Name == "machine-config-operator" {
			return c.Image
		}
	}
	return ""
}

// firstHeldNode is the name of the node the first fault holds, or "".
func firstHeldNode(s *Simulator) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.faults[0]; f.node != nil {
		return f.node.obj.Name
	}
	return ""
}
