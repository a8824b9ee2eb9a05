// Command update-status computes the UpdateStatus of an OpenShift cluster
// from object dumps and prints the report of `oc adm upgrade status` from
// such an object, computed offline or served by a cluster.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/update-status/apiserver/cmd/update-status/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Run(ctx, app.Deps{Out: os.Stdout, ErrOut: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}
