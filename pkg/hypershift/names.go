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

package hypershift

import "strings"

// ControlPlaneNamespace is the namespace of a HostedCluster's control plane:
// "<namespace>-<name>" with dots turned into dashes, as HyperShift's
// manifests.HostedControlPlaneNamespace names it.
func ControlPlaneNamespace(hostedClusterNamespace, hostedClusterName string) string {
	return strings.ReplaceAll(hostedClusterNamespace+"-"+hostedClusterName, ".", "-")
}

// HostedControlPlaneNamespaceLabel marks a control-plane namespace
// (value "true").
const HostedControlPlaneNamespaceLabel = "hypershift.openshift.io/hosted-control-plane"

// NodePoolAnnotation is set on a NodePool's MachineDeployment or MachineSet
// and its Machine template to "<namespace>/<name>" of the NodePool; HyperShift
// finds a NodePool's Machines by it.
const NodePoolAnnotation = "hypershift.openshift.io/nodePool"

// HostedClusterAnnotation is set on the HostedControlPlane (and the other
// control-plane objects) to "<namespace>/<name>" of its HostedCluster.
const HostedClusterAnnotation = "hypershift.openshift.io/cluster"
