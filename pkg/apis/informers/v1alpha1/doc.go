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

// Package v1alpha1 is the v1alpha1 version of the informers.update.openshift.io
// API: UpdateInformer, the object in which a component outside the
// update-status apiserver (an external informer) writes the insights it
// currently asserts about a cluster update. Unlike UpdateStatus it is ordinary
// persisted data, served by the kube-apiserver from a CustomResourceDefinition
// generated from these types (artifacts/deploy/crds); the update-status
// apiserver reads it as source input, merges its insights into UpdateStatus and
// writes its status.
//
// +k8s:deepcopy-gen=package
// +groupName=informers.update.openshift.io
package v1alpha1
