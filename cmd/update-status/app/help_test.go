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
	"testing"

	"github.com/update-status/apiserver/internal/clitest"
)

// update-status logs little (web's warnings, the retries of a watch) and has
// no logging flags: none of klog's flags shows in any --help.
func TestHelpShowsNoKlogFlags(t *testing.T) {
	args := [][]string{{"--help"}}
	for _, c := range NewCommand(Deps{}).Commands() {
		args = append(args, []string{c.Name(), "--help"})
	}
	for _, a := range args {
		t.Run(a[0], func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := Run(context.Background(), Deps{Out: &out, ErrOut: &errOut}, a); code != 0 {
				t.Fatalf("%v: exit code %d: %s", a, code, errOut.String())
			}
			if out.Len() == 0 {
				t.Fatalf("%v printed nothing", a)
			}
			clitest.CheckKlogFlags(t, out.String(), false)
		})
	}
}
