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

package untruncate

import (
	"reflect"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

func poolRef(name string) v1alpha1.PoolResourceRef {
	return v1alpha1.PoolResourceRef{ResourceRef: v1alpha1.ResourceRef{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: name}}
}

func scopeOf(pool string) v1alpha1.ScopeType {
	if pool == "master" {
		return v1alpha1.ControlPlaneScope
	}
	return v1alpha1.WorkerPoolScope
}

func labels(sc v1alpha1.ScopeType, pool, informer string) map[string]string {
	l := map[string]string{v1alpha1.LabelScope: string(sc), v1alpha1.LabelInformer: informer}
	if pool != "" {
		l[v1alpha1.LabelPool] = pool
	}
	return l
}

func nodeInsight(name, pool string) *v1alpha1.NodeStatusInsight {
	return &v1alpha1.NodeStatusInsight{Name: name, Resource: v1alpha1.ResourceRef{Resource: "nodes", Name: name},
		PoolResource: poolRef(pool), Scope: scopeOf(pool)}
}

func mcpInsight(name string) *v1alpha1.MachineConfigPoolStatusInsight {
	return &v1alpha1.MachineConfigPoolStatusInsight{Name: name, Resource: poolRef(name), Scope: scopeOf(name)}
}

func healthInsight(sc v1alpha1.ScopeType) *v1alpha1.HealthStatusInsight {
	return &v1alpha1.HealthStatusInsight{Scope: v1alpha1.InsightScope{Type: sc}, Impact: v1alpha1.InsightImpact{Level: v1alpha1.WarningImpactLevel}}
}

// notice is the uid of the engine's notice that where left insights out.
func notice(where string) string {
	return conventions.UID(string(v1alpha1.HealthInsightsOmitted), "", "", "", where)
}

var poolsNotice = string(v1alpha1.HealthPoolsOmitted)

func npi(name, pool string) v1alpha1.NodeProgressInsight {
	o := v1alpha1.NodeProgressInsight{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels(scopeOf(pool), pool, v1alpha1.InformerNodes)}}
	o.Status.InsightUID, o.Status.NodeStatusInsight = "node-"+name, *nodeInsight(name, pool)
	return o
}

func mcppi(name string) v1alpha1.MachineConfigPoolProgressInsight {
	o := v1alpha1.MachineConfigPoolProgressInsight{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels(scopeOf(name), name, v1alpha1.InformerNodes)}}
	o.Status.InsightUID, o.Status.MachineConfigPoolStatusInsight = "mcp-"+name, *mcpInsight(name)
	return o
}

func hi(uid string, sc v1alpha1.ScopeType, pool, informer string) v1alpha1.HealthInsight {
	o := v1alpha1.HealthInsight{ObjectMeta: metav1.ObjectMeta{Name: uid, Labels: labels(sc, pool, informer)}}
	o.Status.InsightUID, o.Status.HealthStatusInsight = uid, *healthInsight(sc)
	return o
}

func copi(name string) v1alpha1.ClusterOperatorProgressInsight {
	o := v1alpha1.ClusterOperatorProgressInsight{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: labels(v1alpha1.ControlPlaneScope, "", v1alpha1.InformerControlPlane)}}
	o.Status.InsightUID, o.Status.Name = "co-"+name, name
	return o
}

// cp builds a control-plane insight from a uid: the prefix says its type.
func cp(uid string) v1alpha1.ControlPlaneInsight {
	in := v1alpha1.ControlPlaneInsight{UID: uid}
	u := &in.Insight
	switch uid[:3] {
	case "cv-":
		u.Type, u.ClusterVersionStatusInsight = v1alpha1.ClusterVersionStatusInsightType, &v1alpha1.ClusterVersionStatusInsight{
			Resource: v1alpha1.ResourceRef{Name: "version"}}
	case "co-":
		u.Type, u.ClusterOperatorStatusInsight = v1alpha1.ClusterOperatorStatusInsightType, &v1alpha1.ClusterOperatorStatusInsight{Name: uid[3:]}
	case "mcp":
		u.Type, u.MachineConfigPoolStatusInsight = v1alpha1.MachineConfigPoolStatusInsightType, mcpInsight(uid[4:])
	case "nod":
		u.Type, u.NodeStatusInsight = v1alpha1.NodeStatusInsightType, nodeInsight(uid[5:], "master")
	default:
		u.Type, u.HealthInsight = v1alpha1.HealthInsightType, healthInsight(v1alpha1.ControlPlaneScope)
	}
	return in
}

// wp builds a worker-pool insight of pool from a uid, as cp does.
func wp(pool, uid string) v1alpha1.WorkerPoolInsight {
	in := v1alpha1.WorkerPoolInsight{UID: uid}
	u := &in.Insight
	switch uid[:3] {
	case "mcp":
		u.Type, u.MachineConfigPoolStatusInsight = v1alpha1.MachineConfigPoolStatusInsightType, mcpInsight(uid[4:])
	case "nod":
		u.Type, u.NodeStatusInsight = v1alpha1.NodeStatusInsightType, nodeInsight(uid[5:], pool)
	default:
		u.Type, u.HealthInsight = v1alpha1.HealthInsightType, healthInsight(v1alpha1.WorkerPoolScope)
	}
	return in
}

