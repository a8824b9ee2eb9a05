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

// Package app is the update-status-drain-informer command: flags, and the
// controller that watches draining nodes and contributes their blockers.
package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/update-status/apiserver/internal/cmdflags"
	"github.com/update-status/apiserver/pkg/drain"
	"github.com/update-status/apiserver/pkg/drain/informer"
)

// Defaults of the flags.
const (
	DefaultNamespace = "update-status-drain"
	DefaultName      = "drain"
	DefaultLease     = 60 * time.Second
	DefaultResync    = 10 * time.Second
)

// Options holds every flag of the command.
type Options struct {
	Kubeconfig   string
	Namespace    string
	Name         string
	Lease        time.Duration
	Resync       time.Duration
	DrainTimeout time.Duration
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{Namespace: DefaultNamespace, Name: DefaultName, Lease: DefaultLease, Resync: DefaultResync, DrainTimeout: drain.DefaultTimeout}
}

// AddFlags binds the options to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Kubeconfig of the cluster; empty: the in-cluster configuration.")
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "Namespace of the UpdateInformer the insights are written to; the informer name is <name>.<namespace>.")
	fs.StringVar(&o.Name, "name", o.Name, "Name of the UpdateInformer.")
	fs.DurationVar(&o.Lease, "lease", o.Lease, "Lease of the contribution; it is renewed every third of it. When the informer stops without withdrawing, its insights leave the API after the lease.")
	fs.DurationVar(&o.Resync, "resync", o.Resync, "Longest time between two evaluations of the draining nodes (at most 10s): an insight leaves at most this long after its drain ends.")
	fs.DurationVar(&o.DrainTimeout, "drain-timeout", o.DrainTimeout, "Age of a drain after which its insight is an Error rather than a Warning (the machine-config controller's drain timeout).")
}

// Validate returns every problem with the flags.
func (o *Options) Validate() error {
	var errs []error
	if msgs := validation.IsDNS1123Label(o.Namespace); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--namespace %q: %v", o.Namespace, msgs))
	}
	if msgs := validation.IsDNS1123Subdomain(o.Name); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("--name %q: %v", o.Name, msgs))
	}
	if o.Lease < time.Second {
		errs = append(errs, fmt.Errorf("--lease %v: must be at least 1s", o.Lease))
	}
	if o.Resync <= 0 || o.Resync > DefaultResync {
		errs = append(errs, fmt.Errorf("--resync %v: must be above 0 and at most %v", o.Resync, DefaultResync))
	}
	if o.DrainTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--drain-timeout %v: must be positive", o.DrainTimeout))
	}
	return errors.Join(errs...)
}

// NewCommand returns the command; it runs until ctx is done.
func NewCommand(ctx context.Context) *cobra.Command {
	o := NewOptions()
	return cmdflags.New(cmdflags.Command{
		Use:   "update-status-drain-informer [flags]",
		Short: "Name what holds the drain of nodes during an OpenShift update",
		Long: "update-status-drain-informer watches the cordoned Nodes; PodDisruptionBudgets,\n" +
			"MachineConfigPools and, where served, MachineConfigNodes cluster-wide; and the Pods of the\n" +
			"nodes that drain for an update (one pod watch per draining node). For every blocked drain it contributes a health insight to\n" +
			"the update-status apiserver, as the UpdateInformer --name in --namespace, naming the node, the\n" +
			"pods held and the PodDisruptionBudgets holding them (docs/runbooks/drain-blocked.md).",
		Flags:    func(fss *cliflag.NamedFlagSets) { o.AddFlags(fss.FlagSet("informer")) },
		Validate: o.Validate,
		Run:      func(*cobra.Command) error { return o.Run(ctx) },
	})
}

// Run connects to the cluster and runs the controller until ctx ends; then
// it withdraws the contribution. o must be valid.
func (o *Options) Run(ctx context.Context) error {
	var cfg *rest.Config
	var err error
	if o.Kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", o.Kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	c, err := informer.NewController(cfg, informer.Config{Namespace: o.Namespace, Name: o.Name, Lease: o.Lease, Resync: o.Resync, DrainTimeout: o.DrainTimeout})
	if err != nil {
		return err
	}
	return c.Run(ctx)
}
