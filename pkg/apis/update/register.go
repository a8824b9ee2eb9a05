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
	)
	return nil
}
