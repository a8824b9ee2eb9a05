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

func TestParseContributions(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    contributionsSpec
		wantErr string
	}{
		{"16x1024", contributionsSpec{16, 1024}, ""},
		{" 1x1 ", contributionsSpec{1, 1}, ""},
		{"", contributionsSpec{}, ""},
		{"16", contributionsSpec{}, "is not <informers>x<insights>"},
		{"16x", contributionsSpec{}, "is not <informers>x<insights>"},
		{"axb", contributionsSpec{}, "is not <informers>x<insights>"},
		{"0x10", contributionsSpec{}, "between 1 and 100 informers"},
		{"16x1025", contributionsSpec{}, "between 1 and 1024 insights"},
		{"16x0", contributionsSpec{}, "between 1 and 1024 insights"},
	} {
		got, err := parseContributions(tt.in)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("parseContributions(%q): %v", tt.in, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("parseContributions(%q) error = %v, want one with %q", tt.in, err, tt.wantErr)
		case got != tt.want:
			t.Errorf("parseContributions(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if s := (contributionsSpec{16, 1024}).String(); s != "16x1024" {
		t.Errorf("String = %q", s)
	}
	if s := (contributionsSpec{}).String(); s != "" {
		t.Errorf("String of the zero spec = %q, want empty (the flag's value that skips the cell)", s)
	}
}

// contributionsOutput is a go test -bench output of the two benchmarks, two
// runs.
const contributionsOutput = "goos: linux\npkg: github.com/update-status/apiserver/pkg/insights\n" +
	"BenchmarkRecomputeOneNodeChanged-2   \t      20\t    199472 ns/op\t     29633 full-cpu-us\t       148.8 full/recompute\t  179332 B/op\t     250 allocs/op\n" +
	"BenchmarkContributions/change=insights-2         \t      20\t   4532958 ns/op\t  993650 B/op\t    1398 allocs/op\n" +
	"BenchmarkContributions/change=renewal-2          \t      20\t   2800539 ns/op\t  993695 B/op\t    1398 allocs/op\n" +
	"BenchmarkContributions/heap-2                    \t      20\t  55789538 ns/op\t       264.8 heap-B/insight\n" +
	"BenchmarkRecomputeOneNodeChanged-2   \t      20\t    201000 ns/op\t     29000 full-cpu-us\t       150 full/recompute\t  179000 B/op\t     250 allocs/op\n" +
	"BenchmarkContributions/change=insights-2         \t      20\t   4600000 ns/op\t  993650 B/op\t    1398 allocs/op\n" +
	"BenchmarkContributions/change=renewal-2          \t      20\t   2900000 ns/op\t  993695 B/op\t    1398 allocs/op\n" +
	"BenchmarkContributions/heap-2                    \t      20\t  55000000 ns/op\t       270 heap-B/insight\n" +
	"PASS\nok  \tgithub.com/update-status/apiserver/pkg/insights\t2.348s\n"

func TestParseBenchMetrics(t *testing.T) {
	m, err := parseBenchMetrics(contributionsOutput)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, unit string
		want       string
	}{
		{recomputeBench, unitNs, "[199472 201000]"},
		{recomputeBench, "full/recompute", "[148.8 150]"},
		{benchChange, unitNs, "[4.532958e+06 4.6e+06]"},
		{benchChange, unitAllocs, "[1398 1398]"},
		{benchRenewal, unitBytes, "[993695 993695]"},
		{benchHeap, unitHeap, "[264.8 270]"},
	} {
		if got := fmt.Sprint(m[tt.name][tt.unit]); got != tt.want {
			t.Errorf("%s %s = %s, want %s", tt.name, tt.unit, got, tt.want)
		}
	}
	if _, ok := m.median("BenchmarkContributions/change=insights-2", unitNs); ok {
		t.Error("the GOMAXPROCS suffix must not be part of the name")
	}
	for _, bad := range []string{
		"PASS\n",
		// No heap sub-benchmark.
		strings.Join(strings.Split(contributionsOutput, "\n")[2:5], "\n"),
		// A value that is not a number.
		strings.Replace(contributionsOutput, "264.8 heap", "x heap", 1),
		// An odd number of fields.
		strings.Replace(contributionsOutput, "264.8 heap-B/insight", "264.8 heap-B/insight 3", 1),
	} {
		if _, err := parseBenchMetrics(bad); err == nil {
			t.Errorf("parseBenchMetrics(%q): no error", bad)
		}
	}
}

