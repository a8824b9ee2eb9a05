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
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/insights"
)

// TestEarlierResultsUnchanged checks the promise of Result: the engine never
// modifies what it returned, though later results share it. The server
// publishes results without copying them, so this is what keeps a served
// revision from changing under its readers.
func TestEarlierResultsUnchanged(t *testing.T) {
	src, now := viewtest.Cluster(297, 3, 3)
	e := insights.NewEngine()
	first := e.Compute(src, now)
	encode := func(r *insights.Result) []byte {
		b, err := json.Marshal(struct {
			Status   any
			Insights any
		}{r.Status, r.Insights})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before := encode(&first)
	for i := 0; i < 200; i++ {
		k := (i * 37) % len(src.Nodes)
		nodes := append(src.Nodes[:0:0], src.Nodes...)
		nodes[k] = viewtest.Changed(nodes[k], 500000+i)
		next := *src
		next.Nodes = nodes
		src = &next
		e.Compute(src, now.Add(time.Duration(i)*time.Minute))
	}
	if after := encode(&first); !bytes.Equal(before, after) {
		t.Fatal("a later computation modified an earlier result")
	}
}
