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
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"

	"github.com/update-status/apiserver/internal/fixtures"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sourcefiles"
)

var managed = []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}

// at is minute m of a fixed hour; atPtr points to it.
func at(m int) metav1.Time { return metav1.NewTime(time.Date(2025, 3, 12, 10, m, 0, 0, time.UTC)) }

func atPtr(m int) *metav1.Time { t := at(m); return &t }

func TestTransforms(t *testing.T) {
	tests := []struct {
		name      string
		transform cache.TransformFunc
		in        interface{}
		want      interface{}
	}{
		{
			name:      "node keeps conditions, unschedulable, labels and the MCO annotations the engine reads",
			transform: transformNode,
			in: &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "u1", ResourceVersion: "7", ManagedFields: managed,
					Generation: 3, Finalizers: []string{"f"}, OwnerReferences: []metav1.OwnerReference{{Name: "o"}},
					Labels: map[string]string{"node-role.kubernetes.io/worker": ""},
					Annotations: map[string]string{
						"machineconfiguration.openshift.io/currentConfig":        "rendered-worker-1",
						"machineconfiguration.openshift.io/state":                "Done",
						"machineconfiguration.openshift.io/controlPlaneTopology": "HighlyAvailable",
						"k8s.ovn.org/node-subnets":                               `{"default":["10.128.2.0/23"]}`,
					}},
				Spec: corev1.NodeSpec{Unschedulable: true, ProviderID: "aws:///i-1", PodCIDR: "10.0.0.0/24"},
				Status: corev1.NodeStatus{
					Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
						Message: "kubelet is posting ready status", LastHeartbeatTime: at(30), LastTransitionTime: at(2)}},
					Images:          []corev1.ContainerImage{{Names: []string{"quay.io/x"}}},
					VolumesInUse:    []corev1.UniqueVolumeName{"v"},
					VolumesAttached: []corev1.AttachedVolume{{Name: "v"}},
					NodeInfo:        corev1.NodeSystemInfo{KubeletVersion: "v1.30"},
					DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
					Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}},
				},
			},
			want: &insights.Node{
				Name: "n1", UID: "u1", ResourceVersion: "7",
				Labels: insights.NodeLabels{{Key: "node-role.kubernetes.io/worker"}},
				Annotations: map[string]string{
					"machineconfiguration.openshift.io/currentConfig": "rendered-worker-1",
					"machineconfiguration.openshift.io/state":         "Done",
				},
				Unschedulable: true,
				Changed:       at(2).Time,
				Conditions: []insights.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
					Message: "kubelet is posting ready status", LastTransitionTime: at(2).Time}},
			},
		},
		{
			name:      "node without labels, annotations or conditions",
			transform: transformNode,
			in: &corev1.Node{TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
				ObjectMeta: metav1.ObjectMeta{Name: "n2", Labels: map[string]string{}, Annotations: map[string]string{"a": "b"}},
				Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{}}},
			want: &insights.Node{Name: "n2"},
		},
		{
			name:      "node keeps the later of its creation and the latest main-resource managedFields time",
			transform: transformNode,
			in: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n3", CreationTimestamp: at(0),
				ManagedFields: []metav1.ManagedFieldsEntry{
					{Manager: "machine-config-daemon", Time: atPtr(5), FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`)},
					{Manager: "kubelet", Subresource: "status", Time: atPtr(9)},
				}}},
			want: &insights.Node{Name: "n3", Changed: at(5).Time},
		},
		{
			name:      "machine config keeps name, uid, resourceVersion and the release version",
			transform: transformMachineConfig,
			in: &mcfgv1.MachineConfig{
				ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-1", UID: "u", ResourceVersion: "3", ManagedFields: managed,
					Labels: map[string]string{"a": "b"},
					Annotations: map[string]string{
						insights.ReleaseImageVersionAnnotation:                              "4.17.5",
						"machineconfiguration.openshift.io/generated-by-controller-version": "abc",
					}},
				Spec: mcfgv1.MachineConfigSpec{OSImageURL: "quay.io/os", KernelArguments: []string{"a"}},
			},
			want: &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-1", UID: "u", ResourceVersion: "3",
				Annotations: map[string]string{insights.ReleaseImageVersionAnnotation: "4.17.5"}}},
		},
		{
			name:      "machine config without the annotation",
			transform: transformMachineConfig,
			in:        &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "00-worker", Annotations: map[string]string{"x": "y"}}},
			want:      &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "00-worker"}},
		},
		{
			name:      "deployment keeps container names and images",
			transform: transformDeployment,
			in: &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: insights.MCODeploymentName, Namespace: insights.MCONamespace, ManagedFields: managed, Annotations: map[string]string{"a": "b"}},
				Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					Containers:     []corev1.Container{{Name: "machine-config-operator", Image: "quay.io/mco@sha256:1", Args: []string{"start"}}},
					InitContainers: []corev1.Container{{Name: "init"}},
				}}},
				Status: appsv1.DeploymentStatus{Replicas: 1},
			},
			want: &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: insights.MCODeploymentName, Namespace: insights.MCONamespace},
				Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "machine-config-operator", Image: "quay.io/mco@sha256:1"}},
				}}},
			},
		},
		{
			name:      "cluster version keeps channel, upstream and update lists",
			transform: transformClusterVersion,
			in: &configv1.ClusterVersion{
				ObjectMeta: metav1.ObjectMeta{Name: "version", ManagedFields: managed},
				Spec:       configv1.ClusterVersionSpec{ClusterID: "id", Channel: "stable-4.17", Upstream: "https://u"},
				Status: configv1.ClusterVersionStatus{
					Desired:          configv1.Release{Version: "4.17.5"},
					History:          []configv1.UpdateHistory{{Version: "4.17.5", State: configv1.PartialUpdate}},
					AvailableUpdates: []configv1.Release{{Version: "4.17.6"}},
					Conditions:       []configv1.ClusterOperatorStatusCondition{{Type: "Progressing", Status: configv1.ConditionTrue}},
					Capabilities:     configv1.ClusterVersionCapabilitiesStatus{KnownCapabilities: []configv1.ClusterVersionCapability{"Console"}},
				},
			},
			want: &configv1.ClusterVersion{
				ObjectMeta: metav1.ObjectMeta{Name: "version"},
				Spec:       configv1.ClusterVersionSpec{Channel: "stable-4.17", Upstream: "https://u"},
				Status: configv1.ClusterVersionStatus{
					Desired:          configv1.Release{Version: "4.17.5"},
					History:          []configv1.UpdateHistory{{Version: "4.17.5", State: configv1.PartialUpdate}},
					AvailableUpdates: []configv1.Release{{Version: "4.17.6"}},
					Conditions:       []configv1.ClusterOperatorStatusCondition{{Type: "Progressing", Status: configv1.ConditionTrue}},
				},
			},
		},
		{
			name:      "cluster operator drops related objects",
			transform: transformClusterOperator,
			in: &configv1.ClusterOperator{
				ObjectMeta: metav1.ObjectMeta{Name: "etcd", ManagedFields: managed, Annotations: map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"}},
				Status: configv1.ClusterOperatorStatus{
					Versions:       []configv1.OperandVersion{{Name: "operator", Version: "4.17.5"}},
					RelatedObjects: []configv1.ObjectReference{{Resource: "namespaces", Name: "openshift-etcd"}},
					Extension:      runtime.RawExtension{Raw: []byte(`{}`)},
				},
			},
			want: &configv1.ClusterOperator{
				ObjectMeta: metav1.ObjectMeta{Name: "etcd", Annotations: map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"}},
				Status:     configv1.ClusterOperatorStatus{Versions: []configv1.OperandVersion{{Name: "operator", Version: "4.17.5"}}},
			},
		},
		{
			name:      "machine config pool keeps selector, paused and target config",
			transform: transformMachineConfigPool,
			in: &mcfgv1.MachineConfigPool{
				ObjectMeta: metav1.ObjectMeta{Name: "worker", ManagedFields: managed},
				Spec: mcfgv1.MachineConfigPoolSpec{
					NodeSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/worker": ""}},
					MachineConfigSelector: &metav1.LabelSelector{},
					Paused:                true,
					Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{
						ObjectReference: corev1.ObjectReference{Name: "rendered-worker-2"},
						Source:          []corev1.ObjectReference{{Name: "00-worker"}},
					},
				},
				Status: mcfgv1.MachineConfigPoolStatus{MachineCount: 3, Conditions: []mcfgv1.MachineConfigPoolCondition{{Type: "Updating"}}},
			},
			want: &mcfgv1.MachineConfigPool{
				ObjectMeta: metav1.ObjectMeta{Name: "worker"},
				Spec: mcfgv1.MachineConfigPoolSpec{
					NodeSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/worker": ""}},
					Paused:        true,
					Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: "rendered-worker-2"}},
				},
				Status: mcfgv1.MachineConfigPoolStatus{MachineCount: 3, Conditions: []mcfgv1.MachineConfigPoolCondition{{Type: "Updating"}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.transform(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			// A Node's parsed resourceVersion is checked in pkg/insights.
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(insights.Node{})); diff != "" {
				t.Fatalf("transformed object (-want +got):\n%s", diff)
			}
			// Idempotent.
			again, err := tt.transform(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, again, cmpopts.IgnoreUnexported(insights.Node{})); diff != "" {
				t.Fatalf("second pass changed the object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTransformsPassThroughOtherTypes(t *testing.T) {
	tombstone := cache.DeletedFinalStateUnknown{Key: "n1", Obj: &corev1.Node{}}
	for _, tf := range []cache.TransformFunc{transformNode, transformMachineConfig, transformMachineConfigPool,
		transformClusterOperator, transformClusterVersion, transformDeployment} {
		got, err := tf(tombstone)
		if err != nil || !reflect.DeepEqual(got, tombstone) {
			t.Errorf("tombstone changed: %#v, %v", got, err)
		}
	}
}

func TestCompactedManagedFields(t *testing.T) {
	tests := []struct {
		name string
		in   []metav1.ManagedFieldsEntry
		want []metav1.ManagedFieldsEntry
	}{
		{name: "none", in: nil, want: nil},
		{name: "no times", in: []metav1.ManagedFieldsEntry{{Manager: "a"}}, want: nil},
		{name: "only the status subresource", in: []metav1.ManagedFieldsEntry{{Manager: "kubelet", Subresource: "status", Time: atPtr(9)}}, want: nil},
		{
			name: "the latest main-resource time stays, without field sets",
			in: []metav1.ManagedFieldsEntry{
				{Manager: "a", Time: atPtr(1), FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`)},
				{Manager: "kubelet", Subresource: "status", Time: atPtr(9)},
				{Manager: "b", Time: atPtr(5)},
			},
			want: []metav1.ManagedFieldsEntry{{Time: atPtr(5)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactedManagedFields(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// fresh returns a copy of s with its own bytes, as a decoder produces.
func fresh(s string) string { return string([]byte(s)) }

func TestTransformNodeSharesRepeatedStrings(t *testing.T) {
	// Interned strings are shared within a garbage-collection cycle (see
	// intern): no collection may run between the transforms compared.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	node := func(name, config string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name,
				Labels:      map[string]string{fresh("kubernetes.io/os"): fresh("linux"), "kubernetes.io/hostname": fresh(name)},
				Annotations: map[string]string{fresh(insights.NodeAnnotations[0]): fresh(config), fresh(insights.NodeAnnotations[2]): fresh("Done")}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeConditionType(fresh("Ready")),
				Status: corev1.ConditionStatus(fresh("True")), Reason: fresh("KubeletReady"), Message: fresh("kubelet is posting ready status")}}},
		}
	}
	transform := func(n *corev1.Node) *insights.Node {
		t.Helper()
		out, err := transformNode(n)
		if err != nil {
			t.Fatal(err)
		}
		return out.(*insights.Node)
	}
	a, b := transform(node("a", "rendered-1")), transform(node("b", "rendered-1"))
	c := transform(node("c", "rendered-2"))
	same := func(x, y string) bool {
		return x == y && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	}
	tests := []struct {
		name string
		ok   bool
	}{
		{"label values are equal and shared", same(a.Labels.Get("kubernetes.io/os"), b.Labels.Get("kubernetes.io/os")) && a.Labels.Get("kubernetes.io/os") == "linux"},
		{"unique label values stay", a.Labels.Get("kubernetes.io/hostname") == "a" && b.Labels.Get("kubernetes.io/hostname") == "b"},
		{"condition texts are equal and shared", same(a.Conditions[0].Message, b.Conditions[0].Message) &&
			same(string(a.Conditions[0].Type), string(b.Conditions[0].Type)) &&
			same(string(a.Conditions[0].Status), string(b.Conditions[0].Status))},
		{"equal annotation sets are one map", reflect.ValueOf(a.Annotations).UnsafePointer() == reflect.ValueOf(b.Annotations).UnsafePointer()},
		{"different annotation sets are different maps", reflect.ValueOf(a.Annotations).UnsafePointer() != reflect.ValueOf(c.Annotations).UnsafePointer() &&
			c.Annotations[insights.NodeAnnotations[0]] == "rendered-2" && a.Annotations[insights.NodeAnnotations[0]] == "rendered-1"},
		{"annotation values are shared across sets", same(a.Annotations[insights.NodeAnnotations[2]], c.Annotations[insights.NodeAnnotations[2]])},
	}
	for _, tt := range tests {
		if !tt.ok {
			t.Errorf("%s: no", tt.name)
		}
	}
}

