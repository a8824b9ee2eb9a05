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
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// assembly collects one evaluation's pieces and places them into the
// object, ordered and within the API's limits as
// docs/insights.md#where-insights-go describes.
type assembly struct {
	now  time.Time
	next time.Time

	cv     cvResult
	cos    []coItem
	alerts []*healthItem
	// cpHealth are the control plane's own health insights (informer cpi).
	cpHealth []*healthItem
	// poolHealth are pool-level insights that name their pool.
	poolHealth []*healthItem
	pools      []*poolResult
	// serverHealth are the server's insights about the external informers
	// (informer update-status); external are the accepted, current
	// contributions by informer name, and verdicts the verdict on every
	// UpdateInformer.
	serverHealth []*healthItem
	external     []*contribution
	verdicts     []Verdict

	truncations []Truncation
}

// item is one insight of a small list on its way into the object.
type item struct {
	uid      string
	acquired metav1.Time
	typ      v1alpha1.InsightType
	cv       *v1alpha1.ClusterVersionStatusInsight
	co       *v1alpha1.ClusterOperatorStatusInsight
	mcp      *v1alpha1.MachineConfigPoolStatusInsight
	node     *v1alpha1.NodeStatusInsight
	health   *v1alpha1.HealthStatusInsight
	// rank orders items by importance for truncation (lower is kept first).
	rank int
}

func healthToItem(h *healthItem) item {
	return item{uid: h.uid, acquired: wire(h.acquired), typ: v1alpha1.HealthInsightType, health: h.insight, rank: 1}
}

func nodeToItem(ent *nodeEntry) item {
	f := ent.facts
	return item{uid: f.uid, acquired: f.acquiredAt, typ: v1alpha1.NodeStatusInsightType, node: f.insight, rank: 10 + f.rank}
}

func (it *item) controlPlane() v1alpha1.ControlPlaneInsight {
	return v1alpha1.ControlPlaneInsight{UID: it.uid, AcquiredAt: it.acquired, Insight: v1alpha1.ControlPlaneInsightUnion{
		Type:                           it.typ,
		ClusterVersionStatusInsight:    it.cv,
		ClusterOperatorStatusInsight:   it.co,
		MachineConfigPoolStatusInsight: it.mcp,
		NodeStatusInsight:              it.node,
		HealthInsight:                  it.health,
	}}
}

func (it *item) workerPool() v1alpha1.WorkerPoolInsight {
	return v1alpha1.WorkerPoolInsight{UID: it.uid, AcquiredAt: it.acquired, Insight: v1alpha1.WorkerPoolInsightUnion{
		Type:                           it.typ,
		MachineConfigPoolStatusInsight: it.mcp,
		NodeStatusInsight:              it.node,
		HealthInsight:                  it.health,
	}}
}

// healthLess orders health insights for truncation: higher level,
// then newer, then uid.
func healthLess(a, b *v1alpha1.HealthStatusInsight) bool {
	la, lb := conventions.LevelRank(a.Impact.Level), conventions.LevelRank(b.Impact.Level)
	if la != lb {
		return la > lb
	}
	return a.StartedAt.After(b.StartedAt.Time)
}

// dedupeSorted drops items whose uid repeats the previous one's.
func dedupeSorted(items []item) []item {
	out := items[:0]
	for i, it := range items {
		if i > 0 && items[i-1].uid == it.uid {
			continue
		}
		out = append(out, it)
	}
	return out
}

// fit truncates items to limit by importance
// (docs/insights.md#where-insights-go), adding a health insight that says how
// many were left out, and sorts the result by type and uid. where names the
// list for messages.
func (a *assembly) fit(items []item, limit int, where string, scope v1alpha1.ScopeType) []item {
	sortItems(items)
	items = dedupeSorted(items)
	if len(items) > limit {
		sort.SliceStable(items, func(i, j int) bool {
			x, y := &items[i], &items[j]
			if x.rank != y.rank {
				return x.rank < y.rank
			}
			if x.health != nil && y.health != nil {
				if healthLess(x.health, y.health) {
					return true
				}
				if healthLess(y.health, x.health) {
					return false
				}
			}
			return x.uid < y.uid
		})
		omitted := len(items) - (limit - 1)
		items = append(items[:limit-1:limit-1], healthToItem(omittedHealth(where, omitted, limit, scope)))
		a.truncations = append(a.truncations, Truncation{Where: where, Omitted: omitted})
		sortItems(items)
	}
	return items
}

