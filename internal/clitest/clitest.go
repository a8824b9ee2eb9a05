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

// Package clitest checks what the project's commands print for --help.
package clitest

import (
	"bytes"
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	"k8s.io/klog/v2"
)

// Help runs cmd with --help as cli.Run runs a command (it adds the rest of
// klog's flags, which the command accepts but does not print) and returns
// what it printed.
func Help(t testing.TB, cmd *cobra.Command) string {
	t.Helper()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cli.RunNoErrOutput(cmd); err != nil {
		t.Fatalf("%s --help: %v", cmd.Name(), err)
	}
	return out.String()
}

// flagLine matches the line of a flag in the usage text of pflag, with or
// without a shorthand: "  -v, --v Level   ..." or "      --vmodule ...".
var flagLine = regexp.MustCompile(`^\s+(?:-\S, )?--(\S+)`)

// sectionLine matches the heading of a section of flags, "Logging flags:"
// of k8s.io/component-base/cli/flag or cobra's "Flags:".
var sectionLine = regexp.MustCompile(`^(\S.*?)\s*[Ff]lags:$`)

// loggingSection is the heading k8s.io/component-base/cli/flag gives the
// flag set named "logging".
const loggingSection = "Logging"

// CheckKlogFlags fails t when help, the --help output of a command, shows
// one of klog's flags outside its logging section. With logging, the
// command has one (the flags of k8s.io/component-base/logs/api/v1), and -v
// and --vmodule must be in it; without, no klog flag may show at all.
func CheckKlogFlags(t testing.TB, help string, logging bool) {
	t.Helper()
	klogFlags := map[string]bool{}
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	fs.VisitAll(func(f *flag.Flag) {
		klogFlags[strings.ReplaceAll(f.Name, "_", "-")] = true
	})

	section := ""
	inLogging := map[string]bool{}
	for line := range strings.Lines(help) {
		line = strings.TrimRight(line, "\n")
		if m := sectionLine.FindStringSubmatch(line); m != nil {
			section = m[1]
			continue
		}
		m := flagLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := strings.ReplaceAll(m[1], "_", "-")
		if !klogFlags[name] {
			continue
		}
		if logging && section == loggingSection && (name == "v" || name == "vmodule") {
			inLogging[name] = true
			continue
		}
		t.Errorf("--help shows klog's flag --%s in section %q:\n%s", m[1], section, line)
	}
	if logging {
		for _, name := range []string{"v", "vmodule"} {
			if !inLogging[name] {
				t.Errorf("--help lacks --%s in its %s flags section:\n%s", name, loggingSection, help)
			}
		}
	}
}
