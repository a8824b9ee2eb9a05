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

package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/hypershift"
	hostedcrds "github.com/update-status/apiserver/pkg/hypershift/crds"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// eventLog keeps every watch event of one resource.
type eventLog struct {
	mu     sync.Mutex
	events []loggedEvent
}

type loggedEvent struct {
	typ watch.EventType
	obj *unstructured.Unstructured
}

// record watches gvr in every namespace until the test ends.
func record(ctx context.Context, t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource) *eventLog {
	t.Helper()
	w, err := dyn.Resource(gvr).Namespace("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch %s: %v", gvr.Resource, err)
	}
	t.Cleanup(w.Stop)
	r := &eventLog{}
	go func() {
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			r.mu.Lock()
			r.events = append(r.events, loggedEvent{ev.Type, u})
			r.mu.Unlock()
		}
	}()
	return r
}

// of returns the events of the objects whose namespace is ns.
func (r *eventLog) of(ns string) []loggedEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []loggedEvent
	for _, ev := range r.events {
		if ev.obj.GetNamespace() == ns {
			out = append(out, ev)
		}
	}
	return out
}

// hostedAdmin installs the hosted CRDs on the shared management cluster
// and returns its admin's config.
func hostedAdmin(ctx context.Context, t *testing.T) *rest.Config {
	t.Helper()
	admin := cp.RESTConfig(&cp.Users.Admin)
	if err := hostedcrds.Install(ctx, admin); err != nil {
		t.Fatal(err)
	}
	return admin
}

