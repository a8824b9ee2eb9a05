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

// HealthStatusInsight reports a problem related to the update that needs the
// administrator's attention.
type HealthStatusInsight struct {
	// startedAt is when the reported situation began.
	// +required
	StartedAt metav1.Time `json:"startedAt"`

	// scope is where the problem applies and which objects are involved.
	// +required
	Scope InsightScope `json:"scope"`

	// impact is how bad the problem is and what it affects.
	// +required
	Impact InsightImpact `json:"impact"`

	// remediation is where to read how to fix or avoid the problem.
	// +required
	Remediation InsightRemediation `json:"remediation"`
}

// InsightScope is where a health insight applies.
type InsightScope struct {
	// type is the part of the cluster affected.
	// +required
	Type ScopeType `json:"type"`

	// resources are the objects involved, of any kind.
	// +listType=atomic
	// +optional
	Resources []ResourceRef `json:"resources,omitempty"`
}

// ScopeType is a part of the cluster.
type ScopeType string

// InsightImpact is how bad a problem is and what it affects.
type InsightImpact struct {
	// level is the severity.
	// +required
	Level InsightImpactLevel `json:"level"`

	// type is what suffers.
	// +required
	Type InsightImpactType `json:"type"`

	// summary is a one-line statement for tables.
	// +required
	Summary string `json:"summary"`

	// description is a longer explanation, about a paragraph.
	// +optional
	Description string `json:"description,omitempty"`
}

// InsightImpactLevel is the severity of a problem.
type InsightImpactLevel string

// InsightImpactType is what a problem affects.
type InsightImpactType string

// InsightRemediation is where to read how to fix or avoid a problem.
type InsightRemediation struct {
	// reference is a link to documentation or a knowledge-base article.
	// +required
	Reference string `json:"reference"`

	// estimatedFinish is when the situation is expected to clear on its own, if
	// that can be told.
	// +optional
	EstimatedFinish *metav1.Time `json:"estimatedFinish,omitempty"`
}
