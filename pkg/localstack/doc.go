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
