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
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/readiness"
	"github.com/update-status/apiserver/pkg/recommend"
	"github.com/update-status/apiserver/pkg/sourcefiles"
)

func newRecommendCommand(deps Deps) *cobra.Command {
	var o recommend.Options
	var fromDir, kubeconfig string
	cmd := &cobra.Command{
		Use:   "recommend [--show-outdated-releases] [--version V [--accept A,B] [--quiet]] (--from-dir DIR | --kubeconfig FILE)",
		Short: "Print the text of `oc adm upgrade recommend`, rendered from the UpdateReadiness and UpdateCandidate objects",
		Long: "Print the text of `oc adm upgrade recommend`, rendered from the served updatereadinesses/cluster and\n" +
			"updatecandidates (--kubeconfig), or from those computed from one scenario's dumps (--from-dir DIR with\n" +
			"NAME-cv.yaml and, if it has one, NAME-alerts.json). With --version, issues that apply and were not\n" +
			"accepted (--accept) end in an error and a non-zero exit status, as in oc.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := o.Validate(); err != nil {
				return err
			}
			var r *v1alpha1.UpdateReadiness
			var candidates []v1alpha1.UpdateCandidate
			var err error
			switch {
			case fromDir != "" && kubeconfig != "":
				return errors.New("--from-dir and --kubeconfig are mutually exclusive")
			case fromDir != "":
				r, candidates, err = readinessFromDir(fromDir)
			case kubeconfig != "":
				var client versioned.Interface
				if client, err = deps.NewClient(kubeconfig); err == nil {
					r, candidates, err = servedReadiness(cmd.Context(), client)
				}
			default:
				return errors.New("one of --from-dir or --kubeconfig is required")
			}
			if err != nil {
				return err
			}
			return recommend.Render(cmd.OutOrStdout(), cmd.ErrOrStderr(), r, candidates, o)
		},
	}
	cmd.Flags().BoolVar(&o.ShowOutdatedReleases, "show-outdated-releases", false, "Display additional older releases")
	cmd.Flags().StringVar(&o.Version, "version", "", "Select a particular target release to display by version")
	cmd.Flags().StringSliceVar(&o.Accept, "accept", nil, "Comma-delimited names of issues that you find acceptable; with --version, any unaccepted issue results in a non-zero exit status")
	cmd.Flags().BoolVar(&o.Quiet, "quiet", false, "With --version, print nothing but the error")
	cmd.Flags().StringVar(&fromDir, "from-dir", "", "Directory of one scenario's dumps: NAME-cv.yaml and, if it has one, NAME-alerts.json")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "Read the served updatereadinesses/cluster and updatecandidates with this kubeconfig")
	return cmd
}

// readinessFromDir computes the readiness objects of the one scenario in
// dir. Without NAME-alerts.json the text names examples/NAME-alerts.json,
// where oc's mock mode looks for it.
func readinessFromDir(dir string) (*v1alpha1.UpdateReadiness, []v1alpha1.UpdateCandidate, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*-cv.yaml"))
	if err != nil {
		return nil, nil, err
	}
	if len(matches) != 1 {
		return nil, nil, fmt.Errorf("%s must hold exactly one NAME-cv.yaml, it holds %d", dir, len(matches))
	}
	name := strings.TrimSuffix(filepath.Base(matches[0]), "-cv.yaml")
	src, err := sourcefiles.LoadScenario(dir, name)
	if err != nil {
		return nil, nil, err
	}
	if src.ClusterVersion == nil {
		return nil, nil, fmt.Errorf("%s holds no ClusterVersion", matches[0])
	}
	in := readiness.Input{ClusterVersion: src.ClusterVersion, Alerts: src.Alerts}
	if _, err := os.Stat(filepath.Join(dir, name+"-alerts.json")); errors.Is(err, os.ErrNotExist) {
		in.NoTestDataPath = "examples/" + name + "-alerts.json"
	}
	res := readiness.Compute(in)
	candidates := make([]v1alpha1.UpdateCandidate, len(res.Candidates))
	for i, c := range res.Candidates {
		candidates[i] = *c
	}
	return res.Readiness, candidates, nil
}

// servedReadiness reads the served objects; no UpdateReadiness means the
// cluster has no ClusterVersion.
func servedReadiness(ctx context.Context, client versioned.Interface) (*v1alpha1.UpdateReadiness, []v1alpha1.UpdateCandidate, error) {
	api := client.UpdateV1alpha1()
	r, err := api.UpdateReadinesses().Get(ctx, v1alpha1.ReadinessObjectName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil, recommend.ErrNoClusterVersion
	}
	if err != nil {
		return nil, nil, err
	}
	list, err := api.UpdateCandidates().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	return r, list.Items, nil
}