func sortItems(items []item) {
	slices.SortStableFunc(items, func(x, y item) int {
		if c := cmp.Compare(conventions.TypeOrder(x.typ), conventions.TypeOrder(y.typ)); c != 0 {
			return c
		}
		return strings.Compare(x.uid, y.uid)
	})
}

// omittedHealth reports a truncated list.
func omittedHealth(where string, omitted, limit int, scope v1alpha1.ScopeType) *healthItem {
	h := newHealth(v1alpha1.HealthInsightsOmitted, where, nil, scope, time.Time{}, v1alpha1.InfoImpactLevel,
		v1alpha1.NoneImpactType,
		fmt.Sprintf("%d insights were left out of %s to stay within the API's limit of %d", omitted, where, limit),
		"The list has more insights than the API allows. It keeps the pool or cluster version insight, all health "+
			"insights, then node insights ordered by state (degraded, unavailable, updating, draining or rebooting, "+
			"paused, pending, completed) and name; the pool summaries still count every node.",
		refAPIIntro)
	h.uid = conventions.UID(string(v1alpha1.HealthInsightsOmitted), "", "", "", strings.ReplaceAll(where, "/", "-"))
	return h
}

// build places everything into the status.
func (a *assembly) build(cv *ControlPlane) Result {
	master, workers, omitted := a.listedPools()
	placed := make(map[string]bool, len(workers))
	for _, p := range workers {
		placed[p.info.name] = true
	}
	st := v1alpha1.UpdateStatusStatus{ControlPlane: a.controlPlane(cv, master, a.controlPlaneNodeItems(master, placed, omitted))}
	for _, p := range workers {
		st.WorkerPools = append(st.WorkerPools, a.workerPool(p))
	}
	return Result{Status: st, NextChange: a.next, Truncations: a.truncations}
}

// listedPools sorts the pools into the master pool and the worker pools
// that become workerPools entries: at most maxWorkerPools (the pool worker
// first, then the largest), by name. The Health insight that says which
// were left out, if any, is returned for the control plane's node list.
func (a *assembly) listedPools() (master *poolResult, workers []*poolResult, omitted []item) {
	for _, p := range a.pools {
		switch {
		case p.info.master:
			master = p
		case conventions.IsDNSSubdomain(p.info.name):
			workers = append(workers, p)
		}
	}
	if len(workers) <= maxWorkerPools {
		return master, workers, nil
	}
	sort.SliceStable(workers, func(i, j int) bool {
		wi, wj := workers[i].info.name == poolWorker, workers[j].info.name == poolWorker
		if wi != wj {
			return wi
		}
		if workers[i].total != workers[j].total {
			return workers[i].total > workers[j].total
		}
		return workers[i].info.name < workers[j].info.name
	})
	left := workers[maxWorkerPools:]
	workers = workers[:maxWorkerPools]
	sort.Slice(workers, func(i, j int) bool { return workers[i].info.name < workers[j].info.name })
	names := make([]string, len(left))
	for i, p := range left {
		names[i] = p.info.name
	}
	if h := newHealth(v1alpha1.HealthPoolsOmitted, "", nil, v1alpha1.WorkerPoolScope, time.Time{},
		v1alpha1.InfoImpactLevel, v1alpha1.NoneImpactType,
		fmt.Sprintf("%d worker pools were left out to stay within the API's limit of %d", len(left), maxWorkerPools),
		"Left out (the pools with the fewest nodes): "+strings.Join(names, ", "), refAPIIntro); h != nil {
		omitted = append(omitted, healthToItem(h))
	}
	a.truncations = append(a.truncations, Truncation{Where: "workerPools", Omitted: len(left)})
	return master, workers, omitted
}

// controlPlaneNodeItems lists the control plane's nodes informer: first
// items (the pools left out), the pool-level health of pools not placed
// in workerPools (docs/insights.md#where-insights-go: no pool can be
// identified), then the master pool, its nodes and its health.
func (a *assembly) controlPlaneNodeItems(master *poolResult, placed map[string]bool, items []item) []item {
	for _, h := range a.poolHealth {
		if !placed[h.pool] {
			items = append(items, healthToItem(h))
		}
	}
	for _, p := range a.pools {
		if !p.info.master && !placed[p.info.name] {
			for _, h := range p.health {
				items = append(items, healthToItem(h))
			}
		}
	}
	if master == nil {
		return items
	}
	if master.insight != nil {
		items = append(items, item{uid: master.info.uid(), acquired: wire(master.acquired),
			typ: v1alpha1.MachineConfigPoolStatusInsightType, mcp: master.insight})
	}
	for _, ent := range master.nodes {
		items = append(items, nodeToItem(ent))
	}
	for _, h := range master.health {
		items = append(items, healthToItem(h))
	}
	return items
}

