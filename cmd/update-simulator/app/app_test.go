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

package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/update-status/apiserver/pkg/simulator"
)

func TestParsePool(t *testing.T) {
	pct := intstr.FromString("10%")
	two := intstr.FromInt32(2)
	tests := []parseCase[simulator.PoolOptions]{
		{in: "worker", want: simulator.PoolOptions{Name: "worker"}},
		{in: "worker:10%", want: simulator.PoolOptions{Name: "worker", MaxUnavailable: &pct}},
		{in: "infra=3", want: simulator.PoolOptions{Name: "infra", Nodes: 3}},
		{in: "gpu=20:2", want: simulator.PoolOptions{Name: "gpu", Nodes: 20, MaxUnavailable: &two}},
		{in: "=3", wantErr: "empty name"},
		{in: "gpu=x", wantErr: "NODES must be a positive integer"},
		{in: "gpu=0", wantErr: "NODES must be a positive integer"},
		{in: "gpu:ten", wantErr: "MAXUNAVAILABLE must be"},
		{in: "gpu:", wantErr: "MAXUNAVAILABLE must be"},
	}
	testParse(t, "ParsePool", ParsePool, tests)
}

// parseCase is an input of a parser and what it must parse to: want, or
// an error containing wantErr.
type parseCase[T any] struct {
	in      string
	want    T
	wantErr string
}

// testParse checks that parse, called name, parses each case as it says.
func testParse[T any](t *testing.T, name string, parse func(string) (T, error), tests []parseCase[T]) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parse(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s(%q) = %v, want an error containing %q", name, tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s(%q) = %+v, %v; want %+v", name, tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseFault(t *testing.T) {
	tests := []parseCase[simulator.Fault]{
		{in: "operator-degraded:kube-apiserver@5m+30m", want: simulator.Fault{Kind: simulator.FaultOperatorDegraded, Target: "kube-apiserver", After: 5 * time.Minute, For: 30 * time.Minute}},
		{in: "pool-paused:worker", want: simulator.Fault{Kind: simulator.FaultPoolPaused, Target: "worker"}},
		{in: "drain-blocked:worker+2h", want: simulator.Fault{Kind: simulator.FaultDrainBlocked, Target: "worker", For: 2 * time.Hour}},
		{in: "clusterversion-failing@10m+15m", want: simulator.Fault{Kind: simulator.FaultClusterVersionFailing, After: 10 * time.Minute, For: 15 * time.Minute}},
		{in: "node-not-ready:ip-10-0-0-9.us-east-2.compute.internal@1m", want: simulator.Fault{Kind: simulator.FaultNodeNotReady, Target: "ip-10-0-0-9.us-east-2.compute.internal", After: time.Minute}},
		{in: "meteor:worker", wantErr: `unknown kind "meteor"`},
		{in: "pool-paused", wantErr: "needs a TARGET"},
		{in: "pool-paused:worker+soon", wantErr: "+FOR must be a positive duration"},
		{in: "pool-paused:worker+0s", wantErr: "+FOR must be a positive duration"},
		{in: "pool-paused:worker@x", wantErr: "@AFTER must be a duration"},
	}
	testParse(t, "ParseFault", ParseFault, tests)
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr []string
	}{
		{name: "files", args: []string{"--output-dir", "x"}},
		{name: "api", args: []string{"--kubeconfig", "k", "--qps", "0"}},
		{name: "no destination", args: nil, wantErr: []string{"one of --kubeconfig or --output-dir is required"}},
		{name: "both destinations", args: []string{"--kubeconfig", "k", "--output-dir", "x"}, wantErr: []string{"mutually exclusive"}},
		{name: "json without files", args: []string{"--kubeconfig", "k", "--json"}, wantErr: []string{"--json needs --output-dir"}},
		{name: "bad start time", args: []string{"--output-dir", "x", "--start-time", "noon"}, wantErr: []string{"invalid --start-time"}},
		{
			name:    "every problem at once",
			args:    []string{"--output-dir", "x", "--nodes", "0", "--pool", "a=b", "--fault", "x:y", "--workers", "0", "--speed", "-1"},
			wantErr: []string{"NODES must be a positive integer", `unknown kind "x"`, "--workers must be positive"},
		},
		{name: "simulator options", args: []string{"--output-dir", "x", "--nodes", "20000"}, wantErr: []string{"nodes must be between 1 and 10000"}},
		{name: "bad chain", args: []string{"--output-dir", "x", "--then", "4.20.1", "--then", "five"}, wantErr: []string{`--then "4.20.1" repeats the previous version`, `invalid --then "five"`}},
		{name: "hosted", args: []string{"--kubeconfig", "k", "--hosted-clusters", "3", "--hosted-fault", "hosted-1=held-drain"}},
		{name: "hosted to files", args: []string{"--output-dir", "x", "--hosted-clusters", "2"}, wantErr: []string{"--hosted-clusters needs --kubeconfig"}},
		{name: "hosted fault alone", args: []string{"--kubeconfig", "k", "--hosted-fault", "hosted-1=held-drain"}, wantErr: []string{"--hosted-fault needs --hosted-clusters"}},
		{name: "a hosted wave", args: []string{"--kubeconfig", "k", "--hosted-clusters", "200", "--hosted-wave-size", "10", "--hosted-wave-interval", "1m",
			"--hosted-fault-share", "stuck-component=5", "--hosted-fault-share", "held-drain=2%", "--hosted-nodepools", "2", "--hosted-components", "40"}},
		{name: "hosted wave flags alone", args: []string{"--kubeconfig", "k", "--hosted-wave-size", "10", "--hosted-wave-interval", "1m", "--hosted-fault-share", "stuck-component=5", "--hosted-nodepools", "2", "--hosted-components", "40"},
			wantErr: []string{"--hosted-wave-size needs --hosted-clusters", "--hosted-wave-interval needs --hosted-clusters", "--hosted-fault-share needs --hosted-clusters", "--hosted-nodepools needs --hosted-clusters", "--hosted-components needs --hosted-clusters"}},
		{name: "bad hosted wave", args: []string{"--kubeconfig", "k", "--hosted-clusters", "20", "--hosted-wave-size", "-1", "--hosted-wave-interval", "-1m", "--hosted-nodepools", "0", "--hosted-components", "-2"},
			wantErr: []string{"--hosted-wave-size must not be negative, got -1", "--hosted-wave-interval must not be negative", "--hosted-nodepools must be at least 1, got 0", "--hosted-components must not be negative"}},
		{name: "wave interval without size", args: []string{"--kubeconfig", "k", "--hosted-clusters", "20", "--hosted-wave-interval", "1m"}, wantErr: []string{"--hosted-wave-interval needs --hosted-wave-size"}},
		{name: "bad fault shares", args: []string{"--kubeconfig", "k", "--hosted-clusters", "20", "--hosted-fault-share", "stuck-component=0"}, wantErr: []string{"--hosted-fault-share: hosted: fault share \"stuck-component=0\": PERCENT must be a number above 0 and at most 100"}},
		{name: "unknown shared fault", args: []string{"--kubeconfig", "k", "--hosted-clusters", "20", "--hosted-fault-share", "meteor=5"}, wantErr: []string{"want FAULT=PERCENT with FAULT one of"}},
		{name: "share too large", args: []string{"--kubeconfig", "k", "--hosted-clusters", "4", "--hosted-fault-share", "held-drain=100"}, wantErr: []string{"4 hosted clusters wanted, 2 of 4 can carry it"}},
		{name: "faults with create-only", args: []string{"--output-dir", "x", "--create-only", "--fault", "pool-paused:worker"}, wantErr: []string{"--fault makes no sense with --create-only"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			for _, want := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Validate() = %v, want an error containing %q", err, want)
				}
			}
		})
	}
}

func TestRunWritesFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "states")
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{
		"--output-dir", dir, "--json", "--nodes", "4", "--speed", "60", "--seed", "3", "--min-step", "0",
		"--start-time", "2025-06-01T12:00:00Z", "--fault", "operator-degraded:dns@1m+5m", "--idle", "5m", "--then", "4.20.2",
	}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut.String())
	}
	text := out.String()
	for _, want := range []string{"cluster: 4 nodes (3 control plane; pools worker), 4.19.10 -> 4.20.1, speed 60, seed 3", "create: 4 nodes,", "phase=Operators", "next update to 4.20.2", "update: Completed in "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 20 {
		t.Fatalf("%d step directories", len(entries))
	}
	first, err := simulator.ReadStateDir(filepath.Join(dir, "0000"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := simulator.ReadStateDir(filepath.Join(dir, "0001"))
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC); !first.Time.Equal(want) || !second.Time.Equal(want.Add(5*time.Minute)) {
		t.Errorf("first steps at %s and %s, want the start time and 5m of idling later", first.Time, second.Time)
	}
	last, err := simulator.ReadStateDir(filepath.Join(dir, entries[len(entries)-1].Name()))
	if err != nil {
		t.Fatal(err)
	}
	if last.Phase != simulator.PhaseCompleted || len(last.Nodes) != 4 || last.ClusterVersion.Status.History[0].Version != "4.20.2" {
		t.Errorf("last state: phase %s, %d nodes, history %+v", last.Phase, len(last.Nodes), last.ClusterVersion.Status.History[0])
	}
}

func TestRunCreateOnly(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"--output-dir", dir, "--create-only", "--nodes", "50", "--quiet"}, &out, &errOut); code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "create: 50 nodes, 105 objects in ") || strings.Contains(out.String(), "step 0") {
		t.Errorf("output:\n%s", out.String())
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("%d step directories (err %v), want 1", len(entries), err)
	}
}

func TestRunReportsErrors(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"--nodes", "3"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "one of --kubeconfig or --output-dir is required") {
		t.Errorf("exit code %d, stderr %q", code, errOut.String())
	}
	errOut.Reset()
	if code := Run(context.Background(), []string{"--kubeconfig", filepath.Join(t.TempDir(), "missing")}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "kubeconfig") {
		t.Errorf("exit code %d, stderr %q", code, errOut.String())
	}
}
