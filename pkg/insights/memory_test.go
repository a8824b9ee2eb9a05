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
	"runtime"
	"testing"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/insights"
)

// BenchmarkEngineMemory reports the heap an Engine retains per node after
// computing a synthetic 5,000-node cluster: its memory (node entries, facts,
// insights, the object table, pool state) and the Result it shares with that
// memory, but not the source objects, which exist before the Engine does.
func BenchmarkEngineMemory(b *testing.B) {
	const nodes = 5000
	src, now := viewtest.Cluster(nodes-3, 4, 1)
	b.ReportAllocs()
	var perNode float64
	for i := 0; i < b.N; i++ {
		before := testio.LiveHeap()
		e := insights.NewEngine()
		res := e.Compute(src, now)
		if countNodes(&res.Status) == 0 {
			b.Fatal("no node insights")
		}
		after := testio.LiveHeap()
		perNode = float64(int64(after)-int64(before)) / nodes
		runtime.KeepAlive(e)
		runtime.KeepAlive(&res)
	}
	runtime.KeepAlive(src)
	b.ReportMetric(perNode, "B/node")
}
