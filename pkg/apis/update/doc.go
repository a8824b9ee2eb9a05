// Package update holds the internal (hub) types of the update.openshift.io API
// group. Every served version converts to and from these types.
//
// +k8s:deepcopy-gen=package
// +groupName=update.openshift.io
package update
