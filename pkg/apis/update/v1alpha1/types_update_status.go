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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateStatus reports the progress and health of an OpenShift cluster update.
// It is a cluster-scoped singleton named "cluster", computed by the
// update-status apiserver from the ClusterVersion, ClusterOperators,
// MachineConfigPools, MachineConfigs and Nodes; it is never stored.
type UpdateStatus struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata; the name is always "cluster".
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is empty: UpdateStatus has no knobs yet.
	// +optional
	Spec UpdateStatusSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// status holds the three layers of update information: insights reported by
	// informers, their aggregation for the control plane and each worker pool,
	// and conditions about the health of the producer itself.
	// +optional
	Status UpdateStatusStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
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
	// +k8s:validation:maxItems=10
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`

	// controlPlane summarises the update of the control plane and carries the
	// insights about it.
	// +optional
	ControlPlane *ControlPlane `json:"controlPlane,omitempty" protobuf:"bytes,2,opt,name=controlPlane"`

	// workerPools summarise the update of each worker node pool and carry the
	// insights about it.
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:maxItems=32
	// +kubebuilder:validation:MaxItems=32
	// +optional
	WorkerPools []Pool `json:"workerPools,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,3,rep,name=workerPools"`
}

// ControlPlane is the aggregated view of the control-plane update.
type ControlPlane struct {
	// conditions are the producer's verdict on the control plane as a whole.
	// The known type is Updating.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +k8s:validation:maxItems=10
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`

	// resource is the object that stands for the control plane: the
	// ClusterVersion (or a HostedCluster). It is absent while unknown.
	// +optional
	Resource *ResourceRef `json:"resource,omitempty" protobuf:"bytes,2,opt,name=resource"`

	// poolResource is the node pool that hosts the control-plane nodes (the
	// master MachineConfigPool). It is absent where no such pool exists.
	// +optional
	PoolResource *PoolResourceRef `json:"poolResource,omitempty" protobuf:"bytes,3,opt,name=poolResource"`

	// informers are the insight producers and what each reported about the
	// control plane.
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:maxItems=16
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Informers []ControlPlaneInformer `json:"informers,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,4,rep,name=informers"`
}

// ControlPlaneConditionType is a condition type of the control-plane summary.
// +enum
// +k8s:enum
type ControlPlaneConditionType string

const (
	// ControlPlaneUpdating says whether the control plane is updating.
	ControlPlaneUpdating ControlPlaneConditionType = "Updating"
)

// ControlPlaneUpdatingReason is a reason of the control-plane Updating condition.
// +enum
// +k8s:enum
type ControlPlaneUpdatingReason string

const (
	// ControlPlaneClusterVersionProgressing means the ClusterVersion has Progressing=True.
	ControlPlaneClusterVersionProgressing ControlPlaneUpdatingReason = "ClusterVersionProgressing"
	// ControlPlaneClusterVersionNotProgressing means the ClusterVersion has Progressing=False.
	ControlPlaneClusterVersionNotProgressing ControlPlaneUpdatingReason = "ClusterVersionNotProgressing"
	// ControlPlaneCannotDetermineUpdating means the state cannot be established.
	ControlPlaneCannotDetermineUpdating ControlPlaneUpdatingReason = "CannotDetermineUpdating"
)

// Pool is the aggregated view of the update of one worker pool.
type Pool struct {
	// conditions are the producer's verdict on this pool as a whole. The known
	// type is Updating.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +k8s:validation:maxItems=10
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`

	// name is the name of the pool; it equals resource.name.
	// +k8s:validation:maxLength=253
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`

	// resource is the object that stands for the pool: a MachineConfigPool (or a
	// NodePool).
	// +required
	Resource PoolResourceRef `json:"resource" protobuf:"bytes,3,opt,name=resource"`

	// informers are the insight producers and what each reported about this pool.
	// +listType=map
	// +listMapKey=name
	// +patchStrategy=merge
	// +patchMergeKey=name
	// +k8s:validation:maxItems=16
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Informers []WorkerPoolInformer `json:"informers,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,4,rep,name=informers"`
}

// ControlPlaneInformer is an insight producer and what it reported about the
// control plane.
type ControlPlaneInformer struct {
	// name identifies the producer.
	// +k8s:validation:maxLength=253
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// insights are everything this producer currently asserts about the control
	// plane.
	// +listType=map
	// +listMapKey=uid
	// +patchStrategy=merge
	// +patchMergeKey=uid
	// +k8s:validation:maxItems=128
	// +kubebuilder:validation:MaxItems=128
	// +optional
	Insights []ControlPlaneInsight `json:"insights,omitempty" patchStrategy:"merge" patchMergeKey:"uid" protobuf:"bytes,2,rep,name=insights"`
}

