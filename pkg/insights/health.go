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

package insights

import (
	"time"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Limits of the API (docs/api.md) that the engine must respect.
const (
	maxConditionMessage     = 32768
	maxSummary              = 256
	maxDescription          = 4096
	maxReference            = 512
	maxNodeMessage          = 100
	maxVersion              = 64
	maxMetadataValue        = 32
	maxNodeCount            = 4096
	maxWorkerPools          = 32
	maxInformersPerList     = 16
	maxControlPlaneInsights = 128
	maxWorkerPoolInsights   = 1024
	maxNodeName             = 253
)

// Remediation references oc uses (docs/insights.md#health-rules).
const (
	refCODown   = "https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/ClusterOperatorDown.md"
	refCODeg    = "https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/ClusterOperatorDegraded.md"
	refHistory  = "https://docs.openshift.com/container-platform/latest/updating/troubleshooting_updates/gathering-data-cluster-update.html#gathering-clusterversion-history-cli_troubleshooting_updates"
	refMCO      = "https://docs.openshift.com/container-platform/latest/post_installation_configuration/machine-configuration-tasks.html#understanding-the-machine-config-operator"
	refPaused   = "https://docs.openshift.com/container-platform/latest/support/troubleshooting/troubleshooting-operator-issues.html#troubleshooting-disabling-autoreboot-mco_troubleshooting-operator-issues"
	refAPIIntro = "https://github.com/openshift/enhancements/blob/master/enhancements/update/update-status-api.md"
	// refHostedNodePools is HyperShift's reference on NodePool rollouts.
	refHostedNodePools = "https://github.com/openshift/hypershift/blob/main/docs/content/reference/nodepool-rollouts.md"
)

// Resource references used in health scopes.
var (
	groupConfig = "config.openshift.io"
	groupMCO    = "machineconfiguration.openshift.io"
)

func cvRef(name string) v1alpha1.ResourceRef {
	return v1alpha1.ResourceRef{Group: groupConfig, Resource: "clusterversions", Name: name}
}

func coRef(name string) v1alpha1.ResourceRef {
	return v1alpha1.ResourceRef{Group: groupConfig, Resource: "clusteroperators", Name: name}
}

func mcpRef(name string) v1alpha1.ResourceRef {
	return v1alpha1.ResourceRef{Group: groupMCO, Resource: "machineconfigpools", Name: name}
}

func nodeRef(name string) v1alpha1.ResourceRef {
	return v1alpha1.ResourceRef{Resource: "nodes", Name: name}
}

// healthItem is a Health insight on its way into the object, with what the
// assembly needs to place and order it.
type healthItem struct {
	uid      string
	acquired time.Time
	insight  *v1alpha1.HealthStatusInsight
	// pool is the MachineConfigPool a pool-level insight belongs to.
	pool string
	// flat is the item's last entry of Result.Insights (see flatInsight).
	flat *Insight
}

// flatInsight returns h's entry of Result.Insights under informer and pool.
// The entry stays in h, so an unchanged health insight is the same Insight in
// every Result while it is listed in the same place (the view then knows it
// by its pointer) and costs no allocation.
func (h *healthItem) flatInsight(informer, pool string) *Insight {
	if f := h.flat; f != nil && f.Informer == informer && f.Pool == pool {
		return f
	}
	h.flat = &Insight{UID: h.uid, AcquiredAt: wire(h.acquired), Scope: h.insight.Scope.Type, Pool: pool,
		Informer: informer, Health: h.insight}
	return h.flat
}

// newHealth builds a Health insight. It returns nil when oc would drop the
// insight as incomplete (empty summary, description or reference,
// docs/insights.md#complete-insights-only). Texts are shortened to the API's
// limits.
func newHealth(kind v1alpha1.HealthKind, subject string, ref *v1alpha1.ResourceRef, scope v1alpha1.ScopeType,
	started time.Time, level v1alpha1.InsightImpactLevel, impact v1alpha1.InsightImpactType,
	summary, description, reference string) *healthItem {
	if summary == "" || description == "" || reference == "" {
		return nil
	}
	h := &v1alpha1.HealthStatusInsight{
		StartedAt: wire(started),
		Scope:     v1alpha1.InsightScope{Type: scope},
		Impact: v1alpha1.InsightImpact{
			Level:       level,
			Type:        impact,
			Summary:     conventions.Truncate(summary, maxSummary),
			Description: conventions.Truncate(description, maxDescription),
		},
		Remediation: v1alpha1.InsightRemediation{Reference: reference},
	}
	uid := string(kind)
	if ref != nil {
		if conventions.IsDNSSubdomain(ref.Name) {
			h.Scope.Resources = []v1alpha1.ResourceRef{*ref}
		}
		uid = conventions.UID(string(kind), ref.Group, ref.Resource, ref.Namespace, ref.Name)
	} else if subject != "" {
		uid = conventions.UID(string(kind), "", "", "", subject)
	}
	return &healthItem{uid: uid, insight: h, acquired: started}
}
