package main

import "testing"

func TestParseCPUPerChange(t *testing.T) {
	for _, tt := range []struct {
		out  string
		want float64
		ok   bool
	}{
		{"BenchmarkNodeChangeToWatchCache-2   \t     400\t   7947843 ns/op\t      2462 cpu-us/change\t  272185 B/op\n", 2462, true},
		{"BenchmarkNodeChangeToWatchCache-2 400 1 ns/op 1.5 cpu-us/change", 1.5, true},
		{"PASS\nok\n", 0, false},
	} {
		got, err := parseCPUPerChange(tt.out)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseCPUPerChange(%q) = %v, %v; want %v (ok %v)", tt.out, got, err, tt.want, tt.ok)
		}
	}
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median = %v, want 2", m)
	}
}
