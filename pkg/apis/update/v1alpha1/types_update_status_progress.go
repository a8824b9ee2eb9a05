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

// ClusterVersionStatusInsight reports the progress of the control-plane update
// as seen through the ClusterVersion.
type ClusterVersionStatusInsight struct {
	// conditions give the machine-readable state of the control-plane update.
	// The known type is Updating.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +k8s:validation:maxItems=10
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`

	// resource is the ClusterVersion (normally named version).
	// +required
	Resource ResourceRef `json:"resource" protobuf:"bytes,2,opt,name=resource"`

	// assessment is a one-word summary of the control-plane update.
	// +required
	Assessment ControlPlaneAssessment `json:"assessment" protobuf:"bytes,3,opt,name=assessment,casttype=ControlPlaneAssessment"`

	// versions is the update edge: the version updated from and to.
	// +required
	Versions ControlPlaneUpdateVersions `json:"versions" protobuf:"bytes,4,opt,name=versions"`

	// completion is the percentage of the control-plane update that is done.
	// +k8s:validation:minimum=0
	// +kubebuilder:validation:Minimum=0
	// +k8s:validation:maximum=100
	// +kubebuilder:validation:Maximum=100
	// +required
	Completion int32 `json:"completion" protobuf:"varint,5,opt,name=completion"`

	// startedAt is when the update began.
	// +required
	StartedAt metav1.Time `json:"startedAt" protobuf:"bytes,6,opt,name=startedAt"`

	// completedAt is when the update finished; it is absent while it runs.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty" protobuf:"bytes,7,opt,name=completedAt"`

	// estimatedCompletedAt is when the update is projected to finish, when an
	// estimate exists.
	// +optional
	EstimatedCompletedAt *metav1.Time `json:"estimatedCompletedAt,omitempty" protobuf:"bytes,8,opt,name=estimatedCompletedAt"`

	// estimatedDurationNanoseconds is the update's estimated total duration
	// counted from startedAt, in nanoseconds; it is set together with
	// estimatedCompletedAt, which is startedAt plus this duration at whole
	// seconds. The time remaining at an instant t is this duration minus
	// (t - startedAt); computed from it, a client's estimate agrees with
	// `oc adm upgrade status` at every instant, which the whole seconds of
	// estimatedCompletedAt cannot carry.
	// +optional
	EstimatedDurationNanoseconds *int64 `json:"estimatedDurationNanoseconds,omitempty" protobuf:"varint,9,opt,name=estimatedDurationNanoseconds"`
}

// ControlPlaneAssessment is a one-word summary of the control-plane update.
// +enum
// +k8s:enum
type ControlPlaneAssessment string

const (
	// ControlPlaneAssessmentUnknown means the state or health cannot be established.
	ControlPlaneAssessmentUnknown ControlPlaneAssessment = "Unknown"
	// ControlPlaneAssessmentProgressing means the update runs and nothing wrong or slow is observed.
	ControlPlaneAssessmentProgressing ControlPlaneAssessment = "Progressing"
	// ControlPlaneAssessmentCompleted means the update finished and nothing wrong is observed.
	ControlPlaneAssessmentCompleted ControlPlaneAssessment = "Completed"
	// ControlPlaneAssessmentDegraded means an observed problem affects the update.
	ControlPlaneAssessmentDegraded ControlPlaneAssessment = "Degraded"
)

