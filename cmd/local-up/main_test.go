/*
Copyright The update-status-apiserver Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"k8s.io/component-base/cli"

	"github.com/update-status/apiserver/internal/clitest"
)

func TestHelpShowsKlogFlagsOnlyUnderLogging(t *testing.T) {
	cmd := newCommand(context.Background())
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--help"})
	if err := cli.RunNoErrOutput(cmd); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Local-up flags:") || !strings.Contains(out.String(), "--nodes int") {
		t.Errorf("--help lacks the flags of local-up:\n%s", out.String())
	}
	clitest.CheckKlogFlags(t, out.String(), true)
}
