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

	updatev1alpha1 "github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Resource names of the group.
const (
	// ResourceUpdateInformers is the plural resource name of UpdateInformer.
	ResourceUpdateInformers = "updateinformers"
	// KindUpdateInformer is the kind of an UpdateInformer.
	KindUpdateInformer = "UpdateInformer"
)

// Caps of one UpdateInformer, enforced by the CustomResourceDefinition's
// schema. They match the caps of one informer's list in UpdateStatus.
const (
	// MaxControlPlaneInsights is the most control-plane insights one object
	// carries.
	MaxControlPlaneInsights = 128
	// MaxWorkerPools is the most worker pools one object reports about.
	MaxWorkerPools = 16
	// MaxWorkerPoolInsights is the most insights one object carries about one
	// worker pool.
	MaxWorkerPoolInsights = 1024
	// DefaultLeaseDurationSeconds is the lease of an object that does not set
	// spec.leaseDurationSeconds.
	DefaultLeaseDurationSeconds = 60
	// MaxInformerNameLength is the longest informer name the server accepts:
	// the name is the value of the update.openshift.io/informer label.
	MaxInformerNameLength = 63
)

// LeaseLabel marks a coordination.k8s.io/v1 Lease as the companion of the
// UpdateInformer with its namespace and name: renewing the Lease (its
// spec.renewTime) renews the UpdateInformer's lease, as a kubelet's Lease
// renews its Node. The server watches only Leases with this label; its
// value is the UpdateInformer's name.
const LeaseLabel = "informers.update.openshift.io/update-informer"

// InformerName is the name under which the insights of the UpdateInformer
// namespace/name appear in UpdateStatus and in the update.openshift.io/informer
// label of the per-insight objects: "<name>.<namespace>". Kubernetes keeps
// namespace/name unique, so no object can take another's informer name, and
// no derived name can be one of the built-in informers (cpi, nodes, alerts),
// which have no dot. A derived name longer than MaxInformerNameLength is not a
// valid label value: the server does not accept such an object.
func InformerName(namespace, name string) string {
	return name + "." + namespace
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories=update-status
// +kubebuilder:printcolumn:name="Informer",type=string,JSONPath=`.status.informer`,description="The informer name the insights are served under."
// +kubebuilder:printcolumn:name="Accepted",type=string,JSONPath=`.status.conditions[?(@.type=="Accepted")].status`,description="Whether the server merges the insights."
// +kubebuilder:printcolumn:name="Insights",type=integer,JSONPath=`.status.insights`,description="How many insights the server accepted."
// +kubebuilder:printcolumn:name="Renewed",type=date,JSONPath=`.spec.renewTime`,description="When the component last renewed its lease in the object (renewals through its companion Lease show in kubectl get leases)."
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="!(self.metadata.name in ['cpi', 'nodes', 'alerts'])",message="metadata.name must not be cpi, nodes or alerts: those are the server's built-in informers"

// UpdateInformer is the contribution of one external informer: everything a
// component currently asserts about a cluster update, as insights about the
// control plane and about worker pools. The component writes spec when what
// it asserts changes and renews its lease before it lapses: through a
// companion Lease (LeaseLabel), which costs the server nothing, or by
// writing spec.renewTime. The update-status apiserver merges the insights
// into UpdateStatus under the informer name InformerName(namespace, name) and
// writes status. Insights of an object whose lease has lapsed leave the API.
type UpdateInformer struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata. The name must not be one of
	// the built-in informers: cpi, nodes or alerts.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what the component asserts, and its lease.
	// +required
	Spec UpdateInformerSpec `json:"spec,omitzero"`

	// status is the server's verdict on the contribution.
	// +optional
	Status UpdateInformerStatus `json:"status,omitzero"`
}

