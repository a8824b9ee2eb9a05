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

// UpdateReadiness says whether the cluster is ready to start an update: the
// ClusterVersion's conditions that matter for one, where updates come from,
// and the prechecks made from the cluster's firing alerts.
// There is one, named cluster; it is computed, never stored.
type UpdateReadiness struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec UpdateReadinessSpec `json:"spec"`

	// status is the readiness of the cluster.
	// +optional
	Status UpdateReadinessStatus `json:"status"`
}

// UpdateReadinessSpec is empty.
type UpdateReadinessSpec struct {
}

// UpdateReadinessStatus is the readiness of the cluster to start an update.
type UpdateReadinessStatus struct {
	// version is the version the cluster runs or is updating to (the
	// ClusterVersion's status.desired.version).
	// +optional
	Version string `json:"version,omitempty"`

	// channel is the update channel the cluster follows (spec.channel); empty
	// when none is set.
	// +optional
	Channel string `json:"channel,omitempty"`

	// availableChannels are the channels the current release is in
	// (status.desired.channels).
	// +optional
	// +listType=atomic
	AvailableChannels []string `json:"availableChannels,omitempty"`

	// upstream is the update service the cluster asks for updates
	// (spec.upstream); empty when the cluster uses the default one.
	// +optional
	Upstream string `json:"upstream,omitempty"`

	// clusterVersionConditions are the ClusterVersion's conditions that bear
	// on an update (Failing, Progressing, RetrievedUpdates, Upgradeable), as
	// the ClusterVersion has them; a condition it lacks is absent.
	// +optional
	// +listType=map
	// +listMapKey=type
	ClusterVersionConditions []ClusterVersionCondition `json:"clusterVersionConditions,omitempty"`

	// prechecks are the checks made from the cluster's firing alerts, one per
	// group (CriticalAlerts, PodDisruptionBudgetAlerts, PodImagePullAlerts,
	// NodeAlerts, UpdatePrecheckAlerts, VirtAlerts), each with the alerts
	// that found cause for concern. A group without concern is True and lists
	// no alert; VirtAlerts appears only when one of its alerts fires.
	// +optional
	// +listType=map
	// +listMapKey=name
	Prechecks []Precheck `json:"prechecks,omitempty"`

	// prechecksIncomplete says why some prechecks could not be made (the
	// alerts could not be read); empty when every precheck ran.
	// +optional
	PrechecksIncomplete string `json:"prechecksIncomplete,omitempty"`

	// issues are the names of the issues that apply to any update of the
	// cluster, sorted: Failing, Progressing, CannotRetrieveUpdates,
	// FailedToCompletePrecheck, and the name of each alert that found cause
	// for concern. These are the names `oc adm upgrade recommend --accept`
	// takes.
	// +optional
	// +listType=set
	Issues []string `json:"issues,omitempty"`
}

