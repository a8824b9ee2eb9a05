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

package localstack

import (
	"bytes"
	"testing"
)

func TestPrefixEnd(t *testing.T) {
	tests := []struct {
		prefix, want []byte
	}{
		{[]byte("/registry/"), []byte("/registry0")},
		{[]byte("a"), []byte("b")},
		{[]byte{'a', 0xff}, []byte("b")},
		{[]byte{0xff, 0xff}, []byte{0}},
		{nil, []byte{0}},
	}
	for _, tt := range tests {
		if got := prefixEnd(tt.prefix); !bytes.Equal(got, tt.want) {
			t.Errorf("prefixEnd(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
}
