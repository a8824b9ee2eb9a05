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

// The five per-insight kinds serve the insights of UpdateStatus as one object
// per subject, with no cap on their number (docs/api-decisions.md#per-insight-resources).
// Each is cluster-scoped and read-only, and every object is computed from the
// same revision as UpdateStatus. The labels below select them.
const (
	// LabelScope is ControlPlane or WorkerPool.
	LabelScope = "update.openshift.io/scope"
	// LabelPool is the name of the MachineConfigPool an insight is about.
	LabelPool = "update.openshift.io/pool"
	// LabelInformer is the name of the informer that produced the insight.
	LabelInformer = "update.openshift.io/informer"
	// LabelImpactLevel is the impact level of a health insight.
	LabelImpactLevel = "update.openshift.io/impact-level"
)

// The built-in informers, the producers of the server's own insights
// (docs/insights.md#where-insights-go).
const (
	// InformerControlPlane reports the ClusterVersion, the ClusterOperators and
	// their health.
	InformerControlPlane = "cpi"
	// InformerNodes reports MachineConfigPools, Nodes and their health.
	InformerNodes = "nodes"
	// InformerAlerts reports firing Prometheus alerts that matter for an
	// update; its insights sit under the control plane.
	InformerAlerts = "alerts"
	// InformerServer reports on the external informers: an UpdateInformer
	// that stopped reporting or whose insights the server refuses. Its
	// insights sit under the control plane.
	InformerServer = "update-status"
)

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
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
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is empty.
	// +optional
	Spec ClusterVersionProgressInsightSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// status is the insight.
	// +optional
	Status ClusterVersionProgressInsightStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
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
	InsightUID string `json:"insightUID" protobuf:"bytes,1,opt,name=insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt" protobuf:"bytes,2,opt,name=acquiredAt"`

	ClusterVersionStatusInsight `json:",inline" protobuf:"bytes,3,opt,name=clusterVersionStatusInsight"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterVersionProgressInsightList is a list of ClusterVersionProgressInsight objects.
type ClusterVersionProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items are the ClusterVersionProgressInsight objects.
	Items []ClusterVersionProgressInsight `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
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
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is empty.
	// +optional
	Spec ClusterOperatorProgressInsightSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// status is the insight.
	// +optional
	Status ClusterOperatorProgressInsightStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
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
	InsightUID string `json:"insightUID" protobuf:"bytes,1,opt,name=insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt" protobuf:"bytes,2,opt,name=acquiredAt"`

	ClusterOperatorStatusInsight `json:",inline" protobuf:"bytes,3,opt,name=clusterOperatorStatusInsight"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterOperatorProgressInsightList is a list of ClusterOperatorProgressInsight objects.
type ClusterOperatorProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items are the ClusterOperatorProgressInsight objects.
	Items []ClusterOperatorProgressInsight `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
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
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is empty.
	// +optional
	Spec MachineConfigPoolProgressInsightSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// status is the insight.
	// +optional
	Status MachineConfigPoolProgressInsightStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
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
	InsightUID string `json:"insightUID" protobuf:"bytes,1,opt,name=insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt" protobuf:"bytes,2,opt,name=acquiredAt"`

	MachineConfigPoolStatusInsight `json:",inline" protobuf:"bytes,3,opt,name=machineConfigPoolStatusInsight"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// MachineConfigPoolProgressInsightList is a list of MachineConfigPoolProgressInsight objects.
type MachineConfigPoolProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items are the MachineConfigPoolProgressInsight objects.
	Items []MachineConfigPoolProgressInsight `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
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
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is empty.
	// +optional
	Spec NodeProgressInsightSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// status is the insight.
	// +optional
	Status NodeProgressInsightStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
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
	InsightUID string `json:"insightUID" protobuf:"bytes,1,opt,name=insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt" protobuf:"bytes,2,opt,name=acquiredAt"`

	NodeStatusInsight `json:",inline" protobuf:"bytes,3,opt,name=nodeStatusInsight"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NodeProgressInsightList is a list of NodeProgressInsight objects.
type NodeProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items are the NodeProgressInsight objects.
	Items []NodeProgressInsight `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
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
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is empty.
	// +optional
	Spec HealthInsightSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// status is the insight.
	// +optional
	Status HealthInsightStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
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
	InsightUID string `json:"insightUID" protobuf:"bytes,1,opt,name=insightUID"`

	// acquiredAt is when the insight was computed from the data it reports.
	// +required
	AcquiredAt metav1.Time `json:"acquiredAt" protobuf:"bytes,2,opt,name=acquiredAt"`

	HealthStatusInsight `json:",inline" protobuf:"bytes,3,opt,name=healthStatusInsight"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HealthInsightList is a list of HealthInsight objects.
type HealthInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items are the HealthInsight objects.
	Items []HealthInsight `json:"items" protobuf:"bytes,2,rep,name=items"`
}