// ClusterVersionCondition is one condition of the ClusterVersion, as it has
// it.
type ClusterVersionCondition struct {
	// type is the condition type, e.g. Failing.
	// +required
	Type string `json:"type"`
	// status is True, False or Unknown.
	// +required
	Status metav1.ConditionStatus `json:"status"`
	// reason is the condition's reason.
	// +optional
	Reason string `json:"reason,omitempty"`
	// message is the condition's message.
	// +optional
	Message string `json:"message,omitempty"`
	// lastTransitionTime is when the condition last changed status.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

// Precheck is one group of checks made before an update.
type Precheck struct {
	// name is the group, e.g. CriticalAlerts; Alert when the alerts are
	// unknown for a run from object dumps.
	// +required
	Name string `json:"name"`
	// status is True when the group found no cause for concern, False when
	// it did (alerts lists why) and Unknown when it could not tell.
	// +required
	Status metav1.ConditionStatus `json:"status"`
	// reason is AsExpected when True, AlertsFiring when False.
	// +optional
	Reason string `json:"reason,omitempty"`
	// message says what the group found.
	// +optional
	Message string `json:"message,omitempty"`
	// issue is the name of the issue when the group itself is the concern
	// (status Unknown); an alert's issue is its name.
	// +optional
	Issue string `json:"issue,omitempty"`
	// alerts are the alerts behind a False status, in the order they were
	// read.
	// +optional
	// +listType=atomic
	Alerts []PrecheckAlert `json:"alerts,omitempty"`
}

// PrecheckAlert is one firing alert that found cause for concern.
type PrecheckAlert struct {
	// index numbers the alerts of concern across every group, in the order
	// the alerts were read (from 0), as oc numbers its conditions.
	// +required
	Index int32 `json:"index"`
	// name is the alert's name (its alertname label); it is also the name of
	// its issue.
	// +required
	Name string `json:"name"`
	// namespace is the alert's namespace label.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// severity is the alert's severity label.
	// +optional
	Severity string `json:"severity,omitempty"`
	// state is the alert's state (firing).
	// +optional
	State string `json:"state,omitempty"`
	// reason is Alert:<state>.
	// +optional
	Reason string `json:"reason,omitempty"`
	// message says what the alert means for an update, with its summary,
	// description and runbook.
	// +optional
	Message string `json:"message,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateReadinessList is a list of UpdateReadiness objects.
type UpdateReadinessList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the UpdateReadiness objects.
	Items []UpdateReadiness `json:"items"`
}

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
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is empty.
	// +optional
	Spec UpdateCandidateSpec `json:"spec"`

	// status is the release and the verdict on it.
	// +optional
	Status UpdateCandidateStatus `json:"status"`
}

// UpdateCandidateSpec is empty.
type UpdateCandidateSpec struct {
}

// UpdateCandidateStatus is one release and the verdict on updating to it.
type UpdateCandidateStatus struct {
	// version is the release's version, as the ClusterVersion lists it.
	// +required
	Version string `json:"version"`
	// image is the release's image pull spec.
	// +optional
	Image string `json:"image,omitempty"`
	// url is the release's errata or notes.
	// +optional
	URL string `json:"url,omitempty"`
	// channels are the channels the release is in.
	// +optional
	// +listType=atomic
	Channels []string `json:"channels,omitempty"`
	// conditional is true when the release is a conditional update (it has
	// known risks), false for an unconditional available update.
	// +optional
	Conditional bool `json:"conditional,omitempty"`
	// recommended is True when no known risk applies to this cluster (an
	// unconditional update, or a conditional one the cluster evaluated as
	// recommended), False when one does, Unknown when the cluster could not
	// tell.
	// +required
	Recommended metav1.ConditionStatus `json:"recommended"`
	// reason is the reason of the verdict when recommended is not True: a
	// risk's name, MultipleReasons, EvaluationFailed, NoConditions, or the
	// reason of the ClusterVersion's Upgradeable=False.
	// +optional
	Reason string `json:"reason,omitempty"`
	// message explains the verdict when recommended is not True.
	// +optional
	Message string `json:"message,omitempty"`
	// risks are the known risks of updating to the release, the
	// ClusterVersion's own and, for a minor or major update while the
	// ClusterVersion is Upgradeable=False, UpgradeableFalse.
	// +optional
	// +listType=map
	// +listMapKey=name
	Risks []UpdateRisk `json:"risks,omitempty"`
}

// UpdateRisk is one known risk of an update.
type UpdateRisk struct {
	// name is the risk's CamelCase name.
	// +required
	Name string `json:"name"`
	// url describes the risk.
	// +optional
	URL string `json:"url,omitempty"`
	// message describes the risk.
	// +optional
	Message string `json:"message,omitempty"`
	// applies is True when the risk applies to this cluster, False when it
	// does not, Unknown when the cluster could not evaluate it.
	// +required
	Applies metav1.ConditionStatus `json:"applies"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UpdateCandidateList is a list of UpdateCandidate objects.
type UpdateCandidateList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the UpdateCandidate objects.
	Items []UpdateCandidate `json:"items"`
}
