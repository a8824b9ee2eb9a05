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

// The names of the objects, annotations and labels the engine reads. They are
// defined here, once: the informers, the file loader, the simulator and the
// tests use these constants rather than spelling the names again, so that what
// is fetched, kept and written is what the engine reads (docs/insights.md#inputs).
// openshift/api defines none of them except the MachineConfig role label
// (mcfgv1.MachineConfigRoleLabelKey), which the engine does not read.

// Objects the engine reads by name.
const (
	// ClusterVersionName is the name of the only ClusterVersion.
	ClusterVersionName = "version"
	// MCONamespace and MCODeploymentName name the machine-config-operator
	// Deployment, whose operator image tells the MCO's version.
	MCONamespace      = "openshift-machine-config-operator"
	MCODeploymentName = "machine-config-operator"
	// MCOContainerName is the container of that Deployment that runs the
	// operator.
	MCOContainerName = "machine-config-operator"
	// MCOClusterOperatorName is the ClusterOperator of the machine-config
	// operator, which updates the nodes rather than the control plane.
	MCOClusterOperatorName = "machine-config"
)

// Entries of a ClusterOperator's status.versions the engine reads.
const (
	// OperatorVersionName is the operator's own version.
	OperatorVersionName = "operator"
	// OperatorImageVersionName is the operator's image pull spec, reported by
	// the machine-config operator only.
	OperatorImageVersionName = "operator-image"
)

// ReleaseImageVersionAnnotation is the only part of a MachineConfig the
// engine reads: the OCP version a rendered config belongs to.
const ReleaseImageVersionAnnotation = "machineconfiguration.openshift.io/release-image-version"

// The Node annotations of the machine-config daemon (docs/insights.md#node-annotations).
const (
	CurrentConfigAnnotation    = "machineconfiguration.openshift.io/currentConfig"
	DesiredConfigAnnotation    = "machineconfiguration.openshift.io/desiredConfig"
	MCDStateAnnotation         = "machineconfiguration.openshift.io/state"
	MCDReasonAnnotation        = "machineconfiguration.openshift.io/reason"
	DesiredDrainAnnotation     = "machineconfiguration.openshift.io/desiredDrain"
	LastAppliedDrainAnnotation = "machineconfiguration.openshift.io/lastAppliedDrain"
	DesiredImageAnnotation     = "machineconfiguration.openshift.io/desiredImage"
	CurrentImageAnnotation     = "machineconfiguration.openshift.io/currentImage"
)

// NodeAnnotations are the only Node annotations the engine reads; a source
// may drop every other. Do not modify.
var NodeAnnotations = []string{
	CurrentConfigAnnotation,
	DesiredConfigAnnotation,
	MCDStateAnnotation,
	MCDReasonAnnotation,
	DesiredDrainAnnotation,
	LastAppliedDrainAnnotation,
	DesiredImageAnnotation,
	CurrentImageAnnotation,
}

// Values of MCDStateAnnotation.
const (
	MCDStateDone           = "Done"
	MCDStateWorking        = "Working"
	MCDStateRebooting      = "Rebooting"
	MCDStateDegraded       = "Degraded"
	MCDStateUnreconcilable = "Unreconcilable"
)

// The MachineConfigPool keys of on-cluster image layering.
const (
	// LayeringEnabledLabel marks a pool whose nodes boot a built image.
	LayeringEnabledLabel = "machineconfiguration.openshift.io/layering-enabled"
	// NewestImageEquivalentConfigAnnotation names the rendered config the
	// pool's newest image was built from.
	NewestImageEquivalentConfigAnnotation = "machineconfiguration.openshift.io/newestImageEquivalentConfig"
)
