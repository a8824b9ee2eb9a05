// Package bench holds the cluster-scale benchmarks of update-status-apiserver
// (`make bench`). The harness is the command under cmd/bench; it starts the
// real local control plane of pkg/localstack, fills it with a
// simulated cluster and writes docs/benchmarks.md. Nothing here runs in
// `make test`: the only tests are unit tests of the statistics helpers.
package bench
