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

// Package hypershift declares, once for the whole project, what this project
// reads of HyperShift and Cluster API beyond the Go modules it links:
//
//   - HyperShift's own types come from github.com/openshift/hypershift/api
//     (hypershift/v1beta1, imported as hyperv1) at the only version the module
//     proxy serves, v0.0.0-20251113182218-95835694eb99 (HyperShift commit
//     95835694eb99, 2025-11-13).
//   - Cluster API's Machine, MachineSet and MachineDeployment come from
//     sigs.k8s.io/cluster-api v1.10.4 (api/v1beta1), the Cluster API release
//     HyperShift vendors at that commit.
//   - Fields HyperShift added after that commit are declared here, each citing
//     its upstream type: HostedCluster and HostedControlPlane
//     status.controlPlaneVersion (ControlPlaneVersionStatus), NodePool
//     status.nodesInfo (NodePoolNodesInfo), ControlPlaneComponent
//     status.observedGeneration and the Machine annotation
//     ReleaseVersionAnnotation. Readers get them from the unstructured object
//     with the accessors of this package, which return nothing when a cluster
//     predates them.
//
// The CRD manifests of these kinds, as the local stack and the simulator
// install them, are in the crds subpackage.
package hypershift
