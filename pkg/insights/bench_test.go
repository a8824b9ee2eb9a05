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

package insights_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/update-status/apiserver/internal/cputime"
	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// countNodes counts the node insights of a status, a sanity check that a
// broken engine cannot look fast. It counts the first informer of each
// worker pool, which is cheap.
func countNodes(st *v1alpha1.UpdateStatusStatus) int {
	n := 0
	for _, p := range st.WorkerPools {
		if len(p.Informers) > 0 {
			n += len(p.Informers[0].Insights)
		}
	}
	return n
}

// BenchmarkCompute is a full computation (a fresh Engine) of synthetic
// clusters: three control-plane nodes, the rest spread over the "worker"
// pool and three custom pools.
func BenchmarkCompute(b *testing.B) {
	for _, nodes := range []int{100, 1000, 5000, 10000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			src, now := viewtest.Cluster(nodes-3, 4, 1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res := insights.NewEngine().Compute(src, now)
				if countNodes(&res.Status) == 0 {
					b.Fatal("no node insights")
				}
			}
		})
	}
}

// BenchmarkRecomputeOneNodeChanged is the live server's common case: one
// Node of a 5,000-node cluster changed (a new resourceVersion), everything
// else is as before. Compare with BenchmarkCompute/nodes=5000. The metric
// full/recompute makes that comparison within the run, in process CPU time
// (garbage collection included): the CPU time of a full computation (mean
// of five, each on a fresh Engine) over that of one recomputation.
func BenchmarkRecomputeOneNodeChanged(b *testing.B) {
	src, now := viewtest.Cluster(4997, 4, 1)
	const fulls = 5
	startFull := cputime.Now()
	for i := 0; i < fulls; i++ {
		insights.NewEngine().Compute(src, now)
	}
	full := (cputime.Now() - startFull) / fulls
	e := insights.NewEngine()
	e.Compute(src, now)
	originals := make([]int, 0, 64)
	for i := 3; i < len(src.Nodes) && len(originals) < 64; i += 71 {
		originals = append(originals, i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	startCPU := cputime.Now()
	for i := 0; i < b.N; i++ {
		k := originals[i%len(originals)]
		src.Nodes[k] = viewtest.Changed(src.Nodes[k], 200000+i)
		res := e.Compute(src, now)
		if countNodes(&res.Status) == 0 {
			b.Fatal("no node insights")
		}
	}
	recompute := (cputime.Now() - startCPU) / time.Duration(b.N)
	b.StopTimer()
	if recompute > 0 {
		b.ReportMetric(float64(full)/float64(recompute), "full/recompute")
	}
	b.ReportMetric(float64(full.Microseconds()), "full-cpu-us")
	b.ReportMetric(float64(recompute.Microseconds()), "recompute-cpu-us")
}
