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

package update

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateStatus reports the progress and health of an OpenShift cluster update.
// It is a cluster-scoped singleton named "cluster", computed by the
// update-status apiserver from the ClusterVersion, ClusterOperators,
// MachineConfigPools, MachineConfigs and Nodes; it is never stored.
type UpdateStatus struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata; the name is always "cluster".
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty: UpdateStatus has no knobs yet.
	// +optional
	Spec UpdateStatusSpec `json:"spec"`

	// status holds the three layers of update information: insights reported by
	// informers, their aggregation for the control plane and each worker pool,
	// and conditions about the health of the producer itself.
	// +optional
	Status UpdateStatusStatus `json:"status"`
}

// UpdateStatusSpec is empty. It is a placeholder for future knobs that would
// shape what the status reports.
type UpdateStatusSpec struct {
}

// UpdateStatusStatus is the status of an UpdateStatus.
type UpdateStatusStatus struct {
	// conditions say whether the producer of this object works and whether its
	// content can be trusted. They say nothing about the update itself.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// controlPlane summarises the update of the control plane and carries the
	// insights about it.
	// +optional
	ControlPlane *ControlPlane `json:"controlPlane,omitempty"`

	// workerPools summarise the update of each worker node pool and carry the
	// insights about it.
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +optional
	WorkerPools []Pool `json:"workerPools,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// ControlPlane is the aggregated view of the control-plane update.
type ControlPlane struct {
	// conditions are the producer's verdict on the control plane as a whole.
	// The known type is Updating.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// resource is the object that stands for the control plane: the
	// ClusterVersion (or a HostedCluster). It is absent while unknown.
	// +optional
	Resource *ResourceRef `json:"resource,omitempty"`

	// poolResource is the node pool that hosts the control-plane nodes (the
	// master MachineConfigPool). It is absent where no such pool exists.
	// +optional
	PoolResource *PoolResourceRef `json:"poolResource,omitempty"`

	// informers are the insight producers and what each reported about the
	// control plane.
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +optional
	Informers []ControlPlaneInformer `json:"informers,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// ControlPlaneConditionType is a condition type of the control-plane summary.
type ControlPlaneConditionType string

// ControlPlaneUpdatingReason is a reason of the control-plane Updating condition.
type ControlPlaneUpdatingReason string

// Pool is the aggregated view of the update of one worker pool.
type Pool struct {
	// conditions are the producer's verdict on this pool as a whole. The known
	// type is Updating.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// name is the name of the pool; it equals resource.name.
	// +required
	Name string `json:"name"`

	// resource is the object that stands for the pool: a MachineConfigPool (or a
	// NodePool).
	// +required
	Resource PoolResourceRef `json:"resource"`

	// informers are the insight producers and what each reported about this pool.
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +optional
	Informers []WorkerPoolInformer `json:"informers,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
}

// ControlPlaneInformer is an insight producer and what it reported about the
// control plane.
type ControlPlaneInformer struct {
	// name identifies the producer.
	// +required
	Name string `json:"name"`

	// insights are everything this producer currently asserts about the control
	// plane.
	// +listType=map
	// +listMapKey=uid
	// +patchStrategy=merge
	// +patchMergeKey=uid
	// +optional
	Insights []ControlPlaneInsight `json:"insights,omitempty" patchStrategy:"merge" patchMergeKey:"uid"`
}

// WorkerPoolInformer is an insight producer and what it reported about a worker
// pool.
type WorkerPoolInformer struct {
	// name identifies the producer.
	// +required
	Name string `json:"name"`

	// insights are everything this producer currently asserts about the pool.
	// +listType=map
	// +listMapKey=uid
	// +patchStrategy=merge
	// +patchMergeKey=uid
	// +optional
	Insights []WorkerPoolInsight `json:"insights,omitempty" patchStrategy:"merge" patchMergeKey:"uid"`
}

// ControlPlaneInsight is one insight about the control plane.
type ControlPlaneInsight struct {
	// uid identifies the insight over time; it stays the same while the insight
	// describes the same subject or problem.
	// +required
	UID string `json:"uid"`

	// acquiredAt is when the data the insight is built from was obtained.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt"`

	// insight is the payload, a union discriminated by type.
	// +required
	Insight ControlPlaneInsightUnion `json:"insight"`
}

// WorkerPoolInsight is one insight about a worker pool.
type WorkerPoolInsight struct {
	// uid identifies the insight over time; it stays the same while the insight
	// describes the same subject or problem.
	// +required
	UID string `json:"uid"`

	// acquiredAt is when the data the insight is built from was obtained.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt"`

	// insight is the payload, a union discriminated by type.
	// +required
	Insight WorkerPoolInsightUnion `json:"insight"`
}

// ControlPlaneInsightUnion is an insight about the control plane: exactly the
// member named by type is set.
// +union
type ControlPlaneInsightUnion struct {
	// type names the member that is set: ClusterVersion, ClusterOperator,
	// MachineConfigPool, Node or Health.
	// +unionDiscriminator
	// +required
	Type InsightType `json:"type"`

	// clusterVersion is the progress of the control plane as seen through the
	// ClusterVersion. It is set iff type is ClusterVersion.
	// +optional
	ClusterVersionStatusInsight *ClusterVersionStatusInsight `json:"clusterVersion,omitempty"`

	// clusterOperator is the progress and health of one ClusterOperator. It is
	// set iff type is ClusterOperator.
	// +optional
	ClusterOperatorStatusInsight *ClusterOperatorStatusInsight `json:"clusterOperator,omitempty"`

	// machineConfigPool is the progress of one node pool. It is set iff type is
	// MachineConfigPool.
	// +optional
	MachineConfigPoolStatusInsight *MachineConfigPoolStatusInsight `json:"machineConfigPool,omitempty"`

	// node is the progress of one Node. It is set iff type is Node.
	// +optional
	NodeStatusInsight *NodeStatusInsight `json:"node,omitempty"`

	// health is an actionable problem related to the update. It is set iff type
	// is Health.
	// +optional
	HealthInsight *HealthStatusInsight `json:"health,omitempty"`
}

// WorkerPoolInsightUnion is an insight about a worker pool: exactly the member
// named by type is set.
// +union
type WorkerPoolInsightUnion struct {
	// type names the member that is set: MachineConfigPool, Node or Health.
	// +unionDiscriminator
	// +required
	Type InsightType `json:"type"`

	// machineConfigPool is the progress of one node pool. It is set iff type is
	// MachineConfigPool.
	// +optional
	MachineConfigPoolStatusInsight *MachineConfigPoolStatusInsight `json:"machineConfigPool,omitempty"`

	// node is the progress of one Node. It is set iff type is Node.
	// +optional
	NodeStatusInsight *NodeStatusInsight `json:"node,omitempty"`

	// health is an actionable problem related to the update. It is set iff type
	// is Health.
	// +optional
	HealthInsight *HealthStatusInsight `json:"health,omitempty"`
}

// InsightType is the discriminator of the insight unions.
type InsightType string

// ResourceRef references an object of any kind.
type ResourceRef struct {
	// group is the API group; it is omitted for the core group.
	// +optional
	Group string `json:"group,omitempty"`

	// resource is the lower-case plural resource name, e.g. clusterversions.
	// +required
	Resource string `json:"resource"`

	// name is the name of the object.
	// +required
	Name string `json:"name"`

	// namespace is the namespace of a namespaced object; it is omitted otherwise.
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// PoolResourceRef references a node pool: a MachineConfigPool (or a NodePool).
type PoolResourceRef struct {
	ResourceRef `json:",inline"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateStatusList is a list of UpdateStatus objects. The server lists exactly
// one, named "cluster".
type UpdateStatusList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata"`

	// items are the UpdateStatus objects.
	Items []UpdateStatus `json:"items"`
}
