// Command update-status-apiserver is the aggregated API server of
// update.openshift.io. The directory name gives the binary its name under
// `go build -o bin/ ./cmd/...`.
package main

import (
	"os"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/component-base/cli"

	"github.com/update-status/apiserver/cmd/apiserver/app"
)

func main() {
	ctx := genericapiserver.SetupSignalContext()
	os.Exit(cli.Run(app.NewCommand(ctx)))
}
