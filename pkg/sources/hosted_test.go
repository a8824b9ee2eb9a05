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

package sources

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/hypershift"
)

var hostedGVRs = map[schema.GroupVersionResource]string{
	hyperv1.GroupVersion.WithResource("hostedclusters"):         "HostedClusterList",
	hyperv1.GroupVersion.WithResource("nodepools"):              "NodePoolList",
	hyperv1.GroupVersion.WithResource("hostedcontrolplanes"):    "HostedControlPlaneList",
	hyperv1.GroupVersion.WithResource("controlplanecomponents"): "ControlPlaneComponentList",
	capiv1.GroupVersion.WithResource("machines"):                "MachineList",
	capiv1.GroupVersion.WithResource("machinesets"):             "MachineSetList",
	capiv1.GroupVersion.WithResource("machinedeployments"):      "MachineDeploymentList",
}

// toUnstructured converts a typed HyperShift or Cluster API object.
func toUnstructured(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	gvks, _, err := hypershift.Scheme.ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	u, err := hypershift.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// hostedObjects are the objects of a management cluster with hosted
// clusters clusters/a and clusters/b, and the bad input around them.
func hostedObjects(t *testing.T) []runtime.Object {
	t.Helper()
	hc := func(name, rv string) *hyperv1.HostedCluster {
		return &hyperv1.HostedCluster{ObjectMeta: om("clusters", name, rv)}
	}
	np := func(name, cluster, rv string) *hyperv1.NodePool {
		return &hyperv1.NodePool{ObjectMeta: om("clusters", name, rv), Spec: hyperv1.NodePoolSpec{ClusterName: cluster}}
	}
	typed := []runtime.Object{
		hc("a", "10"), hc("b", "11"),
		np("a-workers", "a", "12"), np("b-workers", "b", "13"),
		// A NodePool naming a missing HostedCluster.
		np("orphan", "gone", "14"),
		&hyperv1.HostedControlPlane{ObjectMeta: om("clusters-a", "a", "15")},
		&hyperv1.ControlPlaneComponent{ObjectMeta: om("clusters-a", "kube-apiserver", "16"),
			Status: hyperv1.ControlPlaneComponentStatus{Version: "4.18.1", Resources: []hyperv1.ComponentResource{{Kind: "Deployment", Group: "apps", Name: "kube-apiserver"}}}},
		&capiv1.Machine{ObjectMeta: withMeta(om("clusters-a", "a-workers-x", "17"),
			map[string]string{capiv1.MachineSetNameLabel: "a-workers", "node-role.kubernetes.io/worker": ""},
			map[string]string{hypershift.NodePoolAnnotation: "clusters/a-workers", "machine.cluster.x-k8s.io/exclude-node-draining": ""}),
			Spec: capiv1.MachineSpec{Version: ptr.To("v1.31.1"), ProviderID: ptr.To("agent://x"), ClusterName: "a", FailureDomain: ptr.To("zone-a"),
				Bootstrap: capiv1.Bootstrap{DataSecretName: ptr.To("user-data")}, InfrastructureRef: corev1.ObjectReference{Kind: "AgentMachine", Name: "x"}},
			Status: capiv1.MachineStatus{Phase: "Running", NodeRef: &corev1.ObjectReference{Kind: "Node", Name: "x"},
				NodeInfo: &corev1.NodeSystemInfo{KernelVersion: "5.14.0"}, Addresses: capiv1.MachineAddresses{{Type: capiv1.MachineInternalIP, Address: "10.0.0.1"}},
				V1Beta2: &capiv1.MachineV1Beta2Status{Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}}}},
		&capiv1.Machine{ObjectMeta: om("clusters-a", "a-workers-w", "18")},
		&capiv1.MachineSet{ObjectMeta: om("clusters-a", "a-workers", "19")},
		&capiv1.MachineDeployment{ObjectMeta: om("clusters-b", "b-workers", "20")},
		// Machines in a namespace of no hosted cluster.
		&capiv1.Machine{ObjectMeta: om("elsewhere", "stray", "99")},
	}
	var out []runtime.Object
	for _, o := range typed {
		out = append(out, toUnstructured(t, o))
	}
	// A NodePool of a whose replicas is not a number: malformed.
	bad := toUnstructured(t, np("a-bad", "a", "21"))
	if err := unstructured.SetNestedField(bad.Object, "three", "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	return append(out, bad)
}

// hostedFixture runs Hosted over a fake dynamic client.
type hostedFixture struct {
	hosted    *Hosted
	client    *dynamicfake.FakeDynamicClient
	discovery *fakeDiscovery
	mu        sync.Mutex
	keys      []string
}

func newHostedFixture(t *testing.T, served bool, objs ...runtime.Object) *hostedFixture {
	t.Helper()
	return newHostedFixtureWith(t, served, nil, objs...)
}

// newHostedFixtureWith is newHostedFixture with setup called on the fake
// client before the sources start.
func newHostedFixtureWith(t *testing.T, served bool, setup func(*dynamicfake.FakeDynamicClient), objs ...runtime.Object) *hostedFixture {
	t.Helper()
	scheme := runtime.NewScheme()
	f := &hostedFixture{client: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, hostedGVRs, objs...), discovery: &fakeDiscovery{served: map[string][]string{}}}
	if setup != nil {
		setup(f.client)
	}
	if served {
		f.discovery.set("hypershift.openshift.io/v1beta1", "hostedclusters", "nodepools", "hostedcontrolplanes", "controlplanecomponents")
		f.discovery.set("cluster.x-k8s.io/v1beta1", "machines", "machinesets", "machinedeployments")
	}
	h, err := NewHosted(f.client, HostedOptions{Clock: clocktesting.NewFakeClock(time.Now()), Discovery: f.discovery})
	if err != nil {
		t.Fatal(err)
	}
	f.hosted = h
	h.AddListener(func(key string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.keys = append(f.keys, key)
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go h.Run(ctx)
	testio.Eventually(t, "hosted sources synced", func() bool { return h.SyncCheck() == nil })
	return f
}

// takeKeys returns the keys notified since the last call.
func (f *hostedFixture) takeKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.keys
	f.keys = nil
	return out
}

func objectNames[T metav1.Object](objs []T) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	return out
}