// WorkerPoolInformer is an insight producer and what it reported about a worker
// pool.
type WorkerPoolInformer struct {
	// name identifies the producer.
	// +k8s:validation:maxLength=253
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// insights are everything this producer currently asserts about the pool.
	// +listType=map
	// +listMapKey=uid
	// +patchStrategy=merge
	// +patchMergeKey=uid
	// +k8s:validation:maxItems=1024
	// +kubebuilder:validation:MaxItems=1024
	// +optional
	Insights []WorkerPoolInsight `json:"insights,omitempty" patchStrategy:"merge" patchMergeKey:"uid" protobuf:"bytes,2,rep,name=insights"`
}

// ControlPlaneInsight is one insight about the control plane.
type ControlPlaneInsight struct {
	// uid identifies the insight over time; it stays the same while the insight
	// describes the same subject or problem.
	// +k8s:validation:minLength=1
	// +kubebuilder:validation:MinLength=1
	// +k8s:validation:maxLength=63
	// +kubebuilder:validation:MaxLength=63
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	// +required
	UID string `json:"uid" protobuf:"bytes,1,opt,name=uid"`

	// acquiredAt is when the data the insight is built from was obtained.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt" protobuf:"bytes,2,opt,name=acquiredAt"`

	// insight is the payload, a union discriminated by type.
	// +required
	Insight ControlPlaneInsightUnion `json:"insight" protobuf:"bytes,3,opt,name=insight"`
}

// WorkerPoolInsight is one insight about a worker pool.
type WorkerPoolInsight struct {
	// uid identifies the insight over time; it stays the same while the insight
	// describes the same subject or problem.
	// +k8s:validation:minLength=1
	// +kubebuilder:validation:MinLength=1
	// +k8s:validation:maxLength=63
	// +kubebuilder:validation:MaxLength=63
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	// +required
	UID string `json:"uid" protobuf:"bytes,1,opt,name=uid"`

	// acquiredAt is when the data the insight is built from was obtained.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt" protobuf:"bytes,2,opt,name=acquiredAt"`

	// insight is the payload, a union discriminated by type.
	// +required
	Insight WorkerPoolInsightUnion `json:"insight" protobuf:"bytes,3,opt,name=insight"`
}

// ControlPlaneInsightUnion is an insight about the control plane: exactly the
// member named by type is set.
// +union
// +kubebuilder:validation:XValidation:rule="has(self.clusterVersion) == (self.type == 'ClusterVersion')",message="clusterVersion must be set if and only if type is ClusterVersion"
// +kubebuilder:validation:XValidation:rule="has(self.clusterOperator) == (self.type == 'ClusterOperator')",message="clusterOperator must be set if and only if type is ClusterOperator"
// +kubebuilder:validation:XValidation:rule="has(self.machineConfigPool) == (self.type == 'MachineConfigPool')",message="machineConfigPool must be set if and only if type is MachineConfigPool"
// +kubebuilder:validation:XValidation:rule="has(self.node) == (self.type == 'Node')",message="node must be set if and only if type is Node"
// +kubebuilder:validation:XValidation:rule="has(self.health) == (self.type == 'Health')",message="health must be set if and only if type is Health"
type ControlPlaneInsightUnion struct {
	// type names the member that is set: ClusterVersion, ClusterOperator,
	// MachineConfigPool, Node or Health.
	// +unionDiscriminator
	// +required
	Type InsightType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=InsightType"`

	// clusterVersion is the progress of the control plane as seen through the
	// ClusterVersion. It is set iff type is ClusterVersion.
	// +optional
	ClusterVersionStatusInsight *ClusterVersionStatusInsight `json:"clusterVersion,omitempty" protobuf:"bytes,2,opt,name=clusterVersion"`

	// clusterOperator is the progress and health of one ClusterOperator. It is
	// set iff type is ClusterOperator.
	// +optional
	ClusterOperatorStatusInsight *ClusterOperatorStatusInsight `json:"clusterOperator,omitempty" protobuf:"bytes,3,opt,name=clusterOperator"`

	// machineConfigPool is the progress of one node pool. It is set iff type is
	// MachineConfigPool.
	// +optional
	MachineConfigPoolStatusInsight *MachineConfigPoolStatusInsight `json:"machineConfigPool,omitempty" protobuf:"bytes,4,opt,name=machineConfigPool"`

	// node is the progress of one Node. It is set iff type is Node.
	// +optional
	NodeStatusInsight *NodeStatusInsight `json:"node,omitempty" protobuf:"bytes,5,opt,name=node"`

	// health is an actionable problem related to the update. It is set iff type
	// is Health.
	// +optional
	HealthInsight *HealthStatusInsight `json:"health,omitempty" protobuf:"bytes,6,opt,name=health"`
}

