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

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of UpdateStatus.
const GroupName = "update.openshift.io"

// SchemeGroupVersion is the group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// GroupVersion is an alias of SchemeGroupVersion, the name upstream uses.
var GroupVersion = SchemeGroupVersion

var (
	// SchemeBuilder collects the functions that add this version to a scheme.
	SchemeBuilder      runtime.SchemeBuilder
	localSchemeBuilder = &SchemeBuilder
	// AddToScheme adds this version's types, conversions and defaults to a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
	// Install is an alias of AddToScheme, the name upstream uses.
	Install = AddToScheme
)

func init() {
	// Only hand-written functions are registered here, so the package compiles
	// before the generated conversions and defaults exist; those register
	// themselves from their own init functions.
	localSchemeBuilder.Register(addKnownTypes)
}

// Resource returns the GroupResource of a resource of this group.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

// Kind returns the GroupKind of a kind of this group.
func Kind(kind string) schema.GroupKind {
	return SchemeGroupVersion.WithKind(kind).GroupKind()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&UpdateStatus{},
		&UpdateStatusList{},
		&ClusterVersionProgressInsight{},
		&ClusterVersionProgressInsightList{},
		&ClusterOperatorProgressInsight{},
		&ClusterOperatorProgressInsightList{},
		&MachineConfigPoolProgressInsight{},
		&MachineConfigPoolProgressInsightList{},
		&NodeProgressInsight{},
		&NodeProgressInsightList{},
		&HealthInsight{},
		&HealthInsightList{},
		&UpdateReadiness{},
		&UpdateReadinessList{},
		&UpdateCandidate{},
		&UpdateCandidateList{},
		&HostedClusterUpdateStatus{},
		&HostedClusterUpdateStatusList{},
		&HostedClusterVersionProgressInsight{},
		&HostedClusterVersionProgressInsightList{},
		&HostedClusterOperatorProgressInsight{},
		&HostedClusterOperatorProgressInsightList{},
		&HostedMachineConfigPoolProgressInsight{},
		&HostedMachineConfigPoolProgressInsightList{},
		&HostedNodeProgressInsight{},
		&HostedNodeProgressInsightList{},
		&HostedHealthInsight{},
		&HostedHealthInsightList{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
