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

// Command local-up is `make run`: it starts etcd and kube-apiserver on
// loopback, creates an OpenShift cluster in the middle of an update, starts
// update-status-apiserver behind the aggregation layer, keeps the update
// moving, and stops everything on Ctrl-C or SIGTERM.
//
// It needs KUBE_BIN_DIR (`KUBE_BIN_DIR=$(hack/build-kube.sh)`), and runs from
// the repository root.
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/cmdflags"
	"github.com/update-status/apiserver/internal/localstack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(newCommand(ctx))
	stop()
	os.Exit(code)
}

// newCommand returns the local-up command; it runs until ctx is done.
func newCommand(ctx context.Context) *cobra.Command {
	var (
		outDir   string
		interval time.Duration
		pause    int
	)
	cmd := cmdflags.New(cmdflags.Command{
		Use:   "local-up",
		Short: "Run a local control plane, a simulated cluster mid-update and update-status-apiserver (make run)",
		Long: "local-up starts etcd and kube-apiserver on loopback, creates an OpenShift cluster in the middle of an\n" +
			"update, starts update-status-apiserver behind the aggregation layer and keeps the update moving until\n" +
			"Ctrl-C or SIGTERM. It needs KUBE_BIN_DIR (KUBE_BIN_DIR=$(hack/build-kube.sh)) and runs from the\n" +
			"repository root.",
		Flags: func(fss *cliflag.NamedFlagSets) {
			fs := fss.FlagSet("local-up")
			fs.StringVar(&outDir, "output-dir", "_output/local", "where the kubeconfigs, the ready file and the run directory (logs, certificates, etcd data) go")
			fs.DurationVar(&interval, "step-interval", 2*time.Second, "time between two steps of the update")
			fs.IntVar(&pause, "pause-steps", 10, "steps to wait after an update completes before the next one starts")
			fs.IntVar(&simNodes, "nodes", 12, "nodes of the simulated cluster")
			fs.BoolVar(&withPrometheus, "prometheus", true, "run a Prometheus ($PROMETHEUS or on PATH; hack/ensure-prometheus.sh) over the simulator's metrics with artifacts/local/prometheus/rules.yaml, and give the server its alerts")
			fs.DurationVar(&alertsInterval, "alerts-interval", 5*time.Second, "the server's --alerts-interval (with --prometheus)")
			fs.DurationVar(&holdDrain, "hold-drain", 45*time.Second, "in every update a PodDisruptionBudget holds one worker's drain this long (real time), which fires PodDisruptionBudgetAtLimit; 0: never")
			fs.IntVar(&routerPods, "router-pods", 4, "pods of the simulated ingress router on the workers, with its PodDisruptionBudget openshift-ingress/router-default; the held drain (--hold-drain) keeps one on the held node with the budget at 0")
			fs.BoolVar(&withMCNs, "machine-config-nodes", true, "install the MachineConfigNode CRD and have the simulator write a MachineConfigNode per node as the machine-config operator does (Cordoned, Drained, the drain's error); the drain informer reads them")
			fs.BoolVar(&withHostedCRDs, "hosted-crds", true, "install the CRDs of a HyperShift management cluster (HostedCluster, HostedControlPlane, NodePool, ControlPlaneComponent, Cluster API Machine/MachineSet/MachineDeployment; pkg/hypershift/crds), so that update-simulator --hosted-clusters can write them")
			fs.IntVar(&hostedClusters, "hosted-clusters", 3, "with --hosted-crds: hosted clusters updating one update after another beside the standalone cluster (hosted-N and its NodePool in namespace tenant-N, its control plane in tenant-N-hosted-N), the first with a drain held for --hold-drain past its NodePool's nodeDrainTimeout; more than 3 start their updates in waves of 10, 3 minutes apart (at speed 1), with 5% of them stuck in a control-plane component; 0: none")
			fs.BoolVar(&withDrainInformer, "drain-informer", true, "run update-status-drain-informer with its own ServiceAccount (artifacts/local/drain-informer.yaml): it names the pod and the budget that hold a drain")
			fs.Float64Var(&simSpeed, "speed", 60, "speed factor of the simulated update (60: an update of about 75 minutes takes about a minute and a quarter)")
		},
		Run: func(cmd *cobra.Command) error {
			err := run(cmd.Context(), outDir, interval, pause)
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
	})
	cmd.SetContext(ctx)
	return cmd
}

var (
	simNodes          int
	simSpeed          float64
	withPrometheus    bool
	alertsInterval    time.Duration
	holdDrain         time.Duration
	routerPods        int
	withDrainInformer bool
	withMCNs          bool
	withHostedCRDs    bool
	hostedClusters    int
)

func run(ctx context.Context, outDir string, interval time.Duration, pause int) error {
	begin := time.Now()
	outDir, err := filepath.Abs(outDir)
	if err != nil {
		return err
	}
	readyFile := filepath.Join(outDir, "ready")
	serverURLFile := filepath.Join(outDir, "server-url")
	runDir := filepath.Join(outDir, "run")
	// A previous run that was killed may have left these behind.
	for _, f := range []string{readyFile, serverURLFile} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.RemoveAll(runDir); err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}

	cp, err := localstack.Start(ctx, localstack.Options{Dir: runDir, MachineConfigNodes: withMCNs, HostedCRDs: withHostedCRDs})
	if err != nil {
		return err
	}
	defer func() {
		for _, f := range []string{readyFile, serverURLFile} {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				klog.ErrorS(err, "Cannot remove a file of the run", "path", f)
			}
		}
		cp.Stop()
		klog.InfoS("Stopped the control plane and the server")
	}()

	kubeconfigs := map[string]localstack.User{
		"kubeconfig":        cp.Users.Admin,
		"kubeconfig-viewer": cp.Users.Viewer,
		"kubeconfig-nobody": cp.Users.Nobody,
		// Reads the hosted clusters of one namespace (RoleBinding), no other.
		"kubeconfig-hosted-reader": cp.Users.HostedReader,
	}
	for name, user := range kubeconfigs {
		if err := localstack.WriteKubeconfig(filepath.Join(outDir, name), cp.KubeAPIServer.URL, cp.PKI.CAPEM, user); err != nil {
			return err
		}
	}

	cluster, err := newSimulated(cp, simNodes, simSpeed)
	if err != nil {
		return err
	}
	cluster.holdDrain = holdDrain
	if err := cluster.Create(ctx); err != nil {
		return fmt.Errorf("creating the cluster: %w", err)
	}
	var serverOpts localstack.ServerOptions
	if withPrometheus {
		if serverOpts, err = startPrometheus(ctx, cp, cluster); err != nil {
			return err
		}
	}
	if err := cp.StartServerWith(ctx, serverOpts); err != nil {
		return err
	}
	if withDrainInformer {
		if _, err := cp.StartDrainInformer(ctx); err != nil {
			return err
		}
	}
	if res := cp.Kubectl(ctx, localstack.AdminUser, "get", "updatestatus"); res.Err != nil {
		return fmt.Errorf("kubectl get updatestatus does not work: %w", res.Err)
	}
	// The server's own URL: its /metrics (and /readyz, /livez) answer the
	// admin kubeconfig's token, and its certificate is signed by the
	// kubeconfig's CA.
	if err := os.WriteFile(serverURLFile, []byte(cp.ServerURL+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(readyFile, nil, 0o644); err != nil {
		return err
	}
	if withHostedCRDs && hostedClusters > 0 {
		go driveHosted(ctx, cp, hostedClusters, simSpeed, holdDrain)
	}
	printTryThis(outDir, cp, time.Since(begin))

	err = cluster.Drive(ctx, interval, true, pause)
	if errors.Is(err, context.Canceled) {
		klog.InfoS("Interrupted; stopping")
		return nil
	}
	return err
}

// startPrometheus serves the simulator's metrics on loopback, starts
// Prometheus scraping them and returns the server's alert flags.
func startPrometheus(ctx context.Context, cp *localstack.ControlPlane, cluster *simulated) (localstack.ServerOptions, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return localstack.ServerOptions{}, err
	}
	srv := &http.Server{Handler: cluster.sim.MetricsHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	prom, err := cp.StartPrometheus(ctx, l.Addr().String())
	if err != nil {
		return localstack.ServerOptions{}, err
	}
	return localstack.ServerOptions{AlertsURL: prom.AlertsURL(), AlertsInterval: alertsInterval}, nil
}

func printTryThis(outDir string, cp *localstack.ControlPlane, took time.Duration) {
	rel := func(name string) string {
		p := filepath.Join(outDir, name)
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, p); err == nil {
				return r
			}
		}
		return p
	}
	fmt.Printf(`
update-status-apiserver is serving through the kube-apiserver at %s (ready in %v).
A cluster is updating; it moves on every few seconds, one update after another.

Try:
  kubectl --kubeconfig %s get updatestatus -w
  kubectl --kubeconfig %s get updatestatus cluster -o yaml
  kubectl --kubeconfig %s get updatestatus -o wide
  kubectl --kubeconfig %s explain updatestatus.status.controlPlane
  kubectl --kubeconfig %s get clusterversion,clusteroperators,machineconfigpools,nodes
  kubectl --kubeconfig %s get updatestatus          # reader role: allowed
  kubectl --kubeconfig %s get updatestatus          # no role: Forbidden
  kubectl --kubeconfig %s delete updatestatus cluster   # MethodNotAllowed, even for cluster-admin
  kubectl --kubeconfig %s --server "$(cat %s)" get --raw /metrics | grep '^update_status_'
  go run ./cmd/update-status web --kubeconfig %s   # the update live in a browser: http://127.0.0.1:8080/
  kubectl --kubeconfig %s get hi -l update.openshift.io/informer=%s   # what holds a drain
  kubectl --kubeconfig %s get updatecandidates,updatereadinesses   # between two updates: the releases offered and their risks
  go run ./cmd/update-status recommend --kubeconfig %s   # the same, as oc adm upgrade recommend prints it
  kubectl --kubeconfig %s get hcus -A   # the hosted clusters' updates (hosted-1's drain is held)
  go run ./cmd/update-status report --hosted-cluster tenant-1/hosted-1 --kubeconfig %s
  kubectl --kubeconfig %s -n tenant-1 get hcus   # a reader of namespace tenant-1 only

Logs: %s/*.log%s
Press Ctrl-C to stop everything.
`, cp.KubeAPIServer.URL, took.Round(100*time.Millisecond),
		rel("kubeconfig"), rel("kubeconfig"), rel("kubeconfig"), rel("kubeconfig"), rel("kubeconfig"),
		rel("kubeconfig-viewer"), rel("kubeconfig-nobody"), rel("kubeconfig"), rel("kubeconfig"), rel("server-url"), rel("kubeconfig"),
		rel("kubeconfig"), localstack.DrainInformerName+"."+localstack.DrainInformerNamespace, rel("kubeconfig"), rel("kubeconfig"),
		rel("kubeconfig"), rel("kubeconfig"), rel("kubeconfig-hosted-reader"), rel("run"), promHint(cp))
}

func promHint(cp *localstack.ControlPlane) string {
	if cp.Prometheus == nil {
		return ""
	}
	return fmt.Sprintf(`
Prometheus (rules: %s and the update-status rules, stalled after %v): %s
  curl -s %s            # pending and firing alerts
  (alerts that fire become health insights: kubectl get healthinsights)`,
		localstack.RulesFile, localstack.LocalStallAfter, cp.Prometheus.URL, cp.Prometheus.AlertsURL())
}
