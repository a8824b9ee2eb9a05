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

// Readiness answers the question before an update: can this cluster update
// now, and to which release? UpdateReadiness is the cluster's side of it (the
// ClusterVersion's conditions and the prechecks made from firing alerts),
// UpdateCandidate the releases' side (one object per release the cluster can
// update to). Both are computed from the ClusterVersion and the alerts, as
// `oc adm upgrade recommend` judges them (docs/insights.md#readiness); nothing
// is stored (docs/api-decisions.md#readiness).

// ReadinessObjectName is the name of the one UpdateReadiness object.
const ReadinessObjectName = "cluster"

// The issues that are not an alert's name (an alert's issue is its name).
const (
	// IssueFailing applies when the ClusterVersion's Failing condition is not
	// False, or is missing.
	IssueFailing = "Failing"
	// IssueProgressing applies while an update is in progress.
	IssueProgressing = "Progressing"
	// IssueCannotRetrieveUpdates applies when RetrievedUpdates is not True.
	IssueCannotRetrieveUpdates = "CannotRetrieveUpdates"
	// IssueFailedToCompletePrecheck applies when some prechecks could not run
	// (the alerts could not be read).
	IssueFailedToCompletePrecheck = "FailedToCompletePrecheck"
	// IssueConditionalUpdateRisk applies to a release whose Recommended
	// verdict is not True.
	IssueConditionalUpdateRisk = "ConditionalUpdateRisk"
	// IssueAlertNoTestData applies to a run from object dumps without alerts.
	IssueAlertNoTestData = "AlertNoTestData"
)

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateReadiness says whether the cluster is ready to start an update: the
// ClusterVersion's conditions that matter for one, where updates come from,
// and the prechecks made from the cluster's firing alerts.
// There is one, named cluster; it is computed, never stored.
type UpdateReadiness struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is empty.
	// +optional
	Spec UpdateReadinessSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// status is the readiness of the cluster.
	// +optional
	Status UpdateReadinessStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
}

// UpdateReadinessSpec is empty.
type UpdateReadinessSpec struct {
}

// UpdateReadinessStatus is the readiness of the cluster to start an update.
type UpdateReadinessStatus struct {
	// version is the version the cluster runs or is updating to (the
	// ClusterVersion's status.desired.version).
	// +optional
	Version string `json:"version,omitempty" protobuf:"bytes,1,opt,name=version"`

	// channel is the update channel the cluster follows (spec.channel); empty
	// when none is set.
	// +optional
	Channel string `json:"channel,omitempty" protobuf:"bytes,2,opt,name=channel"`

	// availableChannels are the channels the current release is in
	// (status.desired.channels).
	// +optional
	// +listType=atomic
	AvailableChannels []string `json:"availableChannels,omitempty" protobuf:"bytes,3,rep,name=availableChannels"`

	// upstream is the update service the cluster asks for updates
	// (spec.upstream); empty when the cluster uses the default one.
	// +optional
	Upstream string `json:"upstream,omitempty" protobuf:"bytes,4,opt,name=upstream"`

	// clusterVersionConditions are the ClusterVersion's conditions that bear
	// on an update (Failing, Progressing, RetrievedUpdates, Upgradeable), as
	// the ClusterVersion has them; a condition it lacks is absent.
	// +optional
	// +listType=map
	// +listMapKey=type
	ClusterVersionConditions []ClusterVersionCondition `json:"clusterVersionConditions,omitempty" protobuf:"bytes,5,rep,name=clusterVersionConditions"`

	// prechecks are the checks made from the cluster's firing alerts, one per
	// group (CriticalAlerts, PodDisruptionBudgetAlerts, PodImagePullAlerts,
	// NodeAlerts, UpdatePrecheckAlerts, VirtAlerts), each with the alerts
	// that found cause for concern. A group without concern is True and lists
	// no alert; VirtAlerts appears only when one of its alerts fires.
	// +optional
	// +listType=map
	// +listMapKey=name
	Prechecks []Precheck `json:"prechecks,omitempty" protobuf:"bytes,6,rep,name=prechecks"`

	// prechecksIncomplete says why some prechecks could not be made (the
	// alerts could not be read); empty when every precheck ran.
	// +optional
	PrechecksIncomplete string `json:"prechecksIncomplete,omitempty" protobuf:"bytes,7,opt,name=prechecksIncomplete"`

	// issues are the names of the issues that apply to any update of the
	// cluster, sorted: Failing, Progressing, CannotRetrieveUpdates,
	// FailedToCompletePrecheck, and the name of each alert that found cause
	// for concern. These are the names `oc adm upgrade recommend --accept`
	// takes.
	// +optional
	// +listType=set
	Issues []string `json:"issues,omitempty" protobuf:"bytes,8,rep,name=issues"`
}

// ClusterVersionCondition is one condition of the ClusterVersion, as it has
// it.
type ClusterVersionCondition struct {
	// type is the condition type, e.g. Failing.
	// +required
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// status is True, False or Unknown.
	// +required
	Status metav1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/apimachinery/pkg/apis/meta/v1.ConditionStatus"`
	// reason is the condition's reason.
	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// message is the condition's message.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// lastTransitionTime is when the condition last changed status.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,5,opt,name=lastTransitionTime"`
}

