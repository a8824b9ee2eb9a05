// Package framework runs a real control plane on loopback for the integration
// tests, `make run` and the benchmarks: etcd and kube-apiserver built from the
// Go module proxy (hack/build-kube.sh), the OpenShift CRDs from the
// openshift/api module, and the update-status-apiserver binary registered
// through the kube-apiserver's aggregation layer with the manifests of
// artifacts/local.
//
// Everything runs as child processes in their own process groups and writes
// under one temporary directory; ControlPlane.Stop ends the processes and
// removes the directory. Binaries come from the directory named by the
// KUBE_BIN_DIR environment variable (`KUBE_BIN_DIR=$(hack/build-kube.sh)`).
package framework
