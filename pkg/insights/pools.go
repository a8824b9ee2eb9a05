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
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

const (
	poolMaster = "master"
	poolWorker = "worker"
)

// selector matches node labels; nil matches nothing.
type selector = labels.Selector

// poolSet is the snapshot's MachineConfigPools, ready for node assignment.
type poolSet struct {
	byName map[string]*poolInfo
	// order is the assignment order of docs/insights.md#pool-assignment:
	// master, the custom pools by name, worker.
	order []*poolInfo
	// workers are every pool but master, by name.
	workers []*poolInfo
	// selectorKey changes whenever any node's assignment could change.
	selectorKey string
	health      []*healthItem
}

// poolFingerprint is what a node's facts depend on in its pool.
func poolFingerprint(p *poolInfo) string {
	return strings.Join([]string{p.name, strconv.FormatBool(p.paused), p.config, strconv.FormatBool(p.layered), p.osImage}, "\x00")
}

// newPoolSet builds the pool set. Pools are sorted by name, duplicates (by
// name) are dropped, and pools whose selector cannot be parsed match no node
// and get a health insight (oc aborts instead).
func newPoolSet(mcps []*Pool) *poolSet {
	sorted := make([]*Pool, 0, len(mcps))
	for _, m := range mcps {
		if m != nil {
			sorted = append(sorted, m)
		}
	}
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Name != sorted[j].Name {
			return sorted[i].Name < sorted[j].Name
		}
		return sorted[i].UID < sorted[j].UID
	})
	ps := &poolSet{byName: make(map[string]*poolInfo, len(sorted))}
	var custom []*poolInfo
	var key strings.Builder
	for _, m := range sorted {
		if _, dup := ps.byName[m.Name]; dup || m.Name == "" {
			continue
		}
		p := &poolInfo{
			name:    m.Name,
			master:  m.Name == poolMaster,
			paused:  m.Paused,
			config:  m.TargetConfig,
			changed: m.Changed,
			layered: m.Layered,
			osImage: m.TargetImageConfig,
		}
		sel, err := metav1.LabelSelectorAsSelector(m.NodeSelector)
		if err != nil {
			scope := v1alpha1.WorkerPoolScope
			if p.master {
				scope = v1alpha1.ControlPlaneScope
			}
			ref := mcpRef(m.Name)
			if h := newHealth(v1alpha1.HealthPoolBadSelector, m.Name, &ref, scope, p.changed,
				v1alpha1.ErrorImpactLevel, v1alpha1.UnknownImpactType,
				"failed to get label selector from the pool: "+m.Name,
				fmt.Sprintf("The node selector of MachineConfigPool %s cannot be parsed (%v), so no node is counted in it.", m.Name, err),
				refMCO); h != nil {
				h.acquired = p.changed
				h.pool = m.Name
				ps.health = append(ps.health, h)
			}
		} else {
			p.selector = sel
		}
		ps.byName[m.Name] = p
		switch p.name {
		case poolMaster, poolWorker:
		default:
			custom = append(custom, p)
		}
		if !p.master {
			ps.workers = append(ps.workers, p)
		}
	}
	if m := ps.byName[poolMaster]; m != nil {
		ps.order = append(ps.order, m)
	}
	ps.order = append(ps.order, custom...)
	if w := ps.byName[poolWorker]; w != nil {
		ps.order = append(ps.order, w)
	}
	for _, p := range ps.order {
		key.WriteString(p.name)
		key.WriteByte(0)
		if p.selector != nil {
			key.WriteString(p.selector.String())
		} else {
			key.WriteString("\x01invalid")
		}
		key.WriteByte(0)
	}
	ps.selectorKey = key.String()
	return ps
}

// assign returns the pool a node with these labels belongs to, or nil.
func (ps *poolSet) assign(nodeLabels labels.Labels) *poolInfo {
	for _, p := range ps.order {
		if p.selector != nil && p.selector.Matches(nodeLabels) {
			return p
		}
	}
	return nil
}

// poolCounters are the counters of docs/insights.md#pool-counters.
type poolCounters struct {
	total, available, degraded, excluded, draining, progressing, outdated, updated, pending, moving int
	// acquired is the latest change of a member, in Unix seconds.
	acquired int64
}