// contributionSize is a made-up 5,000-node result with a contributions
// cell; lagWith is the p99 with the contributions (900 ms before them,
// 1.1 s after).
func contributionSize(lagWith time.Duration, storm stormResult) *sizeResult {
	w := func(p99 time.Duration) *watchResult {
		return &watchResult{Resource: resourceNodeInsights, Route: routeAggregated, Format: formatJSON, Watchers: 100, Connected: 100,
			Lag: summary{N: 1000, P50: 300 * time.Millisecond, P99: p99, Max: p99}}
	}
	return &sizeResult{Nodes: 5000, Contributions: &contributionResult{
		Spec: contributionsSpec{16, 1024}, Pool: contributionPool, Accepted: 15, Refused: map[string]int{"TooManyInformers": 1}, Insights: 15 * 1024,
		HealthInsightsBefore: 10, HealthInsightsAfter: 10 + 15*1024 + 1,
		MemBefore: memory{HeapInuse: 100 << 20, HeapAlloc: 90 << 20}, MemAfter: memory{HeapInuse: 100<<20 + 15*1024*2048, HeapAlloc: 90<<20 + 15*1024*1024},
		Storm:   storm,
		Without: w(900 * time.Millisecond), With: w(lagWith), After: w(1100 * time.Millisecond),
	}}
}

// TestContributionGoals renders the goal rows of issue #33 from made-up
// figures and checks each verdict.
func TestContributionGoals(t *testing.T) {
	quiet := stormResult{Duration: 30 * time.Second, Renewals: 480, TimeComputations: 1, ServerCores: 0.021, IdleCores: 0.005, KubeAPIServerCores: 0.6}
	noisy := quiet
	noisy.HealthEvents, noisy.ServerCores = 3, 0.2
	// The control plane took 1 renewal/s; each cost the server 30 ms.
	slow := quiet
	slow.Renewals, slow.ServerCores = 30, 0.035
	goBench, err := parseBenchMetrics(contributionsOutput)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		s       *sizeResult
		goBench benchMetrics
		want    []string // each row's verdict, with a piece of its text
	}{
		{"all met", withObjectStorm(contributionSize(1050*time.Millisecond, quiet)), goBench, []string{
			"p99 1050 ms vs 1000 ms (1.05x; before 900 ms, after 1100 ms) | met |",
			"0 revisions published; events: 0 of updatestatuses/cluster, 0 of healthinsights, 0 of nodeprogressinsights; 480 renewals (16.0/s, 0 failed); recomputations: 0 by the sources, 1 by the clock | met |",
			"| 0.021 cores at 16.0 renewals/s (idle 0.005 cores; 1.000 ms of server CPU per renewal; kube-apiserver 0.60 cores): 0.021 cores measured | met |",
			"| server 0.605 cores at 16.0 renewals/s (37.5 ms of server CPU per renewal, 38x the Lease's); kube-apiserver 1.20 cores; 0 revisions published | measured |",
			"Go heap 2.0 KiB (live objects 1.0 KiB) per insight, 15360 insights merged; the engine alone (BenchmarkContributions/heap): 270 B of live heap | measured |",
			"one informer's insights changed 4.600 ms, renewed 2.900 ms (the engine alone: the server computes nothing for a renewal); one node changed without contributions (BenchmarkRecomputeOneNodeChanged) 0.201 ms: 23x | measured |",
		}},
		{"lag, revisions and CPU missed; no Go benchmark", contributionSize(1200*time.Millisecond, noisy), nil, []string{
			"p99 1200 ms vs 1000 ms (1.20x; before 900 ms, after 1100 ms) | **missed** |",
			"3 of healthinsights, 0 of nodeprogressinsights; 480 renewals (16.0/s, 0 failed); recomputations: 0 by the sources, 1 by the clock | **missed** |",
			"| 0.200 cores at 16.0 renewals/s (idle 0.005 cores; 12.2 ms of server CPU per renewal; kube-apiserver 0.60 cores): 0.200 cores measured | **missed** |",
			"per insight, 15360 insights merged | measured |",
		}},
		{"renewals slower than asked: CPU judged at the asked rate", contributionSize(time.Second, slow), nil, []string{
			"| met |",
			"30 renewals (1.0/s, 0 failed); recomputations: 0 by the sources, 1 by the clock | met |",
			"| 0.035 cores at 1.0 renewals/s (idle 0.005 cores; 30.0 ms of server CPU per renewal; kube-apiserver 0.60 cores): 0.485 cores at 16 renewals/s, from the cost per renewal | **missed** |",
			"per insight, 15360 insights merged | measured |",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &report{config: config{churnRate: 50}, contributionsGo: tt.goBench}
			var b strings.Builder
			r.contributionGoals(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, tt.s)
			rows := strings.Split(strings.TrimSpace(b.String()), "\n")
			if len(rows) != len(tt.want) {
				t.Fatalf("%d rows, want %d:\n%s", len(rows), len(tt.want), b.String())
			}
			for i, w := range tt.want {
				if !strings.HasSuffix(rows[i], w) {
					t.Errorf("row %d = %s\nwant it to end with %q", i, rows[i], w)
				}
			}
			if !strings.HasPrefix(rows[0], "| 16 UpdateInformers x 1024 Health insights on pool worker (15 accepted, refused: TooManyInformers 1)") {
				t.Errorf("row 0 = %s", rows[0])
			}
		})
	}
}

