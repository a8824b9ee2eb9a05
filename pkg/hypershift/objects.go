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

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"
)

// HostedCluster is a HostedCluster with the status fields newer than the
// hypershift/api module; ControlPlaneVersion is nil when the cluster
// predates it.
type HostedCluster struct {
	hyperv1.HostedCluster
	ControlPlaneVersion *ControlPlaneVersionStatus
}

// HostedControlPlane is a HostedControlPlane with its newer status fields.
type HostedControlPlane struct {
	hyperv1.HostedControlPlane
	ControlPlaneVersion *ControlPlaneVersionStatus
}

// NodePool is a NodePool with its newer status fields; NodesInfo is nil when
// the cluster predates it.
type NodePool struct {
	hyperv1.NodePool
	NodesInfo *NodePoolNodesInfo
}

// ControlPlaneComponent is a ControlPlaneComponent with its newer status
// fields; HasObservedGeneration is false when the cluster predates
// status.observedGeneration.
type ControlPlaneComponent struct {
	hyperv1.ControlPlaneComponent
	ObservedGeneration    int64
	HasObservedGeneration bool
}

// HostedClusterFrom converts an unstructured HostedCluster.
func HostedClusterFrom(u *unstructured.Unstructured) (*HostedCluster, error) {
	out := &HostedCluster{}
	return convertWithNewer(u, out, &out.HostedCluster, ControlPlaneVersion, func(v *ControlPlaneVersionStatus) { out.ControlPlaneVersion = v })
}

// HostedControlPlaneFrom converts an unstructured HostedControlPlane.
func HostedControlPlaneFrom(u *unstructured.Unstructured) (*HostedControlPlane, error) {
	out := &HostedControlPlane{}
	return convertWithNewer(u, out, &out.HostedControlPlane, ControlPlaneVersion, func(v *ControlPlaneVersionStatus) { out.ControlPlaneVersion = v })
}

// NodePoolFrom converts an unstructured NodePool.
func NodePoolFrom(u *unstructured.Unstructured) (*NodePool, error) {
	out := &NodePool{}
	return convertWithNewer(u, out, &out.NodePool, NodesInfo, func(v *NodePoolNodesInfo) { out.NodesInfo = v })
}

// ControlPlaneComponentFrom converts an unstructured ControlPlaneComponent.
func ControlPlaneComponentFrom(u *unstructured.Unstructured) (*ControlPlaneComponent, error) {
	out := &ControlPlaneComponent{}
	if err := fromUnstructured(u, &out.ControlPlaneComponent); err != nil {
		return nil, err
	}
	gen, ok, err := ComponentObservedGeneration(u)
	if err != nil {
		return nil, err
	}
	out.ObservedGeneration, out.HasObservedGeneration = gen, ok
	return out, nil
}

// MachineFrom converts an unstructured Cluster API Machine.
func MachineFrom(u *unstructured.Unstructured) (*capiv1.Machine, error) {
	out := &capiv1.Machine{}
	return out, fromUnstructured(u, out)
}

// MachineSetFrom converts an unstructured Cluster API MachineSet.
func MachineSetFrom(u *unstructured.Unstructured) (*capiv1.MachineSet, error) {
	out := &capiv1.MachineSet{}
	return out, fromUnstructured(u, out)
}

// MachineDeploymentFrom converts an unstructured Cluster API
// MachineDeployment.
func MachineDeploymentFrom(u *unstructured.Unstructured) (*capiv1.MachineDeployment, error) {
	out := &capiv1.MachineDeployment{}
	return out, fromUnstructured(u, out)
}

// convertWithNewer converts u into base, the hypershift object embedded in
// out, then reads u's newer status fields with newer and hands them to set.
// It returns out, or nil and the first error.
func convertWithNewer[O, N any](u *unstructured.Unstructured, out *O, base any, newer func(*unstructured.Unstructured) (N, error), set func(N)) (*O, error) {
	if err := fromUnstructured(u, base); err != nil {
		return nil, err
	}
	v, err := newer(u)
	if err != nil {
		return nil, err
	}
	set(v)
	return out, nil
}

func fromUnstructured(u *unstructured.Unstructured, out any) error {
	if u == nil {
		return fmt.Errorf("no object")
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return fmt.Errorf("%s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return nil
}
