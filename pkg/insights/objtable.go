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
	"unsafe"
)

// objectTable maps Node objects, by pointer, to their memory: an
// open-addressing hash table with linear probing. It changes only when an
// object changes, so a recomputation reads it once per node and writes
// nothing, which is cheaper than a Go map lookup and keeps the garbage
// collector's write barriers out of the hot loop. At 5,000 nodes a Go map
// in its place makes the recomputation after one node changed take 23%
// more CPU (docs/api-decisions.md, "Incremental evaluation";
// BenchmarkObjectLookups). The hash is the object's address, which only
// unsafe gives: hashing the pointer with hash/maphash.Comparable instead
// made the lookups of one computation 5.4x slower (40 µs against 7.4 µs,
// slower than the Go map's 35 µs), so this is the one hot path that imports
// unsafe (docs/benchmarks.md, section 8).
type objectTable struct {
	keys []*Node
	vals []*nodeEntry
	n    int
}

func (t *objectTable) slot(n *Node) int {
	h := uint64(uintptr(unsafe.Pointer(n))) * 0x9E3779B97F4A7C15
	return int(h>>32) & (len(t.keys) - 1)
}

// get returns the entry stored for n, or nil.
func (t *objectTable) get(n *Node) *nodeEntry {
	if len(t.keys) == 0 {
		return nil
	}
	mask := len(t.keys) - 1
	for i := t.slot(n); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case n:
			return t.vals[i]
		case nil:
			return nil
		}
	}
}

// put stores ent for n.
func (t *objectTable) put(n *Node, ent *nodeEntry) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	mask := len(t.keys) - 1
	for i := t.slot(n); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case n:
			t.vals[i] = ent
			return
		case nil:
			t.keys[i], t.vals[i] = n, ent
			t.n++
			return
		}
	}
}

// del removes n, shifting later entries of its probe run back so that no
// lookup stops early.
func (t *objectTable) del(n *Node) {
	if len(t.keys) == 0 {
		return
	}
	mask := len(t.keys) - 1
	i := t.slot(n)
	for t.keys[i] != n {
		if t.keys[i] == nil {
			return
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; t.keys[j] != nil; j = (j + 1) & mask {
		// Move the entry at j into the hole at i unless its home slot lies
		// cyclically in (i, j].
		if home := t.slot(t.keys[j]); (j-home)&mask >= (j-i)&mask {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i], t.vals[i] = nil, nil
	t.n--
}

func (t *objectTable) grow() {
	keys, vals := t.keys, t.vals
	size := max(16, 2*len(keys))
	t.keys, t.vals, t.n = make([]*Node, size), make([]*nodeEntry, size), 0
	for i, k := range keys {
		if k != nil {
			t.put(k, vals[i])
		}
	}
}
