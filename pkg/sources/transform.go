package sources

import (
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The transforms below drop, before an object enters a cache, every field the
// insight engine never reads (docs/insight-rules.md §1 lists what it reads;
// the engine also takes the latest managedFields time of the main resource of
// ClusterVersions, ClusterOperators, MachineConfigPools and Nodes as a change
// time), to keep the memory of large clusters low. They mutate in place, which
// client-go allows, are idempotent, and pass through anything that is not of
// their type (for example a deletion tombstone).

// ReleaseImageVersionAnnotation is the only MachineConfig annotation the
// engine reads.
const ReleaseImageVersionAnnotation = "machineconfiguration.openshift.io/release-image-version"

// machineConfigPrefix is the prefix of the MCO's node annotations.
const machineConfigPrefix = "machineconfiguration.openshift.io/"

// lastAppliedAnnotation is kubectl's copy of the last applied object.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// compactManagedFields replaces the managedFields of m by what the engine
// reads from them: the latest time of an entry of the main resource (not of
// a subresource), as the one entry left. The field sets, the bulk of
// managedFields, go.
func compactManagedFields(m *metav1.ObjectMeta) {
	var latest *metav1.Time
	for i := range m.ManagedFields {
		f := &m.ManagedFields[i]
		if f.Subresource == "" && f.Time != nil && (latest == nil || f.Time.After(latest.Time)) {
			latest = f.Time
		}
	}
	if latest == nil {
		m.ManagedFields = nil
		return
	}
	m.ManagedFields = []metav1.ManagedFieldsEntry{{Time: latest}}
}

// transformClusterVersion keeps metadata, status.desired, status.history and
// status.conditions.
func transformClusterVersion(obj interface{}) (interface{}, error) {
	cv, ok := obj.(*configv1.ClusterVersion)
	if !ok {
		return obj, nil
	}
	compactManagedFields(&cv.ObjectMeta)
	delete(cv.Annotations, lastAppliedAnnotation)
	cv.Spec = configv1.ClusterVersionSpec{}
	cv.Status.AvailableUpdates = nil
	cv.Status.ConditionalUpdates = nil
	cv.Status.Capabilities = configv1.ClusterVersionCapabilitiesStatus{}
	return cv, nil
}

// transformClusterOperator keeps metadata (the annotation keys decide which
// operators are platform operators), status.versions and status.conditions.
func transformClusterOperator(obj interface{}) (interface{}, error) {
	co, ok := obj.(*configv1.ClusterOperator)
	if !ok {
		return obj, nil
	}
	compactManagedFields(&co.ObjectMeta)
	delete(co.Annotations, lastAppliedAnnotation)
	co.Spec = configv1.ClusterOperatorSpec{}
	co.Status.RelatedObjects = nil
	co.Status.Extension.Raw = nil
	co.Status.Extension.Object = nil
	return co, nil
}

// transformMachineConfigPool keeps metadata, the node selector, paused, the
// target rendered config name and the status conditions.
func transformMachineConfigPool(obj interface{}) (interface{}, error) {
	mcp, ok := obj.(*mcfgv1.MachineConfigPool)
	if !ok {
		return obj, nil
	}
	compactManagedFields(&mcp.ObjectMeta)
	delete(mcp.Annotations, lastAppliedAnnotation)
	mcp.Spec.Configuration.Source = nil
	mcp.Spec.MachineConfigSelector = nil
	mcp.Spec.PinnedImageSets = nil
	mcp.Status.Configuration.Source = nil
	mcp.Status.PoolSynchronizersStatus = nil
	mcp.Status.CertExpirys = nil
	return mcp, nil
}

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
	if v, ok := mc.Annotations[ReleaseImageVersionAnnotation]; ok {
		out.Annotations = map[string]string{ReleaseImageVersionAnnotation: v}
	}
	return out, nil
}

// transformNode keeps metadata with only the MCO annotations, spec.unschedulable
// and status.conditions; images, volumes, addresses, capacity, daemon
// endpoints and node info go.
func transformNode(obj interface{}) (interface{}, error) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	compactManagedFields(&node.ObjectMeta)
	for k := range node.Annotations {
		if !strings.HasPrefix(k, machineConfigPrefix) {
			delete(node.Annotations, k)
		}
	}
	node.Spec = corev1.NodeSpec{Unschedulable: node.Spec.Unschedulable}
	node.Status = corev1.NodeStatus{Conditions: node.Status.Conditions}
	return node, nil
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
