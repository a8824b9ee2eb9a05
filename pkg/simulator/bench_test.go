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

package simulator

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// BenchmarkCreate measures building and writing a cluster: with a sink
// that drops everything (the simulator's own cost) and with fake clientsets
// (the API sink's request path without a server). Against a real
// kube-apiserver use `update-simulator --create-only --kubeconfig K`.
func BenchmarkCreate(b *testing.B) {
	for _, bc := range []struct {
		sink  string
		nodes int
	}{
		{"discard", 1000}, {"discard", 10000}, {"fake-api", 1000},
	} {
		b.Run(fmt.Sprintf("sink=%s/nodes=%d", bc.sink, bc.nodes), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				o := Options{Nodes: bc.nodes, Seed: 1, Sink: discardSink{}}
				var api *fakeAPI
				if bc.sink == "fake-api" {
					api = newFakeAPI()
					o.Sink = api.sink
				}
				s, _, _ := newTestSimulator(&testing.T{}, o)
				b.StartTimer()
				if err := s.Create(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if got := len(s.NodeNames("")); got != bc.nodes {
					b.Fatalf("created %d nodes, want %d", got, bc.nodes)
				}
				if api != nil {
					b.ReportMetric(float64(api.sink.Requests())/float64(bc.nodes), "requests/node")
				}
			}
		})
	}
}

// BenchmarkUpdate measures a whole update of a large cluster (10% of the
// workers at a time) with a sink that drops everything.
func BenchmarkUpdate(b *testing.B) {
	pct := intstr.FromString("10%")
	for _, nodes := range []int{1000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				steps := 0
				s, fc, _ := newTestSimulator(&testing.T{}, Options{Nodes: nodes, Seed: 1, Sink: discardSink{},
					WorkerPools: []PoolOptions{{Name: "worker", MaxUnavailable: &pct}}, OnProgress: func(Progress) { steps++ }})
				if err := s.RunVirtual(context.Background(), fc, 0); err != nil {
					b.Fatal(err)
				}
				if s.Phase() != PhaseCompleted {
					b.Fatalf("phase %s", s.Phase())
				}
				b.ReportMetric(float64(steps), "steps")
			}
		})
	}
}
