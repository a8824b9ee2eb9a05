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
	var out Objects
	for i := range h.ClusterVersions {
		if o := &h.ClusterVersions[i]; ours(&o.ObjectMeta) {
			out.ClusterVersions = append(out.ClusterVersions, v1alpha1.ClusterVersionProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status})
		}
	}
	for i := range h.ClusterOperators {
		if o := &h.ClusterOperators[i]; ours(&o.ObjectMeta) {
			out.ClusterOperators = append(out.ClusterOperators, v1alpha1.ClusterOperatorProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status})
		}
	}
	for i := range h.MachineConfigPools {
		if o := &h.MachineConfigPools[i]; ours(&o.ObjectMeta) {
			out.MachineConfigPools = append(out.MachineConfigPools, v1alpha1.MachineConfigPoolProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status})
		}
	}
	for i := range h.Nodes {
		if o := &h.Nodes[i]; ours(&o.ObjectMeta) {
			out.Nodes = append(out.Nodes, v1alpha1.NodeProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status})
		}
	}
	for i := range h.Health {
		if o := &h.Health[i]; ours(&o.ObjectMeta) {
			out.Health = append(out.Health, v1alpha1.HealthInsight{ObjectMeta: o.ObjectMeta, Status: o.Status})
		}
	}
	return &out
}
