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

// Package localstack runs the local stack on loopback: etcd, a kube-apiserver
// and this update-status-apiserver registered through the kube-apiserver's
// aggregation layer. `make run` (cmd/local-up), the integration tests, the
// benchmarks and the soak test all run on it.
//
// etcd and kube-apiserver are built from the Go module proxy
// (hack/build-kube.sh), the OpenShift CRDs come from the openshift/api module,
// and the server is registered with the manifests of artifacts/local.
//
// Everything runs as child processes in their own process groups and writes
// under one directory; ControlPlane.Stop ends the processes and removes the
// directory. Binaries come from the directory named by the KUBE_BIN_DIR
// environment variable (`KUBE_BIN_DIR=$(hack/build-kube.sh)`).
package localstack
