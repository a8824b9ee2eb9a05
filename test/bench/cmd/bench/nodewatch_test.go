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
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/insights"
)

func TestContentLags(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	const deadline = time.Second
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tt := range []struct {
		name   string
		writes []write
		events []seen
		want   []time.Duration
	}{
		{
			name:   "the first event showing the state",
			writes: []write{{at: at(0), node: 1, unschedulable: true}},
			events: []seen{{at: at(20), node: 1, unschedulable: false}, {at: at(50), node: 1, unschedulable: true}, {at: at(70), node: 1, unschedulable: true}},
			want:   []time.Duration{ms(50)},
		},
		{
			name:   "another node's event, and one received before the change, do not count",
			writes: []write{{at: at(100), node: 1, unschedulable: true}},
			events: []seen{{at: at(90), node: 1, unschedulable: true}, {at: at(120), node: 2, unschedulable: true}, {at: at(300), node: 1, unschedulable: true}},
			want:   []time.Duration{ms(200)},
		},
		{
			name:   "shown after the deadline: undelivered",
			writes: []write{{at: at(0), node: 1}},
			events: []seen{{at: at(1001), node: 1}},
			want:   []time.Duration{undelivered},
		},
		{
			name:   "at the deadline: delivered",
			writes: []write{{at: at(0), node: 1}},
			events: []seen{{at: at(1000), node: 1}},
			want:   []time.Duration{ms(1000)},
		},
		{
			name:   "never shown",
			writes: []write{{at: at(0), node: 1, unschedulable: true}},
			events: []seen{{at: at(10), node: 1, unschedulable: false}},
			want:   []time.Duration{undelivered},
		},
		{
			name: "a node changed twice: an event after the second change does not show the first",
			writes: []write{
				{at: at(300), node: 1, unschedulable: true}, // in any order
				{at: at(0), node: 1, unschedulable: true},
				{at: at(100), node: 1, unschedulable: false},
			},
			events: []seen{{at: at(150), node: 1, unschedulable: false}, {at: at(310), node: 1, unschedulable: true}},
			want:   []time.Duration{ms(10), undelivered, ms(50)},
		},
		{
			name:   "no changes",
			events: []seen{{at: at(10), node: 1}},
			want:   []time.Duration{},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := contentLags(tt.writes, tt.events, deadline)
			if !slices.Equal(got, tt.want) {
				t.Errorf("contentLags = %v, want %v", got, tt.want)
			}
		})
	}
}

// nodeEvent is a JSON watch event of a Node as the kube-apiserver writes
// it.
func nodeEvent(t *testing.T, n *corev1.Node) []byte {
	t.Helper()
	b, err := json.Marshal(metav1.WatchEvent{Type: "MODIFIED", Object: runtimeRaw(t, n)})
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func runtimeRaw(t *testing.T, o any) runtime.RawExtension {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return runtime.RawExtension{Raw: b}
}

func TestNodeUnschedulable(t *testing.T) {
	// What a cordon leaves elsewhere in the object: the field manager's
	// entry and a taint named after it, which are not the spec field.
	managed := []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1",
		FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:unschedulable":{}}}`)}}
	node := func(unschedulable bool) *corev1.Node {
		return &corev1.Node{
			TypeMeta:   metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "worker-1", ResourceVersion: "42", ManagedFields: managed, Annotations: map[string]string{"note": `"unschedulable":true`}},
			Spec: corev1.NodeSpec{Unschedulable: unschedulable, PodCIDR: "10.0.0.0/24",
				Taints: []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Message: `"unschedulable":true`}}},
		}
	}
	for _, tt := range []struct {
		name         string
		line         []byte
		want, wantOK bool
	}{
		{"cordoned", nodeEvent(t, node(true)), true, true},
		{"uncordoned, the text elsewhere in the object", nodeEvent(t, node(false)), false, true},
		{"an ERROR event", []byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","code":410}}` + "\n"), false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := nodeUnschedulable(tt.line)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("nodeUnschedulable = %t, %t, want %t, %t\n%s", got, ok, tt.want, tt.wantOK, tt.line)
			}
			if rv, name, ok := jsonMeta(tt.line); tt.wantOK && (!ok || rv != 42 || string(name) != "worker-1") {
				t.Errorf("jsonMeta = %d, %q, %t, want 42, worker-1", rv, name, ok)
			}
		})
	}
}

