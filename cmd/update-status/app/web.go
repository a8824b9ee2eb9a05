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

package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/pkg/web"
)

// defaultListen is where `update-status web` serves unless told otherwise.
const defaultListen = "127.0.0.1:8080"

func newWebCommand(deps Deps) *cobra.Command {
	var kubeconfig, listen, hostedCluster string
	cmd := &cobra.Command{
		Use:   "web --kubeconfig FILE [--listen 127.0.0.1:8080] [--hosted-cluster NAMESPACE/NAME]",
		Short: "Serve a page that follows the cluster update live",
		Long: "Serve one page that follows the cluster update live: the control plane, a grid of node cells per pool,\n" +
			"and the health insights, streamed from the cluster's watch. The page reads the cluster as the\n" +
			"kubeconfig's user, so RBAC applies as it does to kubectl. It listens on loopback unless --listen\n" +
			"gives another address; then anyone who reaches that address reads what that user may read.\n\n" +
			"On a management cluster the page opens on the fleet: one cell per hosted cluster (HyperShift) the user\n" +
			"may list, coloured by its control-plane assessment, stalled ones marked; a click opens that hosted\n" +
			"cluster's page (/?hosted=NAMESPACE/NAME). With --hosted-cluster NAMESPACE/NAME the page opens on that\n" +
			"hosted cluster instead: its control plane and components, and its NodePools in the pools' place.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var hosted types.NamespacedName
			if hostedCluster != "" {
				var err error
				if hosted, err = parseHostedCluster(hostedCluster); err != nil {
					return err
				}
			}
			if kubeconfig == "" {
				kubeconfig = os.Getenv("KUBECONFIG")
			}
			if kubeconfig == "" {
				return errors.New("--kubeconfig (or KUBECONFIG) is required")
			}
			client, err := deps.NewClient(kubeconfig)
			if err != nil {
				return err
			}
			host, _, err := net.SplitHostPort(listen)
			if err != nil {
				return fmt.Errorf("invalid --listen %q: %w", listen, err)
			}
			loopback := isLoopback(host)
			l, err := net.Listen("tcp", listen)
			if err != nil {
				return err
			}
			opts := web.Options{Client: client, HostedCluster: hosted}
			if loopback {
				opts.AllowedHosts = web.LoopbackHosts(l.Addr().String())
			} else {
				klog.InfoS("WARNING: serving on a non-loopback address: whoever reaches it reads the cluster with the kubeconfig user's read rights", "listen", l.Addr().String())
			}
			return serveWeb(cmd.Context(), cmd, l, web.NewHandler(opts))
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "Read the cluster with this kubeconfig (default $KUBECONFIG)")
	cmd.Flags().StringVar(&hostedCluster, "hosted-cluster", "", "Follow the hosted cluster (HyperShift HostedCluster) NAMESPACE/NAME instead of the standalone cluster")
	cmd.Flags().StringVar(&listen, "listen", defaultListen, "Address to serve the page on (host:port; port 0 picks one). A non-loopback address serves the user's read rights to the network")
	return cmd
}

// isLoopback reports whether host (an IP or a name) stays on this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveWeb serves h on l until ctx ends (SIGINT or SIGTERM in main), then
// closes the event streams and shuts down.
func serveWeb(ctx context.Context, cmd *cobra.Command, l net.Listener, h *web.Handler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		// The streams end with ctx, so that Shutdown does not wait for them.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	ran := make(chan error, 1)
	go func() { ran <- h.Run(ctx) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	_, _ = fmt.Fprintf(cmd.OutOrStdout(), "Serving the update status on http://%s/ (Ctrl-C stops)\n", l.Addr())
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	cancel()
	shutdownCtx, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	if serr := srv.Shutdown(shutdownCtx); serr != nil && err == nil {
		err = serr
	}
	if rerr := <-ran; err == nil {
		err = rerr
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
