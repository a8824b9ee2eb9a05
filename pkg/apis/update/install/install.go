// Package install registers every version of the update.openshift.io API group.
package install

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Install adds the internal and every versioned type of the group to scheme,
// with v1alpha1 as the preferred version.
func Install(scheme *runtime.Scheme) {
	utilruntime.Must(update.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	utilruntime.Must(scheme.SetVersionPriority(v1alpha1.SchemeGroupVersion))
}
