/*
Copyright The update-status-apiserver Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

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
