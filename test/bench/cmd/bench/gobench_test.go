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
	"testing"
)

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

func TestParseListBench(t *testing.T) {
	out := "goos: linux\nBenchmarkListNodeInsights/list-2         \t      20\t  49806265 ns/op\t 5198436 B/op\n" +
		"BenchmarkListNodeInsights/list-gzip-2    \t      20\t  72207270 ns/op\n" +
		"BenchmarkListNodeInsights/encode-alone-2 \t      20\t  42574199 ns/op\n" +
		"BenchmarkListNodeInsights/list-2         \t      20\t  51000000 ns/op\n" +
		"BenchmarkListNodeInsights/list-gzip-http2-2 \t  20\t  30000000 ns/op\n" +
		"BenchmarkListNodeInsights/list-gzip-http2   \t  20\t  31000000 ns/op\n"
	got, err := parseListBench(out)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "map[encode-alone:[4.2574199e+07] list:[4.9806265e+07 5.1e+07] list-gzip:[7.220727e+07] list-gzip-http2:[3e+07 3.1e+07]]" {
		t.Errorf("parseListBench = %v", got)
	}
	if _, err := parseListBench("BenchmarkListNodeInsights/list-2 20 1 ns/op\n"); err == nil {
		t.Error("an output without every sub-benchmark must be an error")
	}
}

func TestParseHandBuilt(t *testing.T) {
	hb := handBuiltBench{name: "BenchmarkGetCache", metric: "cpu-ns/op", key: "path", with: "cache", plain: "plain"}
	out := "goos: linux\n" +
		"BenchmarkGetCache/obj=us/enc=json/path=cache-2   \t      50\t     94550 ns/op\t     96350 cpu-ns/op\t   1775204 resp-bytes\n" +
		"BenchmarkGetCache/obj=us/enc=json/path=plain-2   \t      50\t   4821130 ns/op\t   4730330 cpu-ns/op\n" +
		"BenchmarkGetCache/obj=us/enc=json-gzip/path=cache-2 \t  50\t   2887000 ns/op\t   2850000 cpu-ns/op\n" +
		"BenchmarkGetCache/obj=us/enc=json-gzip/path=plain-2 \t  50\t   7829000 ns/op\t   7781000 cpu-ns/op\n" +
		"BenchmarkGetCache/obj=us/enc=json/path=cache-2   \t      50\t     90000 ns/op\t     98000 cpu-ns/op\n" +
		"BenchmarkOther/path=cache-2 \t 50\t 1 ns/op\t 1 cpu-ns/op\n" +
		"PASS\n"
	got, err := parseHandBuilt(hb, out)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.cases, got.with, got.plain) !=
		"[obj=us/enc=json obj=us/enc=json-gzip] map[obj=us/enc=json:[96350 98000] obj=us/enc=json-gzip:[2.85e+06]] map[obj=us/enc=json:[4.73033e+06] obj=us/enc=json-gzip:[7.781e+06]]" {
		t.Errorf("parseHandBuilt = %v %v %v", got.cases, got.with, got.plain)
	}
	for _, bad := range []string{
		"PASS\n",
		"BenchmarkGetCache/obj=us/path=cache-2 \t 50\t 1 ns/op\t 1 cpu-ns/op\n",
		"BenchmarkGetCache/obj=us/path=cache-2 \t 50\t 1 ns/op\n",
	} {
		if _, err := parseHandBuilt(hb, bad); err == nil {
			t.Errorf("parseHandBuilt(%q): no error", bad)
		}
	}
}