func TestAnnotationSets(t *testing.T) {
	k0, k1 := insights.NodeAnnotations[0], insights.NodeAnnotations[1]
	tests := []struct {
		name string
		in   map[string]string
		want map[string]string
	}{
		{name: "nil", in: nil, want: nil},
		{name: "none kept", in: map[string]string{"a": "b", "machineconfiguration.openshift.io/controlPlaneTopology": "x"}, want: nil},
		{name: "an empty value is kept", in: map[string]string{k0: ""}, want: map[string]string{k0: ""}},
		// The next two would share a key if values were not length-prefixed.
		{name: "a value that looks like a second entry", in: map[string]string{k0: "x1:1:y"}, want: map[string]string{k0: "x1:1:y"}},
		{name: "two entries", in: map[string]string{k0: "x", k1: "y"}, want: map[string]string{k0: "x", k1: "y"}},
		{name: "a long value is kept but not shared", in: map[string]string{k0: strings.Repeat("r", maxAnnotationSetKey)},
			want: map[string]string{k0: strings.Repeat("r", maxAnnotationSetKey)}},
	}
	c := &annotationSets{keys: insights.NodeAnnotations}
	// What transformNode does: the annotations NodeOf keeps, shared.
	get := func(ann map[string]string) map[string]string {
		return c.share(insights.NodeOf(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Annotations: ann}}, intern).Annotations)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for pass := 0; pass < 2; pass++ { // the second pass reads the cache
				if got := get(tt.in); !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("pass %d: got %q, want %q", pass, got, tt.want)
				}
			}
		})
	}
	// The cache stays bounded and right when it overflows.
	for i := 0; i < 3*maxAnnotationSets; i++ {
		v := fmt.Sprint("rendered-", i)
		if got := get(map[string]string{k0: v}); len(got) != 1 || got[k0] != v {
			t.Fatalf("set %d: got %q", i, got)
		}
		if len(c.sets) > maxAnnotationSets {
			t.Fatalf("the cache holds %d sets, more than %d", len(c.sets), maxAnnotationSets)
		}
	}
}

