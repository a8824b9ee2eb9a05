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
	tests := []struct{ in, want, wantErr string }{
		{"4.20.1", "4.20.2", ""},
		{"4.20.9", "4.20.10", ""},
		{"4.20.0-rc.1", "4.20.0-rc.2", ""},
		{"4.20.x", "", "does not end in a patch number"},
		{"420", "", "does not end in a patch number"},
		{"", "", "does not end in a patch number"},
	}
	for _, tt := range tests {
		got, err := NextPatch(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("NextPatch(%q) = %q, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NextPatch(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
