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

package update

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of UpdateStatus.
const GroupName = "update.openshift.io"

// SchemeGroupVersion is the internal version of the group.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: runtime.APIVersionInternal}

var (
	// SchemeBuilder collects the functions that add the internal types to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the internal types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Kind returns the GroupKind of a kind of this group.
func Kind(kind string) schema.GroupKind {
	return SchemeGroupVersion.WithKind(kind).GroupKind()
}

// Resource returns the GroupResource of a resource of this group.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
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
	return nil
}
