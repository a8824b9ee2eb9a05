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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Insight is one insight with everything needed to serve it as an object of
// its own (docs/api-decisions.md#per-insight-resources). Result.Insights
// lists every insight the cluster has, without the limits UpdateStatus obeys.
// An Insight is never modified once listed: the same pointer in a later
// Result means the same insight, unchanged.
type Insight struct {
	// UID is the uid the insight carries inside UpdateStatus.
	UID string
	// AcquiredAt is the insight's acquiredAt.
	AcquiredAt metav1.Time
	// Scope is where the insight applies.
	Scope v1alpha1.ScopeType
	// Pool is the MachineConfigPool the insight is about; empty when none.
	Pool string
	// Informer is the name of the informer that produced the insight.
	Informer string
	// External marks the insight of an external informer (an
	// UpdateInformer): its uid, not its subject, names its object.
	External bool

	// Exactly one of the following is set. They are shared with the Engine
	// (see Result): never modify them. A pointer that is the same as in an
	// earlier Result points to the same, unchanged content.
	ClusterVersion    *v1alpha1.ClusterVersionStatusInsight
	ClusterOperator   *v1alpha1.ClusterOperatorStatusInsight
	MachineConfigPool *v1alpha1.MachineConfigPoolStatusInsight
	Node              *v1alpha1.NodeStatusInsight
	Health            *v1alpha1.HealthStatusInsight
}

// flatInsights lists every insight of the evaluation, uncapped: the cluster
// version, the operators, every pool (the ones UpdateStatus leaves out
// included) with its nodes, and every health insight. The health insights
// that report UpdateStatus's own truncation are not among them: nothing is
// left out here.
func (a *assembly) flatInsights() []*Insight {
	n := len(a.cos) + len(a.alerts) + len(a.cpHealth) + len(a.poolHealth) + 1
	for _, p := range a.pools {
		n += 1 + len(p.nodes) + len(p.health)
	}
	out := make([]*Insight, 0, n)
	health := func(h *healthItem, informer string) {
		out = append(out, h.flatInsight(informer, h.pool))
	}
	if in := a.cv.insight; in != nil {
		out = append(out, &Insight{UID: refUID(uidPrefixCV, in.Resource), AcquiredAt: wire(a.cv.acquired), Scope: v1alpha1.ControlPlaneScope,
			Informer: v1alpha1.InformerControlPlane, ClusterVersion: in})
	}
	for _, co := range a.cos {
		out = append(out, &Insight{UID: co.uid, AcquiredAt: wire(co.acquired), Scope: v1alpha1.ControlPlaneScope,
			Informer: v1alpha1.InformerControlPlane, ClusterOperator: co.insight})
	}
	for _, h := range a.cpHealth {
		health(h, v1alpha1.InformerControlPlane)
	}
	for _, h := range a.alerts {
		health(h, v1alpha1.InformerAlerts)
	}
	for _, h := range a.serverHealth {
		health(h, v1alpha1.InformerServer)
	}
	for _, h := range a.poolHealth {
		health(h, v1alpha1.InformerNodes)
	}
	for _, p := range a.pools {
		scope := v1alpha1.WorkerPoolScope
		if p.info.master {
			scope = v1alpha1.ControlPlaneScope
		}
		if p.insight != nil {
			out = append(out, &Insight{UID: p.info.uid(), AcquiredAt: wire(p.acquired), Scope: scope, Pool: p.info.name,
				Informer: v1alpha1.InformerNodes, MachineConfigPool: p.insight})
		}
		for _, ent := range p.nodes {
			// Nodes are most of the list: each keeps its entry while its
			// facts and pool stay, so an unchanged node costs a pointer
			// read from its memory, not from its facts.
			if ent.flat == nil || ent.flatPool != p.info.name {
				f := ent.facts
				if f == nil || f.insight == nil {
					continue
				}
				ent.flat = &Insight{UID: f.uid, AcquiredAt: f.acquiredAt, Scope: f.insight.Scope, Pool: p.info.name,
					Informer: v1alpha1.InformerNodes, Node: f.insight}
				ent.flatPool = p.info.name
			}
			out = append(out, ent.flat)
		}
		for _, h := range p.health {
			pool := h.pool
			if pool == "" {
				pool = p.info.name
			}
			out = append(out, h.flatInsight(v1alpha1.InformerNodes, pool))
		}
	}
	for _, c := range a.external {
		out = append(out, c.flat...)
	}
	return out
}
