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
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Node is what the engine reads of a Node (docs/insights.md#inputs): its
// identity, every label (pool node selectors may select on any), the
// NodeAnnotations, spec.unschedulable, the conditions the availability rules
// read and the time of its latest change. It is the engine's input instead
// of corev1.Node because the Node informer cache keeps one per node, the
// largest share of the server's memory per node: a Node costs about half of
// a corev1.Node trimmed to the same fields (docs/insights.md#inputs). Build
// one with NodeOf.
//
// A Node is read-only once built, like an object of an informer cache.
type Node struct {
	Name            string
	UID             types.UID
	ResourceVersion string
	// rv is rvText as a number: NodeOf parses the resourceVersion once, so
	// that the highest resourceVersion of a cache of Nodes is found without
	// parsing each at every snapshot. It holds only while rvText is still
	// ResourceVersion (a copy may be given another).
	rv     uint64
	rvText string
	// Labels are all the Node's labels.
	Labels NodeLabels
	// Annotations are the Node's NodeAnnotations, and no other.
	Annotations   map[string]string
	Unschedulable bool
	// Changed is the latest change the Node records outside its heartbeats:
	// its creation, the latest managedFields entry of the main resource, the
	// latest transition of any condition (kept or not).
	Changed time.Time
	// Conditions are the Ready, DiskPressure and NetworkUnavailable
	// conditions, in the Node's order.
	Conditions []NodeCondition
	// Machine is the node's update state as an adapter that reads no
	// machine-config daemon states it; nil for a Node, whose annotations
	// tell it (docs/insights.md#the-cluster-model).
	Machine *MachineState
}

// MachineState is a node's update state read from the object that carries
// the node (a hosted cluster's Cluster API Machine) rather than from the
// machine-config daemon's annotations. The node rules take the phase, the
// version and the failure from it; availability still comes from the
// Node's Conditions and Unschedulable.
type MachineState struct {
	// Resource is the object the node's insights reference.
	Resource v1alpha1.ResourceRef
	// Phase is the node's update phase.
	Phase NodePhase
	// Version is the release version the node runs, "" when unknown.
	Version string
	// Message is the message of the node's Updating condition; "" is the
	// phase's default.
	Message string
	// Failed, when not empty, says that the node's update failed, and why.
	Failed string
}

// NodeCondition is what the engine reads of a node condition.
type NodeCondition struct {
	Type               corev1.NodeConditionType
	Status             corev1.ConditionStatus
	Message            string
	LastTransitionTime time.Time
}

// NodeLabels are a Node's labels sorted by key. As a slice they cost a cached
// Node 200 bytes less than as a map (docs/insights.md#inputs), and label
// selectors read them as any labels.Labels. Build them with NodeLabelsOf.
type NodeLabels []NodeLabel

// NodeLabel is one label of a Node.
type NodeLabel struct {
	Key, Value string
}

// NodeLabelsOf returns the labels of m sorted by key, with every string
// passed through intern (nil keeps them as they are); nil when m is empty.
func NodeLabelsOf(m map[string]string, intern func(string) string) NodeLabels {
	if len(m) == 0 {
		return nil
	}
	if intern == nil {
		intern = func(s string) string { return s }
	}
	out := make(NodeLabels, 0, len(m))
	for k, v := range m {
		out = append(out, NodeLabel{Key: intern(k), Value: intern(v)})
	}
	slices.SortFunc(out, func(a, b NodeLabel) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Lookup returns the value of the label key and whether the Node has it.
func (l NodeLabels) Lookup(key string) (string, bool) {
	i, ok := slices.BinarySearchFunc(l, key, func(e NodeLabel, k string) int { return strings.Compare(e.Key, k) })
	if !ok {
		return "", false
	}
	return l[i].Value, true
}

// Has reports whether the Node has the label key.
func (l NodeLabels) Has(key string) bool {
	_, ok := l.Lookup(key)
	return ok
}

// Get returns the value of the label key, "" when the Node has none.
func (l NodeLabels) Get(key string) string {
	v, _ := l.Lookup(key)
	return v
}

// readCondition reports whether the engine reads conditions of type t.
func readCondition(t corev1.NodeConditionType) bool {
	return t == corev1.NodeReady || t == corev1.NodeDiskPressure || t == corev1.NodeNetworkUnavailable
}

// NodeOf returns what the engine reads of n, with every string it keeps
// passed through intern (nil keeps them as they are), so that a cache can
// share the strings many Nodes repeat. Maps and slices are fresh and of
// exactly their size; n is not changed and nothing of it but strings is
// kept. NodeOf(nil, ...) is nil.
func NodeOf(n *corev1.Node, intern func(string) string) *Node {
	if n == nil {
		return nil
	}
	if intern == nil {
		intern = func(s string) string { return s }
	}
	out := &Node{
		Name:            n.Name,
		UID:             n.UID,
		ResourceVersion: n.ResourceVersion,
		Unschedulable:   n.Spec.Unschedulable,
		Changed:         metaChangeTime(&n.ObjectMeta),
	}
	if rv, err := strconv.ParseUint(n.ResourceVersion, 10, 64); err == nil {
		out.rv, out.rvText = rv, n.ResourceVersion
	}
	out.Labels = NodeLabelsOf(n.Labels, intern)
	kept := 0
	for _, k := range NodeAnnotations {
		if _, ok := n.Annotations[k]; ok {
			kept++
		}
	}
	if kept > 0 {
		out.Annotations = make(map[string]string, kept)
		for _, k := range NodeAnnotations {
			if v, ok := n.Annotations[k]; ok {
				out.Annotations[k] = intern(v)
			}
		}
	}
	read := 0
	for i := range n.Status.Conditions {
		c := &n.Status.Conditions[i]
		if c.LastTransitionTime.After(out.Changed) {
			out.Changed = c.LastTransitionTime.Time
		}
		if readCondition(c.Type) {
			read++
		}
	}
	if read > 0 {
		out.Conditions = make([]NodeCondition, 0, read)
		for i := range n.Status.Conditions {
			if c := &n.Status.Conditions[i]; readCondition(c.Type) {
				out.Conditions = append(out.Conditions, NodeCondition{
					Type:               corev1.NodeConditionType(intern(string(c.Type))),
					Status:             corev1.ConditionStatus(intern(string(c.Status))),
					Message:            intern(c.Message),
					LastTransitionTime: c.LastTransitionTime.Time,
				})
			}
		}
	}
	return out
}

// GetObjectMeta returns the Node's name, UID and resourceVersion as object
// metadata, which is what client-go's caches key and track objects by (an
// informer whose transform returns a Node stores it as any other object).
func (n *Node) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Name: n.Name, UID: n.UID, ResourceVersion: n.ResourceVersion}
}

// ResourceVersionNumber returns the Node's resourceVersion as the number
// etcd gave it, and false when it is not one.
func (n *Node) ResourceVersionNumber() (uint64, bool) {
	if n.rvText == n.ResourceVersion && n.rvText != "" {
		return n.rv, true
	}
	rv, err := strconv.ParseUint(n.ResourceVersion, 10, 64)
	return rv, err == nil
}

// DeepCopy returns a copy of n that shares nothing with it.
func (n *Node) DeepCopy() *Node {
	if n == nil {
		return nil
	}
	out := *n
	out.Labels, out.Annotations = slices.Clone(n.Labels), maps.Clone(n.Annotations)
	out.Conditions = append([]NodeCondition(nil), n.Conditions...)
	if n.Machine != nil {
		m := *n.Machine
		out.Machine = &m
	}
	return &out
}
