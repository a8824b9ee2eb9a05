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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// HostedObjects are the objects of the five hosted per-insight kinds
// (HostedNodeProgressInsight and the others) of one namespace, which
// complete a HostedClusterUpdateStatus as Objects complete UpdateStatus.
type HostedObjects struct {
	ClusterVersions    []v1alpha1.HostedClusterVersionProgressInsight
	ClusterOperators   []v1alpha1.HostedClusterOperatorProgressInsight
	MachineConfigPools []v1alpha1.HostedMachineConfigPoolProgressInsight
	Nodes              []v1alpha1.HostedNodeProgressInsight
	Health             []v1alpha1.HostedHealthInsight
}

// For returns the objects about the hosted cluster named name (labelled
// v1alpha1.LabelHostedCluster=name) as Objects, for Status: a hosted
// insight carries the status of its standalone twin.
func (h *HostedObjects) For(name string) *Objects {
	ours := func(m *metav1.ObjectMeta) bool { return m.Labels[v1alpha1.LabelHostedCluster] == name }
	return &Objects{
		ClusterVersions: twins(h.ClusterVersions, func(o *v1alpha1.HostedClusterVersionProgressInsight) (v1alpha1.ClusterVersionProgressInsight, bool) {
			return v1alpha1.ClusterVersionProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}, ours(&o.ObjectMeta)
		}),
		ClusterOperators: twins(h.ClusterOperators, func(o *v1alpha1.HostedClusterOperatorProgressInsight) (v1alpha1.ClusterOperatorProgressInsight, bool) {
			return v1alpha1.ClusterOperatorProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}, ours(&o.ObjectMeta)
		}),
		MachineConfigPools: twins(h.MachineConfigPools, func(o *v1alpha1.HostedMachineConfigPoolProgressInsight) (v1alpha1.MachineConfigPoolProgressInsight, bool) {
			return v1alpha1.MachineConfigPoolProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}, ours(&o.ObjectMeta)
		}),
		Nodes: twins(h.Nodes, func(o *v1alpha1.HostedNodeProgressInsight) (v1alpha1.NodeProgressInsight, bool) {
			return v1alpha1.NodeProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}, ours(&o.ObjectMeta)
		}),
		Health: twins(h.Health, func(o *v1alpha1.HostedHealthInsight) (v1alpha1.HealthInsight, bool) {
			return v1alpha1.HealthInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}, ours(&o.ObjectMeta)
		}),
	}
}

// twins returns the standalone twins of the hosted objects in that twin
// says are kept.
func twins[H, S any](in []H, twin func(*H) (S, bool)) []S {
	var out []S
	for i := range in {
		if o, keep := twin(&in[i]); keep {
			out = append(out, o)
		}
	}
	return out
}
