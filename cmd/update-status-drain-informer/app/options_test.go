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
	"strings"
	"testing"

	"github.com/update-status/apiserver/internal/clitest"
	"github.com/update-status/apiserver/internal/testio"
)

func TestHelp(t *testing.T) {
	help := clitest.Help(t, NewCommand(context.Background()))
	for _, flag := range []string{"--kubeconfig", "--namespace", "--name", "--lease", "--resync", "--drain-timeout"} {
		if !strings.Contains(help, flag) {
			t.Errorf("--help lacks %s:\n%s", flag, help)
		}
	}
	clitest.CheckKlogFlags(t, help, true)
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"defaults", func(*Options) {}, ""},
		{"bad namespace", func(o *Options) { o.Namespace = "Drain_NS" }, "--namespace"},
		{"bad name", func(o *Options) { o.Name = "" }, "--name"},
		{"short lease", func(o *Options) { o.Lease = 0 }, "--lease"},
		{"slow resync", func(o *Options) { o.Resync = DefaultResync + 1 }, "--resync"},
		{"no timeout", func(o *Options) { o.DrainTimeout = 0 }, "--drain-timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			tc.edit(o)
			err := o.Validate()
			testio.WantError(t, err, tc.want)
		})
	}
}
