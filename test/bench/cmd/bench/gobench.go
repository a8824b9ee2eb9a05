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
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// nodeChangeBench is the Go benchmark that measures the server's CPU for one
// node change at 5,000 nodes: engine, view, the six stores and their watch
// caches (pkg/apiserver/publish_bench_test.go).
const nodeChangeBench = "BenchmarkNodeChangeToWatchCache"

// nodeChangeRuns is how many times the Go benchmark runs; the report quotes
// the median.
const nodeChangeRuns = 3

var cpuPerChange = regexp.MustCompile(`([0-9.]+) cpu-us/change`)

// parseCPUPerChange returns the cpu-us/change metric of a go test -bench
// output.
func parseCPUPerChange(out string) (float64, error) {
	m := cpuPerChange.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no cpu-us/change in the output of %s", nodeChangeBench)
	}
	return strconv.ParseFloat(m[1], 64)
}

// benchNodeChange runs the Go benchmark nodeChangeRuns times in the
// repository root and returns the CPU microseconds per change of each run.
func benchNodeChange(ctx context.Context, root string) ([]float64, error) {
	var runs []float64
	for range nodeChangeRuns {
		out, err := goBench(ctx, root, nodeChangeBench, "400x", 1)
		if err != nil {
			return runs, err
		}
		v, err := parseCPUPerChange(out)
		if err != nil {
			return runs, err
		}
		runs = append(runs, v)
	}
	return runs, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// listBench is the Go benchmark that LISTs 5,000 NodeProgressInsights
// through the server's handler chain in-process, beside encoding the same
// list alone (pkg/apiserver/bench_test.go): the server's share of a LIST,
// without transport or client.
const listBench = "BenchmarkListNodeInsights"

var subBenchNs = regexp.MustCompile(`(?m)^` + listBench + `/([a-z0-9-]+?)(?:-[0-9]+)?\s+[0-9]+\s+([0-9.]+) ns/op`)

// parseListBench returns the ns/op of each sub-benchmark in a go test -bench
// output of listBench, one value per run.
func parseListBench(out string) (map[string][]float64, error) {
	res := map[string][]float64{}
	for _, m := range subBenchNs.FindAllStringSubmatch(out, -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return nil, err
		}
		res[m[1]] = append(res[m[1]], v)
	}
	for _, name := range []string{"list", "list-gzip", "encode-alone"} {
		if len(res[name]) == 0 {
			return nil, fmt.Errorf("no %s/%s in the output of go test", listBench, name)
		}
	}
	return res, nil
}

// benchList runs listBench nodeChangeRuns times (one go test, -count) in the
// repository root.
func benchList(ctx context.Context, root string) (map[string][]float64, error) {
	out, err := goBench(ctx, root, listBench, "20x", nodeChangeRuns)
	if err != nil {
		return nil, err
	}
	return parseListBench(out)
}

// goBench runs the Go benchmark name of ./pkg/apiserver/ in the repository
// root, count times in one go test, and returns its output.
func goBench(ctx context.Context, root, name, benchtime string, count int) (string, error) {
	return goBenchIn(ctx, root, "./pkg/apiserver/", name, benchtime, count)
}

// goBenchIn is goBench for the package pkg.
func goBenchIn(ctx context.Context, root, pkg, name, benchtime string, count int) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "XXX", "-bench", name+"$", "-benchtime", benchtime, "-count", strconv.Itoa(count), pkg)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return string(out), nil
}

// handBuiltBench is a Go benchmark that runs a hand-built part of the
// serving path and the plain path it stands in for side by side in one
// process (docs/watch.md, "Why the library"): the sub-benchmark key (key=with
// or key=plain) tells the two apart, the rest of the name is the case.
type handBuiltBench struct {
	part, pkg, name, benchtime string
	// metric is the unit compared: cpu-ns/op or ns/op.
	metric           string
	key, with, plain string
}

// handBuilt are the benchmarks of section 8, one go test each.
var handBuilt = []handBuiltBench{
	{part: "encoding cache of UpdateStatus GETs", pkg: "./pkg/apiserver/", name: "BenchmarkGetCache", benchtime: "1s",
		metric: "cpu-ns/op", key: "path", with: "cache", plain: "plain"},
	{part: "coalescing watch", pkg: "./pkg/registry/virtualstore/", name: "BenchmarkCoalescingWatch", benchtime: "300x",
		metric: "cpu-ns/op", key: "path", with: "coalesce", plain: "plain"},
	{part: "the engine's object table", pkg: "./pkg/insights/", name: "BenchmarkObjectLookups", benchtime: "1s",
		metric: "ns/op", key: "impl", with: "table", plain: "map"},
}

// handBuiltResult is what one handBuiltBench measured: per case, the
// metric of each run with the part and without.
type handBuiltResult struct {
	bench       handBuiltBench
	cases       []string // in the order of the output
	with, plain map[string][]float64
}

var benchLine = regexp.MustCompile(`(?m)^(Benchmark\S+?)(?:-[0-9]+)?\s+[0-9]+\s+(.*)$`)

