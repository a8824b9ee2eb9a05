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
	"testing"
	"time"
)

func TestParseDrain(t *testing.T) {
	for _, tc := range []struct {
		cell, draining string
		small          int
		want           drainSpec
		wantErr        bool
	}{
		{"5000x150000", "50x30", 1500, drainSpec{Nodes: 5000, Pods: 150000, Draining: 50, PerNode: 30, SmallPods: 1500}, false},
		{"", "50x30", 1500, drainSpec{}, false},
		{" 100x3000 ", "10x5", 50, drainSpec{Nodes: 100, Pods: 3000, Draining: 10, PerNode: 5, SmallPods: 50}, false},
		{"5000", "50x30", 1500, drainSpec{}, true},
		{"5000x", "50x30", 1500, drainSpec{}, true},
		{"0x10", "1x1", 1, drainSpec{}, true},
		{"20000x10", "1x1", 1, drainSpec{}, true},
		{"5000x150000", "50", 1500, drainSpec{}, true},
		{"10x100", "7x1", 7, drainSpec{}, true},           // 10 nodes: 3 masters, 7 workers, none to spare
		{"5000x150000", "50x30", 1499, drainSpec{}, true}, // fewer than the draining nodes' pods
		{"5000x1000", "50x30", 1500, drainSpec{}, true},   // more than the cluster's pods
	} {
		got, err := parseDrain(tc.cell, tc.draining, tc.small)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseDrain(%q, %q, %d) = %+v, %v; want %+v, error %v", tc.cell, tc.draining, tc.small, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestDrainVerdict(t *testing.T) {
	run := func(pods int, rss float64) *drainRun { return &drainRun{Pods: pods, RSS: rss} }
	for _, tc := range []struct {
		name         string
		r            *drainResult
		ok, measured bool
	}{
		{"none", nil, false, false},
		{"one run", &drainResult{Runs: []*drainRun{run(1500, 30<<20)}}, false, false},
		{"flat and small", &drainResult{Runs: []*drainRun{run(1500, 40<<20), run(150000, 44<<20)}}, true, true},
		{"grows with the pods", &drainResult{Runs: []*drainRun{run(1500, 30<<20), run(150000, 50<<20)}}, false, true},
		{"flat, over the goal", &drainResult{Runs: []*drainRun{run(1500, 70<<20), run(150000, 70<<20)}}, false, true},
	} {
		ok, measured := tc.r.drainVerdict()
		if ok != tc.ok || measured != tc.measured {
			t.Errorf("%s: verdict %v measured %v, want %v %v", tc.name, ok, measured, tc.ok, tc.measured)
		}
	}
}

func TestDrainRequestsPerMinute(t *testing.T) {
	for _, tc := range []struct {
		r    drainRun
		want float64
	}{
		{drainRun{Requests: 30, Window: 30 * time.Second}, 60},
		{drainRun{Requests: 5, Window: 2 * time.Minute}, 2.5},
		{drainRun{Requests: 5}, 0},
	} {
		if got := tc.r.RequestsPerMinute(); got != tc.want {
			t.Errorf("%+v: %v requests/min, want %v", tc.r, got, tc.want)
		}
	}
}

func TestDrainFlags(t *testing.T) {
	c := config{drain: drainSpec{Nodes: 5000, Pods: 150000, Draining: 50, PerNode: 30, SmallPods: 1500}, drainWindow: time.Minute, drainSamples: 10}
	if got, want := drainFlags(c), " -drain=5000x150000 -drain-draining=50x30 -drain-small-pods=1500 -drain-window=1m0s -drain-samples=10"; got != want {
		t.Errorf("drainFlags = %q, want %q", got, want)
	}
	if got := drainFlags(config{}); got != ` -drain=""` {
		t.Errorf("drainFlags of no cell = %q", got)
	}
}