// status builds a status from "informer" → uids of the control plane and
// "pool/informer" → uids of worker pools.
func status(cpInformers map[string][]string, pools map[string][]string) *v1alpha1.UpdateStatusStatus {
	st := &v1alpha1.UpdateStatusStatus{ControlPlane: &v1alpha1.ControlPlane{}}
	for _, name := range []string{v1alpha1.InformerAlerts, v1alpha1.InformerControlPlane, v1alpha1.InformerNodes} {
		if uids, ok := cpInformers[name]; ok {
			inf := v1alpha1.ControlPlaneInformer{Name: name}
			for _, uid := range uids {
				inf.Insights = append(inf.Insights, cp(uid))
			}
			st.ControlPlane.Informers = append(st.ControlPlane.Informers, inf)
		}
	}
	for _, name := range []string{"worker", "infra"} {
		if uids, ok := pools[name]; ok {
			inf := v1alpha1.WorkerPoolInformer{Name: v1alpha1.InformerNodes}
			for _, uid := range uids {
				inf.Insights = append(inf.Insights, wp(name, uid))
			}
			st.WorkerPools = append(st.WorkerPools, v1alpha1.Pool{Name: name, Resource: poolRef(name),
				Informers: []v1alpha1.WorkerPoolInformer{inf}})
		}
	}
	return st
}

