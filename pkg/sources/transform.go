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
	"strconv"
	"sync"
	"unique"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/update-status/apiserver/pkg/insights"
)

// The transforms below drop, before an object enters a cache, every field the
// insight engine never reads (docs/insights.md#inputs lists what it reads;
// the engine also takes the latest managedFields time of the main resource of
// ClusterVersions, ClusterOperators, MachineConfigPools and Nodes as a change
// time), to keep the memory of large clusters low. Most mutate in place,
// which client-go allows; those of the many objects (Nodes, MachineConfigs)
// build a fresh, compact object instead. All are idempotent, and pass
// through anything that is not of their type (for example a deletion
// tombstone).

// lastAppliedAnnotation is kubectl's copy of the last applied object.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// trimMeta keeps of m what the engine reads: its managedFields shrink to
// what compactedManagedFields keeps, and kubectl's last applied copy goes.
func trimMeta(m metav1.Object) {
	m.SetManagedFields(compactedManagedFields(m.GetManagedFields()))
	delete(m.GetAnnotations(), lastAppliedAnnotation)
}

// trimInPlace returns the transform of the objects of type T that keep all
// but some fields: trimMeta and then trim change such an object in place.
// Anything else passes through.
func trimInPlace[T metav1.Object](trim func(T)) cache.TransformFunc {
	return func(obj interface{}) (interface{}, error) {
		o, ok := obj.(T)
		if !ok {
			return obj, nil
		}
		trimMeta(o)
		trim(o)
		return o, nil
	}
}

// compactedManagedFields returns what the engine reads from managed fields:
// the latest time of an entry of the main resource (not of a subresource),
// as the one entry left, or nil when no such entry has a time. The field
// sets, the bulk of managedFields, go. The time is shared with fields.
func compactedManagedFields(fields []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	var latest *metav1.Time
	for i := range fields {
		f := &fields[i]
		if f.Subresource == "" && f.Time != nil && (latest == nil || f.Time.After(latest.Time)) {
			latest = f.Time
		}
	}
	if latest == nil {
		return nil
	}
	return []metav1.ManagedFieldsEntry{{Time: latest}}
}

// transformClusterVersion keeps metadata, spec.channel, spec.upstream,
// status.desired, status.history, status.conditions and the available and
// conditional updates (the readiness kinds read them).
var transformClusterVersion = trimInPlace(func(cv *configv1.ClusterVersion) {
	cv.Spec = configv1.ClusterVersionSpec{Channel: cv.Spec.Channel, Upstream: cv.Spec.Upstream}
	cv.Status.Capabilities = configv1.ClusterVersionCapabilitiesStatus{}
})

// transformClusterOperator keeps metadata (the annotation keys decide which
// operators are platform operators), status.versions and status.conditions.
var transformClusterOperator = trimInPlace(func(co *configv1.ClusterOperator) {
	co.Spec = configv1.ClusterOperatorSpec{}
	co.Status.RelatedObjects = nil
	co.Status.Extension.Raw = nil
	co.Status.Extension.Object = nil
})

// transformMachineConfigPool keeps metadata, the node selector, paused, the
// target rendered config name and the status conditions.
var transformMachineConfigPool = trimInPlace(func(mcp *mcfgv1.MachineConfigPool) {
	mcp.Spec.Configuration.Source = nil
	mcp.Spec.MachineConfigSelector = nil
	mcp.Spec.PinnedImageSets = nil
	mcp.Status.Configuration.Source = nil
	mcp.Status.PoolSynchronizersStatus = nil
	mcp.Status.CertExpirys = nil
})

// transformMachineConfig keeps only name, uid, resourceVersion and the
// release-image-version annotation: the engine maps rendered config names to
// the version that rendered them, nothing else.
func transformMachineConfig(obj interface{}) (interface{}, error) {
	mc, ok := obj.(*mcfgv1.MachineConfig)
	if !ok {
		return obj, nil
	}
	out := &mcfgv1.MachineConfig{TypeMeta: mc.TypeMeta}
	out.Name = mc.Name
	out.UID = mc.UID
	out.ResourceVersion = mc.ResourceVersion
	if v, ok := mc.Annotations[insights.ReleaseImageVersionAnnotation]; ok {
		out.Annotations = map[string]string{insights.ReleaseImageVersionAnnotation: v}
	}
	return out, nil
}

