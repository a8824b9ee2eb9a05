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

// Package cmdflags builds the project's commands one way: their flags in
// named sections, wrapped to the terminal, and their logging set up as
// Kubernetes components do.
package cmdflags

import (
	"io"

	"github.com/spf13/cobra"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/term"
)

// Add adds the flag sets of fss to cmd, and sets cmd's usage and help to
// list them section by section, wrapped to the width of cmd's terminal.
func Add(cmd *cobra.Command, fss cliflag.NamedFlagSets) {
	for _, fs := range fss.FlagSets {
		cmd.Flags().AddFlagSet(fs)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, fss, cols)
}

// Command describes a command that takes no arguments and logs as
// Kubernetes components do.
type Command struct {
	// Use, Short and Long are those of cobra.Command.
	Use, Short, Long string
	// Out, when not nil, is where the command prints (its help included).
	Out io.Writer
	// Flags adds the command's flags to fss, in sections of their own.
	Flags func(fss *cliflag.NamedFlagSets)
	// Validate, when not nil, checks the flags before logging is set up.
	Validate func() error
	// Run runs the command once the flags are valid and logging is set up.
	Run func(cmd *cobra.Command) error
}

// New returns the command c describes. Its help lists the sections of
// c.Flags, then the logging flags (-v, --vmodule, ...) in a section of their
// own, as Add does. On an error it prints neither the error nor its usage:
// the caller prints the error.
func New(c Command) *cobra.Command {
	logging := logs.NewOptions()
	cmd := &cobra.Command{
		Use:           c.Use,
		Short:         c.Short,
		Long:          c.Long,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if c.Validate != nil {
				if err := c.Validate(); err != nil {
					return err
				}
			}
			if err := logsapi.ValidateAndApply(logging, nil); err != nil {
				return err
			}
			return c.Run(cmd)
		},
	}
	if c.Out != nil {
		cmd.SetOut(c.Out)
	}
	var fss cliflag.NamedFlagSets
	c.Flags(&fss)
	logsapi.AddFlags(logging, fss.FlagSet("logging"))
	Add(cmd, fss)
	return cmd
}
