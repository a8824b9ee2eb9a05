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

package main

import (
	"math"
	"slices"
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
	events := []event{{input: 20, at: t0.Add(300 * time.Millisecond), node: -1}}
	lags, delivered := deliveryLags(writes, events)
	if want := []bool{true, true, false}; !slices.Equal(delivered, want) {
		t.Errorf("delivered = %v, want %v (rv 30 never delivered)", delivered, want)
	}
	want := []time.Duration{300 * time.Millisecond, 200 * time.Millisecond}
	if !slices.Equal(lags, want) {
		t.Errorf("lags = %v, want %v", lags, want)
	}
}

// TestNodeDeliveryLags: with one object per node, only an event about the
// written node delivers the write, however high the input part of the
// other nodes' events.
func TestNodeDeliveryLags(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	writes := []write{
		{rv: 10, at: at(0), node: 0},   // node 0: delivered by its event at input 12
		{rv: 11, at: at(10), node: 1},  // node 1: no event (a change the object does not show)
		{rv: 12, at: at(20), node: 0},  // node 0 again, folded into the same revision
		{rv: 20, at: at(100), node: 2}, // node 2: its first event is older than the write
		{rv: 30, at: at(200), node: 0}, // node 0: event after the window
	}
	events := []event{
		{input: 5, at: at(50), node: 2},    // older than node 2's write
		{input: 12, at: at(180), node: 0},  // revision 12: nodes 0 and 3
		{input: 12, at: at(181), node: 3},  // a node the churn did not write
		{input: 25, at: at(400), node: 2},  // revision 25: node 2
		{input: 40, at: at(500), node: -1}, // an object of no churned node
	}
	lags, delivered := nodeDeliveryLags(writes, events)
	if want := []bool{true, false, true, true, false}; !slices.Equal(delivered, want) {
		t.Errorf("delivered = %v, want %v", delivered, want)
	}
	want := []time.Duration{180 * time.Millisecond, 160 * time.Millisecond, 300 * time.Millisecond}
	if !slices.Equal(lags, want) {
		t.Errorf("lags = %v, want %v", lags, want)
	}
	// The updatestatuses rule would take revision 12's event about node 3
	// for node 1's write.
	if _, d := deliveryLags(writes, events); !d[1] {
		t.Error("deliveryLags: node 1's write not covered by input; the test no longer tells the rules apart")
	}
}

func TestTallyDelivery(t *testing.T) {
	delivered := [][]bool{
		{true, false, false, true},
		{true, false, true, false},
		{true, false, true, false},
	}
	missed, noEvent := tallyDelivery(delivered, 4)
	// write 1: no watcher got it; write 2: one of three missed it; write 3:
	// two of three.
	if noEvent != 1 || missed != 3 {
		t.Errorf("tallyDelivery = missed %d, noEvent %d; want 3, 1", missed, noEvent)
	}
	if m, n := tallyDelivery(nil, 2); m != 0 || n != 2 {
		t.Errorf("no watcher: missed %d, noEvent %d; want 0, 2", m, n)
	}
}

func TestJSONMeta(t *testing.T) {
	tests := []struct {
		line   string
		rv     uint64
		name   string
		wantOK bool
	}{
		{`{"type":"MODIFIED","object":{"kind":"NodeProgressInsight","apiVersion":"update.openshift.io/v1alpha1","metadata":{"name":"worker-17","uid":"u","resourceVersion":"2000017123","labels":{"update.openshift.io/pool":"worker"}},"spec":{},"status":{"name":"not-this","resourceVersion":"1"}}}`,
			2000017123, "worker-17", true},
		{`{"type":"MODIFIED","object":{"kind":"UpdateStatus","metadata":{"name":"cluster","resourceVersion":"7000001"},"status":{}}}`, 7000001, "cluster", true},
		{`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Expired","code":410}}`, 0, "", false},
		{`{"type":"MODIFIED","object":{"metadata":{"resourceVersion":"x"}}}`, 0, "", false},
	}
	for _, tt := range tests {
		rv, name, ok := jsonMeta([]byte(tt.line))
		if ok != tt.wantOK || rv != tt.rv || string(name) != tt.name {
			t.Errorf("jsonMeta(%.60s) = %d, %q, %v; want %d, %q, %v", tt.line, rv, name, ok, tt.rv, tt.name, tt.wantOK)
		}
	}
}

// TestHistogramBetween reads a histogram's buckets from two scrapes, summed
// over its other labels, and places quantiles in them.
func TestHistogramBetween(t *testing.T) {
	const name = "update_status_change_to_revision_seconds"
	series := func(change, le string) string {
		return name + `_bucket{change="` + change + `",le="` + le + `"}`
	}
	m0 := map[string]float64{
		series("isolated", "0.004"): 10, series("isolated", "0.008"): 10, series("isolated", "0.256"): 10, series("isolated", "+Inf"): 10,
	}
	m1 := map[string]float64{
		series("isolated", "0.004"): 60, series("isolated", "0.008"): 105, series("isolated", "0.256"): 110, series("isolated", "+Inf"): 110,
		series("burst", "0.004"): 0, series("burst", "0.008"): 0, series("burst", "0.256"): 4, series("burst", "+Inf"): 5,
		"update_status_other_bucket{le=\"0.004\"}": 1000,
	}
	h := histogramBetween(m0, m1, name, "")
	if h.Count != 105 || len(h.Bounds) != 4 || h.Counts[0] != 50 || h.Counts[3] != 105 {
		t.Fatalf("got %+v", h)
	}
	for _, tt := range []struct {
		q, want float64
	}{{0.4, 0.004}, {0.5, 0.008}, {0.95, 0.256}, {0.99, 0.256}, {0.995, math.Inf(1)}} {
		if got := h.Quantile(tt.q); got != tt.want {
			t.Errorf("quantile %v: %v, want %v", tt.q, got, tt.want)
		}
	}
	if b := histogramBetween(m0, m1, name, `change="burst"`); b.Count != 5 || b.Quantile(0.5) != 0.256 {
		t.Errorf("bursts: %+v", b)
	}
	if got := serverLagText(&nodeWatchCell{ServerLag: h, Bursts: 5}); got != "≤ 8.000 ms / ≤ 256 ms (105, 5)" {
		t.Errorf("text %q", got)
	}
	if got := serverLagText(&nodeWatchCell{ServerLag: h, Bursts: 5, Computations: histogramBetween(m0, m1, name, `change="burst"`)}); got != "≤ 8.000 ms / ≤ 256 ms (105, 5); > 256 ms" {
		t.Errorf("text with computations %q", got)
	}
	h.Counts[2] = 100 // four of the five past the last finite bound
	if got := serverLagText(&nodeWatchCell{ServerLag: h, Bursts: 5}); got != "≤ 8.000 ms / > 256 ms (105, 5)" {
		t.Errorf("text %q", got)
	}
	if (histogramDelta{}).Quantile(0.5) != 0 {
		t.Error("an empty histogram has no quantile")
	}
}
