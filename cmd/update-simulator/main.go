// Command update-simulator drives a simulated OpenShift cluster through an
// update, against a kube-apiserver (--kubeconfig) or as files, one directory
// per state (--output-dir). See `update-simulator --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/update-status/apiserver/cmd/update-simulator/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