// TestInsightUnschedulableFromEngine checks insightUnschedulable against the
// engine: on a synthetic cluster with nodes in every state, the insight of
// every worker node shows the text once the node is cordoned, and no insight
// shows it while no node is.
func TestInsightUnschedulableFromEngine(t *testing.T) {
	src, now := viewtest.Cluster(197, 1, 3)
	// The same cluster with no node cordoned (the synthetic draining nodes
	// are), and with every worker node cordoned.
	uncordoned, cordoned := *src, *src
	uncordoned.Nodes, cordoned.Nodes = make([]*insights.Node, len(src.Nodes)), make([]*insights.Node, len(src.Nodes))
	workers := map[string]bool{}
	for i, n := range src.Nodes {
		u, c := n.DeepCopy(), n.DeepCopy()
		u.Unschedulable, c.Unschedulable = false, false
		if !c.Labels.Has("node-role.kubernetes.io/master") {
			c.Unschedulable = true
			workers[c.Name] = true
		}
		uncordoned.Nodes[i], cordoned.Nodes[i] = u, c
	}
	if len(workers) == 0 || len(workers) == len(src.Nodes) {
		t.Fatalf("%d workers of %d nodes", len(workers), len(src.Nodes))
	}
	shown := func(src *insights.Sources) map[string]bool {
		out := map[string]bool{}
		for _, in := range insights.Compute(src, now).Insights {
			if in.Node == nil {
				continue
			}
			b, err := json.Marshal(in.Node)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := insightUnschedulable(b); ok && got {
				out[in.Node.Name] = true
			}
		}
		return out
	}
	if before := shown(&uncordoned); len(before) != 0 {
		t.Errorf("uncordoned, %d insights show the node cordoned: %v", len(before), before)
	}
	after := shown(&cordoned)
	for name := range workers {
		if !after[name] {
			t.Errorf("cordoned worker %s: its insight does not show it", name)
		}
	}
	for name := range after {
		if !workers[name] {
			t.Errorf("%s was not cordoned, and its insight shows it", name)
		}
	}
}

func TestNodeWatchFlags(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		want    nodeWatchSpec
		wantErr bool
	}{
		{args: nil, want: nodeWatchSpec{Watchers: []int{100, 1000}, Rate: 20, Duration: 30 * time.Second, BurstRate: 50, BurstWatchers: 100, Deadline: 5 * time.Second, Live: true, Straight: true}},
		{args: []string{"-node-watch=", "-node-watch-only"}, want: nodeWatchSpec{Rate: 20, Duration: 30 * time.Second, BurstRate: 50, BurstWatchers: 100, Deadline: 5 * time.Second, Only: true, Live: true, Straight: true}},
		{args: []string{"-node-watch=10", "-node-watch-burst=0", "-node-watch-live=false", "-node-watch-straight=false"}, want: nodeWatchSpec{Watchers: []int{10}, Rate: 20, Duration: 30 * time.Second, BurstWatchers: 10, Deadline: 5 * time.Second}},
		{args: []string{"-node-watch=", "-node-watch-burst=0", "-node-watch-only"}, wantErr: true},
		{args: []string{"-node-watch=10", "-node-watch-rate=0"}, wantErr: true},
		{args: []string{"-node-watch=ten"}, wantErr: true},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("bench", flag.ContinueOnError)
			var s nodeWatchSpec
			done := s.register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := done()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %t", err, tt.wantErr)
			}
			if err == nil && fmt.Sprint(s) != fmt.Sprint(tt.want) {
				t.Errorf("spec = %+v, want %+v", s, tt.want)
			}
		})
	}
	s := nodeWatchSpec{Watchers: []int{100}, BurstRate: 50}
	if b := s.baseline(); len(b.Watchers) != 0 || b.BurstRate != 50 || !b.enabled() {
		t.Errorf("baseline = %+v, want the burst alone", b)
	}
	for _, tt := range []struct {
		spec nodeWatchSpec
		n    int
		want bool
	}{
		{s, 5000, true},
		{s, 1000, false},
		{nodeWatchSpec{Watchers: []int{100}, Only: true}, 1000, true},
		{nodeWatchSpec{}, 5000, false},
	} {
		if got := tt.spec.at(tt.n, []int{1000, 5000}); got != tt.want {
			t.Errorf("%+v at %d = %t, want %t", tt.spec, tt.n, got, tt.want)
		}
	}
}

