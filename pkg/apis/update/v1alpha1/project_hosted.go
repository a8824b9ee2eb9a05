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

package v1alpha1

// Health insight kinds of a hosted cluster's rules (docs/insights.md#hosted-control-planes).
const (
	// HealthHostedClusterMissing reports that the HostedCluster a hosted
	// cluster's objects belong to does not exist.
	HealthHostedClusterMissing HealthKind = "health-hc-missing"
	// HealthHostedNoVersion reports a HostedCluster without status.version.
	HealthHostedNoVersion HealthKind = "health-hc-noversion"
	// HealthHostedReleaseImage reports a HostedCluster whose
	// ValidReleaseImage condition is False.
	HealthHostedReleaseImage HealthKind = "health-hc-releaseimage"
	// HealthHostedBlocked reports a HostedCluster whose update is blocked
	// (Progressing False with reason Blocked).
	HealthHostedBlocked HealthKind = "health-hc-blocked"
	// HealthComponentRollout reports a ControlPlaneComponent whose rollout
	// has not completed for too long.
	HealthComponentRollout HealthKind = "health-cpc-rollout"
	// HealthComponentsNone reports a hosted control plane that lists no
	// ControlPlaneComponents.
	HealthComponentsNone HealthKind = "health-cpc-none"
	// HealthNodePoolReleaseImage reports a NodePool whose ValidReleaseImage
	// condition is False.
	HealthNodePoolReleaseImage HealthKind = "health-np-releaseimage"
	// HealthNodePoolVersionSkew reports a NodePool (or HostedCluster) whose
	// SupportedVersionSkew condition is False.
	HealthNodePoolVersionSkew HealthKind = "health-np-versionskew"
	// HealthNodePoolInPlaceFailed reports an InPlace NodePool whose
	// in-place update failed on a node.
	HealthNodePoolInPlaceFailed HealthKind = "health-np-inplacefailed"
	// HealthNodePoolUpgradeType reports a NodePool with an upgrade type this
	// server does not know.
	HealthNodePoolUpgradeType HealthKind = "health-np-upgradetype"
	// HealthMachineProvision reports a Machine that failed to provision, or
	// has provisioned for too long.
	HealthMachineProvision HealthKind = "health-machine-provision"
	// HealthMachineDrain reports a Machine whose node has drained for longer
	// than its NodePool's nodeDrainTimeout.
	HealthMachineDrain HealthKind = "health-machine-drain"
	// HealthMachinesNoPool reports Machines that belong to no NodePool.
	HealthMachinesNoPool HealthKind = "health-machine-nopool"
)
