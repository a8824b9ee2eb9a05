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

import (
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// ReleaseVersionAnnotation is set on a NodePool's Machines (Replace: through
// the MachineDeployment's template; InPlace: once the node runs the new
// release) to the OCP version the machine runs. Upstream:
// hypershift-operator/controllers/nodepool (commit e17f41be70, PR #7917,
// 2026-03-18), newer than the hypershift/api module this project links.
const ReleaseVersionAnnotation = "hypershift.openshift.io/release-version"

// Annotations of an InPlace NodePool's MachineSet, written by the NodePool
// controller and the in-place upgrader of the hosted-cluster config operator
// (hypershift-operator/controllers/nodepool/inplace.go,
// control-plane-operator/hostedclusterconfigoperator/controllers/inplaceupgrader).
// The hypershift/api module does not declare them.
const (
	// NodePoolTargetConfigVersionAnnotation is the config hash the pool
	// rolls to.
	NodePoolTargetConfigVersionAnnotation = "hypershift.openshift.io/nodePoolTargetConfigVersion"
	// NodePoolCurrentConfigVersionAnnotation is the config hash every node
	// runs; the rollout is done when it equals the target.
	NodePoolCurrentConfigVersionAnnotation = "hypershift.openshift.io/nodePoolCurrentConfigVersion"
	// NodePoolMaxUnavailableAnnotation is the pool's in-place maxUnavailable.
	NodePoolMaxUnavailableAnnotation = "hypershift.openshift.io/nodePoolMaxUnavailable"
	// NodePoolUpgradeInProgressTrueAnnotation carries the upgrader's progress
	// message ("... Total Nodes: N. Upgraded: M").
	NodePoolUpgradeInProgressTrueAnnotation = "hypershift.openshift.io/nodePoolUpgradeInProgressTrue"
	// NodePoolUpgradeInProgressFalseAnnotation carries the upgrader's failure
	// message ("Node X in nodepool degraded: ...").
	NodePoolUpgradeInProgressFalseAnnotation = "hypershift.openshift.io/nodePoolUpgradeInProgressFalse"
)

// NodePoolInplaceUpgradeFailedReason is the UpdatingVersion/UpdatingConfig
// reason of an InPlace NodePool whose node is degraded
// (hypershift-operator/controllers/nodepool/inplace.go).
const NodePoolInplaceUpgradeFailedReason = "InplaceUpgradeFailed"

// ControlPlaneVersionStatus is HostedCluster and HostedControlPlane
// status.controlPlaneVersion: the release the management-side components run,
// computed from the ControlPlaneComponents, independent of the hosted
// cluster's CVO. Upstream: api/hypershift/v1beta1/controlplaneversion_types.go
// (commit 825ff5a3a7, PR #7887, 2026-03-25).
type ControlPlaneVersionStatus struct {
	// Desired is the release the control plane reconciles towards.
	Desired configv1.Release `json:"desired"`
	// History lists the releases applied, newest first (1 to 100 entries).
	History []ControlPlaneUpdateHistory `json:"history,omitempty"`
	// ObservedGeneration is the HostedControlPlane generation synced.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// ControlPlaneUpdateHistory is one entry of ControlPlaneVersionStatus.History.
// It turns Completed when every ControlPlaneComponent reports Version with
// RolloutComplete=True; CompletionTime is unset while it runs.
type ControlPlaneUpdateHistory struct {
	State          configv1.UpdateState `json:"state"`
	StartedTime    metav1.Time          `json:"startedTime"`
	CompletionTime *metav1.Time         `json:"completionTime,omitempty"`
	Version        string               `json:"version"`
	Image          string               `json:"image"`
}

// NodePoolNodesInfo is NodePool status.nodesInfo: the pool's Machines grouped
// by the versions their nodes run (Machines without status.nodeInfo are
// skipped; the field is omitted when there are none). Upstream:
// api/hypershift/v1beta1/nodepool_types.go and
// hypershift-operator/controllers/nodepool/version.go (commit e17f41be70,
// PR #7917, 2026-03-18).
type NodePoolNodesInfo struct {
	NodeVersions []NodeVersionCount `json:"nodeVersions,omitempty"`
}

// NodeVersionCount counts the nodes of one OCP and kubelet version; ready
// means the Machine's NodeHealthy condition is True.
type NodeVersionCount struct {
	OCPVersion       string `json:"ocpVersion"`
	KubeletVersion   string `json:"kubeletVersion"`
	ReadyNodeCount   int32  `json:"readyNodeCount"`
	UnreadyNodeCount int32  `json:"unreadyNodeCount"`
}

// Field paths of the newer fields in their objects.
var (
	controlPlaneVersionPath = []string{"status", "controlPlaneVersion"}
	nodesInfoPath           = []string{"status", "nodesInfo"}
	componentGenerationPath = []string{"status", "observedGeneration"}
)

// ControlPlaneVersion reads status.controlPlaneVersion of a HostedCluster or
// HostedControlPlane; nil without error when the object predates it.
func ControlPlaneVersion(obj *unstructured.Unstructured) (*ControlPlaneVersionStatus, error) {
	return readOptional[ControlPlaneVersionStatus](obj, controlPlaneVersionPath)
}

// SetControlPlaneVersion writes status.controlPlaneVersion (nil removes it).
func SetControlPlaneVersion(obj *unstructured.Unstructured, v *ControlPlaneVersionStatus) error {
	return writeField(obj, controlPlaneVersionPath, v)
}

// NodesInfo reads NodePool status.nodesInfo; nil without error when absent.
func NodesInfo(obj *unstructured.Unstructured) (*NodePoolNodesInfo, error) {
	return readOptional[NodePoolNodesInfo](obj, nodesInfoPath)
}

// SetNodesInfo writes NodePool status.nodesInfo; nil or no versions removes
// it (the schema wants at least one entry).
func SetNodesInfo(obj *unstructured.Unstructured, v *NodePoolNodesInfo) error {
	if v != nil && len(v.NodeVersions) == 0 {
		v = nil
	}
	return writeField(obj, nodesInfoPath, v)
}

// ComponentObservedGeneration reads ControlPlaneComponent
// status.observedGeneration (upstream: controlplanecomponent_types.go, PR
// #8819, 2026-06-29); ok is false when absent.
func ComponentObservedGeneration(obj *unstructured.Unstructured) (gen int64, ok bool, err error) {
	return unstructured.NestedInt64(obj.Object, componentGenerationPath...)
}

// SetComponentObservedGeneration writes ControlPlaneComponent
// status.observedGeneration.
func SetComponentObservedGeneration(obj *unstructured.Unstructured, gen int64) error {
	return unstructured.SetNestedField(obj.Object, gen, componentGenerationPath...)
}

// readOptional decodes the map at path into a new T; nil without error
// when the field is absent.
func readOptional[T any](obj *unstructured.Unstructured, path []string) (*T, error) {
	out := new(T)
	ok, err := readField(obj, path, out)
	if !ok {
		return nil, err
	}
	return out, nil
}

// readField decodes the map at path into out; ok is false when the field is
// absent or malformed (err says which).
func readField(obj *unstructured.Unstructured, path []string, out any) (bool, error) {
	if obj == nil {
		return false, nil
	}
	m, found, err := unstructured.NestedMap(obj.Object, path...)
	if err != nil || !found {
		if err != nil {
			err = fmt.Errorf("%s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
		return false, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, out); err != nil {
		return false, fmt.Errorf("%s %s/%s: .%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), strings.Join(path, "."), err)
	}
	return true, nil
}

// writeField encodes v at path, or removes the field when v is a nil pointer.
func writeField[T any](obj *unstructured.Unstructured, path []string, v *T) error {
	if v == nil {
		unstructured.RemoveNestedField(obj.Object, path...)
		return nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
	if err != nil {
		return err
	}
	return unstructured.SetNestedMap(obj.Object, m, path...)
}
