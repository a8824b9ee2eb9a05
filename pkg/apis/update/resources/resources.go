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

// Package resources names the resources of update.openshift.io: for each
// kind, its plural and singular resource names and its kubectl short name,
// and the five per-insight kinds in the order the server keeps them. The
// registry, the request filters, the CLI and the web client learn the names
// here; the registry builds each kind's objects from the scheme by the kind
// named here.
package resources

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// UpdateStatusName is the name of the one UpdateStatus, a cluster-scoped
// singleton.
const UpdateStatusName = "cluster"

// Names are the names of one resource.
type Names struct {
	// Kind is the API kind, e.g. NodeProgressInsight; its list is
	// Kind+"List".
	Kind string
	// Resource is the plural resource name, e.g. nodeprogressinsights.
	Resource string
	// Singular is the singular resource name, e.g. nodeprogressinsight.
	Singular string
	// ShortName is the kubectl short name, e.g. npi.
	ShortName string
}

// GroupResource returns the resource in update.openshift.io.
func (n Names) GroupResource() schema.GroupResource { return v1alpha1.Resource(n.Resource) }

// UpdateStatus names the updatestatuses resource.
var UpdateStatus = Names{Kind: "UpdateStatus", Resource: "updatestatuses", Singular: "updatestatus", ShortName: "us"}

// UpdateReadiness names the updatereadinesses resource: the singleton
// "cluster", whether the cluster is ready to update.
var UpdateReadiness = Names{Kind: "UpdateReadiness", Resource: "updatereadinesses", Singular: "updatereadiness", ShortName: "ur"}

// UpdateCandidate names the updatecandidates resource: one per release the
// cluster could update to.
var UpdateCandidate = Names{Kind: "UpdateCandidate", Resource: "updatecandidates", Singular: "updatecandidate", ShortName: "uc"}

// InsightKind is one of the five per-insight kinds
// (docs/api-decisions.md#per-insight-resources).
type InsightKind int

// The per-insight kinds, in the order the server keeps them.
const (
	ClusterVersionInsights InsightKind = iota
	ClusterOperatorInsights
	MachineConfigPoolInsights
	NodeInsights
	HealthInsights
	// NumInsightKinds is the number of per-insight kinds.
	NumInsightKinds
)

// insightNames are indexed by InsightKind.
var insightNames = [NumInsightKinds]Names{
	ClusterVersionInsights:    insight("ClusterVersionProgressInsight", "cvpi"),
	ClusterOperatorInsights:   insight("ClusterOperatorProgressInsight", "copi"),
	MachineConfigPoolInsights: insight("MachineConfigPoolProgressInsight", "mcppi"),
	NodeInsights:              insight("NodeProgressInsight", "npi"),
	HealthInsights:            insight("HealthInsight", "hi"),
}

// insight derives the resource names of a per-insight kind from the kind.
func insight(kind, shortName string) Names {
	singular := strings.ToLower(kind)
	return Names{Kind: kind, Resource: singular + "s", Singular: singular, ShortName: shortName}
}

// Names returns the names of kind k's resource; the zero Names for a value
// that is no kind.
func (k InsightKind) Names() Names {
	if k < 0 || k >= NumInsightKinds {
		return Names{}
	}
	return insightNames[k]
}

// Kind returns the API kind, e.g. NodeProgressInsight.
func (k InsightKind) Kind() string { return k.Names().Kind }

// Resource returns the plural resource name, e.g. nodeprogressinsights.
func (k InsightKind) Resource() string { return k.Names().Resource }

// ShortName returns the kubectl short name, e.g. npi.
func (k InsightKind) ShortName() string { return k.Names().ShortName }

// String implements fmt.Stringer: the kind.
func (k InsightKind) String() string { return k.Kind() }

// HostedClusterUpdateStatus names the hostedclusterupdatestatuses resource:
// one per HostedCluster, in its namespace.
var HostedClusterUpdateStatus = Names{Kind: "HostedClusterUpdateStatus", Resource: "hostedclusterupdatestatuses", Singular: "hostedclusterupdatestatus", ShortName: "hcus"}

// Hosted returns the names of the namespaced twin of kind k that serves the
// same insights of hosted clusters: its kind is k's prefixed with Hosted, its
// short name k's prefixed with h (HostedNodeProgressInsight, hnpi).
func (k InsightKind) Hosted() Names {
	n := k.Names()
	if n.Kind == "" {
		return Names{}
	}
	return insight("Hosted"+n.Kind, "h"+n.ShortName)
}

// All returns the names of every resource of update.openshift.io:
// UpdateStatus, the per-insight kinds in their order, the readiness kinds,
// then HostedClusterUpdateStatus and the hosted per-insight kinds.
func All() []Names {
	out := make([]Names, 0, 4+2*NumInsightKinds)
	out = append(out, UpdateStatus)
	out = append(out, insightNames[:]...)
	out = append(out, UpdateReadiness, UpdateCandidate, HostedClusterUpdateStatus)
	for k := range NumInsightKinds {
		out = append(out, k.Hosted())
	}
	return out
}

// Find returns the resource s names: its kind, plural, singular or short
// name, in any case.
func Find(s string) (Names, bool) {
	for _, n := range All() {
		if strings.EqualFold(s, n.Kind) || strings.EqualFold(s, n.Resource) || strings.EqualFold(s, n.Singular) || strings.EqualFold(s, n.ShortName) {
			return n, true
		}
	}
	return Names{}, false
}

// InsightKindOf returns the per-insight kind named kind, e.g.
// NodeProgressInsight.
func InsightKindOf(kind string) (InsightKind, bool) {
	for k, n := range insightNames {
		if n.Kind == kind {
			return InsightKind(k), true
		}
	}
	return NumInsightKinds, false
}
