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

// Package ocp builds the objects of an OpenShift cluster that the update
// status is computed from: the ClusterVersion with its history, the
// ClusterOperators of the payload, MachineConfigPools, base and rendered
// MachineConfigs, the machine-config-operator Deployment and Nodes with the
// machine-config daemon's annotations, and the steps that move them through
// an update (StartUpdate, the node steps from RequestConfig to Uncordon,
// SetNodeState, the condition setters). The objects follow a real 4.x
// cluster; names, images and digests are deterministic functions of the
// versions. pkg/simulator and the tests build their clusters
// with it.
//
// It also installs the CRDs of those kinds (InstallCRDs), taken from the
// openshift/api module's own manifests, into a Kubernetes API server.
package ocp
