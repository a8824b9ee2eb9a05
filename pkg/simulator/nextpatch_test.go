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

package simulator

import (
	"strings"
	"testing"
)

func TestNextPatch(t *testing.T) {
	// An empty want means an error.
	for in, want := range map[string]string{
		"4.20.1": "4.20.2", "4.20.9": "4.20.10", "4.20.0-rc.1": "4.20.0-rc.2",
		"4.20.x": "", "420": "", "": "",
	} {
		got, err := NextPatch(in)
		switch {
		case want == "" && (err == nil || !strings.Contains(err.Error(), "does not end in a patch number")):
			t.Errorf("NextPatch(%q) = %q, %v; want an error", in, got, err)
		case want != "" && (err != nil || got != want):
			t.Errorf("NextPatch(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
