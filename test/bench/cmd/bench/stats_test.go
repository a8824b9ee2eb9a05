package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	seq := func(n int) []time.Duration {
		d := make([]time.Duration, n)
		for i := range d {
			d[i] = time.Duration(i+1) * time.Millisecond
		}
		return d
	}
	tests := []struct {
		name string
		d    []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 50, 0},
		{"single", seq(1), 99, time.Millisecond},
		{"median of 100", seq(100), 50, 50 * time.Millisecond},
		{"p99 of 100", seq(100), 99, 99 * time.Millisecond},
		{"p99 of 10", seq(10), 99, 10 * time.Millisecond},
		{"p0 clamps to first", seq(10), -5, time.Millisecond},
		{"p200 clamps to last", seq(10), 200, 10 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.d, tt.p); got != tt.want {
				t.Errorf("percentile(%v) = %v, want %v", tt.p, got, tt.want)
			}
		})
	}
}

func TestSummarizeSorts(t *testing.T) {
	s := summarize([]time.Duration{5, 1, 3, 2, 4})
	if s.N != 5 || s.P50 != 3 || s.Max != 5 || s.P99 != 5 {
		t.Errorf("summarize = %+v, want N=5 P50=3 P99=5 Max=5", s)
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{ratio(30, 2), "15x"},
		{ratio(3, 2), "1.50x"},
		{ratio(1, 0), "n/a"},
		{bytesIEC(512), "512 B"},
		{bytesIEC(2048), "2.0 KiB"},
		{bytesIEC(3 * 1024 * 1024), "3.0 MiB"},
		{ms(1500 * time.Microsecond), "1.500 ms"},
		{ms(250 * time.Millisecond), "250 ms"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestDeliveryLags(t *testing.T) {
	t0 := time.Unix(1000, 0)
	writes := []write{{rv: 10, at: t0}, {rv: 20, at: t0.Add(100 * time.Millisecond)}, {rv: 30, at: t0.Add(200 * time.Millisecond)}}
	events := []event{{input: 20, at: t0.Add(300 * time.Millisecond)}}
	lags, missed := deliveryLags(writes, events)
	if missed != 1 {
		t.Errorf("missed = %d, want 1 (rv 30 never delivered)", missed)
	}
	want := []time.Duration{300 * time.Millisecond, 200 * time.Millisecond}
	if len(lags) != len(want) || lags[0] != want[0] || lags[1] != want[1] {
		t.Errorf("lags = %v, want %v", lags, want)
	}
}
