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

package cells

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update"
)

func TestCells(t *testing.T) {
	now := time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(d)); return &t }
	tests := []struct {
		name, got, want string
	}{
		{"or unknown, empty", OrUnknown(""), Unknown},
		{"or unknown, set", OrUnknown("x"), "x"},
		{"previous, empty", Previous(&update.Version{}), Unknown},
		{"previous", Previous(&update.Version{Version: "4.16.1"}), "4.16.1"},
		{"previous, partial", Previous(&update.Version{Version: "4.16.1", Metadata: []update.VersionMetadata{{Key: "Partial"}}}), "4.16.1 (partial)"},
		{"age, zero", Age(time.Time{}, now), Unknown},
		{"age", Age(now.Add(-45*time.Minute), now), "45m"},
		{"remaining, completed", Remaining(at(-time.Hour), at(time.Hour), now), "0s"},
		{"remaining, no estimate", Remaining(nil, nil, now), Unknown},
		{"remaining, overdue", Remaining(nil, at(-time.Minute), now), "overdue"},
		{"remaining", Remaining(nil, at(35*time.Minute), now), "~35m"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
