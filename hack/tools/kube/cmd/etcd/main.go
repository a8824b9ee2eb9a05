// Command etcd is etcd's server built from the Go module proxy at the version
// that k8s.io/kubernetes pins; it has the same entry point as upstream's binary.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
