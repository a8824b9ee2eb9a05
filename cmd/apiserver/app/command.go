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

// Package app is the command of update-status-apiserver.
package app

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/update-status/apiserver/cmd/apiserver/app/options"
	"github.com/update-status/apiserver/internal/cmdflags"
	"github.com/update-status/apiserver/pkg/apiserver"
)

// NewCommand returns the server command; it runs until ctx is done.
func NewCommand(ctx context.Context) *cobra.Command {
	o := options.NewOptions()
	cmd := &cobra.Command{
		Use:   apiserver.Name,
		Short: "Aggregated API server of update.openshift.io: how is the cluster update going?",
		Long: "update-status-apiserver serves update.openshift.io/v1alpha1 UpdateStatus, a read-only, " +
			"cluster-scoped singleton named \"cluster\", computed from informer caches of the ClusterVersion, " +
			"ClusterOperators, MachineConfigPools, MachineConfigs and Nodes. Nothing is stored.",
		SilenceUsage: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%q takes no arguments, got %q", cmd.CommandPath(), args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			if err := o.ApplyLogging(); err != nil {
				return err
			}
			if err := o.Complete(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.SetContext(ctx)

	cmdflags.Add(cmd, o.Flags())
	return cmd
}
