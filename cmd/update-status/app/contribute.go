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
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	updatev1alpha1 "github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/contribute"
)

func newContributeCommand(deps Deps) *cobra.Command {
	var kubeconfig, informer, namespace, file string
	var once bool
	var lease time.Duration
	cmd := &cobra.Command{
		Use:   "contribute --kubeconfig FILE --informer NAME [--namespace NS] -f FILE [--once] [--lease 60s]",
		Short: "Contribute the insights of an UpdateInformer manifest as an external informer, renewing until interrupted",
		Long: "Write the UpdateInformer NS/NAME (informers.update.openshift.io/v1alpha1) with the spec of the manifest\n" +
			"FILE, and renew its lease every third of it until interrupted; then delete it. The insights are served\n" +
			"under the informer name NAME.NS. The name and namespace of the manifest are ignored: --informer and\n" +
			"--namespace (default: the kubeconfig context's) name the object. With --once, write once and exit: the\n" +
			"insights then leave the API when the lease lapses.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if kubeconfig == "" || informer == "" || file == "" {
				return errors.New("--kubeconfig, --informer and -f are required")
			}
			spec, err := readContribution(file)
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("lease") && spec.LeaseDurationSeconds != nil {
				lease = time.Duration(*spec.LeaseDurationSeconds) * time.Second
			}
			if namespace == "" {
				if namespace, _, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
					&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}, &clientcmd.ConfigOverrides{}).Namespace(); err != nil {
					return fmt.Errorf("the namespace of %s: %w", kubeconfig, err)
				}
			}
			client, err := deps.NewClient(kubeconfig)
			if err != nil {
				return err
			}
			kube, err := deps.NewKubeClient(kubeconfig)
			if err != nil {
				return err
			}
			c, err := contribute.New(client.InformersV1alpha1(), kube, namespace, informer, contribute.WithLease(lease))
			if err != nil {
				return err
			}
			var controlPlane []updatev1alpha1.ControlPlaneInsight
			if spec.ControlPlane != nil {
				controlPlane = spec.ControlPlane.Insights
			}
			c.Set(controlPlane, spec.WorkerPools)
			out := cmd.OutOrStdout()
			if once {
				if err := c.Write(cmd.Context()); err != nil {
					return err
				}
				_, err := fmt.Fprintf(out, "updateinformer %s/%s written: informer %s, lease %v\n", namespace, informer, c.InformerName(), lease)
				return err
			}
			if _, err := fmt.Fprintf(out, "Contributing as informer %s (updateinformer %s/%s), renewing every %v until interrupted\n",
				c.InformerName(), namespace, informer, lease/3); err != nil {
				return err
			}
			if err := c.Run(cmd.Context()); err != nil {
				return err
			}
			_, err = fmt.Fprintf(out, "updateinformer %s/%s deleted\n", namespace, informer)
			return err
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "Write to the cluster of this kubeconfig")
	cmd.Flags().StringVar(&informer, "informer", "", "Name of the UpdateInformer object (the informer is served as NAME.NAMESPACE)")
	cmd.Flags().StringVarP(&namespace, "namespace", "n", "", "Namespace of the object (default: the kubeconfig context's namespace, else default)")
	cmd.Flags().StringVarP(&file, "filename", "f", "", "UpdateInformer manifest (YAML or JSON) whose spec is contributed")
	cmd.Flags().BoolVar(&once, "once", false, "Write once and exit, without renewing or deleting")
	cmd.Flags().DurationVar(&lease, "lease", informersv1alpha1.DefaultLeaseDurationSeconds*time.Second,
		"Lease of the contribution (default: the manifest's spec.leaseDurationSeconds, else 60s)")
	return cmd
}

// readContribution reads the spec of the UpdateInformer manifest in file.
func readContribution(file string) (*informersv1alpha1.UpdateInformerSpec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var ui informersv1alpha1.UpdateInformer
	if err := yaml.UnmarshalStrict(data, &ui); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if want := informersv1alpha1.SchemeGroupVersion.String(); ui.APIVersion != want || ui.Kind != informersv1alpha1.KindUpdateInformer {
		return nil, fmt.Errorf("%s: apiVersion %q kind %q, want %s %s", file, ui.APIVersion, ui.Kind, want, informersv1alpha1.KindUpdateInformer)
	}
	return &ui.Spec, nil
}