// TestEngineReadsOnlyKeptNodeAnnotations checks the engine's source against
// insights.NodeAnnotations, the list transformNode keeps: every
// machine-config annotation or label key it names is either kept on Nodes or
// one it reads from MachineConfigPools or MachineConfigs, and it
// ranges over the annotations of nothing but alerts and ClusterOperators,
// so no Node annotation it reads can be dropped.
func TestEngineReadsOnlyKeptNodeAnnotations(t *testing.T) {
	const prefix = "machineconfiguration.openshift.io/"
	poolKeys := map[string]bool{
		insights.LayeringEnabledLabel:                  true, // a MachineConfigPool label
		insights.NewestImageEquivalentConfigAnnotation: true, // a MachineConfigPool annotation
		insights.ReleaseImageVersionAnnotation:         true, // a MachineConfig annotation
	}
	kept := map[string]bool{}
	for _, k := range insights.NodeAnnotations {
		kept[k] = true
	}
	files, err := filepath.Glob(filepath.Join("..", "insights", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no engine sources: %v", err)
	}
	named := map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if v, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && strings.Contains(v, prefix) {
					named[v] = true
					if !kept[v] && !poolKeys[v] {
						t.Errorf("%s: the engine names %q, which transformNode drops", fset.Position(n.Pos()), v)
					}
				}
			case *ast.RangeStmt:
				var b strings.Builder
				_ = printer.Fprint(&b, fset, n.X)
				x := b.String()
				if (strings.Contains(x, "Annotations") || x == "ann") && x != "a.Annotations" && x != "co.Annotations" && x != "NodeAnnotations" {
					t.Errorf("%s: the engine ranges over %s; if these are a Node's, transformNode drops some", fset.Position(n.Pos()), x)
				}
			}
			return true
		})
	}
	for _, k := range insights.NodeAnnotations {
		if !named[k] {
			t.Errorf("insights.NodeAnnotations lists %q, which the engine does not read", k)
		}
	}
}

