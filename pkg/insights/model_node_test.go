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
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

func TestNodeOf(t *testing.T) {
	at := func(m int) metav1.Time { return mt(t0.Add(time.Duration(m) * time.Minute)) }
	full := func() *corev1.Node {
		later := at(30)
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name: "worker-0", UID: "uid-0", ResourceVersion: "42", CreationTimestamp: at(-600),
				Labels: map[string]string{"node-role.kubernetes.io/worker": "", "kubernetes.io/hostname": "worker-0"},
				Annotations: map[string]string{
					CurrentConfigAnnotation: "rendered-worker-old", MCDStateAnnotation: MCDStateDone,
					"machineconfiguration.openshift.io/unread": "x", "volumes.kubernetes.io/controller-managed-attach-detach": "true",
				},
				ManagedFields: []metav1.ManagedFieldsEntry{
					{Manager: "kubelet", Subresource: "status", Time: &later},
					{Manager: "machine-config-daemon", Time: ptrTime(at(5))},
				},
			},
			Spec: corev1.NodeSpec{Unschedulable: true, ProviderID: "aws:///i-0"},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{
					{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Message: "enough memory", LastTransitionTime: at(10), LastHeartbeatTime: at(60)},
					{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, Message: "routes", LastTransitionTime: at(-5)},
					{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue, Reason: "KubeletHasDiskPressure", Message: "disk", LastTransitionTime: at(2)},
					{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Message: "ready", LastTransitionTime: at(1), LastHeartbeatTime: at(60)},
				},
				Images: []corev1.ContainerImage{{Names: []string{"quay.io/x"}, SizeBytes: 1}},
			},
		}
	}
	tests := []struct {
		name string
		in   *corev1.Node
		want *Node
	}{
		{name: "nil", in: nil, want: nil},
		{name: "empty", in: &corev1.Node{}, want: &Node{}},
		{
			name: "what the engine reads",
			in:   full(),
			want: &Node{
				Name: "worker-0", UID: "uid-0", ResourceVersion: "42", rv: 42, rvText: "42",
				// Sorted by key.
				Labels:        NodeLabels{{"kubernetes.io/hostname", "worker-0"}, {"node-role.kubernetes.io/worker", ""}},
				Annotations:   map[string]string{CurrentConfigAnnotation: "rendered-worker-old", MCDStateAnnotation: MCDStateDone},
				Unschedulable: true,
				// The memory-pressure transition (not kept) is the latest
				// change; the status subresource's managedFields time
				// (a heartbeat) is not a change.
				Changed: at(10).Time,
				Conditions: []NodeCondition{
					{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionFalse, Message: "routes", LastTransitionTime: at(-5).Time},
					{Type: corev1.NodeDiskPressure, Status: corev1.ConditionTrue, Message: "disk", LastTransitionTime: at(2).Time},
					{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Message: "ready", LastTransitionTime: at(1).Time},
				},
			},
		},
		{
			name: "the main resource's managedFields time is the latest change",
			in: func() *corev1.Node {
				n := full()
				n.ManagedFields[1].Time = ptrTime(at(45))
				return n
			}(),
			want: func() *Node {
				n := NodeOf(full(), nil)
				n.Changed = at(45).Time
				return n
			}(),
		},
		{
			name: "creation is the latest change",
			in:   &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "new", CreationTimestamp: at(90)}},
			want: &Node{Name: "new", Changed: at(90).Time},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before *corev1.Node
			if tc.in != nil {
				before = tc.in.DeepCopy()
			}
			got := NodeOf(tc.in, nil)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NodeOf =\n%+v\nwant\n%+v", got, tc.want)
			}
			if tc.in != nil && !reflect.DeepEqual(tc.in, before) {
				t.Errorf("NodeOf changed its input")
			}
		})
	}
}

// TestNodeOfInterns checks that every string kept but the node's identity
// goes through the interner.
func TestNodeOfInterns(t *testing.T) {
	seen := map[string]bool{}
	intern := func(s string) string { seen[s] = true; return s }
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: "n", Labels: map[string]string{"role": "worker"},
			Annotations: map[string]string{MCDStateAnnotation: MCDStateDone},
		},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Message: "ready"}}},
	}
	NodeOf(n, intern)
	for _, s := range []string{"role", "worker", MCDStateDone, string(corev1.NodeReady), string(corev1.ConditionTrue), "ready"} {
		if !seen[s] {
			t.Errorf("%q was not interned (interned: %v)", s, seen)
		}
	}
}