// WorkerPoolInsightUnion is an insight about a worker pool: exactly the member
// named by type is set.
// +union
// +kubebuilder:validation:XValidation:rule="self.type in ['MachineConfigPool', 'Node', 'Health']",message="type must be one of MachineConfigPool, Node, Health"
// +kubebuilder:validation:XValidation:rule="has(self.machineConfigPool) == (self.type == 'MachineConfigPool')",message="machineConfigPool must be set if and only if type is MachineConfigPool"
// +kubebuilder:validation:XValidation:rule="has(self.node) == (self.type == 'Node')",message="node must be set if and only if type is Node"
// +kubebuilder:validation:XValidation:rule="has(self.health) == (self.type == 'Health')",message="health must be set if and only if type is Health"
type WorkerPoolInsightUnion struct {
	// type names the member that is set: MachineConfigPool, Node or Health.
	// +unionDiscriminator
	// +required
	Type InsightType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=InsightType"`

	// machineConfigPool is the progress of one node pool. It is set iff type is
	// MachineConfigPool.
	// +optional
	MachineConfigPoolStatusInsight *MachineConfigPoolStatusInsight `json:"machineConfigPool,omitempty" protobuf:"bytes,2,opt,name=machineConfigPool"`

	// node is the progress of one Node. It is set iff type is Node.
	// +optional
	NodeStatusInsight *NodeStatusInsight `json:"node,omitempty" protobuf:"bytes,3,opt,name=node"`

	// health is an actionable problem related to the update. It is set iff type
	// is Health.
	// +optional
	HealthInsight *HealthStatusInsight `json:"health,omitempty" protobuf:"bytes,4,opt,name=health"`
}

// InsightType is the discriminator of the insight unions.
// +enum
// +k8s:enum
type InsightType string

const (
	// ClusterVersionStatusInsightType is a ClusterVersion status insight.
	ClusterVersionStatusInsightType InsightType = "ClusterVersion"
	// ClusterOperatorStatusInsightType is a ClusterOperator status insight.
	ClusterOperatorStatusInsightType InsightType = "ClusterOperator"
	// MachineConfigPoolStatusInsightType is a MachineConfigPool status insight.
	MachineConfigPoolStatusInsightType InsightType = "MachineConfigPool"
	// NodeStatusInsightType is a Node status insight.
	NodeStatusInsightType InsightType = "Node"
	// HealthInsightType is a health insight.
	HealthInsightType InsightType = "Health"
)

// ResourceRef references an object of any kind.
type ResourceRef struct {
	// group is the API group; it is omitted for the core group.
	// +k8s:validation:maxLength=253
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Group string `json:"group,omitempty" protobuf:"bytes,1,opt,name=group"`

	// resource is the lower-case plural resource name, e.g. clusterversions.
	// +k8s:validation:maxLength=253
	// +kubebuilder:validation:MaxLength=253
	// +required
	Resource string `json:"resource" protobuf:"bytes,2,opt,name=resource"`

	// name is the name of the object.
	// +k8s:validation:maxLength=253
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`

	// namespace is the namespace of a namespaced object; it is omitted otherwise.
	// +k8s:validation:maxLength=253
	// +kubebuilder:validation:MaxLength=253
	// +k8s:validation:pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// PoolResourceRef references a node pool: a MachineConfigPool (or a NodePool).
type PoolResourceRef struct {
	ResourceRef `json:",inline" protobuf:"bytes,1,opt,name=resourceRef"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateStatusList is a list of UpdateStatus objects. The server lists exactly
// one, named "cluster".
type UpdateStatusList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`

	// items are the UpdateStatus objects.
	// +k8s:validation:maxItems=1024
	// +kubebuilder:validation:MaxItems=1024
	Items []UpdateStatus `json:"items" protobuf:"bytes,2,rep,name=items"`
}
