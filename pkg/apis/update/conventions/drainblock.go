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

package conventions

import (
	"slices"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// DrainBlock is what one Health insight says holds the drain of nodes: the
// nodes and the PodDisruptionBudgets its scope names together, with the
// pods it names. Budgets and pods are "namespace/name", each list sorted
// and without repeats.
type DrainBlock struct {
	Nodes   []string
	Budgets []string
	Pods    []string
}

// DrainBlockOf reads the Health insight h that informer reports. It is
// found (ok) when informer is an external informer's and the insight's
// scope names at least one node (resource "nodes" of the core group) and
// one PodDisruptionBudget (resource "poddisruptionbudgets" of group
// "policy"): the shape of the drain informer's insights
// (docs/runbooks/drain-blocked.md), read without regard to which informer
// reports it. The server's own insights never hold a drain.
func DrainBlockOf(informer string, h *v1alpha1.HealthStatusInsight) (DrainBlock, bool) {
	var b DrainBlock
	if h == nil || !IsExternalInformer(informer) {
		return b, false
	}
	for _, r := range h.Scope.Resources {
		switch {
		case r.Group == "" && r.Resource == "nodes" && r.Name != "":
			b.Nodes = append(b.Nodes, r.Name)
		case r.Group == "" && r.Resource == "pods" && r.Name != "":
			b.Pods = append(b.Pods, r.Namespace+"/"+r.Name)
		case r.Group == "policy" && r.Resource == "poddisruptionbudgets" && r.Name != "":
			b.Budgets = append(b.Budgets, r.Namespace+"/"+r.Name)
		}
	}
	if len(b.Nodes) == 0 || len(b.Budgets) == 0 {
		return DrainBlock{}, false
	}
	for _, l := range []*[]string{&b.Nodes, &b.Budgets, &b.Pods} {
		slices.Sort(*l)
		*l = slices.Compact(*l)
	}
	return b, true
}