// ControlPlaneUpdateVersions is the update edge of the control plane.
type ControlPlaneUpdateVersions struct {
	// previous is the version the control plane was at before this update. For
	// a cluster that was only installed it is "<none>" with Installation metadata.
	// +required
	Previous Version `json:"previous" protobuf:"bytes,1,opt,name=previous"`

	// target is the version being updated to (or installed).
	// +required
	Target Version `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// Version is one side of an update edge.
type Version struct {
	// version is a semantic version such as 4.17.5, or the placeholder "<none>".
	// +k8s:validation:maxLength=64
	// +kubebuilder:validation:MaxLength=64
	// +required
	Version string `json:"version" protobuf:"bytes,1,opt,name=version"`

	// metadata are extra facts about this side of the edge.
	// +listType=map
	// +listMapKey=key
	// +k8s:validation:maxItems=5
	// +kubebuilder:validation:MaxItems=5
	// +optional
	Metadata []VersionMetadata `json:"metadata,omitempty" protobuf:"bytes,2,rep,name=metadata"`
}

// VersionMetadata is one fact about a version.
type VersionMetadata struct {
	// key names the fact.
	// +required
	Key VersionMetadataKey `json:"key" protobuf:"bytes,1,opt,name=key,casttype=VersionMetadataKey"`

	// value is empty for flag-like keys; for Architecture it is the payload
	// architecture.
	// +k8s:validation:maxLength=32
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
}

// VersionMetadataKey names a fact about a version.
// +enum
// +k8s:enum
type VersionMetadataKey string

const (
	// InstallationMetadata marks the "update" that was the initial installation.
	InstallationMetadata VersionMetadataKey = "Installation"
	// PartialMetadata marks a previous version whose update had not finished.
	PartialMetadata VersionMetadataKey = "Partial"
	// ArchitectureMetadata carries the architecture of the version's payload.
	ArchitectureMetadata VersionMetadataKey = "Architecture"
)

// ClusterVersionStatusInsightConditionType is a condition type of the
// ClusterVersion status insight.
// +enum
// +k8s:enum
type ClusterVersionStatusInsightConditionType string

const (
	// ClusterVersionStatusInsightUpdating says whether the control plane is updating.
	ClusterVersionStatusInsightUpdating ClusterVersionStatusInsightConditionType = "Updating"
)

// ClusterVersionStatusInsightUpdatingReason is a reason of the Updating
// condition of the ClusterVersion status insight.
// +enum
// +k8s:enum
type ClusterVersionStatusInsightUpdatingReason string

const (
	// ClusterVersionProgressing means the ClusterVersion has Progressing=True.
	ClusterVersionProgressing ClusterVersionStatusInsightUpdatingReason = "ClusterVersionProgressing"
	// ClusterVersionNotProgressing means the ClusterVersion has Progressing=False.
	ClusterVersionNotProgressing ClusterVersionStatusInsightUpdatingReason = "ClusterVersionNotProgressing"
	// ClusterVersionCannotDetermineUpdating means the state cannot be established.
	ClusterVersionCannotDetermineUpdating ClusterVersionStatusInsightUpdatingReason = "CannotDetermineUpdating"
)

// ClusterOperatorStatusInsight reports the progress and health of one
// ClusterOperator.
type ClusterOperatorStatusInsight struct {
	// conditions say whether the operator is updating and whether it is
	// healthy. The known types are Updating and Healthy.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +k8s:validation:maxItems=10
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`

	// name is the name of the ClusterOperator; it equals resource.name.
	// +k8s:validation:minLength=1
	// +kubebuilder:validation:MinLength=1
	// +k8s:validation:maxLength=64
	// +kubebuilder:validation:MaxLength=64
	// +k8s:validation:pattern="^[a-z0-9-]+$"
	// +kubebuilder:validation:Pattern="^[a-z0-9-]+$"
	// +required
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`

	// resource is the ClusterOperator.
	// +required
	Resource ResourceRef `json:"resource" protobuf:"bytes,3,opt,name=resource"`
}

// ClusterOperatorStatusInsightConditionType is a condition type of the
// ClusterOperator status insight.
// +enum
// +k8s:enum
type ClusterOperatorStatusInsightConditionType string

const (
	// ClusterOperatorStatusInsightUpdating says whether the operator is updating.
	ClusterOperatorStatusInsightUpdating ClusterOperatorStatusInsightConditionType = "Updating"
	// ClusterOperatorStatusInsightHealthy says whether the operator is healthy.
	ClusterOperatorStatusInsightHealthy ClusterOperatorStatusInsightConditionType = "Healthy"
)

// ClusterOperatorUpdatingReason is a reason of the ClusterOperator Updating condition.
// +enum
// +k8s:enum
type ClusterOperatorUpdatingReason string

const (
	// ClusterOperatorUpdatingReasonProgressing means the operator is updating.
	ClusterOperatorUpdatingReasonProgressing ClusterOperatorUpdatingReason = "Progressing"
	// ClusterOperatorUpdatingReasonUpdated means the operator reached the target version.
	ClusterOperatorUpdatingReasonUpdated ClusterOperatorUpdatingReason = "Updated"
	// ClusterOperatorUpdatingReasonPending means the operator has not started updating.
	ClusterOperatorUpdatingReasonPending ClusterOperatorUpdatingReason = "Pending"
	// ClusterOperatorUpdatingCannotDetermine means the state cannot be established.
	ClusterOperatorUpdatingCannotDetermine ClusterOperatorUpdatingReason = "CannotDetermine"
)

// ClusterOperatorHealthyReason is a reason of the ClusterOperator Healthy condition.
// +enum
// +k8s:enum
type ClusterOperatorHealthyReason string

const (
	// ClusterOperatorHealthyReasonAsExpected means the operator is healthy.
	ClusterOperatorHealthyReasonAsExpected ClusterOperatorHealthyReason = "AsExpected"
	// ClusterOperatorHealthyReasonUnavailable means the operator has Available=False.
	ClusterOperatorHealthyReasonUnavailable ClusterOperatorHealthyReason = "Unavailable"
	// ClusterOperatorHealthyReasonDegraded means the operator has Degraded=True.
	ClusterOperatorHealthyReasonDegraded ClusterOperatorHealthyReason = "Degraded"
	// ClusterOperatorHealthyReasonCannotDetermine means the health cannot be established.
	ClusterOperatorHealthyReasonCannotDetermine ClusterOperatorHealthyReason = "CannotDetermine"
)

// MachineConfigPoolStatusInsight reports the progress of the update of one
// MachineConfigPool.
type MachineConfigPoolStatusInsight struct {
	// conditions give the machine-readable state of the pool update. The known
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
	// +k8s:validation:minLength=1
	// +kubebuilder:validation:MinLength=1
	// +k8s:validation:maxLength=64
	// +kubebuilder:validation:MaxLength=64
	// +k8s:validation:pattern="^[a-z0-9-]+$"
	// +kubebuilder:validation:Pattern="^[a-z0-9-]+$"
	// +required
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`

	// resource is the MachineConfigPool.
	// +required
	Resource PoolResourceRef `json:"resource" protobuf:"bytes,3,opt,name=resource"`

	// scopeType says whether this is the control-plane pool or a worker pool.
	// +required
	Scope ScopeType `json:"scopeType" protobuf:"bytes,4,opt,name=scopeType,casttype=ScopeType"`

	// assessment is a one-word summary of the pool update.
	// +required
	Assessment PoolAssessment `json:"assessment" protobuf:"bytes,5,opt,name=assessment,casttype=PoolAssessment"`

	// completion is the percentage of the pool's nodes that are updated.
	// +k8s:validation:minimum=0
	// +kubebuilder:validation:Minimum=0
	// +k8s:validation:maximum=100
	// +kubebuilder:validation:Maximum=100
	// +required
	Completion int32 `json:"completion" protobuf:"varint,6,opt,name=completion"`

	// summaries count the pool's nodes by category; a node may be counted in
	// several categories.
	// +listType=map
	// +listMapKey=type
	// +k8s:validation:maxItems=16
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Summaries []NodeSummary `json:"summaries,omitempty" protobuf:"bytes,7,rep,name=summaries"`
}