// nodeWatchSize is a made-up node-watch cell at 5,000 nodes: at 100
// watchers the insights' p99 is 1.2x the Nodes', at 1,000 the Nodes' is
// beyond the deadline.
func nodeWatchSize() *sizeResult {
	spec := nodeWatchSpec{Watchers: []int{100, 1000}, Rate: 20, Duration: 30 * time.Second, BurstRate: 50, BurstWatchers: 100, Deadline: 5 * time.Second}
	lag := func(p50, p99 time.Duration) summary { return summary{N: 60000, P50: p50, P99: p99, Max: p99} }
	cell := func(kind string, k int, l summary, late int) *nodeWatchCell {
		return &nodeWatchCell{Kind: kind, Watchers: k, Connected: k, Rate: 20, Changes: 600, Lag: l, Late: late, Window: 35 * time.Second,
			ServerCPU: 3.5 + 0.6, ServerIdle: 0.1, KubeAPIServerCPU: 7 + 6.3, KubeAPIServerIdle: 0.2, Events: 60000, Bytes: 60000 * 1300, Published: 400}
	}
	return &sizeResult{Nodes: 5000, NodeWatch: &nodeWatchResult{Spec: spec, Nodes: 4997, Cells: []*nodeWatchCell{
		cell(kindNodes, 100, lag(40*time.Millisecond, 100*time.Millisecond), 0),
		cell(kindInsights, 100, lag(60*time.Millisecond, 120*time.Millisecond), 0),
		cell(kindNodes, 1000, lag(2*time.Second, undelivered), 9000),
		cell(kindInsights, 1000, lag(200*time.Millisecond, 600*time.Millisecond), 0),
	}, Burst: &nodeWatchCell{Kind: kindInsights, Watchers: 100, Connected: 100, Rate: 50, Changes: 1500, Window: 35 * time.Second,
		ServerCPU: 3.5 + 1.5, ServerIdle: 0.1, Lag: lag(50*time.Millisecond, 150*time.Millisecond), Published: 200}}}
}

// withLiveCells adds to s the live cells of 100 watchers: the insights' p99
// 2x the Nodes'.
func withLiveCells(s *sizeResult) {
	l := summary{N: 60000, P50: 30 * time.Millisecond, P99: 100 * time.Millisecond, Max: 100 * time.Millisecond}
	nodes := &nodeWatchCell{Kind: kindNodes, Watchers: 100, Connected: 100, Rate: 20, Changes: 600, Lag: l, Live: true}
	l.P99 = 200 * time.Millisecond
	npi := &nodeWatchCell{Kind: kindInsights, Watchers: 100, Connected: 100, Rate: 20, Changes: 600, Lag: l, Live: true, LiveRequests: 120, LiveUpdates: 1, LiveContributions: 30}
	l.P99 = 90 * time.Millisecond
	straight := &nodeWatchCell{Kind: kindInsightsStraight, Watchers: 100, Connected: 100, Rate: 20, Changes: 600, Lag: l, Live: true}
	s.NodeWatch.Cells = append(s.NodeWatch.Cells, nodes, npi, straight)
}

