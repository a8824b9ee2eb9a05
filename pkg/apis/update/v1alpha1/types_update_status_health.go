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

// HealthStatusInsight reports a problem related to the update that needs the
// administrator's attention.
type HealthStatusInsight struct {
	// startedAt is when the reported situation began.
	// +required
	StartedAt metav1.Time `json:"startedAt" protobuf:"bytes,1,opt,name=startedAt"`

	// scope is where the problem applies and which objects are involved.
	// +required
	Scope InsightScope `json:"scope" protobuf:"bytes,2,opt,name=scope"`

	// impact is how bad the problem is and what it affects.
	// +required
	Impact InsightImpact `json:"impact" protobuf:"bytes,3,opt,name=impact"`

	// remediation is where to read how to fix or avoid the problem.
	// +required
	Remediation InsightRemediation `json:"remediation" protobuf:"bytes,4,opt,name=remediation"`
}

// InsightScope is where a health insight applies.
type InsightScope struct {
	// type is the part of the cluster affected.
	// +required
	Type ScopeType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=ScopeType"`

	// resources are the objects involved, of any kind.
	// +listType=atomic
	// +k8s:validation:maxItems=16
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Resources []ResourceRef `json:"resources,omitempty" protobuf:"bytes,2,rep,name=resources"`
}

// ScopeType is a part of the cluster.
// +enum
// +k8s:enum
type ScopeType string

const (
	// ControlPlaneScope is the control plane, including its pool and nodes.
	ControlPlaneScope ScopeType = "ControlPlane"
	// WorkerPoolScope is the worker pools and their nodes.
	WorkerPoolScope ScopeType = "WorkerPool"
)

// InsightImpact is how bad a problem is and what it affects.
type InsightImpact struct {
	// level is the severity.
	// +required
	Level InsightImpactLevel `json:"level" protobuf:"bytes,1,opt,name=level,casttype=InsightImpactLevel"`

	// type is what suffers.
	// +required
	Type InsightImpactType `json:"type" protobuf:"bytes,2,opt,name=type,casttype=InsightImpactType"`

	// summary is a one-line statement for tables.
	// +k8s:validation:minLength=1
	// +kubebuilder:validation:MinLength=1
	// +k8s:validation:maxLength=256
	// +kubebuilder:validation:MaxLength=256
	// +required
	Summary string `json:"summary" protobuf:"bytes,3,opt,name=summary"`

	// description is a longer explanation, about a paragraph.
	// +k8s:validation:maxLength=4096
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
}

// InsightImpactLevel is the severity of a problem.
// +enum
// +k8s:enum
type InsightImpactLevel string

const (
	// UnknownImpactLevel means the severity is not known.
	UnknownImpactLevel InsightImpactLevel = "Unknown"
	// InfoImpactLevel is purely informational, or good news such as a recovery.
	InfoImpactLevel InsightImpactLevel = "Info"
	// WarningImpactLevel is a small or passing problem that needs no action.
	WarningImpactLevel InsightImpactLevel = "Warning"
	// ErrorImpactLevel needs the administrator's action.
	ErrorImpactLevel InsightImpactLevel = "Error"
	// CriticalInfoLevel is a rare risk of data loss or cluster loss. (The name
	// is upstream's.)
	CriticalInfoLevel InsightImpactLevel = "Critical"
)

// InsightImpactType is what a problem affects.
// +enum
// +k8s:enum
type InsightImpactType string

const (
	// NoneImpactType affects nothing concrete.
	NoneImpactType InsightImpactType = "None"
	// UnknownImpactType means what is affected cannot be determined.
	UnknownImpactType InsightImpactType = "Unknown"
	// ApiAvailabilityImpactType means the cluster API may be unavailable.
	ApiAvailabilityImpactType InsightImpactType = "API Availability"
	// ClusterCapacityImpactType means less capacity for workloads.
	ClusterCapacityImpactType InsightImpactType = "Cluster Capacity"
	// ApplicationAvailabilityImpactType means user workloads may be degraded.
	ApplicationAvailabilityImpactType InsightImpactType = "Application Availability"
	// ApplicationOutageImpactType means user workloads are down.
	ApplicationOutageImpactType InsightImpactType = "Application Outage"
	// DataLossImpactType means data may be lost.
	DataLossImpactType InsightImpactType = "Data Loss"
	// UpdateSpeedImpactType means the update is slower than expected.
	UpdateSpeedImpactType InsightImpactType = "Update Speed"
	// UpdateStalledImpactType means the update is not proceeding.
	UpdateStalledImpactType InsightImpactType = "Update Stalled"
)

// InsightRemediation is where to read how to fix or avoid a problem.
type InsightRemediation struct {
	// reference is a link to documentation or a knowledge-base article.
	// +k8s:validation:maxLength=512
	// +kubebuilder:validation:MaxLength=512
	// +required
	Reference string `json:"reference" protobuf:"bytes,1,opt,name=reference"`

	// estimatedFinish is when the situation is expected to clear on its own, if
	// that can be told.
	// +optional
	EstimatedFinish *metav1.Time `json:"estimatedFinish,omitempty" protobuf:"bytes,2,opt,name=estimatedFinish"`
}