// controlPlane builds status.controlPlane: its Updating condition, its
// resources, and its informers (alerts, the control plane's ClusterVersion
// and ClusterOperators, nodeItems, the server's health, then the external
// informers), each fitted to the API's limit.
func (a *assembly) controlPlane(cv *ControlPlane, master *poolResult, nodeItems []item) *v1alpha1.ControlPlane {
	cp := &v1alpha1.ControlPlane{Conditions: []metav1.Condition{a.cv.updating}}
	cp.Conditions[0].Type = string(v1alpha1.ControlPlaneUpdating)
	if cv != nil && conventions.IsDNSSubdomain(cv.Name) {
		r := cv.ref()
		cp.Resource = &r
	}
	if master != nil {
		cp.PoolResource = &v1alpha1.PoolResourceRef{ResourceRef: master.info.ref}
	}
	var cpiItems []item
	if in := a.cv.insight; in != nil {
		cpiItems = append(cpiItems, item{uid: refUID(uidPrefixCV, in.Resource), acquired: wire(a.cv.acquired),
			typ: v1alpha1.ClusterVersionStatusInsightType, cv: in})
	}
	for _, co := range a.cos {
		rank := 4
		if conds := co.insight.Conditions; conds[0].Status == metav1.ConditionTrue {
			rank = 2
		} else if conds[1].Status != metav1.ConditionTrue {
			rank = 3
		}
		cpiItems = append(cpiItems, item{uid: co.uid, acquired: wire(co.acquired), typ: v1alpha1.ClusterOperatorStatusInsightType,
			co: co.insight, rank: rank})
	}
	for _, h := range a.cpHealth {
		cpiItems = append(cpiItems, healthToItem(h))
	}
	var alertItems, serverItems []item
	for _, h := range a.alerts {
		alertItems = append(alertItems, healthToItem(h))
	}
	for _, h := range a.serverHealth {
		serverItems = append(serverItems, healthToItem(h))
	}

	informers := []struct {
		name  string
		items []item
	}{
		{v1alpha1.InformerAlerts, alertItems},
		{v1alpha1.InformerControlPlane, cpiItems},
		{v1alpha1.InformerNodes, nodeItems},
		{v1alpha1.InformerServer, serverItems},
	}
	for _, inf := range informers {
		if len(inf.items) == 0 {
			continue
		}
		items := a.fit(inf.items, maxControlPlaneInsights, "controlPlane/"+inf.name, v1alpha1.ControlPlaneScope)
		out := make([]v1alpha1.ControlPlaneInsight, len(items))
		for i := range items {
			out[i] = items[i].controlPlane()
		}
		cp.Informers = append(cp.Informers, v1alpha1.ControlPlaneInformer{Name: inf.name, Insights: out})
	}
	for _, c := range a.external {
		if len(c.controlPlane) > 0 {
			cp.Informers = append(cp.Informers, v1alpha1.ControlPlaneInformer{Name: c.informer, Insights: c.controlPlane})
		}
	}
	if len(a.external) > 0 {
		slices.SortFunc(cp.Informers, func(x, y v1alpha1.ControlPlaneInformer) int { return cmp.Compare(x.Name, y.Name) })
	}
	return cp
}

// workerPool builds the workerPools entry of p: its Updating condition,
// its nodes informer (its insights, its health and the pool-level health
// that names it) and the external informers' insights about it.
func (a *assembly) workerPool(p *poolResult) v1alpha1.Pool {
	pool := v1alpha1.Pool{
		Name:       p.info.name,
		Resource:   v1alpha1.PoolResourceRef{ResourceRef: p.info.ref},
		Conditions: []metav1.Condition{p.updating},
	}
	var health []*healthItem
	health = append(health, p.health...)
	for _, h := range a.poolHealth {
		if h.pool == p.info.name {
			health = append(health, h)
		}
	}
	if insights := a.poolInsights(p, health); len(insights) > 0 {
		pool.Informers = []v1alpha1.WorkerPoolInformer{{Name: v1alpha1.InformerNodes, Insights: insights}}
	}
	for _, c := range a.external {
		if list := c.pools[p.info.name]; len(list) > 0 {
			pool.Informers = append(pool.Informers, v1alpha1.WorkerPoolInformer{Name: c.informer, Insights: list})
		}
	}
	if len(a.external) > 0 {
		slices.SortFunc(pool.Informers, func(x, y v1alpha1.WorkerPoolInformer) int { return cmp.Compare(x.Name, y.Name) })
	}
	return pool
}