// UpdateInformerSpec is what an external informer asserts, and its lease.
// +kubebuilder:validation:MinProperties=1
type UpdateInformerSpec struct {
	// leaseDurationSeconds is how long after the latest renewal (renewTime,
	// or the renewTime of the companion Lease, whichever is later) the
	// insights stay current. A component renews well within it (every third
	// of it, say).
	// +default=60
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	// +optional
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty"`

	// renewTime is when the component last renewed its lease in this object.
	// A component that renews through a companion Lease (a Lease of the same
	// namespace and name with the label
	// informers.update.openshift.io/update-informer) sets it only when it
	// writes the spec; one without renews by bumping it. When neither is
	// set the lease runs from metadata.creationTimestamp.
	// +optional
	RenewTime *metav1.MicroTime `json:"renewTime,omitempty"`

	// controlPlane carries the insights about the control plane.
	// +optional
	ControlPlane *ControlPlaneContribution `json:"controlPlane,omitempty"`

	// workerPools carry the insights about each worker pool, one entry per
	// pool.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	// +optional
	WorkerPools []WorkerPoolContribution `json:"workerPools,omitempty"`
}

// ControlPlaneContribution is what an external informer asserts about the
// control plane.
type ControlPlaneContribution struct {
	// insights are the insights about the control plane, with the same rules
	// as those of UpdateStatus: uid unique within the list and stable over
	// time, acquiredAt when the data was obtained, exactly the member of the
	// union named by its type.
	// +listType=map
	// +listMapKey=uid
	// +kubebuilder:validation:MaxItems=128
	// +optional
	Insights []updatev1alpha1.ControlPlaneInsight `json:"insights,omitempty"`
}

// WorkerPoolContribution is what an external informer asserts about one worker
// pool.
type WorkerPoolContribution struct {
	// name is the name of the pool: the MachineConfigPool's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
	// +required
	Name string `json:"name,omitempty"`

	// insights are the insights about the pool, with the same rules as those
	// of UpdateStatus.
	// +listType=map
	// +listMapKey=uid
	// +kubebuilder:validation:MaxItems=1024
	// +optional
	Insights []updatev1alpha1.WorkerPoolInsight `json:"insights,omitempty"`
}

// UpdateInformerStatus is the update-status apiserver's verdict on a
// contribution. Only the server writes it.
type UpdateInformerStatus struct {
	// conditions are Accepted (the server merges the insights; when False the
	// reason says why not) and Expired (the lease has lapsed).
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// informer is the name the insights are served under in UpdateStatus and
	// in the update.openshift.io/informer label: "<name>.<namespace>".
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +optional
	Informer string `json:"informer,omitempty"`

	// insights is how many insights of the spec the server accepted.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Insights *int32 `json:"insights,omitempty"`

	// observedGeneration is the metadata.generation the status describes.
	// +kubebuilder:validation:Minimum=1
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// Condition types of UpdateInformerStatus.
const (
	// ConditionAccepted is True when the server merges the object's insights
	// into UpdateStatus, False with a reason when it does not.
	ConditionAccepted = "Accepted"
	// ConditionExpired is True when the lease has lapsed: the insights have
	// left the API until the object is renewed.
	ConditionExpired = "Expired"
)

// Reasons of the Accepted condition.
const (
	// ReasonAccepted: the insights are merged.
	ReasonAccepted = "Accepted"
	// ReasonInformerNameTooLong: the derived informer name is longer than
	// MaxInformerNameLength, so it cannot be a label value.
	ReasonInformerNameTooLong = "InformerNameTooLong"
	// ReasonUnknownPool: a worker pool of the spec does not exist.
	ReasonUnknownPool = "UnknownPool"
	// ReasonUnknownNode: an insight references a node that does not exist.
	ReasonUnknownNode = "UnknownNode"
	// ReasonTooManyInformers: the control plane or a pool already has as many
	// informers as UpdateStatus allows.
	ReasonTooManyInformers = "TooManyInformers"
	// ReasonRenewTimeInFuture: renewTime is further in the future than clock
	// skew explains.
	ReasonRenewTimeInFuture = "RenewTimeInFuture"
	// ReasonInvalidInsight: an insight breaks a rule the schema cannot
	// express.
	ReasonInvalidInsight = "InvalidInsight"
)

// Reasons of the Expired condition.
const (
	// ReasonLeaseCurrent: the lease has not lapsed (Expired=False).
	ReasonLeaseCurrent = "LeaseCurrent"
	// ReasonLeaseExpired: renewTime plus leaseDurationSeconds has passed
	// (Expired=True).
	ReasonLeaseExpired = "LeaseExpired"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// UpdateInformerList is a list of UpdateInformer objects.
type UpdateInformerList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the UpdateInformer objects.
	Items []UpdateInformer `json:"items"`
}
