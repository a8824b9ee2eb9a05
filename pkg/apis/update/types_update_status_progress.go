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

// ClusterVersionStatusInsight reports the progress of the control-plane update
// as seen through the ClusterVersion.
type ClusterVersionStatusInsight struct {
	// conditions give the machine-readable state of the control-plane update.
	// The known type is Updating.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// resource is the ClusterVersion (normally named version).
	// +required
	Resource ResourceRef `json:"resource"`

	// assessment is a one-word summary of the control-plane update.
	// +required
	Assessment ControlPlaneAssessment `json:"assessment"`

	// versions is the update edge: the version updated from and to.
	// +required
	Versions ControlPlaneUpdateVersions `json:"versions"`

	// completion is the percentage of the control-plane update that is done.
	// +required
	Completion int32 `json:"completion"`

	// startedAt is when the update began.
	// +required
	StartedAt metav1.Time `json:"startedAt"`

	// completedAt is when the update finished; it is absent while it runs.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`

	// estimatedCompletedAt is when the update is projected to finish, when an
	// estimate exists.
	// +optional
	EstimatedCompletedAt *metav1.Time `json:"estimatedCompletedAt,omitempty"`

	// estimatedDurationNanoseconds is the update's estimated total duration
	// counted from startedAt, in nanoseconds; set together with
	// estimatedCompletedAt.
	// +optional
	EstimatedDurationNanoseconds *int64 `json:"estimatedDurationNanoseconds,omitempty"`
}

// ControlPlaneAssessment is a one-word summary of the control-plane update.
type ControlPlaneAssessment string

// ControlPlaneUpdateVersions is the update edge of the control plane.
type ControlPlaneUpdateVersions struct {
	// previous is the version the control plane was at before this update. For
	// a cluster that was only installed it is "<none>" with Installation metadata.
	// +required
	Previous Version `json:"previous"`

	// target is the version being updated to (or installed).
	// +required
	Target Version `json:"target"`
}

// Version is one side of an update edge.
type Version struct {
	// version is a semantic version such as 4.17.5, or the placeholder "<none>".
	// +required
	Version string `json:"version"`

	// metadata are extra facts about this side of the edge.
	// +listType=map
	// +listMapKey=key
	// +optional
	Metadata []VersionMetadata `json:"metadata,omitempty"`
}

// VersionMetadata is one fact about a version.
type VersionMetadata struct {
	// key names the fact.
	// +required
	Key VersionMetadataKey `json:"key"`

	// value is empty for flag-like keys; for Architecture it is the payload
	// architecture.
	// +optional
	Value string `json:"value,omitempty"`
}

// VersionMetadataKey names a fact about a version.
type VersionMetadataKey string

// ClusterVersionStatusInsightConditionType is a condition type of the
// ClusterVersion status insight.
type ClusterVersionStatusInsightConditionType string

// ClusterVersionStatusInsightUpdatingReason is a reason of the Updating
// condition of the ClusterVersion status insight.
type ClusterVersionStatusInsightUpdatingReason string

// ClusterOperatorStatusInsight reports the progress and health of one
// ClusterOperator.
type ClusterOperatorStatusInsight struct {
	// conditions say whether the operator is updating and whether it is
	// healthy. The known types are Updating and Healthy.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// name is the name of the ClusterOperator; it equals resource.name.
	// +required
	Name string `json:"name"`

	// resource is the ClusterOperator.
	// +required
	Resource ResourceRef `json:"resource"`
}

// ClusterOperatorStatusInsightConditionType is a condition type of the
// ClusterOperator status insight.
type ClusterOperatorStatusInsightConditionType string

// ClusterOperatorUpdatingReason is a reason of the ClusterOperator Updating condition.
type ClusterOperatorUpdatingReason string

// ClusterOperatorHealthyReason is a reason of the ClusterOperator Healthy condition.
type ClusterOperatorHealthyReason string

// MachineConfigPoolStatusInsight reports the progress of the update of one
// MachineConfigPool.
type MachineConfigPoolStatusInsight struct {
	// conditions give the machine-readable state of the pool update. The known
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

	// resource is the MachineConfigPool.
	// +required
	Resource PoolResourceRef `json:"resource"`

	// scopeType says whether this is the control-plane pool or a worker pool.
	// +required
	Scope ScopeType `json:"scopeType"`

	// assessment is a one-word summary of the pool update.
	// +required
	Assessment PoolAssessment `json:"assessment"`

	// completion is the percentage of the pool's nodes that are updated.
	// +required
	Completion int32 `json:"completion"`

	// summaries count the pool's nodes by category; a node may be counted in
	// several categories.
	// +listType=map
	// +listMapKey=type
	// +optional
	Summaries []NodeSummary `json:"summaries,omitempty"`
}

// PoolAssessment is a one-word summary of a pool update.
type PoolAssessment string

// NodeSummary counts the nodes of a pool that meet one criterion.
type NodeSummary struct {
	// type is the counting criterion.
	// +required
	Type NodeSummaryType `json:"type"`

	// count is the number of nodes that meet it.
	// +required
	Count int32 `json:"count"`
}

// NodeSummaryType is a criterion by which nodes are counted.
type NodeSummaryType string

// NodeStatusInsight reports the update progress and health of one Node.
type NodeStatusInsight struct {
	// conditions give the update phase and health of the node. The known types
	// are Updating, Available and Degraded.
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// name is the name of the Node; it equals resource.name.
	// +required
	Name string `json:"name"`

	// resource is the Node.
	// +required
	Resource ResourceRef `json:"resource"`

	// poolResource is the MachineConfigPool the node belongs to.
	// +required
	PoolResource PoolResourceRef `json:"poolResource"`

	// scopeType says whether this is a control-plane node or a worker node.
	// +required
	Scope ScopeType `json:"scopeType"`

	// version is the OpenShift version the node runs, when it can be inferred.
	// +optional
	Version string `json:"version,omitempty"`

	// estimatedToComplete is the expected remaining time for this node, when known.
	// +optional
	EstimatedToComplete *metav1.Duration `json:"estimatedToComplete,omitempty"`

	// message is a short human note, only when there is something worth saying.
	// +optional
	Message string `json:"message,omitempty"`
}

// NodeStatusInsightConditionType is a condition type of the Node status insight.
type NodeStatusInsightConditionType string

// NodeUpdatingReason is a reason of the Node Updating condition.
type NodeUpdatingReason string
