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

// Package app is the update-status command: it computes an UpdateStatus
// offline from object dumps, and prints the report of
// `oc adm upgrade status` from an UpdateStatus, computed offline or read
// from a cluster.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"
	"sigs.k8s.io/yaml"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/report"
	"github.com/update-status/apiserver/pkg/sourcefiles"
	"github.com/update-status/apiserver/pkg/view"
)

// Deps are what the commands need from the outside world; tests replace
// them.
type Deps struct {
	Out, ErrOut io.Writer
	// Clock is read for the report of a served object and for --now=now.
	Clock clock.PassiveClock
	// NewClient builds a client from a kubeconfig file.
	NewClient func(kubeconfig string) (versioned.Interface, error)
	// NewKubeClient builds a Kubernetes client from a kubeconfig file (the
	// Leases of contribute).
	NewKubeClient func(kubeconfig string) (kubernetes.Interface, error)
}

// NewCommand returns the update-status root command.
func NewCommand(deps Deps) *cobra.Command {
	if deps.Clock == nil {
		deps.Clock = clock.RealClock{}
	}
	if deps.NewClient == nil {
		deps.NewClient = newClient
	}
	if deps.NewKubeClient == nil {
		deps.NewKubeClient = newKubeClient
	}
	root := &cobra.Command{
		Use:   "update-status",
		Short: "Compute and print the status of an OpenShift cluster update",
		Long: "update-status computes the update.openshift.io/v1alpha1 UpdateStatus of an OpenShift cluster from\n" +
			"dumps of its objects, prints the report of `oc adm upgrade status` from such an object, and contributes\n" +
			"insights to a cluster's UpdateStatus as an external informer (contribute).",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(deps.Out)
	root.SetErr(deps.ErrOut)
	root.AddCommand(newComputeCommand(deps), newReportCommand(deps), newAlertRulesCommand(deps), newWebCommand(deps),
		newContributeCommand(deps), newRecommendCommand(deps))
	return root
}

// offlineOptions are the flags that compute an object from files.
type offlineOptions struct {
	fromDir string
	now     string
}

func (o *offlineOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.fromDir, "from-dir", "", "Directory of YAML or JSON object dumps (single objects, lists, a must-gather tree)")
	cmd.Flags().StringVar(&o.now, "now", "", "The instant to judge the objects at (RFC 3339, or \"now\" for the wall clock). "+
		"Default: the latest condition transition of the ClusterVersion and ClusterOperators plus 368975ns, as oc's mock mode")
}

// computation is one offline computation.
type computation struct {
	src *insights.Sources
	now time.Time
	res insights.Result
	// obj is the UpdateStatus of res.
	obj *v1alpha1.UpdateStatus
}

// compute loads the sources and computes the object.
func (o *offlineOptions) compute(c clock.PassiveClock) (*computation, error) {
	src, err := sourcefiles.Load(o.fromDir)
	if err != nil {
		return nil, err
	}
	now, err := o.instant(src, c)
	if err != nil {
		return nil, err
	}
	res := insights.Compute(src, now)
	obj, err := res.Object()
	if err != nil {
		return nil, err
	}
	return &computation{src: src, now: now, res: res, obj: obj}, nil
}

func (o *offlineOptions) instant(src *insights.Sources, c clock.PassiveClock) (time.Time, error) {
	switch o.now {
	case "":
		now := sourcefiles.MockNow(src)
		if now.IsZero() {
			return now, errors.New("the objects carry no condition times; pass --now")
		}
		return now, nil
	case "now":
		return c.Now(), nil
	}
	now, err := time.Parse(time.RFC3339Nano, o.now)
	if err != nil {
		return now, fmt.Errorf("invalid --now %q: %w", o.now, err)
	}
	return now, nil
}