// parseHandBuilt reads the go test -bench output of hb.
func parseHandBuilt(hb handBuiltBench, out string) (*handBuiltResult, error) {
	res := &handBuiltResult{bench: hb, with: map[string][]float64{}, plain: map[string][]float64{}}
	for _, m := range benchLine.FindAllStringSubmatch(out, -1) {
		parts := strings.Split(m[1], "/")
		if parts[0] != hb.name {
			continue
		}
		var kase []string
		var side map[string][]float64
		for _, p := range parts[1:] {
			switch p {
			case hb.key + "=" + hb.with:
				side = res.with
			case hb.key + "=" + hb.plain:
				side = res.plain
			default:
				kase = append(kase, p)
			}
		}
		fields := strings.Fields(m[2])
		for i := 0; side != nil && i+1 < len(fields); i += 2 {
			if fields[i+1] != hb.metric {
				continue
			}
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m[1], err)
			}
			c := strings.Join(kase, "/")
			if _, seen := res.with[c]; !seen {
				if _, seen := res.plain[c]; !seen {
					res.cases = append(res.cases, c)
				}
			}
			side[c] = append(side[c], v)
		}
	}
	for _, c := range res.cases {
		if len(res.with[c]) == 0 || len(res.plain[c]) == 0 {
			return nil, fmt.Errorf("%s %s: %s of only one path", hb.name, c, hb.metric)
		}
	}
	if len(res.cases) == 0 {
		return nil, fmt.Errorf("no %s in the output of %s", hb.metric, hb.name)
	}
	return res, nil
}

// benchHandBuilt runs each of handBuilt nodeChangeRuns times (one go test,
// -count) in the repository root.
func benchHandBuilt(ctx context.Context, root string) ([]*handBuiltResult, error) {
	var out []*handBuiltResult
	for _, hb := range handBuilt {
		raw, err := goBenchIn(ctx, root, hb.pkg, hb.name, hb.benchtime, nodeChangeRuns)
		if err != nil {
			return out, err
		}
		res, err := parseHandBuilt(hb, raw)
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

// The Go benchmarks of the merge of external informers' contributions
// (pkg/insights/contributions_bench_test.go), run in one go test beside the
// recomputation after one node change at the same size without
// contributions (pkg/insights/bench_test.go), so that the two compare side
// by side.
const (
	contributionsBench = "BenchmarkContributions"
	recomputeBench     = "BenchmarkRecomputeOneNodeChanged"
	contributionsPkg   = "./pkg/insights/"
	contributionsTime  = "50x"
)

// Sub-benchmarks of contributionsBench and the figures the report reads.
const (
	benchChange  = contributionsBench + "/change=insights"
	benchRenewal = contributionsBench + "/change=renewal"
	benchHeap    = contributionsBench + "/heap"
	unitNs       = "ns/op"
	unitBytes    = "B/op"
	unitAllocs   = "allocs/op"
	unitHeap     = "heap-B/insight"
)

// benchMetrics holds the figures of a go test -bench output: per benchmark
// (its full name, without the GOMAXPROCS suffix), per unit, one value per
// run.
type benchMetrics map[string]map[string][]float64

// median returns the median of the unit of benchmark name, and whether it
// was measured.
func (m benchMetrics) median(name, unit string) (float64, bool) {
	v := m[name][unit]
	return median(v), len(v) > 0
}

// parseBenchMetrics reads every "value unit" pair of every benchmark line.
func parseBenchMetrics(out string) (benchMetrics, error) {
	res := benchMetrics{}
	for _, m := range benchLine.FindAllStringSubmatch(out, -1) {
		fields := strings.Fields(m[2])
		if len(fields)%2 != 0 {
			return nil, fmt.Errorf("%s: odd number of fields in %q", m[1], m[2])
		}
		for i := 0; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m[1], err)
			}
			if res[m[1]] == nil {
				res[m[1]] = map[string][]float64{}
			}
			res[m[1]][fields[i+1]] = append(res[m[1]][fields[i+1]], v)
		}
	}
	for _, want := range []struct{ name, unit string }{
		{recomputeBench, unitNs}, {benchChange, unitNs}, {benchRenewal, unitNs}, {benchHeap, unitHeap},
	} {
		if _, ok := res.median(want.name, want.unit); !ok {
			return nil, fmt.Errorf("no %s of %s in the output of go test", want.unit, want.name)
		}
	}
	return res, nil
}

// benchContributionsGo runs contributionsBench and recomputeBench
// nodeChangeRuns times (one go test, -count) in the repository root.
func benchContributionsGo(ctx context.Context, root string) (benchMetrics, error) {
	// goBenchIn anchors the pattern at its end: the alternation names both.
	out, err := goBenchIn(ctx, root, contributionsPkg, contributionsBench+"$|"+recomputeBench, contributionsTime, nodeChangeRuns)
	if err != nil {
		return nil, err
	}
	return parseBenchMetrics(out)
}