// withObjectStorm adds a made-up renewal storm through the objects to s.
func withObjectStorm(s *sizeResult) *sizeResult {
	s.Contributions.ObjectStorm = stormResult{Duration: 30 * time.Second, Renewals: 480, ServerCores: 0.605, IdleCores: 0.005, KubeAPIServerCores: 1.2}
	return s
}

// TestContributionTables checks that section 9 shows the cell and the Go
// benchmarks, and is absent without either.
func TestContributionTables(t *testing.T) {
	goBench, err := parseBenchMetrics(contributionsOutput)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{contributions: contributionsSpec{16, 1024}, contributionWatchers: 100, stormDuration: 30 * time.Second, churnRate: 50, watchDuration: 20 * time.Second}
	storm := stormResult{Duration: 30 * time.Second, Renewals: 480, ServerCores: 0.021, IdleCores: 0.005, KubeAPIServerCores: 0.6}
	size := contributionSize(time.Second, storm)
	size.Contributions.ObjectStorm = stormResult{Duration: 31 * time.Second, Renewals: 300, ServerCores: 0.6, IdleCores: 0.005, KubeAPIServerCores: 1.2}
	r := &report{config: cfg, sizes: []*sizeResult{size}, contributionsGo: goBench}
	var b strings.Builder
	r.contributionTables(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) })
	for _, want := range []string{
		"## 9. External informers",
		"| 5000 | 16x1024 | worker | 15 | TooManyInformers 1 | 15360 | 10 / 15371 |",
		"| 2.0 KiB | 1.0 KiB |",
		"| 5000 | Lease | 30s | 480 (0) | 16.0 | 0 | 0 / 0 / 0 | 0 / 0 | 0.021 (0.005) | 1.000 ms | 0.60 |",
		"| 5000 | object | 31s | 300 (0) | 9.7 | 0 | 0 / 0 / 0 | 0 / 0 | 0.600 (0.005) | 61.5 ms | 1.20 |",
		"| 5000 | without (before) | 100 |",
		"| 5000 | with | 100 |",
		"| 5000 | without (after) | 100 |",
		"| BenchmarkContributions/change=insights | one informer changed its insights | 4.600 ms | 970.4 KiB | 1398 | 23x |",
		"Live heap per external insight (BenchmarkContributions/heap): 270 B.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("section 9 lacks %q:\n%s", want, b.String())
		}
	}
	var empty strings.Builder
	(&report{config: cfg}).contributionTables(func(f string, a ...any) { fmt.Fprintf(&empty, f, a...) })
	if empty.Len() != 0 {
		t.Errorf("section 9 without a cell or a Go benchmark = %q, want nothing", empty.String())
	}
}