// layout lists the uids of st by "controlPlane/informer" and
// "workerPools/pool/informer", in order.
func layout(st *v1alpha1.UpdateStatusStatus) map[string][]string {
	out := map[string][]string{}
	if st.ControlPlane != nil {
		for _, inf := range st.ControlPlane.Informers {
			for _, in := range inf.Insights {
				out["controlPlane/"+inf.Name] = append(out["controlPlane/"+inf.Name], in.UID)
			}
		}
	}
	for _, p := range st.WorkerPools {
		for _, inf := range p.Informers {
			key := "workerPools/" + p.Name + "/" + inf.Name
			for _, in := range inf.Insights {
				out[key] = append(out[key], in.UID)
			}
		}
	}
	return out
}

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		name      string
		st        *v1alpha1.UpdateStatusStatus
		objs      Objects
		truncated bool
		want      map[string][]string
	}{{
		name: "nothing left out, nothing added",
		st: status(map[string][]string{"cpi": {"cv-version", "co-dns"}, "nodes": {"mcp-master", "node-m1"}},
			map[string][]string{"worker": {"mcp-worker", "node-w1"}}),
		objs: Objects{Nodes: []v1alpha1.NodeProgressInsight{npi("m1", "master"), npi("w1", "worker")}},
		want: map[string][]string{
			"controlPlane/cpi": {"cv-version", "co-dns"}, "controlPlane/nodes": {"mcp-master", "node-m1"},
			"workerPools/worker/nodes": {"mcp-worker", "node-w1"},
		},
	}, {
		name: "a truncated worker pool gets every node, sorted, and loses the notice",
		st:   status(nil, map[string][]string{"worker": {"mcp-worker", "node-w2", "health-node-degraded-w2", notice("workerPools-worker-nodes")}}),
		objs: Objects{
			MachineConfigPools: []v1alpha1.MachineConfigPoolProgressInsight{mcppi("worker")},
			Nodes:              []v1alpha1.NodeProgressInsight{npi("w3", "worker"), npi("w1", "worker"), npi("w2", "worker")},
			Health:             []v1alpha1.HealthInsight{hi("health-node-degraded-w2", v1alpha1.WorkerPoolScope, "worker", v1alpha1.InformerNodes)},
		},
		truncated: true,
		want: map[string][]string{
			"workerPools/worker/nodes": {"mcp-worker", "node-w1", "node-w2", "node-w3", "health-node-degraded-w2"},
		},
	}, {
		name: "truncated control-plane informers get their nodes, operators and alerts",
		st: status(map[string][]string{
			"alerts": {"health-alert-a", notice("controlPlane-alerts")},
			"cpi":    {"cv-version", "co-dns", notice("controlPlane-cpi")},
			"nodes":  {"mcp-master", "node-m1", notice("controlPlane-nodes")},
		}, nil),
		objs: Objects{
			ClusterOperators: []v1alpha1.ClusterOperatorProgressInsight{copi("dns"), copi("etcd")},
			Nodes:            []v1alpha1.NodeProgressInsight{npi("m2", "master"), npi("m1", "master")},
			Health: []v1alpha1.HealthInsight{hi("health-alert-b", v1alpha1.ControlPlaneScope, "", v1alpha1.InformerAlerts),
				hi("health-alert-a", v1alpha1.ControlPlaneScope, "", v1alpha1.InformerAlerts)},
		},
		truncated: true,
		want: map[string][]string{
			"controlPlane/alerts": {"health-alert-a", "health-alert-b"},
			"controlPlane/cpi":    {"cv-version", "co-dns", "co-etcd"},
			"controlPlane/nodes":  {"mcp-master", "node-m1", "node-m2"},
		},
	}, {
		name: "a pool UpdateStatus left out is listed with its nodes and health",
		st: status(map[string][]string{"nodes": {"mcp-master", poolsNotice}},
			map[string][]string{"worker": {"mcp-worker"}}),
		objs: Objects{
			MachineConfigPools: []v1alpha1.MachineConfigPoolProgressInsight{mcppi("master"), mcppi("worker"), mcppi("infra")},
			Nodes:              []v1alpha1.NodeProgressInsight{npi("i1", "infra")},
			Health:             []v1alpha1.HealthInsight{hi("health-mcp-paused-infra", v1alpha1.WorkerPoolScope, "infra", v1alpha1.InformerNodes)},
		},
		truncated: true,
		want: map[string][]string{
			"controlPlane/nodes":       {"mcp-master"},
			"workerPools/worker/nodes": {"mcp-worker"},
			"workerPools/infra/nodes":  {"mcp-infra", "node-i1", "health-mcp-paused-infra"},
		},
	}, {
		name:      "health of a pool without an object goes to the control plane",
		st:        status(map[string][]string{"nodes": {"mcp-master", poolsNotice}}, nil),
		objs:      Objects{Health: []v1alpha1.HealthInsight{hi("health-mcp-selector-gone", v1alpha1.WorkerPoolScope, "gone", v1alpha1.InformerNodes)}},
		truncated: true,
		want:      map[string][]string{"controlPlane/nodes": {"mcp-master", "health-mcp-selector-gone"}},
	}, {
		name: "a subject known under another uid and notice objects are not added",
		st:   status(nil, map[string][]string{"worker": {"node-w1", notice("workerPools-worker-nodes")}}),
		objs: Objects{
			Nodes: []v1alpha1.NodeProgressInsight{func() v1alpha1.NodeProgressInsight {
				o := npi("w1", "worker")
				o.Status.InsightUID = "node-renamed"
				return o
			}()},
			Health: []v1alpha1.HealthInsight{hi(notice("workerPools-worker-nodes"), v1alpha1.WorkerPoolScope, "worker", v1alpha1.InformerNodes)},
		},
		truncated: true,
		want:      map[string][]string{"workerPools/worker/nodes": {"node-w1"}},
	}, {
		name:      "an informer left empty is dropped; a missing control plane is made",
		st:        &v1alpha1.UpdateStatusStatus{WorkerPools: status(nil, map[string][]string{"worker": {notice("workerPools-worker-nodes")}}).WorkerPools},
		objs:      Objects{Nodes: []v1alpha1.NodeProgressInsight{npi("m1", "master")}},
		truncated: true,
		want:      map[string][]string{"controlPlane/nodes": {"node-m1"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.st.DeepCopy()
			if got := Truncated(tc.st); got != tc.truncated {
				t.Errorf("Truncated = %v, want %v", got, tc.truncated)
			}
			got := Status(tc.st, &tc.objs)
			if l := layout(got); !reflect.DeepEqual(l, tc.want) {
				t.Errorf("got  %v\nwant %v", l, tc.want)
			}
			if Truncated(got) {
				t.Error("the result still says insights were left out")
			}
			if !apiequality.Semantic.DeepEqual(before, tc.st) {
				t.Error("Status modified its input")
			}
		})
	}
}

func TestStatusKeepsWhatItCompletes(t *testing.T) {
	st := status(nil, map[string][]string{"worker": {"mcp-worker", "node-w1", notice("workerPools-worker-nodes")}})
	st.Conditions = []metav1.Condition{{Type: v1alpha1.UpdateStatusAvailable, Status: metav1.ConditionTrue}}
	st.WorkerPools[0].Conditions = []metav1.Condition{{Type: "Updating", Status: metav1.ConditionTrue}}
	objs := Objects{Nodes: []v1alpha1.NodeProgressInsight{npi("w2", "worker")}}
	got := Status(st, &objs)
	if !reflect.DeepEqual(got.Conditions, st.Conditions) || !reflect.DeepEqual(got.WorkerPools[0].Conditions, st.WorkerPools[0].Conditions) ||
		got.WorkerPools[0].Resource != st.WorkerPools[0].Resource {
		t.Errorf("conditions or resources changed: %+v", got)
	}
	n := got.WorkerPools[0].Informers[0].Insights[2].Insight.NodeStatusInsight
	if n != &objs.Nodes[0].Status.NodeStatusInsight {
		t.Error("the node insight is not the object's own")
	}
}
