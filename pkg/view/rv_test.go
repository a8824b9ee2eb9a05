package view

import (
	"math/rand"
	"testing"
)

func TestNextResourceVersion(t *testing.T) {
	tests := []struct {
		name                string
		prev, input, digest uint64
		want                uint64
	}{
		{name: "first revision", prev: 0, input: 1234, digest: 0, want: 1234_000_001},
		{name: "digest is 1..999", prev: 0, input: 1234, digest: 998, want: 1234_000_999},
		{name: "digest wraps", prev: 0, input: 1234, digest: 999, want: 1234_000_001},
		{name: "newer input starts a new base", prev: 1234_005_017, input: 1300, digest: 41, want: 1300_000_042},
		{name: "same input steps", prev: 1234_000_017, input: 1234, digest: 41, want: 1234_001_042},
		{name: "older input steps in the previous base", prev: 1234_002_017, input: 1000, digest: 0, want: 1234_003_001},
		{name: "no inputs at all is never 0", prev: 0, input: 0, digest: 0, want: 1},
		{name: "steps exhausted move to the next base", prev: 1234_999_500, input: 1234, digest: 0, want: 1235_000_001},
		{name: "huge input is clamped", prev: 0, input: 1 << 62, digest: 0, want: maxInput*inputFactor + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nextResourceVersion(tt.prev, tt.input, tt.digest)
			if got != tt.want {
				t.Fatalf("nextResourceVersion(%d, %d, %d) = %d, want %d", tt.prev, tt.input, tt.digest, got, tt.want)
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
		next := nextResourceVersion(prev, input, rng.Uint64())
		if next <= prev {
			t.Fatalf("step %d: %d after %d", i, next, prev)
		}
		prev = next
	}
}

func TestReplicasAgreeOnSameInputsAndContent(t *testing.T) {
	// Two replicas that see the same inputs and compute the same content
	// publish the same resourceVersion, whatever they published before.
	a := nextResourceVersion(7_000_001, 9, 12345)
	b := nextResourceVersion(8_003_100, 9, 12345)
	if a != b {
		t.Fatalf("replicas disagree: %d vs %d", a, b)
	}
	// Different content at the same (input, step) gives different versions.
	if c := nextResourceVersion(8_003_100, 9, 12346); c == b {
		t.Fatalf("different content gave the same resourceVersion %d", c)
	}
	in, step, digest := splitResourceVersion(a)
	if in != 9 || step != 0 || digest != 1+12345%digestRange {
		t.Fatalf("split(%d) = %d, %d, %d", a, in, step, digest)
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
