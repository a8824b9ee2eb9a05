// Package v1alpha1 is the v1alpha1 version of the update.openshift.io API: the
// UpdateStatus virtual resource that summarises an OpenShift cluster update.
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/update-status/apiserver/pkg/apis/update
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=io.openshift.update.v1alpha1
// +groupName=update.openshift.io
package v1alpha1
