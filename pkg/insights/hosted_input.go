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
	"time"

	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/pkg/hypershift"
)

// HostedSources are the objects of one hosted cluster on its management
// cluster: the HostedCluster, its NodePools (in the HostedCluster's
// namespace, spec.clusterName naming it) and the objects of its control-plane
// namespace (hypershift.ControlPlaneNamespace). Like Sources, they are
// read-only; nil or missing objects are allowed.
type HostedSources struct {
	HostedCluster      *hypershift.HostedCluster
	HostedControlPlane *hypershift.HostedControlPlane
	Components         []*hypershift.ControlPlaneComponent
	NodePools          []*hypershift.NodePool
	// Machines, MachineSets and MachineDeployments are those of the
	// control-plane namespace; the adapter assigns each Machine to its
	// NodePool.
	Machines           []*capiv1.Machine
	MachineSets        []*capiv1.MachineSet
	MachineDeployments []*capiv1.MachineDeployment
}

// ComputeHosted evaluates the hosted cluster src at the instant now.
//
// The hosted adapter is not written yet: this returns no insights.
func (e *Engine) ComputeHosted(src *HostedSources, now time.Time) Result {
	_ = src
	return e.ComputeCluster(&Cluster{}, now)
}
