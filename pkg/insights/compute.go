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

// Package insights turns a snapshot of cluster objects and a clock reading into
// the status of an UpdateStatus, judging the cluster as `oc adm upgrade status`
// does. It does no I/O and never reads the wall clock.
//
// The rules read a Cluster (model.go); an adapter fills it from the objects of
// one shape of cluster, the standalone adapter (standalone.go) from Sources.
//
// The rules are described in docs/insights.md; where the API
// cannot say what oc concludes, the object follows the conventions of package
// encoding (documented in docs/api-decisions.md), so that a client such as
// pkg/report can print oc's text from the object alone.
package insights

import (
	"slices"
	"time"
)

// Engine computes results and remembers per-object work between calls, so that
// a change to one object does not redo the work for all the others. An Engine
// is not safe for concurrent use.
type Engine struct {
	gen uint64

	nodes map[string]*nodeEntry
	// objects finds the entry of an unchanged object without hashing its
	// name: informer caches hand out the same pointer until an object
	// changes.
	objects objectTable
	cos     map[string]*coEntry
	pools   map[string]*poolState
	// contribs remembers each UpdateInformer by namespace/name.
	contribs map[string]*contributionEntry
	// signalMemo remembers the last health insight of each adapter signal
	// by uid.
	signalMemo map[string]*healthItem

	// standalone fills the model from Sources.
	standalone standalone

	// lastPools are the pools lastPoolSet was built from.
	lastPools   []*Pool
	lastPoolSet *poolSet

	mcVersions map[string]string
	// versionOK says which MachineConfig versions are valid API versions.
	versionOK map[string]bool
	mcGen     uint64
	// sharedGen changes whenever an input every node depends on changes:
	// the MachineConfig versions, the target version, the multi-arch flag.
	sharedGen   uint64
	sharedKey   sharedInputs
	selectorKey string
	selGen      uint64
	poolGenSeq  uint64
}

// The Engine keeps the memory of a Node or ClusterOperator under its name,
// the object's unique key in the API. The memory is valid for one UID and
// resourceVersion; a recreated object (new UID) starts afresh.

// NewEngine returns an Engine with empty memory.
func NewEngine() *Engine {
	return &Engine{
		nodes: map[string]*nodeEntry{},
		cos:   map[string]*coEntry{},
		pools: map[string]*poolState{},
	}
}

// Compute evaluates src at the instant now with a fresh Engine.
func Compute(src *Sources, now time.Time) Result {
	return NewEngine().Compute(src, now)
}

// Compute evaluates the standalone cluster src at the instant now.
func (e *Engine) Compute(src *Sources, now time.Time) Result {
	if src == nil {
		src = &Sources{}
	}
	return e.ComputeCluster(e.standalone.cluster(src), now)
}

// ComputeCluster evaluates the cluster c, filled by an adapter, at the
// instant now.
func (e *Engine) ComputeCluster(c *Cluster, now time.Time) Result {
	if c == nil {
		c = &Cluster{}
	}
	e.gen++
	var a assembly
	a.now = now

	cvf := newCVFacts(c.ControlPlane)
	cos := e.operators(c.Components, cvf.target)
	counts := countOperators(cos.facts)
	cvr := evaluateClusterVersion(&cvf, &counts, c.HasComponents, now)
	signals := c.Signals
	if m := c.ControlPlaneMissing; c.ControlPlane == nil && m != nil {
		cvr.health = nil
		cvr.updating.Message = m.Summary
		signals = append(slices.Clip(signals), *m)
	}
	a.cv = cvr
	a.next = earliest(a.next, cvr.next)
	a.cpHealth = append(a.cpHealth, cvr.health...)
	a.cos = cos.insights
	a.cpHealth = append(a.cpHealth, cos.health...)
	for i := range cos.facts {
		hs, next := coHealth(&cos.facts[i], now)
		a.cpHealth = append(a.cpHealth, hs...)
		a.next = earliest(a.next, next)
	}
	if c.Alerts != nil {
		a.alerts = alertHealth(c.Alerts, cvf.updateStartedAt)
	}
	cpSignals, poolSignals, next := e.signals(signals, now)
	a.cpHealth = append(a.cpHealth, cpSignals...)
	a.next = earliest(a.next, next)

	ps := e.poolSet(c.Pools)
	e.refreshShared(ps, c.ConfigVersions)
	e.evaluateNodes(c.Nodes, ps, &cvf)
	a.poolHealth = ps.health
	if len(poolSignals) > 0 {
		a.poolHealth = append(slices.Clip(a.poolHealth), poolSignals...)
	}
	a.pools = e.evaluatePools(ps, now, &a)
	e.judgeContributions(c, ps, &a)

	res := a.build(cvf.cp)
	res.Insights = a.flatInsights()
	res.Verdicts = a.verdicts
	return res
}