// TestNodeInCache checks that client-go's caches key a Node and read its
// metadata as they do an API object's, and that DeepCopy shares nothing.
func TestNodeInCache(t *testing.T) {
	n := NodeOf(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-0", UID: "u", ResourceVersion: "7", Labels: map[string]string{"a": "b"}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady}}}}, nil)
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(n); err != nil || key != "worker-0" {
		t.Errorf("key = %q, %v", key, err)
	}
	m, err := meta.Accessor(n)
	if err != nil || m.GetName() != "worker-0" || m.GetUID() != "u" || m.GetResourceVersion() != "7" {
		t.Fatalf("meta.Accessor = %v, %v", m, err)
	}
	store := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	if err := store.Add(n); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := store.GetByKey("worker-0"); !ok || got != n {
		t.Errorf("store holds %v, want the Node", got)
	}
	c := n.DeepCopy()
	c.Labels[0].Value, c.Conditions[0].Status = "changed", corev1.ConditionFalse
	if n.Labels.Get("a") != "b" || n.Conditions[0].Status != "" || !reflect.DeepEqual(NodeOf(nil, nil).DeepCopy(), (*Node)(nil)) {
		t.Errorf("DeepCopy shares memory with its original: %+v", n)
	}
}

// TestResourceVersionNumber checks the resourceVersion NodeOf parses once:
// it answers as parsing ResourceVersion would, including for a copy given
// another resourceVersion and for Nodes not built by NodeOf.
func TestResourceVersionNumber(t *testing.T) {
	built := func(rv string) *Node {
		return NodeOf(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: rv}}, nil)
	}
	changed := func(n *Node, rv string) *Node {
		c := n.DeepCopy()
		c.ResourceVersion = rv
		return c
	}
	tests := []struct {
		name   string
		node   *Node
		want   uint64
		wantOK bool
	}{
		{"built by NodeOf", built("1234567"), 1234567, true},
		{"the largest etcd revision", built("18446744073709551615"), 1<<64 - 1, true},
		{"a copy given a higher one", changed(built("7"), "8"), 8, true},
		{"a copy given a lower one", changed(built("700"), "69"), 69, true},
		{"a copy given none", changed(built("7"), ""), 0, false},
		{"a copy given one that is not a number", changed(built("7"), "m7"), 0, false},
		{"a literal", &Node{Name: "n", ResourceVersion: "42"}, 42, true},
		{"not a number", built("m1"), 0, false},
		{"none", built(""), 0, false},
		{"zero", built("0"), 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := tc.node.ResourceVersionNumber(); got != tc.want || ok != tc.wantOK {
				t.Errorf("ResourceVersionNumber() = %d, %v; want %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

// TestNodeLabels checks that NodeLabels answer as labels.Set does, for label
// selectors, and keep every label.
func TestNodeLabels(t *testing.T) {
	set := labels.Set{"node-role.kubernetes.io/worker": "", "kubernetes.io/hostname": "worker-0", "a": "1", "zone": "z"}
	l := NodeLabelsOf(set, nil)
	if got := labelMap(l); !reflect.DeepEqual(got, map[string]string(set)) {
		t.Errorf("labels %v, want %v", got, set)
	}
	for _, key := range []string{"node-role.kubernetes.io/worker", "kubernetes.io/hostname", "a", "zone", "", "b", "zzz", "kubernetes.io"} {
		v, ok := l.Lookup(key)
		wv, wok := set.Lookup(key)
		if v != wv || ok != wok || l.Has(key) != set.Has(key) || l.Get(key) != set.Get(key) {
			t.Errorf("%q: Lookup = %q, %v; labels.Set has %q, %v", key, v, ok, wv, wok)
		}
	}
	for _, s := range []string{"node-role.kubernetes.io/worker", "node-role.kubernetes.io/master", "a in (1,2),zone", "!zone", "a notin (1)", ""} {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := sel.Matches(l), sel.Matches(set); got != want {
			t.Errorf("selector %q matches: %v, want %v", s, got, want)
		}
	}
	if NodeLabelsOf(nil, nil) != nil || NodeLabelsOf(map[string]string{}, nil) != nil || labelMap(NodeLabels(nil)) != nil || NodeLabels(nil).Has("a") {
		t.Error("no labels must be nil and have nothing")
	}
}
