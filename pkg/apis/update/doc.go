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

// Package update holds the internal types of the update.openshift.io API
// group, which the registry stores and k8s.io/apiserver converts to the served
// version. They are generated from the v1alpha1 types (zz_generated.types.go,
// hack/internaltypes); the engine, validation and clients work on v1alpha1
// (docs/api-decisions.md#the-internal-version).
//
// +k8s:deepcopy-gen=package
// +groupName=update.openshift.io
package update
