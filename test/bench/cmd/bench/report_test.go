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
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestInsightGoals renders the goal rows of issue #13 from made-up figures
// and checks each verdict.
func TestInsightGoals(t *testing.T) {
	s := &sizeResult{
		Nodes:    5000,
		EmptyMem: memory{HeapInuse: 10 << 20},
		Mem:      memory{HeapInuse: 10<<20 + 5000*3000}, // 3,000 B per node
		Served:   map[string]int{},
		Watches: []*watchResult{
			// 10 watchers: every goal met.
			{Resource: resourceNodeInsights, Route: routeAggregated, Format: formatJSON, Watchers: 10, Connected: 10,
				Lag: summary{N: 100, P99: 300 * time.Millisecond}, CPUPerMinute: 6, BytesPerEvent: 1300},
			// 1,000 watchers: lag and CPU missed.
			{Resource: resourceNodeInsights, Route: routeAggregated, Format: formatJSON, Watchers: 1000, Connected: 1000,
				Lag: summary{N: 100, P99: 900 * time.Millisecond}, CPUPerMinute: 45, BytesPerEvent: 1300,
				KubeAPIServerCPUPerMinute: 45, ClientCPUPerMinute: 18, MachineBusy: 0.84},
			// Straight: no goal row.
			{Resource: resourceNodeInsights, Route: routeDirect, Format: formatJSON, Watchers: 10, Connected: 10},
		},
		Lists: []*getCell{
			// Each cell is compared with its own encoding, measured with its LISTs.
			{Resource: resourceNodeInsights, Route: routeDirect, Format: formatJSON, loadResult: loadResult{Clients: 1, Latency: summary{N: 10, P50: 50 * time.Millisecond}},
				Encode: summary{N: 10, P50: 20 * time.Millisecond}},
			{Resource: resourceNodeInsights, Route: routeAggregated, Format: formatJSON, loadResult: loadResult{Clients: 1, Latency: summary{N: 10, P50: 50 * time.Millisecond}},
				Encode: summary{N: 10, P50: 40 * time.Millisecond}},
		},
		ListEncodes: []*listEncode{{Resource: resourceNodeInsights, Format: formatJSON, Items: 5000, Bytes: 6 << 20}},
	}
	for _, r := range servedResources {
		s.Served[r] = 1
	}
	s.Served[resourceNodeInsights] = 5000
	r := &report{config: config{formats: []string{formatJSON}, routes: []string{routeDirect, routeAggregated}, watchers: []int{10, 1000}, churnRate: 50}}
	var b strings.Builder
	r.insightGoals(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, s)
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []struct{ has, verdict string }{
		{"| 10 watchers of nodeprogressinsights through the kube-apiserver (json)", "| met |"},
		{"| 1000 watchers of nodeprogressinsights", "0.75 cores; 1.3 KiB per event; the machine 84% busy (kube-apiserver 0.75 cores, the watchers' process 0.30) | **missed** (lag, CPU) |"},
		{"| LIST of all 5000 nodeprogressinsights (1 client, straight, JSON)", "p50 50.0 ms vs 20.0 ms: 2.50x | **missed** |"},
		{"| LIST of all 5000 nodeprogressinsights (1 client, aggregated, JSON)", "p50 50.0 ms vs 40.0 ms: 1.25x | met |"},
		{"| at most 4.0 KiB of server heap per node", "Go heap 2.9 KiB per node"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), b.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(rows[i], w.has) || !strings.Contains(rows[i], w.verdict) {
			t.Errorf("row %d = %s\nwant it to start with %q and hold %q", i, rows[i], w.has, w.verdict)
		}
	}
	if !strings.HasSuffix(rows[4], "| met |") {
		t.Errorf("heap row = %s, want met", rows[4])
	}

	// A server that did not serve every node's object: the heap row is not
	// a measurement of the goal.
	s.Served[resourceNodeInsights] = 0
	b.Reset()
	r.insightGoals(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, s)
	if !strings.Contains(b.String(), "**not measured**") {
		t.Errorf("heap row with no node objects served:\n%s", b.String())
	}
}