func TestHostedGrouping(t *testing.T) {
	f := newHostedFixture(t, true, hostedObjects(t)...)
	if got, want := f.hosted.HostedClusterKeys(), []string{"clusters/a", "clusters/b"}; !slices.Equal(got, want) {
		t.Errorf("keys = %v, want %v", got, want)
	}
	tests := []struct {
		key                      string
		wantExists               bool
		wantPools, wantMachines  []string
		wantComponents, wantSets []string
		wantDeployments          []string
		wantControlPlane         string
		wantMalformed            int
		wantMaxRV                uint64
	}{
		{
			key: "clusters/a", wantExists: true,
			wantPools: []string{"a-workers"}, wantMachines: []string{"a-workers-w", "a-workers-x"},
			wantComponents: []string{"kube-apiserver"}, wantSets: []string{"a-workers"},
			wantControlPlane: "a", wantMalformed: 1, wantMaxRV: 21,
		},
		{key: "clusters/b", wantExists: true, wantPools: []string{"b-workers"}, wantDeployments: []string{"b-workers"}, wantMaxRV: 20},
		// The orphan NodePool is grouped under the name it gives, which
		// no HostedCluster has: no key lists it, and its snapshot says
		// the HostedCluster does not exist.
		{key: "clusters/gone", wantPools: []string{"orphan"}, wantMaxRV: 14},
		{key: "elsewhere/x"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			snap := f.hosted.Snapshot(tt.key)
			src := snap.Sources
			if snap.Exists != tt.wantExists || (src.HostedCluster != nil) != tt.wantExists {
				t.Errorf("exists = %v (HostedCluster %v), want %v", snap.Exists, src.HostedCluster != nil, tt.wantExists)
			}
			check := func(what string, got, want []string) {
				if !slices.Equal(got, want) {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			var pools, comps []string
			for _, p := range src.NodePools {
				pools = append(pools, p.Name)
			}
			for _, c := range src.Components {
				comps = append(comps, c.Name)
			}
			check("node pools", pools, tt.wantPools)
			check("components", comps, tt.wantComponents)
			check("machines", objectNames(src.Machines), tt.wantMachines)
			check("machine sets", objectNames(src.MachineSets), tt.wantSets)
			check("machine deployments", objectNames(src.MachineDeployments), tt.wantDeployments)
			cp := ""
			if src.HostedControlPlane != nil {
				cp = src.HostedControlPlane.Name
			}
			if cp != tt.wantControlPlane {
				t.Errorf("control plane = %q, want %q", cp, tt.wantControlPlane)
			}
			if len(snap.Malformed) != tt.wantMalformed {
				t.Errorf("malformed = %v, want %d", snap.Malformed, tt.wantMalformed)
			}
			for _, m := range snap.Malformed {
				if !strings.HasPrefix(m, "NodePool clusters/a-bad: ") {
					t.Errorf("malformed %q does not name the NodePool", m)
				}
			}
			if snap.MaxResourceVersion != tt.wantMaxRV {
				t.Errorf("max resourceVersion = %d, want %d", snap.MaxResourceVersion, tt.wantMaxRV)
			}
			if len(snap.Unsynced)+len(snap.Unavailable) != 0 || !snap.InitialSyncDone {
				t.Errorf("unsynced %v, unavailable %v, initial sync %v", snap.Unsynced, snap.Unavailable, snap.InitialSyncDone)
			}
		})
	}
	// The transform dropped what the engine never reads, and kept what it
	// reads.
	a := f.hosted.Snapshot("clusters/a").Sources
	if a.HostedCluster.ManagedFields != nil {
		t.Errorf("managedFields kept: %v", a.HostedCluster.ManagedFields)
	}
	i := slices.IndexFunc(a.Machines, func(m *capiv1.Machine) bool { return m.Name == "a-workers-x" })
	if i < 0 {
		t.Fatal("no Machine a-workers-x")
	}
	if m := a.Machines[i]; m.Status.NodeInfo != nil || m.Status.Addresses != nil || m.Status.V1Beta2 != nil || m.Spec.ProviderID != nil ||
		m.Spec.Bootstrap.DataSecretName != nil || m.Spec.InfrastructureRef.Name != "" || m.Spec.ClusterName != "" || m.Spec.FailureDomain != nil {
		t.Errorf("Machine fields the engine does not read kept: %+v", m)
	} else if ptr.Deref(m.Spec.Version, "") != "v1.31.1" || m.Status.Phase != "Running" || m.Status.NodeRef == nil ||
		!maps.Equal(m.Labels, map[string]string{capiv1.MachineSetNameLabel: "a-workers"}) ||
		!maps.Equal(m.Annotations, map[string]string{hypershift.NodePoolAnnotation: "clusters/a-workers"}) {
		t.Errorf("Machine fields the engine reads dropped: %+v", m)
	}
	if c := a.Components[0]; c.Status.Resources != nil || c.Status.Version != "4.18.1" {
		t.Errorf("component's status: resources %v (not read, want none), version %q", c.Status.Resources, c.Status.Version)
	}
}

// TestHostedTransformInterns: the strings that repeat across Machines and
// components are one copy once cached. Interning shares a value within a
// garbage-collection cycle, so the collector is held off meanwhile.
func TestHostedTransformInterns(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	h, err := NewHosted(dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), hostedGVRs),
		HostedOptions{Clock: clocktesting.NewFakeClock(time.Now()), Discovery: &fakeDiscovery{}})
	if err != nil {
		t.Fatal(err)
	}
	cond := capiv1.Condition{Type: capiv1.ReadyCondition, Status: corev1.ConditionTrue, Reason: "AsExpected"}
	machine := func(name string) *capiv1.Machine {
		u := toUnstructured(t, &capiv1.Machine{ObjectMeta: withMeta(om("clusters-a", name, "1"), nil, map[string]string{hypershift.NodePoolAnnotation: "clusters/a-workers"}),
			Spec: capiv1.MachineSpec{Version: ptr.To("v1.31.1")}, Status: capiv1.MachineStatus{Phase: "Running", Conditions: capiv1.Conditions{cond}}})
		out, err := h.machines.transform(u)
		if err != nil {
			t.Fatal(err)
		}
		return out.(*capiv1.Machine)
	}
	component := func(ns string) *hypershift.ControlPlaneComponent {
		u := toUnstructured(t, &hyperv1.ControlPlaneComponent{ObjectMeta: om(ns, "kube-apiserver", "1"),
			Status: hyperv1.ControlPlaneComponentStatus{Version: "4.18.1", Conditions: []metav1.Condition{{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected"}}}})
		out, err := h.components.transform(u)
		if err != nil {
			t.Fatal(err)
		}
		return out.(*hypershift.ControlPlaneComponent)
	}
	x, y := machine("x"), machine("y")
	c, d := component("clusters-a"), component("clusters-b")
	for what, pair := range map[string][2]string{
		"namespace":           {x.Namespace, y.Namespace},
		"NodePool annotation": {x.Annotations[hypershift.NodePoolAnnotation], y.Annotations[hypershift.NodePoolAnnotation]},
		"cluster name":        {x.Spec.ClusterName, y.Spec.ClusterName},
		"version":             {*x.Spec.Version, *y.Spec.Version},
		"phase":               {x.Status.Phase, y.Status.Phase},
		"condition reason":    {x.Status.Conditions[0].Reason, y.Status.Conditions[0].Reason},
		"component namespace": {x.Namespace, c.Namespace},
		"component name":      {c.Name, d.Name},
		"component version":   {c.Status.Version, d.Status.Version},
		"component condition": {string(c.Status.Conditions[0].Status), string(d.Status.Conditions[0].Status)},
	} {
		if unsafe.StringData(pair[0]) != unsafe.StringData(pair[1]) {
			t.Errorf("the %s %q is not shared", what, pair[0])
		}
	}
	if reflect.ValueOf(x.Annotations).UnsafePointer() != reflect.ValueOf(y.Annotations).UnsafePointer() {
		t.Error("the Machines of one NodePool do not share their annotations")
	}
	if unsafe.StringData(x.Name) == unsafe.StringData(y.Name) {
		t.Error("the Machines' names share bytes: the test's objects are not decoded apart")
	}
}

// om is the metadata of namespace/name at resourceVersion rv.
func om(ns, name, rv string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}
}

// withMeta returns m with labels and annotations.
func withMeta(m metav1.ObjectMeta, labels, annotations map[string]string) metav1.ObjectMeta {
	m.Labels, m.Annotations = labels, annotations
	return m
}

// TestHostedNotifications: a change names the hosted cluster it belongs
// to, and only it.
func TestHostedNotifications(t *testing.T) {
	f := newHostedFixture(t, true, hostedObjects(t)...)
	testio.Eventually(t, "the initial notifications", func() bool {
		return slices.Contains(f.takeKeys(), AllHostedClusters)
	})
	machines := f.client.Resource(capiv1.GroupVersion.WithResource("machines"))
	nodePools := f.client.Resource(hyperv1.GroupVersion.WithResource("nodepools"))
	ctx := context.Background()
	newMachine := func(ns, name string) *unstructured.Unstructured {
		return toUnstructured(t, &capiv1.Machine{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "30"}})
	}
	tests := []struct {
		name   string
		change func() error
		want   []string
	}{
		{"a Machine of a", func() error {
			_, err := machines.Namespace("clusters-a").Create(ctx, newMachine("clusters-a", "a-workers-y"), metav1.CreateOptions{})
			return err
		}, []string{"clusters/a"}},
		{"a Machine deleted in b", func() error {
			if _, err := machines.Namespace("clusters-b").Create(ctx, newMachine("clusters-b", "b-1"), metav1.CreateOptions{}); err != nil {
				return err
			}
			return machines.Namespace("clusters-b").Delete(ctx, "b-1", metav1.DeleteOptions{})
		}, []string{"clusters/b", "clusters/b"}},
		{"a NodePool of b", func() error {
			return nodePools.Namespace("clusters").Delete(ctx, "b-workers", metav1.DeleteOptions{})
		}, []string{"clusters/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A stray Machine notifies nothing; it goes first, so that
			// its notification, were there one, comes before the
			// change's.
			if _, err := machines.Namespace("elsewhere").Create(ctx, newMachine("elsewhere", "stray-"+strings.ReplaceAll(tt.name, " ", "-")), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := tt.change(); err != nil {
				t.Fatal(err)
			}
			var got []string
			testio.Eventually(t, "the notifications", func() bool {
				got = append(got, f.takeKeys()...)
				return len(got) >= len(tt.want)
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("notified %q, want %q", got, tt.want)
			}
		})
	}
}

// TestHostedNotServed: without the HyperShift and Cluster API APIs the
// hosted sources are ready at once and know no hosted cluster.
func TestHostedNotServed(t *testing.T) {
	f := newHostedFixture(t, false)
	if keys := f.hosted.HostedClusterKeys(); len(keys) != 0 {
		t.Errorf("keys = %v", keys)
	}
	snap := f.hosted.Snapshot("clusters/a")
	if snap.Exists || len(snap.Unavailable) != 7 || !snap.InitialSyncDone {
		t.Errorf("snapshot: exists %v, unavailable %v, initial sync %v", snap.Exists, snap.Unavailable, snap.InitialSyncDone)
	}
}

// TestHostedForbidden: a server not allowed to list Machines (deployed
// without the management-cluster RBAC) still gets ready, and counts them as
// unavailable.
func TestHostedForbidden(t *testing.T) {
	forbidden := func(c *dynamicfake.FakeDynamicClient) {
		c.PrependReactor("list", "machines", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(capiv1.GroupVersion.WithResource("machines").GroupResource(), "", errors.New("no RBAC"))
		})
	}
	f := newHostedFixtureWith(t, true, forbidden, hostedObjects(t)...)
	snap := f.hosted.Snapshot("clusters/a")
	if !snap.Exists || !slices.Contains(snap.Unavailable, "machines.cluster.x-k8s.io") || !snap.InitialSyncDone {
		t.Errorf("snapshot: exists %v, unavailable %v, initial sync %v; want the Machines unavailable", snap.Exists, snap.Unavailable, snap.InitialSyncDone)
	}
}