func newComputeCommand(deps Deps) *cobra.Command {
	var o offlineOptions
	var output, kind string
	cmd := &cobra.Command{
		Use:   "compute --from-dir DIR [--now RFC3339] [--kind KIND] [-o yaml|json]",
		Short: "Compute the UpdateStatus named cluster, or the per-insight objects of one kind, from object dumps",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.fromDir == "" {
				return errors.New("--from-dir is required")
			}
			if output != "yaml" && output != "json" {
				return fmt.Errorf("invalid -o %q: must be yaml or json", output)
			}
			k, err := parseKind(kind)
			if err != nil {
				return err
			}
			c, err := o.compute(deps.Clock)
			if err != nil {
				return err
			}
			var obj runtime.Object = c.obj
			if k != updateStatusKind {
				objs, err := insightObjects(&c.res, view.ObjectMeta(c.src.ClusterVersion))
				if err != nil {
					return err
				}
				if obj, err = insightList(k, objs[k]); err != nil {
					return err
				}
			}
			var data []byte
			if output == "json" {
				data, err = json.MarshalIndent(obj, "", "  ")
				data = append(data, '\n')
			} else {
				data, err = yaml.Marshal(obj)
			}
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	}
	o.addFlags(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "yaml", "Output format: yaml or json")
	cmd.Flags().StringVar(&kind, "kind", "UpdateStatus", "What to print: UpdateStatus, or a v1alpha1 List of one per-insight kind (ClusterVersionProgressInsight, "+
		"ClusterOperatorProgressInsight, MachineConfigPoolProgressInsight, NodeProgressInsight, HealthInsight; "+
		"any case, or the resource or short name, e.g. npi)")
	return cmd
}

func newReportCommand(deps Deps) *cobra.Command {
	var o offlineOptions
	var details, kubeconfig, fromFile, hostedCluster string
	var watch, hostedClusters bool
	var namespace string
	cmd := &cobra.Command{
		Use: "report [--details none|nodes|operators|health|all] [--hosted-cluster NS/NAME | --hosted-clusters [-n NAMESPACE]]\n" +
			"  (--from-dir DIR [--now T] | --from-file FILE [--now T] | --kubeconfig FILE [--watch])",
		Short: "Print the report of `oc adm upgrade status`, rendered from the UpdateStatus object",
		Long: "Print the report of `oc adm upgrade status`, rendered from the UpdateStatus object. When the object left\n" +
			"insights out to stay within the API's limits and the cluster serves the per-insight resources\n" +
			"(nodeprogressinsights and the others), the report reads them too and lists every node.\n\n" +
			"With --hosted-cluster NAMESPACE/NAME it reports on that hosted cluster (HyperShift) instead, from its\n" +
			"HostedClusterUpdateStatus: its control plane and components, its NodePools in the worker pools' place.\n\n" +
			"With --hosted-clusters it prints the fleet: one line per hosted cluster that is updating (of every namespace,\n" +
			"or of -n NAMESPACE), worst first (stalled, then behind its estimate, then unknown, then progressing; then by\n" +
			"worst health, then by name), and one line counting the hosted clusters that are not updating (naming up to five).\n\n" +
			"--from-file reads the objects from a file saved from a cluster (kubectl get updatestatus,npi -o yaml; for a\n" +
			"hosted cluster kubectl get hcus,hnpi -n NAMESPACE -o yaml), judged at --now (default: the wall clock).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := report.ParseDetails(details)
			if err != nil {
				return err
			}
			var hosted *types.NamespacedName
			if hostedCluster != "" {
				key, err := parseHostedCluster(hostedCluster)
				if err != nil {
					return err
				}
				hosted = &key
			}
			inputs := 0
			for _, set := range []bool{o.fromDir != "", fromFile != "", kubeconfig != ""} {
				if set {
					inputs++
				}
			}
			switch {
			case inputs > 1:
				return errors.New("--from-dir, --from-file and --kubeconfig are mutually exclusive")
			case inputs == 0:
				return errors.New("one of --from-dir, --from-file or --kubeconfig is required")
			case watch && kubeconfig == "":
				return errors.New("--watch needs --kubeconfig")
			case o.now != "" && kubeconfig != "":
				return errors.New("--now needs --from-dir or --from-file")
			case hosted != nil && o.fromDir != "":
				return errors.New("--hosted-cluster needs --kubeconfig or --from-file: --from-dir computes a standalone cluster's UpdateStatus")
			case hostedClusters && hosted != nil:
				return errors.New("--hosted-cluster and --hosted-clusters are mutually exclusive")
			case hostedClusters && o.fromDir != "":
				return errors.New("--hosted-clusters needs --kubeconfig or --from-file: --from-dir computes a standalone cluster's UpdateStatus")
			case hostedClusters && d != report.DetailsNone:
				return errors.New("--details shows the sections of one cluster's report: use it with --hosted-cluster NS/NAME, not --hosted-clusters")
			case namespace != "" && !hostedClusters:
				return errors.New("--namespace needs --hosted-clusters")
			}
			if err := checkNamespace(namespace); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if hostedClusters {
				if fromFile != "" {
					return fleetFromFile(out, fromFile, namespace, o.now, deps.Clock)
				}
				client, err := deps.NewClient(kubeconfig)
				if err != nil {
					return err
				}
				f := &fleet{client: client, ns: namespace, out: out, clock: deps.Clock}
				if watch {
					return f.watch(cmd.Context())
				}
				return f.once(cmd.Context())
			}
			switch {
			case o.fromDir != "":
				c, err := o.compute(deps.Clock)
				if err != nil {
					return err
				}
				obj, err := completeOffline(c.obj, &c.res)
				if err != nil {
					return err
				}
				return report.RenderInPoolOrder(out, obj, c.now, d, sourcefiles.PoolOrder(c.src))
			case fromFile != "":
				return reportFromFile(out, fromFile, hosted, o.now, deps.Clock, d)
			}
			client, err := deps.NewClient(kubeconfig)
			if err != nil {
				return err
			}
			var t target = clusterStatus{client: client}
			if hosted != nil {
				t = hostedStatus{client: client, key: *hosted}
			}
			s := &served{target: t, out: out, clock: deps.Clock, details: d}
			if watch {
				return s.watch(cmd.Context())
			}
			return s.once(cmd.Context())
		},
	}
	o.addFlags(cmd)
	cmd.Flags().StringVar(&details, "details", string(report.DetailsNone), "Show detailed output in selected section. One of: none, all, nodes, health, operators")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "Read the served updatestatuses/cluster (or hostedclusterupdatestatuses, with --hosted-cluster or --hosted-clusters) with this kubeconfig")
	cmd.Flags().BoolVar(&watch, "watch", false, "With --kubeconfig: print the report again on every change of the object")
	cmd.Flags().StringVar(&fromFile, "from-file", "", "Read the UpdateStatus (or HostedClusterUpdateStatus) and its per-insight objects from this YAML or JSON file, saved from a cluster")
	cmd.Flags().StringVar(&hostedCluster, "hosted-cluster", "", "Report on the hosted cluster (HyperShift HostedCluster) NAMESPACE/NAME from its HostedClusterUpdateStatus")
	cmd.Flags().BoolVar(&hostedClusters, "hosted-clusters", false, "Print the fleet: one line per hosted cluster updating, worst first, from the HostedClusterUpdateStatuses of every namespace (or of --namespace)")
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "With --hosted-clusters: the hosted clusters of this namespace only")
	return cmd
}

