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

package view

import (
	"testing"
	"time"
)

// TestFold walks the fold rule through a computation ending at 0 ms: each
// step records a change of its source (the node informer unless named) at
// its time (ms) and asks how long to wait; a change due at once is
// computed then, in no time.
func TestFold(t *testing.T) {
	const delay, gap = 100 * time.Millisecond, 35 * time.Millisecond
	type step struct {
		at     int // ms
		source string
		wait   time.Duration
	}
	tests := []struct {
		name  string
		gap   time.Duration
		steps []step
	}{
		{"a change after the window: at once", gap, []step{{150, "", 0}}},
		{"an isolated change within the window: at once", gap, []step{{10, "", 0}}},
		{"a steady stream slower than the gap: each at once", gap, []step{{40, "", 0}, {80, "", 0}, {90, "", 0}, {130, "", 0}}},
		{"one late change of a stream is jitter", gap, []step{{40, "", 0}, {50, "", 0}, {90, "", 0}}},
		{"a burst: the fourth change waits for the window", gap, []step{{10, "", 0}, {11, "", 0}, {12, "", 0}, {13, "", 99 * time.Millisecond}, {14, "", 98 * time.Millisecond}}},
		{"a foreign change of the same source among a stream's: each at once", gap, []step{{50, "", 0}, {70, "", 0}, {100, "", 0}, {150, "", 0}, {165, "", 0}, {200, "", 0}}},
		{"a burst past the window: at once", gap, []step{{97, "", 0}, {98, "", 0}, {99, "", 0}, {200, "", 0}}},
		{"no gap: every change within the window waits", 0, []step{{10, "", 90 * time.Millisecond}, {60, "", 40 * time.Millisecond}, {100, "", 0}}},
		{"another source's changes between a stream's: each at once", gap, []step{
			{40, "", 0}, {50, "operators", 0}, {60, "operators", 0}, {70, "operators", 0}, {80, "", 0}, {90, "operators", 90 * time.Millisecond}, {120, "", 0},
		}},
		{"an isolated change ends another source's wait", gap, []step{
			{10, "operators", 0}, {11, "operators", 0}, {12, "operators", 0}, {13, "operators", 99 * time.Millisecond}, {14, "", 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := time.Unix(1000, 0)
			f := NewFold(delay, tt.gap)
			f.Computed(base)
			for _, s := range tt.steps {
				now := base.Add(time.Duration(s.at) * time.Millisecond)
				f.Changed(now, s.source)
				got := f.Wait(now)
				if got != s.wait {
					t.Errorf("change of %q at %d ms: wait %v, want %v", s.source, s.at, got, s.wait)
				}
				if got == 0 {
					f.Begin()
					f.Computed(now)
				}
			}
		})
	}
}
