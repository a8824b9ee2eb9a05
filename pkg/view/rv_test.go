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
	"math/rand"
	"testing"
	"time"
)

func TestTimeStep(t *testing.T) {
	base := time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)
	if got := timeStep(time.Time{}); got != maxTimeStep {
		t.Errorf("no pending change: step %d, want %d", got, maxTimeStep)
	}
	prev := timeStep(base)
	if prev < 1 || prev > maxTimeStep-1 {
		t.Fatalf("step %d outside 1..498", prev)
	}
	if timeStep(base) != timeStep(base.Add(9*time.Second)) || timeStep(base) == timeStep(base.Add(10*time.Second)) {
		t.Error("steps are not 10-second units")
	}
	wraps := 0
	for i := 1; i <= 2000; i++ {
		s := timeStep(base.Add(time.Duration(i) * stepUnit))
		if s < 1 || s > maxTimeStep-1 {
			t.Fatalf("step %d outside 1..498", s)
		}
		if s <= prev {
			wraps++
		}
		prev = s
	}
	if wraps != 4 {
		t.Errorf("%d wraps in 2000 units of a 498-unit cycle, want 4", wraps)
	}
	// Before 1970 too.
	if s := timeStep(time.Unix(-25, 0)); s < 1 || s > maxTimeStep-1 {
		t.Errorf("negative time: step %d", s)
	}
}

func TestNextResourceVersion(t *testing.T) {
	tests := []struct {
		name                      string
		prev, input, step, digest uint64
		want                      uint64
	}{
		{name: "first revision", prev: 0, input: 1234, step: 7, digest: 0, want: 1234_007_001},
		{name: "digest is 1..999", prev: 0, input: 1234, step: 7, digest: 998, want: 1234_007_999},
		{name: "digest wraps", prev: 0, input: 1234, step: 7, digest: 999, want: 1234_007_001},
		{name: "newer input", prev: 1234_005_017, input: 1300, step: 2, digest: 41, want: 1300_002_042},
		{name: "same input, later time step", prev: 1234_005_017, input: 1234, step: 6, digest: 41, want: 1234_006_042},
		{name: "same input and step, other content", prev: 1234_005_017, input: 1234, step: 5, digest: 41, want: 1234_005_042},
		{name: "same input and step, lower digest: local step", prev: 1234_005_017, input: 1234, step: 5, digest: 3, want: 1234_006_004},
		{name: "step wrapped: local step", prev: 1234_900_017, input: 1234, step: 3, digest: 0, want: 1234_901_001},
		{name: "older input: local step in the previous base", prev: 1234_002_017, input: 1000, step: 499, digest: 0, want: 1234_003_001},
		{name: "no pending change, other content, lower digest: a step above the time steps", prev: 1234_499_017, input: 1234, step: 499, digest: 3, want: 1234_500_004},
		{name: "no inputs at all is never 0", prev: 0, input: 0, step: 0, digest: 0, want: 1},
		{name: "steps exhausted move to the next base", prev: 1234_999_500, input: 1234, step: 499, digest: 0, want: 1235_000_001},
		{name: "step is capped", prev: 0, input: 1, step: 5000, digest: 0, want: 1_999_001},
		{name: "huge input is clamped", prev: 0, input: 1 << 62, step: 0, digest: 0, want: maxInput*inputFactor + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nextResourceVersion(tt.prev, tt.input, tt.step, tt.digest)
			if got != tt.want {
				t.Fatalf("nextResourceVersion(%d, %d, %d, %d) = %d, want %d", tt.prev, tt.input, tt.step, tt.digest, got, tt.want)
			}
			if got <= tt.prev {
				t.Fatalf("result %d is not greater than prev %d", got, tt.prev)
			}
		})
	}
}

func TestNextResourceVersionIsMonotonic(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var prev, input uint64
	for i := 0; i < 100000; i++ {
		// Inputs mostly grow, sometimes stay or go back (a deletion of the
		// newest object before its deletion event arrived).
		switch rng.Intn(4) {
		case 0:
			input += uint64(rng.Intn(1000))
		case 1:
			if input > 10 {
				input -= uint64(rng.Intn(10))
			}
		}
		next := nextResourceVersion(prev, input, uint64(rng.Intn(1000)), rng.Uint64())
		if next <= prev {
			t.Fatalf("step %d: %d after %d", i, next, prev)
		}
		prev = next
	}
}

func TestReplicasAgreeOnSameInputsAndContent(t *testing.T) {
	// Two replicas that see the same inputs and compute the same content
	// (hence the same next change) publish the same resourceVersion, whatever
	// they published before.
	step := timeStep(time.Date(2025, 3, 12, 10, 5, 0, 0, time.UTC))
	a := nextResourceVersion(7_000_001, 9, step, 12345)
	b := nextResourceVersion(8_003_100, 9, step, 12345)
	if a != b {
		t.Fatalf("replicas disagree: %d vs %d", a, b)
	}
	if c := nextResourceVersion(8_003_100, 9, step, 12346); c == b {
		t.Fatalf("different content gave the same resourceVersion %d", c)
	}
	in, s, digest := splitResourceVersion(a)
	if in != 9 || s != step || digest != 1+12345%digestRange {
		t.Fatalf("split(%d) = %d, %d, %d", a, in, s, digest)
	}
}

func TestProgressVersion(t *testing.T) {
	step := timeStep(time.Time{})
	// Replica A computed a burst in two parts: the content came back at
	// input 289 and stayed at 291. Replica B computed it in one, at 291.
	a289 := nextResourceVersion(280_499_001, 289, step, 77)
	b291 := nextResourceVersion(280_499_001, 291, step, 77)
	for _, tt := range []struct {
		name        string
		prev, input uint64
		want        uint64
		wantOK      bool
	}{
		{name: "newer input: the other replica's version", prev: a289, input: 291, want: b291, wantOK: true},
		{name: "same input", prev: a289, input: 289},
		{name: "older input (the newest object deleted)", prev: a289, input: 280},
		{name: "same input, a local step", prev: 289_500_001, input: 289},
		{name: "newer input below a local step of the same base", prev: 291_700_001, input: 291},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := progressVersion(tt.prev, tt.input, step, 77)
			if ok != tt.wantOK || (ok && got != tt.want) {
				t.Errorf("progressVersion(%d, %d) = %d, %v; want %d, %v", tt.prev, tt.input, got, ok, tt.want, tt.wantOK)
			}
			if ok && got <= tt.prev {
				t.Errorf("progressVersion(%d, %d) = %d does not follow", tt.prev, tt.input, got)
			}
		})
	}
}

func TestParseResourceVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    uint64
		wantErr bool
	}{
		{in: "", want: 0},
		{in: "0", want: 0},
		{in: "1234000001", want: 1234000001},
		{in: "-1", wantErr: true},
		{in: "abc", wantErr: true},
		{in: "18446744073709551616", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseResourceVersion(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseResourceVersion(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
