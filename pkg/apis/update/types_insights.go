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

// ClusterVersionProgressInsight reports the update of the control plane
// as the ClusterVersion shows it.
// There is one per ClusterVersion, named after the ClusterVersion's name ("version"); it is computed, never stored.
type ClusterVersionProgressInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/scope, update.openshift.io/pool,
	// update.openshift.io/informer and update.openshift.io/impact-level select
	// insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec ClusterVersionProgressInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status ClusterVersionProgressInsightStatus `json:"status"`
}

// ClusterVersionProgressInsightSpec is empty.
type ClusterVersionProgressInsightSpec struct {
}

// ClusterVersionProgressInsightStatus is the insight, with the uid and acquisition time it carries
// inside UpdateStatus.
type ClusterVersionProgressInsightStatus struct {
	// insightUID is the uid of the same insight inside UpdateStatus.
	// +k8s:validation:maxLength=63
	// +required
	InsightUID string `json:"insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt"`

	ClusterVersionStatusInsight `json:",inline"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterVersionProgressInsightList is a list of ClusterVersionProgressInsight objects.
type ClusterVersionProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the ClusterVersionProgressInsight objects.
	Items []ClusterVersionProgressInsight `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterOperatorProgressInsight reports the update progress and health of one
// ClusterOperator.
// There is one per ClusterOperator, named after the operator's name; it is computed, never stored.
type ClusterOperatorProgressInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/scope, update.openshift.io/pool,
	// update.openshift.io/informer and update.openshift.io/impact-level select
	// insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec ClusterOperatorProgressInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status ClusterOperatorProgressInsightStatus `json:"status"`
}

// ClusterOperatorProgressInsightSpec is empty.
type ClusterOperatorProgressInsightSpec struct {
}

// ClusterOperatorProgressInsightStatus is the insight, with the uid and acquisition time it carries
// inside UpdateStatus.
type ClusterOperatorProgressInsightStatus struct {
	// insightUID is the uid of the same insight inside UpdateStatus.
	// +k8s:validation:maxLength=63
	// +required
	InsightUID string `json:"insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt"`

	ClusterOperatorStatusInsight `json:",inline"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterOperatorProgressInsightList is a list of ClusterOperatorProgressInsight objects.
type ClusterOperatorProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the ClusterOperatorProgressInsight objects.
	Items []ClusterOperatorProgressInsight `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MachineConfigPoolProgressInsight reports the update of one MachineConfigPool
// and summarises its nodes.
// There is one per MachineConfigPool, named after the pool's name; it is computed, never stored.
type MachineConfigPoolProgressInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/scope, update.openshift.io/pool,
	// update.openshift.io/informer and update.openshift.io/impact-level select
	// insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec MachineConfigPoolProgressInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status MachineConfigPoolProgressInsightStatus `json:"status"`
}

// MachineConfigPoolProgressInsightSpec is empty.
type MachineConfigPoolProgressInsightSpec struct {
}

// MachineConfigPoolProgressInsightStatus is the insight, with the uid and acquisition time it carries
// inside UpdateStatus.
type MachineConfigPoolProgressInsightStatus struct {
	// insightUID is the uid of the same insight inside UpdateStatus.
	// +k8s:validation:maxLength=63
	// +required
	InsightUID string `json:"insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt"`

	MachineConfigPoolStatusInsight `json:",inline"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MachineConfigPoolProgressInsightList is a list of MachineConfigPoolProgressInsight objects.
type MachineConfigPoolProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the MachineConfigPoolProgressInsight objects.
	Items []MachineConfigPoolProgressInsight `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NodeProgressInsight reports the update progress and health of one Node.
// There is one per Node, named after the Node's name; it is computed, never stored.
type NodeProgressInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/scope, update.openshift.io/pool,
	// update.openshift.io/informer and update.openshift.io/impact-level select
	// insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec NodeProgressInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status NodeProgressInsightStatus `json:"status"`
}

// NodeProgressInsightSpec is empty.
type NodeProgressInsightSpec struct {
}

// NodeProgressInsightStatus is the insight, with the uid and acquisition time it carries
// inside UpdateStatus.
type NodeProgressInsightStatus struct {
	// insightUID is the uid of the same insight inside UpdateStatus.
	// +k8s:validation:maxLength=63
	// +required
	InsightUID string `json:"insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt"`

	NodeStatusInsight `json:",inline"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NodeProgressInsightList is a list of NodeProgressInsight objects.
type NodeProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the NodeProgressInsight objects.
	Items []NodeProgressInsight `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HealthInsight reports a problem related to the update that needs the
// administrator's attention.
// There is one per health insight, named after the insight's uid; it is computed, never stored.
type HealthInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/scope, update.openshift.io/pool,
	// update.openshift.io/informer and update.openshift.io/impact-level select
	// insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec HealthInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status HealthInsightStatus `json:"status"`
}

// HealthInsightSpec is empty.
type HealthInsightSpec struct {
}

// HealthInsightStatus is the insight, with the uid and acquisition time it carries
// inside UpdateStatus.
type HealthInsightStatus struct {
	// insightUID is the uid of the same insight inside UpdateStatus.
	// +k8s:validation:maxLength=63
	// +required
	InsightUID string `json:"insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt"`

	HealthStatusInsight `json:",inline"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HealthInsightList is a list of HealthInsight objects.
type HealthInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the HealthInsight objects.
	Items []HealthInsight `json:"items"`
}
