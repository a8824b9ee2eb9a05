package insights

import (
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
	// Labels are all the Node's labels.
	Labels map[string]string
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
}

// NodeCondition is what the engine reads of a node condition.
type NodeCondition struct {
	Type               corev1.NodeConditionType
	Status             corev1.ConditionStatus
	Message            string
	LastTransitionTime time.Time
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
	if len(n.Labels) > 0 {
		out.Labels = make(map[string]string, len(n.Labels))
		for k, v := range n.Labels {
			out.Labels[intern(k)] = intern(v)
		}
	}
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

// DeepCopy returns a copy of n that shares nothing with it.
func (n *Node) DeepCopy() *Node {
	if n == nil {
		return nil
	}
	out := *n
	out.Labels, out.Annotations = maps.Clone(n.Labels), maps.Clone(n.Annotations)
	out.Conditions = append([]NodeCondition(nil), n.Conditions...)
	return &out
}
