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
	"bytes"
	"context"
	"strings"
	"testing"

	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/update-status/apiserver/internal/clitest"
)

func init() {
	// Every Run applies the logging flags, as the binary does once; the
	// tests run it several times, always with the same (default) flags.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
}

func TestHelpShowsKlogFlagsOnlyUnderLogging(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"--help"}, &out, &errOut); code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "Simulation flags:") || !strings.Contains(out.String(), "--nodes int") {
		t.Errorf("--help lacks the simulation flags:\n%s", out.String())
	}
	clitest.CheckKlogFlags(t, out.String(), true)
}