// TestBeforeAfterRounds checks section 0 with two rounds per binary: each
// figure is the mean of its rounds, judged mean to mean, and a figure that
// a round did not measure is left out.
func TestBeforeAfterRounds(t *testing.T) {
	size := func(p99 ...time.Duration) *sizeResult {
		s := &sizeResult{Nodes: 5000}
		for i, d := range p99 {
			s.Gets = append(s.Gets, &getCell{Route: routeAggregated, Format: formatJSON,
				loadResult: loadResult{Clients: i + 1, Latency: summary{N: 100, P50: d / 2, P99: d}}})
		}
		return s
	}
	after := size(10*time.Millisecond, 30*time.Millisecond)
	r := &report{
		config: config{getClients: []int{1, 2, 3}, routes: []string{routeAggregated}, baselineRounds: 2},
		sizes:  []*sizeResult{after},
		// 1 client: before 8 and 12 ms (mean 10), after 10 and 11 (mean
		// 10.5): 1.05, not worse. 2 clients: before 20 and 20, after 30
		// and 20 (mean 25): 1.25, worse. 3 clients: measured by the
		// baseline only.
		baseline: []*sizeResult{size(8*time.Millisecond, 20*time.Millisecond, time.Millisecond), size(12*time.Millisecond, 20*time.Millisecond, time.Millisecond)},
		repeats:  []*sizeResult{size(11*time.Millisecond, 20*time.Millisecond)},
	}
	var b strings.Builder
	r.before(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) })
	out := b.String()
	for _, want := range []string{
		"| 5000 | GET p99, aggregated, JSON, 1 client(s) | 10.0 ms (8.000 ms, 12.0 ms) | 10.5 ms (10.0 ms, 11.0 ms) | 1.05 |",
		"| 5000 | GET p99, aggregated, JSON, 2 client(s) | 20.0 ms (20.0 ms, 20.0 ms) | 25.0 ms (30.0 ms, 20.0 ms) | **1.25** |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("section 0 lacks\n%s\nin\n%s", want, out)
		}
	}
	if strings.Contains(out, "3 client(s)") {
		t.Errorf("a figure the tree's binary did not measure is compared:\n%s", out)
	}
	if worse, total := r.compareCount(r.baselinesOf(after), r.aftersOf(after)); worse != 2 || total != 4 {
		t.Errorf("compareCount = %d of %d, want 2 of 4 (p50 and p99 with 2 clients)", worse, total)
	}
}

// TestWatchTableRow checks that each watch row has a cell for each column
// of its header, and shows the watches the cache ended and the server
// resumed.
func TestWatchTableRow(t *testing.T) {
	s := &sizeResult{Nodes: 5000, Watches: []*watchResult{{
		Resource: resourceNodeInsights, Route: routeAggregated, Format: formatJSON, Watchers: 1000, Connected: 1000,
		Rewatches: 3, CacheEnded: 120, Resumed: 117, Lag: summary{N: 100, P99: 900 * time.Millisecond},
	}}}
	r := &report{config: config{formats: []string{formatJSON}, routes: []string{routeAggregated}, watchers: []int{1000}, getClients: []int{1}, churnRate: 50}, sizes: []*sizeResult{s}}
	var b strings.Builder
	r.tables(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) })
	var header, row string
	for _, l := range strings.Split(b.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "| nodes | resource | route | format | watchers |"):
			header = l
		case strings.HasPrefix(l, "| 5000 | nodeprogressinsights | aggregated | json | 1000 |"):
			row = l
		}
	}
	if header == "" || row == "" {
		t.Fatalf("no watch table header or row in\n%s", b.String())
	}
	if h, c := strings.Count(header, "|"), strings.Count(row, "|"); h != c {
		t.Errorf("the header has %d separators, the row %d:\n%s\n%s", h, c, header, row)
	}
	if !strings.Contains(header, "| streams reopened | watches the cache ended / the server resumed |") || !strings.Contains(row, "| 3 | 120 / 117 |") {
		t.Errorf("no reopened streams and resumed watches in\n%s\n%s", header, row)
	}
}

func TestKeepTried(t *testing.T) {
	const generated = "# Benchmarks\n\ntables\n"
	tests := []struct {
		name, old, want string
	}{
		{name: "no previous report", old: "", want: generated},
		{name: "no section", old: "# Benchmarks\n\nold tables\n", want: generated},
		{name: "section kept, old tables dropped", old: "# Benchmarks\n\nold tables\n\n## What was tried\n\nA try.\n",
			want: "# Benchmarks\n\ntables\n\n## What was tried\n\nA try.\n"},
		{name: "a heading that only starts the same is not the section", old: "# B\n\n## What was tried before\n", want: generated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(keepTried([]byte(generated), []byte(tc.old))); got != tc.want {
				t.Errorf("keepTried = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHandBuiltParts(t *testing.T) {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	(&report{}).handBuiltParts(p)
	if b.Len() != 0 {
		t.Errorf("without results: %q", b.String())
	}
	r := &report{handBuilt: []*handBuiltResult{{
		bench: handBuilt[0],
		cases: []string{"obj=updatestatus/enc=json"},
		with:  map[string][]float64{"obj=updatestatus/enc=json": {96350, 90000, 120000}},
		plain: map[string][]float64{"obj=updatestatus/enc=json": {4730330}},
	}}}
	r.handBuiltParts(p)
	want := "| encoding cache of UpdateStatus GETs | BenchmarkGetCache (pkg/apiserver) | obj=updatestatus/enc=json | cpu-ns/op | 0.096 ms | 4.730 ms | 49x |\n"
	if !strings.Contains(b.String(), "## 8. ") || !strings.Contains(b.String(), want) {
		t.Errorf("section 8:\n%s\nwant the row\n%s", b.String(), want)
	}
}
