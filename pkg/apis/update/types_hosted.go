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

// +genclient
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedClusterUpdateStatus reports how the update of one hosted cluster
// (a HyperShift HostedCluster and its NodePools) is going, as UpdateStatus
// does for a standalone cluster: the control plane (the HostedCluster, its
// version and components), one worker pool per NodePool (its Machines) and
// the server's conditions. There is one per HostedCluster, in its namespace
// and named after it; it is computed, never stored.
type HostedClusterUpdateStatus struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata: the HostedCluster's
	// namespace and name.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec HostedClusterUpdateStatusSpec `json:"spec"`

	// status is the update's status, in the layout of UpdateStatus.
	// +optional
	Status UpdateStatusStatus `json:"status"`
}

// HostedClusterUpdateStatusSpec is empty.
type HostedClusterUpdateStatusSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedClusterUpdateStatusList is a list of HostedClusterUpdateStatus objects.
type HostedClusterUpdateStatusList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the HostedClusterUpdateStatus objects.
	Items []HostedClusterUpdateStatus `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedClusterVersionProgressInsight reports the update of a hosted cluster's control plane as its HostedCluster shows it.
// There is one per HostedCluster, in its namespace, named after it; it is computed, never stored. It carries
// the same status as ClusterVersionProgressInsight.
type HostedClusterVersionProgressInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/hosted-cluster, update.openshift.io/scope,
	// update.openshift.io/pool (the NodePool), update.openshift.io/informer
	// and update.openshift.io/impact-level select insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec ClusterVersionProgressInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status ClusterVersionProgressInsightStatus `json:"status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedClusterVersionProgressInsightList is a list of HostedClusterVersionProgressInsight objects.
type HostedClusterVersionProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the HostedClusterVersionProgressInsight objects.
	Items []HostedClusterVersionProgressInsight `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedClusterOperatorProgressInsight reports the update of one component of a hosted cluster's control plane (a
// ControlPlaneComponent). There is one per component, in the HostedCluster's
// namespace, named after the hosted cluster and the component; it is computed, never stored. It carries
// the same status as ClusterOperatorProgressInsight.
type HostedClusterOperatorProgressInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/hosted-cluster, update.openshift.io/scope,
	// update.openshift.io/pool (the NodePool), update.openshift.io/informer
	// and update.openshift.io/impact-level select insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec ClusterOperatorProgressInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status ClusterOperatorProgressInsightStatus `json:"status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedClusterOperatorProgressInsightList is a list of HostedClusterOperatorProgressInsight objects.
type HostedClusterOperatorProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the HostedClusterOperatorProgressInsight objects.
	Items []HostedClusterOperatorProgressInsight `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedMachineConfigPoolProgressInsight reports the update of one NodePool of a hosted cluster. There is one per
// NodePool, in its namespace, named after it; it is computed, never stored. It carries
// the same status as MachineConfigPoolProgressInsight.
type HostedMachineConfigPoolProgressInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/hosted-cluster, update.openshift.io/scope,
	// update.openshift.io/pool (the NodePool), update.openshift.io/informer
	// and update.openshift.io/impact-level select insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec MachineConfigPoolProgressInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status MachineConfigPoolProgressInsightStatus `json:"status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedMachineConfigPoolProgressInsightList is a list of HostedMachineConfigPoolProgressInsight objects.
type HostedMachineConfigPoolProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the HostedMachineConfigPoolProgressInsight objects.
	Items []HostedMachineConfigPoolProgressInsight `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedNodeProgressInsight reports the update progress and health of one node of a hosted cluster (a
// Cluster API Machine of one of its NodePools). There is one per Machine, in the
// HostedCluster's namespace, named after the hosted cluster and the Machine; it is computed, never stored. It carries
// the same status as NodeProgressInsight.
type HostedNodeProgressInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/hosted-cluster, update.openshift.io/scope,
	// update.openshift.io/pool (the NodePool), update.openshift.io/informer
	// and update.openshift.io/impact-level select insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec NodeProgressInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status NodeProgressInsightStatus `json:"status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedNodeProgressInsightList is a list of HostedNodeProgressInsight objects.
type HostedNodeProgressInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the HostedNodeProgressInsight objects.
	Items []HostedNodeProgressInsight `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedHealthInsight reports a problem with a hosted cluster's update that needs the
// administrator's attention. There is one per health insight, in the
// HostedCluster's namespace, named after the hosted cluster and the insight's uid; it is computed, never stored. It carries
// the same status as HealthInsight.
type HostedHealthInsight struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The labels
	// update.openshift.io/hosted-cluster, update.openshift.io/scope,
	// update.openshift.io/pool (the NodePool), update.openshift.io/informer
	// and update.openshift.io/impact-level select insights.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec HealthInsightSpec `json:"spec"`

	// status is the insight.
	// +optional
	Status HealthInsightStatus `json:"status"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// HostedHealthInsightList is a list of HostedHealthInsight objects.
type HostedHealthInsightList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the HostedHealthInsight objects.
	Items []HostedHealthInsight `json:"items"`
}