// poolInsights lists a worker pool's insights. Node lists are long, so the
// common case (everything fits) copies the memoized, sorted node insights
// without any intermediate step.
func (a *assembly) poolInsights(p *poolResult, health []*healthItem) []v1alpha1.WorkerPoolInsight {
	st := p.state
	if st != nil && st.out != nil && !st.dirty && st.outMCP == p.insight && sameHealth(st.outHealth, health) {
		if st.outTrunc != nil {
			a.truncations = append(a.truncations, *st.outTrunc)
		}
		return st.out
	}
	truncations := len(a.truncations)
	out := a.buildPoolInsights(p, health)
	if st != nil {
		st.out, st.outMCP, st.outHealth, st.outTrunc = out, p.insight, append([]*healthItem(nil), health...), nil
		if len(a.truncations) > truncations {
			t := a.truncations[len(a.truncations)-1]
			st.outTrunc = &t
		}
	}
	return out
}

// sameHealth reports whether two lists hold the same health insights.
func sameHealth(a, b []*healthItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		if a[i].uid != b[i].uid || !a[i].acquired.Equal(b[i].acquired) || !reflect.DeepEqual(a[i].insight, b[i].insight) {
			return false
		}
	}
	return true
}

// buildPoolInsights builds a worker pool's informer list.
func (a *assembly) buildPoolInsights(p *poolResult, health []*healthItem) []v1alpha1.WorkerPoolInsight {
	hItems := make([]item, 0, len(health))
	for _, h := range health {
		hItems = append(hItems, healthToItem(h))
	}
	sortItems(hItems)
	hItems = dedupeSorted(hItems)
	total := len(p.nodes) + len(hItems)
	if p.insight != nil {
		total++
	}
	var quota *[nodeRanks]int
	if total > maxWorkerPoolInsights {
		hItems, quota = a.truncatePool(p, hItems)
		total = maxWorkerPoolInsights
	}
	out := make([]v1alpha1.WorkerPoolInsight, 0, total)
	if p.insight != nil {
		out = append(out, v1alpha1.WorkerPoolInsight{UID: p.info.uid(), AcquiredAt: wire(p.acquired),
			Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.MachineConfigPoolStatusInsightType, MachineConfigPoolStatusInsight: p.insight}})
	}
	tmpl, ranks := p.state.tmpl, p.state.ranks
	if quota == nil {
		out = append(out, tmpl...)
	} else {
		// Copy runs of kept nodes in bulk.
		start := 0
		for i, r := range ranks {
			if quota[r] > 0 {
				quota[r]--
				continue
			}
			out = append(out, tmpl[start:i]...)
			start = i + 1
		}
		out = append(out, tmpl[start:]...)
	}
	for i := range hItems {
		out = append(out, hItems[i].workerPool())
	}
	return out
}

// nodeRanks is the number of node importance ranks (nodeFacts.rank).
const nodeRanks = 7

// truncatePool chooses what a worker pool's informer keeps when it has more
// insights than the API allows (docs/insights.md#where-insights-go), without
// sorting the node list: the pool insight, the health insights (most severe and
// newest first), then as many nodes of each rank, most important rank first, as
// still fit, in uid order. It returns the health insights to list (with the
// notice about what was left out) and how many nodes of each rank to keep.
func (a *assembly) truncatePool(p *poolResult, health []item) ([]item, *[nodeRanks]int) {
	budget := maxWorkerPoolInsights - 1
	if p.insight != nil {
		budget--
	}
	sort.SliceStable(health, func(i, j int) bool { return healthLess(health[i].health, health[j].health) })
	kept := min(len(health), budget)
	omitted := len(health) - kept
	health = health[:kept]
	budget -= kept
	var counts, quota [nodeRanks]int
	for _, r := range p.state.ranks {
		counts[r]++
	}
	for r := range counts {
		quota[r] = min(counts[r], budget)
		budget -= quota[r]
		omitted += counts[r] - quota[r]
	}
	where := "workerPools/" + p.info.name + "/" + v1alpha1.InformerNodes
	health = append(health, healthToItem(omittedHealth(where, omitted, maxWorkerPoolInsights, v1alpha1.WorkerPoolScope)))
	sortItems(health)
	a.truncations = append(a.truncations, Truncation{Where: where, Omitted: omitted})
	return health, &quota
}
