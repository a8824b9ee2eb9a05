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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// TestHostedObjectsFor: only the objects labelled with the hosted cluster
// are kept, each with its metadata and status unchanged.
func TestHostedObjectsFor(t *testing.T) {
	meta := func(name, cluster string) metav1.ObjectMeta {
		l := labels(v1alpha1.WorkerPoolScope, "workers", v1alpha1.InformerNodes)
		if cluster != "" {
			l[v1alpha1.LabelHostedCluster] = cluster
		}
		return metav1.ObjectMeta{Namespace: "clusters", Name: name, Labels: l}
	}
	node := func(name, cluster string) v1alpha1.HostedNodeProgressInsight {
		o := v1alpha1.HostedNodeProgressInsight{ObjectMeta: meta(name, cluster)}
		o.Status.InsightUID, o.Status.NodeStatusInsight = "node-"+name, *nodeInsight(name, "workers")
		return o
	}
	h := &HostedObjects{
		ClusterVersions:    []v1alpha1.HostedClusterVersionProgressInsight{{ObjectMeta: meta("demo", "demo")}, {ObjectMeta: meta("other", "other")}},
		ClusterOperators:   []v1alpha1.HostedClusterOperatorProgressInsight{{ObjectMeta: meta("demo-etcd", "demo")}},
		MachineConfigPools: []v1alpha1.HostedMachineConfigPoolProgressInsight{{ObjectMeta: meta("demo-workers", "demo")}},
		Nodes:              []v1alpha1.HostedNodeProgressInsight{node("m1", "demo"), node("m2", "other"), node("m3", ""), node("m4", "demo")},
		Health:             []v1alpha1.HostedHealthInsight{{ObjectMeta: meta("h", "other")}},
	}
	tests := []struct {
		cluster                         string
		cvs, cos, pools, nodes, healths []string
	}{
		{cluster: "demo", cvs: []string{"demo"}, cos: []string{"demo-etcd"}, pools: []string{"demo-workers"}, nodes: []string{"m1", "m4"}},
		{cluster: "other", cvs: []string{"other"}, nodes: []string{"m2"}, healths: []string{"h"}},
		{cluster: "missing"},
	}
	names := func(metas ...metav1.ObjectMeta) []string {
		var out []string
		for _, m := range metas {
			out = append(out, m.Name)
		}
		return out
	}
	equal := func(what string, got, want []string) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: got %v, want %v", what, got, want)
			}
		}
	}
	for _, tc := range tests {
		t.Run(tc.cluster, func(t *testing.T) {
			o := h.For(tc.cluster)
			var cvs, cos, pools, nodes, healths []metav1.ObjectMeta
			for _, x := range o.ClusterVersions {
				cvs = append(cvs, x.ObjectMeta)
			}
			for _, x := range o.ClusterOperators {
				cos = append(cos, x.ObjectMeta)
			}
			for _, x := range o.MachineConfigPools {
				pools = append(pools, x.ObjectMeta)
			}
			for _, x := range o.Nodes {
				nodes = append(nodes, x.ObjectMeta)
				if x.Status.InsightUID != "node-"+x.Name || x.Status.Name != x.Name {
					t.Errorf("node %s lost its status: %+v", x.Name, x.Status)
				}
			}
			for _, x := range o.Health {
				healths = append(healths, x.ObjectMeta)
			}
			equal("cluster versions", names(cvs...), tc.cvs)
			equal("cluster operators", names(cos...), tc.cos)
			equal("pools", names(pools...), tc.pools)
			equal("nodes", names(nodes...), tc.nodes)
			equal("health", names(healths...), tc.healths)
		})
	}
}