// TestTransformsKeepEngineResults computes every real-cluster fixture from
// the objects as loaded, with annotations the engine must ignore added to
// every Node, and from the same objects after the transforms: the results
// must be identical.
func TestTransformsKeepEngineResults(t *testing.T) {
	dir := fixtures.Dir(t)
	for _, name := range fixtures.Scenarios(t) {
		t.Run(name, func(t *testing.T) {
			src, err := sourcefiles.LoadScenario(dir, name)
			if err != nil {
				t.Fatal(err)
			}
			// The Nodes as the API serves them, with what the engine
			// must ignore added.
			data, err := os.ReadFile(filepath.Join(dir, name+"-node.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var nodes corev1.NodeList
			if err := yaml.Unmarshal(data, &nodes); err != nil {
				t.Fatal(err)
			}
			if len(nodes.Items) == 0 || len(nodes.Items) != len(src.Nodes) {
				t.Fatalf("%d nodes in the file, %d loaded", len(nodes.Items), len(src.Nodes))
			}
			for i := range nodes.Items {
				n := &nodes.Items[i]
				if n.Annotations == nil {
					n.Annotations = map[string]string{}
				}
				n.Annotations["machineconfiguration.openshift.io/post-config-action"] = "Reboot"
				n.Annotations["machineconfiguration.openshift.io/lastObservedServerCAAnnotation"] = "false"
				n.Annotations["k8s.ovn.org/node-subnets"] = `{"default":["10.128.2.0/23"]}`
				n.Status.Images = []corev1.ContainerImage{{Names: []string{"quay.io/x"}}}
				n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse})
			}
			now := sourcefiles.MockNow(src)
			want := insights.Compute(src, now)

			out := *src
			out.Nodes = make([]*insights.Node, len(nodes.Items))
			for i := range nodes.Items {
				out.Nodes[i] = mustTransform(t, transformNode, &nodes.Items[i]).(*insights.Node)
			}
			out.ClusterOperators = make([]*configv1.ClusterOperator, len(src.ClusterOperators))
			for i, co := range src.ClusterOperators {
				out.ClusterOperators[i] = mustTransform(t, transformClusterOperator, co.DeepCopy()).(*configv1.ClusterOperator)
			}
			out.MachineConfigPools = make([]*mcfgv1.MachineConfigPool, len(src.MachineConfigPools))
			for i, p := range src.MachineConfigPools {
				out.MachineConfigPools[i] = mustTransform(t, transformMachineConfigPool, p.DeepCopy()).(*mcfgv1.MachineConfigPool)
			}
			if src.ClusterVersion != nil {
				out.ClusterVersion = mustTransform(t, transformClusterVersion, src.ClusterVersion.DeepCopy()).(*configv1.ClusterVersion)
			}
			if src.MCODeployment != nil {
				out.MCODeployment = mustTransform(t, transformDeployment, src.MCODeployment.DeepCopy()).(*appsv1.Deployment)
			}
			got := insights.Compute(&out, now)

			wantJSON, err1 := json.Marshal(want.Status)
			gotJSON, err2 := json.Marshal(got.Status)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !bytes.Equal(wantJSON, gotJSON) {
				t.Errorf("the transforms changed the status:\nwant %s\ngot  %s", wantJSON, gotJSON)
			}
			if !want.NextChange.Equal(got.NextChange) || !reflect.DeepEqual(want.Truncations, got.Truncations) {
				t.Errorf("the transforms changed the result: want %v %v, got %v %v", want.NextChange, want.Truncations, got.NextChange, got.Truncations)
			}
		})
	}
}

func mustTransform(t *testing.T, tf cache.TransformFunc, obj interface{}) interface{} {
	t.Helper()
	out, err := tf(obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