// Precheck is one group of checks made before an update.
type Precheck struct {
	// name is the group, e.g. CriticalAlerts; Alert when the alerts are
	// unknown for a run from object dumps.
	// +required
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// status is True when the group found no cause for concern, False when
	// it did (alerts lists why) and Unknown when it could not tell.
	// +required
	Status metav1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=k8s.io/apimachinery/pkg/apis/meta/v1.ConditionStatus"`
	// reason is AsExpected when True, AlertsFiring when False.
	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// message says what the group found.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// issue is the name of the issue when the group itself is the concern
	// (status Unknown); an alert's issue is its name.
	// +optional
	Issue string `json:"issue,omitempty" protobuf:"bytes,5,opt,name=issue"`
	// alerts are the alerts behind a False status, in the order they were
	// read.
	// +optional
	// +listType=atomic
	Alerts []PrecheckAlert `json:"alerts,omitempty" protobuf:"bytes,6,rep,name=alerts"`
}

// PrecheckAlert is one firing alert that found cause for concern.
type PrecheckAlert struct {
	// index numbers the alerts of concern across every group, in the order
	// the alerts were read (from 0), as oc numbers its conditions.
	// +required
	Index int32 `json:"index" protobuf:"varint,1,opt,name=index"`
	// name is the alert's name (its alertname label); it is also the name of
	// its issue.
	// +required
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// namespace is the alert's namespace label.
	// +optional
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	// severity is the alert's severity label.
	// +optional
	Severity string `json:"severity,omitempty" protobuf:"bytes,4,opt,name=severity"`
	// state is the alert's state (firing).
	// +optional
	State string `json:"state,omitempty" protobuf:"bytes,5,opt,name=state"`
	// reason is Alert:<state>.
	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,6,opt,name=reason"`
	// message says what the alert means for an update, with its summary,
	// description and runbook.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,7,opt,name=message"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateReadinessList is a list of UpdateReadiness objects.
type UpdateReadinessList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items are the UpdateReadiness objects.
	Items []UpdateReadiness `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// +genclient
// +genclient:nonNamespaced
// +genclient:onlyVerbs=get,list,watch
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateCandidate is one release the cluster can update to: an available or
// conditional update of the ClusterVersion, with whether it is recommended
// for this cluster and the known risks of updating to it.
// There is one per release, named after its version (characters a name
// cannot hold become -); it is computed, never stored.
type UpdateCandidate struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The label
	// update.openshift.io/recommended carries status.recommended.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is empty.
	// +optional
	Spec UpdateCandidateSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// status is the release and the verdict on it.
	// +optional
	Status UpdateCandidateStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
}

// UpdateCandidateSpec is empty.
type UpdateCandidateSpec struct {
}

// LabelRecommended is the label of an UpdateCandidate that carries its
// status.recommended (True, False or Unknown).
const LabelRecommended = "update.openshift.io/recommended"

// UpdateCandidateStatus is one release and the verdict on updating to it.
type UpdateCandidateStatus struct {
	// version is the release's version, as the ClusterVersion lists it.
	// +required
	Version string `json:"version" protobuf:"bytes,1,opt,name=version"`
	// image is the release's image pull spec.
	// +optional
	Image string `json:"image,omitempty" protobuf:"bytes,2,opt,name=image"`
	// url is the release's errata or notes.
	// +optional
	URL string `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	// channels are the channels the release is in.
	// +optional
	// +listType=atomic
	Channels []string `json:"channels,omitempty" protobuf:"bytes,4,rep,name=channels"`
	// conditional is true when the release is a conditional update (it has
	// known risks), false for an unconditional available update.
	// +optional
	Conditional bool `json:"conditional,omitempty" protobuf:"varint,5,opt,name=conditional"`
	// recommended is True when no known risk applies to this cluster (an
	// unconditional update, or a conditional one the cluster evaluated as
	// recommended), False when one does, Unknown when the cluster could not
	// tell.
	// +required
	Recommended metav1.ConditionStatus `json:"recommended" protobuf:"bytes,6,opt,name=recommended,casttype=k8s.io/apimachinery/pkg/apis/meta/v1.ConditionStatus"`
	// reason is the reason of the verdict when recommended is not True: a
	// risk's name, MultipleReasons, EvaluationFailed, NoConditions, or the
	// reason of the ClusterVersion's Upgradeable=False.
	// +optional
	Reason string `json:"reason,omitempty" protobuf:"bytes,7,opt,name=reason"`
	// message explains the verdict when recommended is not True.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,8,opt,name=message"`
	// risks are the known risks of updating to the release, the
	// ClusterVersion's own and, for a minor or major update while the
	// ClusterVersion is Upgradeable=False, UpgradeableFalse.
	// +optional
	// +listType=map
	// +listMapKey=name
	Risks []UpdateRisk `json:"risks,omitempty" protobuf:"bytes,9,rep,name=risks"`
}

// UpdateRisk is one known risk of an update.
type UpdateRisk struct {
	// name is the risk's CamelCase name.
	// +required
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// url describes the risk.
	// +optional
	URL string `json:"url,omitempty" protobuf:"bytes,2,opt,name=url"`
	// message describes the risk.
	// +optional
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// applies is True when the risk applies to this cluster, False when it
	// does not, Unknown when the cluster could not evaluate it.
	// +required
	Applies metav1.ConditionStatus `json:"applies" protobuf:"bytes,4,opt,name=applies,casttype=k8s.io/apimachinery/pkg/apis/meta/v1.ConditionStatus"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateCandidateList is a list of UpdateCandidate objects.
type UpdateCandidateList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items are the UpdateCandidate objects.
	Items []UpdateCandidate `json:"items" protobuf:"bytes,2,rep,name=items"`
}