func (c *poolCounters) add(ent *nodeEntry) {
	c.total++
	if ent.changed > c.acquired {
		c.acquired = ent.changed
	}
	if !ent.unavailable {
		c.available++
	}
	if ent.degraded {
		c.degraded++
	}
	switch ent.phase {
	case phasePaused:
		c.excluded++
		c.outdated++
	case phasePending:
		c.pending++
		c.outdated++
	case phaseDraining, phaseUpdating, phaseRebooting:
		if ent.phase == phaseDraining {
			c.draining++
		}
		c.outdated++
		c.moving++
		if !ent.degraded {
			c.progressing++
		}
	case phaseUpdated:
		c.updated++
	}
}

// assessment applies docs/insights.md#pool-assessment.
func (c *poolCounters) assessment() v1alpha1.PoolAssessment {
	switch {
	case c.updated == c.total:
		return v1alpha1.PoolCompleted
	case c.pending == c.total:
		return v1alpha1.PoolPending
	case c.degraded > 0:
		return v1alpha1.PoolDegraded
	case c.excluded > 0:
		return v1alpha1.PoolExcluded
	default:
		return v1alpha1.PoolProgressing
	}
}

func clampCount(n int) int32 {
	if n > maxNodeCount {
		return maxNodeCount
	}
	return int32(n)
}

// poolInsight builds the MachineConfigPool status insight and the pool's
// Updating condition (also copied to workerPools[].conditions).
func poolInsight(p *poolInfo, c *poolCounters) (*v1alpha1.MachineConfigPoolStatusInsight, metav1.Condition) {
	typ := v1alpha1.PoolUpdating
	msg := fmt.Sprintf("%d of %d nodes updated", c.updated, c.total)
	var cond metav1.Condition
	switch {
	case c.moving > 0:
		cond = condition(typ, metav1.ConditionTrue, v1alpha1.PoolUpdatingReasonProgressing, msg, p.changed)
	case c.excluded > 0:
		cond = condition(typ, metav1.ConditionFalse, v1alpha1.PoolUpdatingReasonPaused, msg+"; the pool is paused", p.changed)
	case c.updated == c.total:
		cond = condition(typ, metav1.ConditionFalse, v1alpha1.PoolUpdatingReasonUpdated, msg, p.changed)
	default:
		cond = condition(typ, metav1.ConditionFalse, v1alpha1.PoolUpdatingReasonPending, msg, p.changed)
	}
	if !isOperatorNameValid(p.name) {
		return nil, cond
	}
	scope := v1alpha1.WorkerPoolScope
	if p.master {
		scope = v1alpha1.ControlPlaneScope
	}
	return &v1alpha1.MachineConfigPoolStatusInsight{
		Name:       p.name,
		Resource:   v1alpha1.PoolResourceRef{ResourceRef: mcpRef(p.name)},
		Scope:      scope,
		Assessment: c.assessment(),
		Completion: completionPercent(c.updated, c.total),
		Summaries: []v1alpha1.NodeSummary{
			{Type: v1alpha1.NodesTotal, Count: clampCount(c.total)},
			{Type: v1alpha1.NodesAvailable, Count: clampCount(c.available)},
			{Type: v1alpha1.NodesProgressing, Count: clampCount(c.progressing)},
			{Type: v1alpha1.NodesOutdated, Count: clampCount(c.outdated)},
			{Type: v1alpha1.NodesDraining, Count: clampCount(c.draining)},
			{Type: v1alpha1.NodesExcluded, Count: clampCount(c.excluded)},
			{Type: v1alpha1.NodesDegraded, Count: clampCount(c.degraded)},
		},
		Conditions: []metav1.Condition{cond},
	}, cond
}

// pausedHealth applies the paused-pool rule of docs/insights.md#health-rules.
// oc scopes it WorkerPool even for the control-plane pool; here the
// control-plane pool's insight is scoped ControlPlane, because it is filed
// under the control plane.
func pausedHealth(p *poolInfo, c *poolCounters) *healthItem {
	if c.excluded == 0 || !p.paused {
		return nil
	}
	scope := v1alpha1.WorkerPoolScope
	if p.master {
		scope = v1alpha1.ControlPlaneScope
	}
	ref := mcpRef(p.name)
	h := newHealth(v1alpha1.HealthPoolPaused, p.name, &ref, scope, time.Time{}, v1alpha1.WarningImpactLevel,
		v1alpha1.UpdateStalledImpactType,
		fmt.Sprintf("Outdated nodes in a paused pool '%s' will not be updated", p.name),
		"Pool is paused, which stops all changes to the nodes in the pool, including updates. The nodes will not be updated until the pool is unpaused by the administrator.",
		refPaused)
	if h != nil {
		h.acquired = p.changed
		h.pool = p.name
	}
	return h
}
