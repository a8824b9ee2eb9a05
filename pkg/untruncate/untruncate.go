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

// Package untruncate puts back into an UpdateStatus the insights it left out to
// stay within the API's limits (128 per control-plane informer, 1,024 per
// worker pool informer, 32 worker pools), taking them from the per-insight
// objects served beside it (ClusterVersionProgressInsight,
// ClusterOperatorProgressInsight, MachineConfigPoolProgressInsight,
// NodeProgressInsight and HealthInsight), which have no cap. A client that
// renders the result, such as update-status report, then shows every node of
// a cluster of any size.
//
// The result is for reading only: it exceeds the API's limits, and a pool
// that UpdateStatus left out has no conditions in it.
package untruncate

import (
	"slices"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Objects are every per-insight object of each kind, as listed from one
// server at a revision not older than the UpdateStatus they complete.
type Objects struct {
	ClusterVersions    []v1alpha1.ClusterVersionProgressInsight
	ClusterOperators   []v1alpha1.ClusterOperatorProgressInsight
	MachineConfigPools []v1alpha1.MachineConfigPoolProgressInsight
	Nodes              []v1alpha1.NodeProgressInsight
	Health             []v1alpha1.HealthInsight
}

// isNotice reports whether the insight with this uid says that insights or
// pools were left out.
func isNotice(uid string, h *v1alpha1.HealthStatusInsight) bool {
	if h == nil {
		return false
	}
	switch conventions.KindOf(uid) {
	case v1alpha1.HealthInsightsOmitted, v1alpha1.HealthPoolsOmitted:
		return true
	}
	return false
}

// Truncated reports whether st left insights or pools out: it carries a
// health insight that says so.
func Truncated(st *v1alpha1.UpdateStatusStatus) bool {
	if cp := st.ControlPlane; cp != nil {
		for _, inf := range cp.Informers {
			for i := range inf.Insights {
				if isNotice(inf.Insights[i].UID, inf.Insights[i].Insight.HealthInsight) {
					return true
				}
			}
		}
	}
	for _, p := range st.WorkerPools {
		for _, inf := range p.Informers {
			for i := range inf.Insights {
				if isNotice(inf.Insights[i].UID, inf.Insights[i].Insight.HealthInsight) {
					return true
				}
			}
		}
	}
	return false
}

// Status returns st with every insight of objs that st lacks, placed where
// the engine places it when nothing is left out, and without the health
// insights that say insights or pools were left out: objs lists everything,
// so no list is truncated any more. An insight is known to st by its uid;
// a ClusterVersion, ClusterOperator, MachineConfigPool or Node insight also
// by its subject's name, so that an object from a newer revision never
// shows a subject twice. Each informer's insights are sorted by type, then
// uid, as the engine sorts them.
//
// st is not modified; the result shares the insights of st and objs.
func Status(st *v1alpha1.UpdateStatusStatus, objs *Objects) *v1alpha1.UpdateStatusStatus {
	m := newMerger(st)
	for i := range objs.ClusterVersions {
		o := &objs.ClusterVersions[i]
		m.addControlPlaneObject(&o.ObjectMeta, o.Status.InsightUID, o.Status.AcquiredAt, o.Status.Resource.Name,
			v1alpha1.ControlPlaneInsightUnion{Type: v1alpha1.ClusterVersionStatusInsightType, ClusterVersionStatusInsight: &o.Status.ClusterVersionStatusInsight})
	}
	for i := range objs.ClusterOperators {
		o := &objs.ClusterOperators[i]
		m.addControlPlaneObject(&o.ObjectMeta, o.Status.InsightUID, o.Status.AcquiredAt, o.Status.Name,
			v1alpha1.ControlPlaneInsightUnion{Type: v1alpha1.ClusterOperatorStatusInsightType, ClusterOperatorStatusInsight: &o.Status.ClusterOperatorStatusInsight})
	}
	for i := range objs.MachineConfigPools {
		o := &objs.MachineConfigPools[i]
		in := &o.Status.MachineConfigPoolStatusInsight
		if m.known(o.Status.InsightUID, v1alpha1.MachineConfigPoolStatusInsightType, in.Name) {
			continue
		}
		m.add(&o.ObjectMeta, scope(&o.ObjectMeta, in.Scope), in.Name, in.Resource, true, o.Status.InsightUID, o.Status.AcquiredAt,
			v1alpha1.MachineConfigPoolStatusInsightType, unionOf{mcp: in})
	}
	for i := range objs.Nodes {
		o := &objs.Nodes[i]
		in := &o.Status.NodeStatusInsight
		if m.known(o.Status.InsightUID, v1alpha1.NodeStatusInsightType, in.Name) {
			continue
		}
		m.add(&o.ObjectMeta, scope(&o.ObjectMeta, in.Scope), pool(&o.ObjectMeta, in.PoolResource.Name), in.PoolResource, true,
			o.Status.InsightUID, o.Status.AcquiredAt, v1alpha1.NodeStatusInsightType, unionOf{node: in})
	}
	for i := range objs.Health {
		o := &objs.Health[i]
		in := &o.Status.HealthStatusInsight
		if m.known(o.Status.InsightUID, v1alpha1.HealthInsightType, "") || isNotice(o.Status.InsightUID, in) {
			continue
		}
		// Health of a pool UpdateStatus does not list goes to the control
		// plane, as the engine places it.
		m.add(&o.ObjectMeta, scope(&o.ObjectMeta, in.Scope.Type), pool(&o.ObjectMeta, ""), v1alpha1.PoolResourceRef{}, false,
			o.Status.InsightUID, o.Status.AcquiredAt, v1alpha1.HealthInsightType, unionOf{health: in})
	}
	return m.finish()
}

// unionOf is the content of one insight, of any type.
type unionOf struct {
	mcp    *v1alpha1.MachineConfigPoolStatusInsight
	node   *v1alpha1.NodeStatusInsight
	health *v1alpha1.HealthStatusInsight
}

func informer(m *metav1.ObjectMeta, def string) string {
	if s := m.Labels[v1alpha1.LabelInformer]; s != "" {
		return s
	}
	return def
}

func scope(m *metav1.ObjectMeta, def v1alpha1.ScopeType) v1alpha1.ScopeType {
	if s := m.Labels[v1alpha1.LabelScope]; s != "" {
		return v1alpha1.ScopeType(s)
	}
	return def
}

func pool(m *metav1.ObjectMeta, def string) string {
	if s := m.Labels[v1alpha1.LabelPool]; s != "" {
		return s
	}
	return def
}

type subject struct {
	typ  v1alpha1.InsightType
	name string
}

// merger builds the completed status.
type merger struct {
	st    *v1alpha1.UpdateStatusStatus
	uids  map[string]bool
	names map[subject]bool
	// pools indexes st.WorkerPools by name.
	pools map[string]int
}

func newMerger(src *v1alpha1.UpdateStatusStatus) *merger {
	st := &v1alpha1.UpdateStatusStatus{Conditions: src.Conditions}
	m := &merger{st: st, uids: map[string]bool{}, names: map[subject]bool{}, pools: map[string]int{}}
	if cp := src.ControlPlane; cp != nil {
		c := *cp
		c.Informers = make([]v1alpha1.ControlPlaneInformer, 0, len(cp.Informers))
		for _, inf := range cp.Informers {
			out := v1alpha1.ControlPlaneInformer{Name: inf.Name, Insights: make([]v1alpha1.ControlPlaneInsight, 0, len(inf.Insights))}
			for _, in := range inf.Insights {
				u := &in.Insight
				if isNotice(in.UID, u.HealthInsight) {
					continue
				}
				m.remember(in.UID, u.Type, nameOf(u.ClusterVersionStatusInsight, u.ClusterOperatorStatusInsight, u.MachineConfigPoolStatusInsight, u.NodeStatusInsight))
				out.Insights = append(out.Insights, in)
			}
			c.Informers = append(c.Informers, out)
		}
		st.ControlPlane = &c
	}
	st.WorkerPools = make([]v1alpha1.Pool, 0, len(src.WorkerPools))
	for _, p := range src.WorkerPools {
		p.Informers = append([]v1alpha1.WorkerPoolInformer(nil), p.Informers...)
		for i := range p.Informers {
			inf := &p.Informers[i]
			kept := make([]v1alpha1.WorkerPoolInsight, 0, len(inf.Insights))
			for _, in := range inf.Insights {
				u := &in.Insight
				if isNotice(in.UID, u.HealthInsight) {
					continue
				}
				m.remember(in.UID, u.Type, nameOf(nil, nil, u.MachineConfigPoolStatusInsight, u.NodeStatusInsight))
				kept = append(kept, in)
			}
			inf.Insights = kept
		}
		m.pools[p.Name] = len(st.WorkerPools)
		st.WorkerPools = append(st.WorkerPools, p)
	}
	return m
}

func nameOf(cv *v1alpha1.ClusterVersionStatusInsight, co *v1alpha1.ClusterOperatorStatusInsight,
	mcp *v1alpha1.MachineConfigPoolStatusInsight, node *v1alpha1.NodeStatusInsight) string {
	switch {
	case cv != nil:
		return cv.Resource.Name
	case co != nil:
		return co.Name
	case mcp != nil:
		return mcp.Name
	case node != nil:
		return node.Name
	}
	return ""
}

func (m *merger) remember(uid string, typ v1alpha1.InsightType, name string) {
	m.uids[uid] = true
	if name != "" {
		m.names[subject{typ, name}] = true
	}
}

// known reports whether the insight is in the status already, and
// remembers it otherwise.
func (m *merger) known(uid string, typ v1alpha1.InsightType, name string) bool {
	if m.uids[uid] || (name != "" && m.names[subject{typ, name}]) {
		return true
	}
	m.remember(uid, typ, name)
	return false
}

// addControlPlaneObject adds the control-plane insight union of the object
// of meta, unless its uid or its subject's name is known already.
func (m *merger) addControlPlaneObject(meta *metav1.ObjectMeta, uid string, acquiredAt metav1.Time, name string, union v1alpha1.ControlPlaneInsightUnion) {
	if m.known(uid, union.Type, name) {
		return
	}
	m.addControlPlane(informer(meta, v1alpha1.InformerControlPlane), v1alpha1.ControlPlaneInsight{UID: uid, AcquiredAt: acquiredAt, Insight: union})
}

func (m *merger) addControlPlane(informer string, in v1alpha1.ControlPlaneInsight) {
	if m.st.ControlPlane == nil {
		m.st.ControlPlane = &v1alpha1.ControlPlane{}
	}
	cp := m.st.ControlPlane
	for i := range cp.Informers {
		if cp.Informers[i].Name == informer {
			cp.Informers[i].Insights = append(cp.Informers[i].Insights, in)
			return
		}
	}
	cp.Informers = append(cp.Informers, v1alpha1.ControlPlaneInformer{Name: informer, Insights: []v1alpha1.ControlPlaneInsight{in}})
}

// add places a pool, node or health insight: a worker pool's insight in that
// pool, listed anew when newPool allows and UpdateStatus left it out, and
// every other in the control plane.
func (m *merger) add(meta *metav1.ObjectMeta, sc v1alpha1.ScopeType, poolName string, ref v1alpha1.PoolResourceRef, newPool bool,
	uid string, at metav1.Time, typ v1alpha1.InsightType, u unionOf) {
	inf := informer(meta, v1alpha1.InformerNodes)
	idx, listed := m.pools[poolName]
	if sc == v1alpha1.WorkerPoolScope && poolName != "" && !listed && newPool {
		if ref.Name == "" {
			ref.Name = poolName
		}
		idx, listed = len(m.st.WorkerPools), true
		m.pools[poolName] = idx
		m.st.WorkerPools = append(m.st.WorkerPools, v1alpha1.Pool{Name: poolName, Resource: ref})
	}
	if sc != v1alpha1.WorkerPoolScope || !listed {
		m.addControlPlane(inf, v1alpha1.ControlPlaneInsight{UID: uid, AcquiredAt: at, Insight: v1alpha1.ControlPlaneInsightUnion{
			Type: typ, MachineConfigPoolStatusInsight: u.mcp, NodeStatusInsight: u.node, HealthInsight: u.health}})
		return
	}
	p := &m.st.WorkerPools[idx]
	in := v1alpha1.WorkerPoolInsight{UID: uid, AcquiredAt: at, Insight: v1alpha1.WorkerPoolInsightUnion{
		Type: typ, MachineConfigPoolStatusInsight: u.mcp, NodeStatusInsight: u.node, HealthInsight: u.health}}
	for i := range p.Informers {
		if p.Informers[i].Name == inf {
			p.Informers[i].Insights = append(p.Informers[i].Insights, in)
			return
		}
	}
	p.Informers = append(p.Informers, v1alpha1.WorkerPoolInformer{Name: inf, Insights: []v1alpha1.WorkerPoolInsight{in}})
}

// sortInsights sorts an informer's insights by type, then uid, as the
// engine does.
func sortInsights[T any](ins []T, key func(*T) (v1alpha1.InsightType, string)) {
	sort.SliceStable(ins, func(i, j int) bool {
		ta, ua := key(&ins[i])
		tb, ub := key(&ins[j])
		if oa, ob := conventions.TypeOrder(ta), conventions.TypeOrder(tb); oa != ob {
			return oa < ob
		}
		return ua < ub
	})
}

// finish sorts the informers and drops the ones left empty.
func (m *merger) finish() *v1alpha1.UpdateStatusStatus {
	if cp := m.st.ControlPlane; cp != nil {
		cp.Informers = slices.DeleteFunc(cp.Informers, func(inf v1alpha1.ControlPlaneInformer) bool { return len(inf.Insights) == 0 })
		for _, inf := range cp.Informers {
			sortInsights(inf.Insights, func(in *v1alpha1.ControlPlaneInsight) (v1alpha1.InsightType, string) { return in.Insight.Type, in.UID })
		}
	}
	for p := range m.st.WorkerPools {
		pool := &m.st.WorkerPools[p]
		pool.Informers = slices.DeleteFunc(pool.Informers, func(inf v1alpha1.WorkerPoolInformer) bool { return len(inf.Insights) == 0 })
		for _, inf := range pool.Informers {
			sortInsights(inf.Insights, func(in *v1alpha1.WorkerPoolInsight) (v1alpha1.InsightType, string) { return in.Insight.Type, in.UID })
		}
	}
	return m.st
}
