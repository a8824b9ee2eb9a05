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

package insights

import (
	"math/rand"
	"testing"
)

// TestObjectTable checks the table against a Go map over random operations.
func TestObjectTable(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	objects := make([]*Node, 300)
	for i := range objects {
		objects[i] = &Node{}
	}
	var table objectTable
	want := map[*Node]*nodeEntry{}
	for step := 0; step < 20000; step++ {
		n := objects[rng.Intn(len(objects))]
		switch rng.Intn(3) {
		case 0, 1:
			ent := &nodeEntry{}
			table.put(n, ent)
			want[n] = ent
		default:
			table.del(n)
			delete(want, n)
		}
		if table.n != len(want) {
			t.Fatalf("step %d: %d entries, want %d", step, table.n, len(want))
		}
		if step%97 == 0 {
			for _, o := range objects {
				if got := table.get(o); got != want[o] {
					t.Fatalf("step %d: get returned %p, want %p", step, got, want[o])
				}
			}
		}
	}
}

// BenchmarkObjectLookups compares, at 5,000 nodes, what each computation
// asks of the Engine's object table (one lookup per node, every node seen
// before) with a Go map keyed by the same pointers. One op is the lookups
// of one computation.
//
//	go test -run '^$' -bench BenchmarkObjectLookups -count 6 ./pkg/insights/
func BenchmarkObjectLookups(b *testing.B) {
	const nodes = 5000
	objects := make([]*Node, nodes)
	var table objectTable
	m := map[*Node]*nodeEntry{}
	for i := range objects {
		objects[i] = &Node{}
		ent := &nodeEntry{}
		table.put(objects[i], ent)
		m[objects[i]] = ent
	}
	b.Run("nodes=5000/impl=table", func(b *testing.B) {
		for b.Loop() {
			for _, n := range objects {
				if table.get(n) == nil {
					b.Fatal("missing")
				}
			}
		}
	})
	b.Run("nodes=5000/impl=map", func(b *testing.B) {
		for b.Loop() {
			for _, n := range objects {
				if m[n] == nil {
					b.Fatal("missing")
				}
			}
		}
	})
}