func TestNodeWatchGoals(t *testing.T) {
	for _, tt := range []struct {
		name     string
		edit     func(*sizeResult)
		baseline *nodeWatchCell
		// rounds, when set, are each binary's later rounds: the baseline's
		// bursts after baseline's, the tree's after the size's own.
		rounds func() (before, after []*nodeWatchCell)
		want   []string
	}{
		{
			name: "met, no baseline",
			want: []string{
				"| 100 watchers, 20 node changes/s, from content: nodeprogressinsights (through the kube-apiserver) p99 at most 1.5x the Nodes p99 | Nodes p50 40.0 ms, p99 100 ms (0 of 60000 deliveries late); nodeprogressinsights p50 60.0 ms, p99 120 ms (0 of 60000 late): 1.20x | met |",
				"| 1000 watchers, 20 node changes/s, from content: nodeprogressinsights (through the kube-apiserver) p99 below the Nodes p99 | Nodes p50 2000 ms, p99 > 5s (9000 of 60000 deliveries late); nodeprogressinsights p50 200 ms, p99 600 ms (0 of 60000 late): Nodes beyond the deadline | met |",
				"| server CPU per change under a 50/s burst (100 watchers of nodeprogressinsights): compared with an earlier run's | 1.00 ms CPU-s per change above idle (1500 changes, 200 revisions published) | measured |",
			},
		},
		{
			name: "the live cells have rows of their own, after the quiet ones",
			edit: withLiveCells,
			want: []string{
				"(0 of 60000 late): 1.20x | met |",
				"(0 of 60000 late): Nodes beyond the deadline | met |",
				"| 100 watchers, 20 node changes/s, cluster updating, from content: nodeprogressinsights (through the kube-apiserver) p99 at most 1.5x the Nodes p99 | Nodes p50 30.0 ms, p99 100 ms (0 of 60000 deliveries late); nodeprogressinsights p50 30.0 ms, p99 200 ms (0 of 60000 late): 2.00x | **missed** |",
				"| measured |",
			},
		},
		{
			name: "missed: 100 watchers above 1.5x, 1,000 watchers beyond the deadline, the burst 20% above before",
			edit: func(s *sizeResult) {
				s.NodeWatch.Cells[1].Lag.P99 = 160 * time.Millisecond
				s.NodeWatch.Cells[3].Lag.P99 = undelivered
			},
			baseline: &nodeWatchCell{Rate: 50, Changes: 1500, Window: 35 * time.Second, ServerCPU: 3.5 + 1.25, ServerIdle: 0.1},
			want: []string{
				"p99 160 ms (0 of 60000 late): 1.60x | **missed** |",
				"p99 > 5s (0 of 60000 late): both beyond the deadline | **missed** |",
				"| server CPU per change under a 50/s burst at most 10% above before | 1.00 ms vs 0.83 ms CPU-s per change: 1.20x | **missed** |",
			},
		},
		{
			name:     "the burst compared mean to mean over the rounds, each round in brackets",
			baseline: &nodeWatchCell{Rate: 50, Changes: 1500, Window: 35 * time.Second, ServerCPU: 3.5 + 1.25, ServerIdle: 0.1},
			rounds: func() (before, after []*nodeWatchCell) {
				return []*nodeWatchCell{{Rate: 50, Changes: 1500, Window: 35 * time.Second, ServerCPU: 3.5 + 1.35, ServerIdle: 0.1}},
					[]*nodeWatchCell{{Rate: 50, Changes: 1500, Window: 35 * time.Second, ServerCPU: 3.5 + 1.2, ServerIdle: 0.1}}
			},
			want: []string{
				"(0 of 60000 late): 1.20x | met |",
				"(0 of 60000 late): Nodes beyond the deadline | met |",
				"| server CPU per change under a 50/s burst at most 10% above before | 0.90 ms (1.00 ms, 0.80 ms) vs 0.87 ms (0.83 ms, 0.90 ms) CPU-s per change: 1.04x | met |",
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := nodeWatchSize()
			if tt.edit != nil {
				tt.edit(s)
			}
			r := &report{sizes: []*sizeResult{s}}
			if tt.baseline != nil {
				r.baseline = []*sizeResult{{Nodes: 5000, NodeWatch: &nodeWatchResult{Burst: tt.baseline}}}
			}
			if tt.rounds != nil {
				before, after := tt.rounds()
				for _, b := range before {
					r.baseline = append(r.baseline, &sizeResult{Nodes: 5000, NodeWatch: &nodeWatchResult{Burst: b}})
				}
				for _, a := range after {
					r.repeats = append(r.repeats, &sizeResult{Nodes: 5000, NodeWatch: &nodeWatchResult{Burst: a}})
				}
			}
			got := render(func(p func(string, ...any)) { r.nodeWatchGoals(p, s) })
			rows := strings.Split(strings.TrimSpace(got), "\n")
			var bad []string
			for i, w := range tt.want {
				if i >= len(rows) || !strings.HasSuffix(rows[i], w) {
					bad = append(bad, w)
				}
			}
			if len(bad) > 0 || len(rows) != len(tt.want) {
				t.Errorf("goal rows:\n%s\nwant %d rows; these do not end a row where they should:\n%s", got, len(tt.want), strings.Join(bad, "\n"))
			}
		})
	}
	if got := render(func(p func(string, ...any)) { (&report{}).nodeWatchGoals(p, &sizeResult{Nodes: 5000}) }); got != "" {
		t.Errorf("goals without the cell = %q, want none", got)
	}
}