// reportFromFile prints the report of the object saved in path.
func reportFromFile(out io.Writer, path string, hosted *types.NamespacedName, nowFlag string, c clock.PassiveClock, d report.Details) error {
	now, saved, err := readSavedAt(path, nowFlag, c)
	if err != nil {
		return err
	}
	if hosted != nil {
		obj, err := saved.hostedStatus(path, *hosted)
		if err != nil {
			return err
		}
		return report.RenderHosted(out, obj, now, d)
	}
	obj, err := saved.updateStatus(path)
	if err != nil {
		return err
	}
	return report.Render(out, obj, now, d)
}

// readSavedAt reads the objects saved in path and the time to judge them
// at, which --now (nowFlag) names, c's now by default.
func readSavedAt(path, nowFlag string, c clock.PassiveClock) (time.Time, *savedObjects, error) {
	now, err := judgedAt(nowFlag, c)
	if err != nil {
		return time.Time{}, nil, err
	}
	saved, err := readSaved(path)
	return now, saved, err
}

// judgedAt is the instant a saved object is judged at: --now, or the
// clock when it is empty or "now".
func judgedAt(nowFlag string, c clock.PassiveClock) (time.Time, error) {
	if nowFlag == "" || nowFlag == "now" {
		return c.Now(), nil
	}
	now, err := time.Parse(time.RFC3339Nano, nowFlag)
	if err != nil {
		return now, fmt.Errorf("invalid --now %q: %w", nowFlag, err)
	}
	return now, nil
}

// Run executes the command line args and returns the process exit code.
func Run(ctx context.Context, deps Deps, args []string) int {
	cmd := NewCommand(deps)
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(ctx); err != nil {
		_, _ = fmt.Fprintf(deps.ErrOut, "error: %v\n", err)
		return 1
	}
	return 0
}