// intern returns s backed by the one copy of its value that the unique
// package holds while it is in use: label keys and values, annotation keys
// and values and condition texts repeat across thousands of Nodes, and a
// decoded object holds a copy of each of them. The canonical copy is dropped
// by a garbage collection once no handle refers to it; strings already
// interned keep their (shared) bytes, and later ones get a new shared copy,
// so sharing holds within a collection cycle, which spans many decoded
// objects. Nothing is retained beyond the strings in use.
func intern(s string) string {
	if s == "" {
		return ""
	}
	return unique.Make(s).Value()
}

// maxAnnotationSets bounds annotationSets.sets; maxAnnotationSetKey bounds
// the size of a set that is shared.
const (
	maxAnnotationSets   = 256
	maxAnnotationSetKey = 4096
)

// annotationSets shares the annotations (or labels) kept of cached objects
// among the objects with the same ones: the kept node annotations are the
// machine-config daemon's state, which all the nodes of a pool usually share
// (config names, drain requests, "Done"); a hosted cluster's Machines keep
// their MachineSet and NodePool, which 25 of them or more share. Most
// objects can then point to one map with the same content instead of
// holding their own. Cached objects are read-only (client-go's rule), so a
// shared map is never changed. The cache forgets everything when it fills
// up: a set no longer used then goes with the last object that holds it.
type annotationSets struct {
	// keys are the keys kept, in a fixed order.
	keys []string

	mu   sync.Mutex
	buf  []byte
	sets map[string]map[string]string
}

var (
	nodeAnnotationSets    = &annotationSets{keys: insights.NodeAnnotations}
	machineLabelSets      = &annotationSets{keys: machineLabelsRead}
	machineAnnotationSets = &annotationSets{keys: machineAnnotationsRead}
)

// share returns a map equal to kept, whose keys are among c.keys, shared
// with the other objects that have the same entries when possible: kept
// itself the first time, the map seen first later. It is nil when kept is
// empty.
func (c *annotationSets) share(kept map[string]string) map[string]string {
	if len(kept) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// The key lists, in c.keys order, each kept entry's index and its
	// value, length-prefixed: two different sets never share a key.
	c.buf = c.buf[:0]
	for i, k := range c.keys {
		if v, ok := kept[k]; ok {
			c.buf = strconv.AppendInt(c.buf, int64(i), 10)
			c.buf = append(c.buf, ':')
			c.buf = strconv.AppendInt(c.buf, int64(len(v)), 10)
			c.buf = append(c.buf, ':')
			c.buf = append(c.buf, v...)
		}
	}
	if m, ok := c.sets[string(c.buf)]; ok {
		return m
	}
	if len(c.buf) <= maxAnnotationSetKey {
		if c.sets == nil || len(c.sets) >= maxAnnotationSets {
			c.sets = make(map[string]map[string]string)
		}
		c.sets[string(c.buf)] = kept
	}
	return kept
}

// transformNode turns a Node into the engine's insights.Node: what the
// engine reads of it and nothing else (no images, volumes, addresses,
// capacity, node info, heartbeat times, other annotations or conditions).
// Its repeated strings are interned and its insights.NodeAnnotations are a
// map shared by the Nodes that have the same ones, so that what a cache
// keeps per node is a small struct, its labels and its few conditions; the
// decoded Node is garbage at once.
func transformNode(obj interface{}) (interface{}, error) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	out := insights.NodeOf(node, intern)
	out.Annotations = nodeAnnotationSets.share(out.Annotations)
	return out, nil
}

// transformDeployment keeps metadata and the name and image of each
// container of the pod template (the engine reads the MCO image).
func transformDeployment(obj interface{}) (interface{}, error) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return obj, nil
	}
	d.ManagedFields = nil
	d.Annotations = nil
	containers := make([]corev1.Container, 0, len(d.Spec.Template.Spec.Containers))
	for _, c := range d.Spec.Template.Spec.Containers {
		containers = append(containers, corev1.Container{Name: c.Name, Image: c.Image})
	}
	d.Spec = appsv1.DeploymentSpec{}
	d.Spec.Template.Spec.Containers = containers
	d.Status = appsv1.DeploymentStatus{}
	return d, nil
}