// newHostedSim returns the hosted-cluster simulator o writing through cfg
// with workers writers, unthrottled.
func newHostedSim(t *testing.T, cfg *rest.Config, workers int, o hosted.Options) *hosted.Simulator {
	t.Helper()
	sink, err := simulator.NewAPISink(cfg, simulator.APISinkOptions{QPS: -1, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	o.Sink = sink
	sim, err := hosted.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// runHostedUpdate runs the hosted-cluster simulator through cfg on a fake
// clock until a Replace hosted cluster and an InPlace one, named replace
// and inplace, in namespace ns, have updated.
func runHostedUpdate(ctx context.Context, t *testing.T, cfg *rest.Config, ns string) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Now())
	sim := newHostedSim(t, cfg, 8, hosted.Options{
		Namespace: ns,
		Clusters: []hosted.ClusterOptions{
			{Name: "replace", UpgradeType: hyperv1.UpgradeTypeReplace, Nodes: 2},
			{Name: "inplace", UpgradeType: hyperv1.UpgradeTypeInPlace, Nodes: 2},
		},
		Clock: clk,
	})
	if err := sim.RunVirtual(ctx, clk, 2000); err != nil {
		t.Fatal(err)
	}
}

// TestHostedSimulator runs the hosted-cluster simulator for a Replace and
// an InPlace hosted cluster through the kube-apiserver with the real
// HyperShift and Cluster API CRDs, and checks from watches that every
// object passed through each state HyperShift and CAPI show.
func TestHostedSimulator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := hostedAdmin(ctx, t)
	dyn := clientFor(t, dynamic.NewForConfig, cfg)
	hsv := hyperv1.GroupVersion.WithResource
	csv := capiv1.GroupVersion.WithResource
	hcs, nps, cpcs := record(ctx, t, dyn, hsv("hostedclusters")), record(ctx, t, dyn, hsv("nodepools")), record(ctx, t, dyn, hsv("controlplanecomponents"))
	machines := record(ctx, t, dyn, csv("machines"))

	const ns = "clusters-itest"
	runHostedUpdate(ctx, t, cfg, ns)
	to := simulator.DefaultToVersion

	// The HostedClusters: the CVO's history Completed at the target, the
	// control plane's too, ClusterVersionProgressing True then False.
	for _, name := range []string{"replace", "inplace"} {
		var last *unstructured.Unstructured
		var progressing []string
		testio.Eventually(t, "HostedCluster "+name+" Completed", func() bool {
			progressing = nil
			for _, ev := range hcs.of(ns) {
				if ev.obj.GetName() != name {
					continue
				}
				last = ev.obj
				progressing = appendChange(progressing, unstructuredCondition(ev.obj, string(hyperv1.ClusterVersionProgressing)))
			}
			return last != nil && historyHead(last) == "Completed "+to
		})
		if want := []string{"False", "True", "False"}; !slices.Equal(progressing, want) {
			t.Errorf("%s: ClusterVersionProgressing went %v, want %v", name, progressing, want)
		}
		cpv, err := hypershift.ControlPlaneVersion(last)
		if err != nil || cpv == nil || cpv.History[0].State != "Completed" || cpv.History[0].Version != to || len(cpv.History) != 2 {
			t.Errorf("%s: controlPlaneVersion %+v, %v; want the target Completed over the installed version", name, cpv, err)
		}
		// The NodePool: UpdatingVersion True then False, at the target.
		// The HostedCluster completes without waiting for the nodes: wait
		// for the watch to show the NodePool at the target.
		var updating []string
		var np *unstructured.Unstructured
		testio.Eventually(t, "NodePool "+name+"-workers at the target", func() bool {
			updating, np = nil, nil
			for _, ev := range nps.of(ns) {
				if ev.obj.GetName() == name+"-workers" {
					np = ev.obj
					updating = appendChange(updating, unstructuredCondition(ev.obj, hyperv1.NodePoolUpdatingVersionConditionType))
				}
			}
			v := ""
			if np != nil {
				v, _, _ = unstructured.NestedString(np.Object, "status", "version")
			}
			return v == to
		})
		if want := []string{"False", "True", "False"}; !slices.Equal(updating, want) {
			t.Errorf("%s: UpdatingVersion went %v, want %v", name, updating, want)
		}
		if v, _, _ := unstructured.NestedString(np.Object, "status", "version"); v != to {
			t.Errorf("%s: NodePool status.version %q, want %s", name, v, to)
		}
		if info, err := hypershift.NodesInfo(np); err != nil || info == nil || len(info.NodeVersions) != 1 || info.NodeVersions[0].OCPVersion != to || info.NodeVersions[0].ReadyNodeCount != 2 {
			t.Errorf("%s: nodesInfo %+v, %v; want two ready nodes at %s", name, info, err, to)
		}
		// Every ControlPlaneComponent: rollout waiting, then complete at the target.
		cpNS := hypershift.ControlPlaneNamespace(ns, name)
		seen := map[string][]string{}
		final := map[string]string{}
		for _, ev := range cpcs.of(cpNS) {
			seen[ev.obj.GetName()] = appendChange(seen[ev.obj.GetName()], unstructuredCondition(ev.obj, "RolloutComplete"))
			final[ev.obj.GetName()], _, _ = unstructured.NestedString(ev.obj.Object, "status", "version")
		}
		for _, comp := range hosted.Components {
			if want := []string{"True", "False", "True"}; !slices.Equal(seen[comp], want) || final[comp] != to {
				t.Errorf("%s: component %s: RolloutComplete went %v, version %q; want %v and %s", name, comp, seen[comp], final[comp], want, to)
			}
		}
	}

	// Machines. Replace: new names, each Pending, Provisioning, Provisioned,
	// Running; the old ones Running, Deleting, then gone. InPlace: the same
	// names, each NodeHealthy True, False (the reboot), True at the target.
	phases := map[string][]string{}
	health := map[string][]string{}
	versions := map[string]string{}
	testio.Eventually(t, "every Machine event", func() bool {
		clear(phases)
		clear(health)
		for _, ns := range []string{hypershift.ControlPlaneNamespace(ns, "replace"), hypershift.ControlPlaneNamespace(ns, "inplace")} {
			for _, ev := range machines.of(ns) {
				key := ns + "/" + ev.obj.GetName()
				p, _, _ := unstructured.NestedString(ev.obj.Object, "status", "phase")
				if ev.typ == watch.Deleted {
					p = "(deleted)"
				}
				phases[key] = appendChange(phases[key], p)
				health[key] = appendChange(health[key], unstructuredCondition(ev.obj, string(capiv1.MachineNodeHealthyCondition)))
				versions[key] = ev.obj.GetAnnotations()[hypershift.ReleaseVersionAnnotation]
			}
		}
		return len(phases) == 6
	})
	var replaceNew, replaceOld, inplace int
	for key, got := range phases {
		switch {
		case strings.HasPrefix(key, hypershift.ControlPlaneNamespace(ns, "inplace")+"/"):
			inplace++
			if want := []string{"Running"}; !slices.Equal(got, want) {
				t.Errorf("in-place Machine %s: phases %v, want %v (the same machine throughout)", key, got, want)
			}
			if want := []string{"True", "False", "True"}; !slices.Equal(health[key], want) || versions[key] != to {
				t.Errorf("in-place Machine %s: NodeHealthy %v at %q, want %v at %s", key, health[key], versions[key], want, to)
			}
		case slices.Equal(got, []string{"Pending", "Provisioning", "Provisioned", "Running"}):
			replaceNew++
		case slices.Equal(got, []string{"Running", "Deleting", "(deleted)"}):
			replaceOld++
		default:
			t.Errorf("Machine %s: phases %v", key, got)
		}
	}
	if replaceNew != 2 || replaceOld != 2 || inplace != 2 {
		t.Errorf("%d new and %d old Replace Machines, %d InPlace; want 2 each\n%v", replaceNew, replaceOld, inplace, phases)
	}
}

// appendChange appends v unless it is empty (an object created without its
// status, which comes next through the status subresource) or repeats the
// last value.
func appendChange(s []string, v string) []string {
	if v == "" || len(s) > 0 && s[len(s)-1] == v {
		return s
	}
	return append(s, v)
}

// unstructuredCondition returns the status of the condition typ of obj, or "".
func unstructuredCondition(obj *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			return fmt.Sprint(m["status"])
		}
	}
	return ""
}

// historyHead is "<state> <version>" of the HostedCluster's newest history
// entry.
func historyHead(obj *unstructured.Unstructured) string {
	h, _, _ := unstructured.NestedSlice(obj.Object, "status", "version", "history")
	if len(h) == 0 {
		return ""
	}
	m, _ := h[0].(map[string]any)
	return fmt.Sprintf("%v %v", m["state"], m["version"])
}
