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
				Lag: summary{N: 100, P99: 900 * time.Millisecond}, CPUPerMinute: 45, BytesPerEvent: 1300},
			// Straight: no goal row.
			{Resource: resourceNodeInsights, Route: routeDirect, Format: formatJSON, Watchers: 10, Connected: 10},
		},
		Lists: []*getCell{
			{Resource: resourceNodeInsights, Route: routeDirect, Format: formatJSON, loadResult: loadResult{Clients: 1, Latency: summary{N: 10, P50: 30 * time.Millisecond}}},
			{Resource: resourceNodeInsights, Route: routeAggregated, Format: formatJSON, loadResult: loadResult{Clients: 1, Latency: summary{N: 10, P50: 50 * time.Millisecond}}},
		},
		ListEncodes: []*listEncode{{Resource: resourceNodeInsights, Format: formatJSON, Items: 5000, Bytes: 6 << 20, Encode: summary{N: 10, P50: 20 * time.Millisecond}}},
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
		{"| 1000 watchers of nodeprogressinsights", "| **missed** (lag, CPU) |"},
		{"| LIST of all 5000 nodeprogressinsights (1 client, straight, JSON)", "1.50x | met |"},
		{"| LIST of all 5000 nodeprogressinsights (1 client, aggregated, JSON)", "2.50x | **missed** |"},
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