// render returns what write writes.
func render(write func(p func(string, ...any))) string {
	var b strings.Builder
	write(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) })
	return b.String()
}

func TestNodeWatchTables(t *testing.T) {
	s := nodeWatchSize()
	withLiveCells(s)
	s.NodeWatch.Spec.Live = true
	r := &report{config: config{nodeWatch: s.NodeWatch.Spec}, sizes: []*sizeResult{s}}
	got := render(r.nodeWatchTables)
	var lacks []string
	for _, want := range []string{
		"## 10. Nodes and nodeprogressinsights watched side by side",
		"at 20 changes/s for 30s",
		"| 5000 | 100 | Nodes (straight) | 20 | 600 (0) | 40.0 ms | 100 ms | 100 ms | 0 of 60000 | 0 | 0 | 1.3 KiB | 1.00 ms (0.100) | 10.50 ms (0.200) | 400 |",
		"| 5000 | 1000 | Nodes (straight) | 20 | 600 (0) | 2000 ms | > 5s | > 5s | 9000 of 60000 |",
		"| 5000 | 100 | nodeprogressinsights (aggregated), burst | 50 | 1500 (0) | 50.0 ms | 150 ms |",
		"| 5000 | 100 | quiet | 40.0 ms / 100 ms | 60.0 ms / 120 ms | 1.20x | not measured | none recorded |  |",
		"| 5000 | 1000 | quiet | 2000 ms / > 5s | 200 ms / 600 ms | Nodes beyond the deadline | not measured | none recorded |  |",
		"| 5000 | 100 | updating | 30.0 ms / 100 ms | 30.0 ms / 200 ms | 2.00x | 30.0 ms / 90.0 ms | none recorded | 120 simulator requests, 1 updates started, 30 contribution writes |",
		"| 5000 | 100 | nodeprogressinsights (straight), cluster updating | 20 | 600 (0) | 30.0 ms | 90.0 ms |",
		"| 5000 | 100 | nodeprogressinsights (aggregated), cluster updating | 20 | 600 (0) | 30.0 ms | 200 ms |",
		"with the cluster *updating*",
		"| 1000 watchers, 20 node changes/s, from content",
	} {
		if !strings.Contains(got, want) {
			lacks = append(lacks, want)
		}
	}
	if len(lacks) > 0 {
		t.Errorf("section 10 lacks\n%s\nin:\n%s", strings.Join(lacks, "\n"), got)
	}
	if got := render((&report{sizes: []*sizeResult{{Nodes: 5000}}}).nodeWatchTables); got != "" {
		t.Errorf("section 10 without a cell = %q, want nothing", got)
	}
}

func TestEachLine(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"lines", "a\nbb\n", []string{"a\n", "bb\n"}},
		{"a line longer than the buffer", strings.Repeat("x", 40) + "\ny\n", []string{strings.Repeat("x", 40) + "\n", "y\n"}},
		{"a cut line is dropped", "a\nb", []string{"a\n"}},
		{"nothing", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			eachLine(bufio.NewReaderSize(strings.NewReader(tt.in), 16), func(line []byte) { got = append(got, string(line)) })
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
		})
	}
}