// PoolAssessment is a one-word summary of a pool update.
// +enum
// +k8s:enum
type PoolAssessment string

const (
	// PoolPending means nodes will be updated but none has started.
	PoolPending PoolAssessment = "Pending"
	// PoolCompleted means every node is updated.
	PoolCompleted PoolAssessment = "Completed"
	// PoolDegraded means an observed problem affects the pool update.
	PoolDegraded PoolAssessment = "Degraded"
	// PoolExcluded means configuration (e.g. a paused pool) keeps nodes from updating.
	PoolExcluded PoolAssessment = "Excluded"
	// PoolProgressing means nodes are updating and nothing wrong or slow is observed.
	PoolProgressing PoolAssessment = "Progressing"
)

// NodeSummary counts the nodes of a pool that meet one criterion.
type NodeSummary struct {
	// type is the counting criterion.
	// +required
	Type NodeSummaryType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=NodeSummaryType"`

	// count is the number of nodes that meet it.
	// +k8s:validation:minimum=0
	// +kubebuilder:validation:Minimum=0
	// +k8s:validation:maximum=4096
	// +kubebuilder:validation:Maximum=4096
	// +required
	Count int32 `json:"count" protobuf:"varint,2,opt,name=count"`
}

// NodeSummaryType is a criterion by which nodes are counted.
// +enum
// +k8s:enum
type NodeSummaryType string

