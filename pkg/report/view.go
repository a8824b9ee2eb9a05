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

package report

import (
	"slices"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// view is an UpdateStatus regrouped the way the report reads it. It holds
// nothing that is not in the object.
type view struct {
	cv *v1alpha1.ClusterVersionStatusInsight
	// cpUpdating is status.controlPlane.conditions[Updating].
	cpUpdating *metav1.Condition
	// operators are the ClusterOperator insights by name.
	operators []*v1alpha1.ClusterOperatorStatusInsight
	// master is the control-plane pool, nil when the object has none.
	master *poolView
	// workers are the other pools in pool order (see newView).
	workers []*poolView
	// poolRank is each pool's place in pool order, the control-plane pool
	// included; it breaks ties between the health insights of nodes.
	poolRank map[string]int
	// health are the Health insights of every scope, each uid once.
	health []healthEntry
	// nodePool maps a node name to its pool name.
	nodePool map[string]string
	// blockedBy maps a node name to the PodDisruptionBudgets
	// ("namespace/name", sorted) that external informers' Health insights
	// say hold its drain (conventions.DrainBlockOf); empty without them.
	blockedBy map[string][]string
}

type poolView struct {
	name  string
	mcp   *v1alpha1.MachineConfigPoolStatusInsight
	nodes []*v1alpha1.NodeStatusInsight
}

type healthEntry struct {
	uid     string
	insight *v1alpha1.HealthStatusInsight
	// external is the name of the external informer that reports the
	// insight; empty for the server's own informers.
	external string
}

// summary returns the count of a node summary type.
func (p *poolView) summary(t v1alpha1.NodeSummaryType) int {
	if p.mcp == nil {
		return 0
	}
	for _, s := range p.mcp.Summaries {
		if s.Type == t {
			return int(s.Count)
		}
	}
	return 0
}

// total is the pool's node count.
func (p *poolView) total() int {
	if p.mcp == nil {
		return len(p.nodes)
	}
	return p.summary(v1alpha1.NodesTotal)
}

func findCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// newView regroups st. Pools are in pool order: the order of order, which
// names the pools as the client read them, then by name. oc lists pools in
// the order it reads the MachineConfigPools: by name from an API server (the
// order of status.workerPools), in file order from object dumps.
func newView(st *v1alpha1.UpdateStatusStatus, order []string) *view {
	v := &view{nodePool: map[string]string{}, blockedBy: map[string][]string{}}
	pools := map[string]*poolView{}
	pool := func(name string) *poolView {
		p := pools[name]
		if p == nil {
			p = &poolView{name: name}
			pools[name] = p
		}
		return p
	}
	// An insight listed in several places is shown once: the server's own
	// by uid, an external informer's by informer and uid (its uids are its
	// own choice, and may repeat another informer's).
	seen := map[string]bool{}
	addHealth := func(informer, uid string, h *v1alpha1.HealthStatusInsight) {
		e := healthEntry{uid: uid, insight: h}
		key := uid
		if conventions.IsExternalInformer(informer) {
			e.external, key = informer, informer+"/"+uid
		}
		if h == nil || seen[key] {
			return
		}
		seen[key] = true
		v.health = append(v.health, e)
		if b, ok := conventions.DrainBlockOf(informer, h); ok {
			for _, node := range b.Nodes {
				v.blockedBy[node] = append(v.blockedBy[node], b.Budgets...)
			}
		}
	}
	masterName := ""
	addNode := func(n *v1alpha1.NodeStatusInsight) {
		if n == nil {
			return
		}
		p := pool(n.PoolResource.Name)
		p.nodes = append(p.nodes, n)
		v.nodePool[n.Name] = n.PoolResource.Name
		if n.Scope == v1alpha1.ControlPlaneScope {
			masterName = n.PoolResource.Name
		}
	}
	addPool := func(m *v1alpha1.MachineConfigPoolStatusInsight) {
		if m == nil {
			return
		}
		pool(m.Name).mcp = m
		if m.Scope == v1alpha1.ControlPlaneScope {
			masterName = m.Name
		}
	}
	if cp := st.ControlPlane; cp != nil {
		v.cpUpdating = findCondition(cp.Conditions, string(v1alpha1.ControlPlaneUpdating))
		if cp.PoolResource != nil {
			masterName = cp.PoolResource.Name
			pool(masterName)
		}
		for _, inf := range cp.Informers {
			conventions.EachInsight(inf.Name, inf.Insights, conventions.ControlPlaneHealth, addHealth, func(in *v1alpha1.ControlPlaneInsight) {
				switch u := &in.Insight; {
				case u.ClusterVersionStatusInsight != nil:
					if v.cv == nil {
						v.cv = u.ClusterVersionStatusInsight
					}
				case u.ClusterOperatorStatusInsight != nil:
					v.operators = append(v.operators, u.ClusterOperatorStatusInsight)
				case u.MachineConfigPoolStatusInsight != nil:
					addPool(u.MachineConfigPoolStatusInsight)
				case u.NodeStatusInsight != nil:
					addNode(u.NodeStatusInsight)
				}
			})
		}
	}
	for _, wp := range st.WorkerPools {
		pool(wp.Name)
		for _, inf := range wp.Informers {
			conventions.EachInsight(inf.Name, inf.Insights, conventions.WorkerPoolHealth, addHealth, func(in *v1alpha1.WorkerPoolInsight) {
				switch u := &in.Insight; {
				case u.MachineConfigPoolStatusInsight != nil:
					addPool(u.MachineConfigPoolStatusInsight)
				case u.NodeStatusInsight != nil:
					addNode(u.NodeStatusInsight)
				}
			})
		}
	}
	sort.SliceStable(v.operators, func(i, j int) bool { return v.operators[i].Name < v.operators[j].Name })
	for node, budgets := range v.blockedBy {
		slices.Sort(budgets)
		v.blockedBy[node] = slices.Compact(budgets)
	}
	if masterName != "" {
		v.master = pools[masterName]
	}
	names := make([]string, 0, len(pools))
	for name := range pools {
		if name != "" {
			names = append(names, name)
		}
	}
	v.poolRank = rankPools(names, order)
	for name, p := range pools {
		if p != v.master && name != "" {
			v.workers = append(v.workers, p)
		}
	}
	sort.Slice(v.workers, func(i, j int) bool { return v.poolRank[v.workers[i].name] < v.poolRank[v.workers[j].name] })
	return v
}

// rankPools places names in pool order: first those that order names, in
// its order, then the others by name.
func rankPools(names, order []string) map[string]int {
	listed := make(map[string]int, len(order))
	for i, name := range order {
		if _, dup := listed[name]; !dup {
			listed[name] = i
		}
	}
	sort.Slice(names, func(i, j int) bool {
		oi, iok := listed[names[i]]
		oj, jok := listed[names[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return names[i] < names[j]
	})
	rank := make(map[string]int, len(names))
	for i, name := range names {
		rank[name] = i
	}
	return rank
}

// updating reports whether the cluster is updating
// (docs/insights.md#what-a-client-derives): the control plane says so, or a
// worker pool with nodes is not completely updated.
func (v *view) updating() bool {
	cond := v.cpUpdating
	if v.cv != nil {
		if c := findCondition(v.cv.Conditions, string(v1alpha1.ClusterVersionStatusInsightUpdating)); c != nil {
			cond = c
		}
	}
	if cond != nil && cond.Status == metav1.ConditionTrue {
		return true
	}
	if v.cv == nil && (cond == nil || cond.Status == metav1.ConditionUnknown) {
		// Without a ClusterVersion insight nothing says the cluster is
		// not updating: show what is known, with the health insights that
		// explain the gap (oc stops with an error here).
		return true
	}
	for _, p := range v.workers {
		if p.mcp != nil && p.total() > 0 && p.summary(v1alpha1.NodesOutdated) > 0 {
			return true
		}
	}
	return false
}