const (
	// NodesTotal counts all nodes of the pool.
	NodesTotal NodeSummaryType = "Total"
	// NodesAvailable counts nodes that accept workloads.
	NodesAvailable NodeSummaryType = "Available"
	// NodesProgressing counts nodes that are updating now.
	NodesProgressing NodeSummaryType = "Progressing"
	// NodesOutdated counts nodes still on an old version.
	NodesOutdated NodeSummaryType = "Outdated"
	// NodesDraining counts nodes being drained.
	NodesDraining NodeSummaryType = "Draining"
	// NodesExcluded counts nodes that would update but configuration blocks it.
	NodesExcluded NodeSummaryType = "Excluded"
	// NodesDegraded counts nodes in a problem state.
	NodesDegraded NodeSummaryType = "Degraded"
)

// NodeStatusInsight reports the update progress and health of one Node.
type NodeStatusInsight struct {
	// conditions give the update phase and health of the node. The known types
	// are Updating, Available and Degraded.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +k8s:validation:maxItems=10
	// +kubebuilder:validation:MaxItems=10
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`

	// name is the name of the Node; it equals resource.name.
	// +k8s:validation:minLength=1
	// +kubebuilder:validation:MinLength=1
	// +k8s:validation:maxLength=253
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`

	// resource is the Node.
	// +required
	Resource ResourceRef `json:"resource" protobuf:"bytes,3,opt,name=resource"`

	// poolResource is the MachineConfigPool the node belongs to.
	// +required
	PoolResource PoolResourceRef `json:"poolResource" protobuf:"bytes,4,opt,name=poolResource"`

	// scopeType says whether this is a control-plane node or a worker node.
	// +required
	Scope ScopeType `json:"scopeType" protobuf:"bytes,5,opt,name=scopeType,casttype=ScopeType"`

	// version is the OpenShift version the node runs, when it can be inferred.
	// +k8s:validation:maxLength=64
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Version string `json:"version,omitempty" protobuf:"bytes,6,opt,name=version"`

	// estimatedToComplete is the expected remaining time for this node, when known.
	// +optional
	EstimatedToComplete *metav1.Duration `json:"estimatedToComplete,omitempty" protobuf:"bytes,7,opt,name=estimatedToComplete"`

	// message is a short human note, only when there is something worth saying.
	// +k8s:validation:maxLength=100
	// +kubebuilder:validation:MaxLength=100
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,8,opt,name=message"`
}

// NodeStatusInsightConditionType is a condition type of the Node status insight.
// +enum
// +k8s:enum
type NodeStatusInsightConditionType string

const (
	// NodeStatusInsightUpdating says whether the node is updating.
	NodeStatusInsightUpdating NodeStatusInsightConditionType = "Updating"
	// NodeStatusInsightAvailable says whether the node accepts workloads.
	NodeStatusInsightAvailable NodeStatusInsightConditionType = "Available"
	// NodeStatusInsightDegraded says whether a problem is observed on the node.
	NodeStatusInsightDegraded NodeStatusInsightConditionType = "Degraded"
)

// NodeUpdatingReason is a reason of the Node Updating condition.
// +enum
// +k8s:enum
type NodeUpdatingReason string

const (
	// NodeDraining means the node is being drained.
	NodeDraining NodeUpdatingReason = "Draining"
	// NodeUpdating means a new configuration is being applied.
	NodeUpdating NodeUpdatingReason = "Updating"
	// NodeRebooting means the node is rebooting.
	NodeRebooting NodeUpdatingReason = "Rebooting"
	// NodeCompleted means the node is updated.
	NodeCompleted NodeUpdatingReason = "Completed"
	// NodeUpdatePending means the node waits its turn.
	NodeUpdatePending NodeUpdatingReason = "Pending"
	// NodePaused means configuration blocks the node's update.
	NodePaused NodeUpdatingReason = "Paused"
	// NodeCannotDetermine means the state cannot be established.
	NodeCannotDetermine NodeUpdatingReason = "CannotDetermine"
)
