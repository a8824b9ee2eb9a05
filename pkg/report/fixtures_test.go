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

package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/update-status/apiserver/internal/fixtures"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sourcefiles"
)

// computeScenario loads a scenario, computes its UpdateStatus at the
// fixture clock, checks it with the API validator and returns it after a
// JSON round trip, so that the report sees only what the API carries.
func computeScenario(t *testing.T, dir, name string) (*v1alpha1.UpdateStatus, insights.Result, *insights.Sources) {
	t.Helper()
	src, err := sourcefiles.LoadScenario(dir, name)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	now := sourcefiles.MockNow(src)
	res := insights.Compute(src, now)
	obj, err := res.Object()
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var back v1alpha1.UpdateStatus
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	again, err := json.Marshal(&back)
	if err != nil || !bytes.Equal(data, again) {
		t.Fatalf("the object does not survive a JSON round trip unchanged (err %v)", err)
	}
	return &back, res, src
}

// TestFixtures renders every oc fixture from the computed object alone and
// compares it with oc's output, byte for byte.
func TestFixtures(t *testing.T) {
	dir := fixtures.Dir(t)
	for _, name := range fixtures.Scenarios(t) {
		t.Run(name, func(t *testing.T) {
			obj, _, src := computeScenario(t, dir, name)
			now := sourcefiles.MockNow(src)
			for _, tc := range []struct {
				suffix  string
				details Details
			}{{".output", DetailsNone}, {".detailed-output", DetailsAll}} {
				want, err := os.ReadFile(filepath.Join(dir, name+tc.suffix))
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := RenderInPoolOrder(&got, obj, now, tc.details, sourcefiles.PoolOrder(src)); err != nil {
					t.Fatalf("render: %v", err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("%s%s differs (-want +got):\n%s", name, tc.suffix, unifiedDiff(string(want), got.String()))
				}
			}
		})
	}
}

// unifiedDiff returns a line diff of a and b with three lines of context.
func unifiedDiff(a, b string) string {
	x, y := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	// Longest common subsequence table.
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			lines = append(lines, line{' ', x[i]})
			i++
			j++
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			lines = append(lines, line{'+', y[j]})
			j++
		default:
			lines = append(lines, line{'-', x[i]})
			i++
		}
	}
	var out strings.Builder
	for k, l := range lines {
		near := false
		for d := -3; d <= 3; d++ {
			if k+d >= 0 && k+d < len(lines) && lines[k+d].op != ' ' {
				near = true
			}
		}
		if !near {
			continue
		}
		text := strings.TrimSuffix(l.text, "\n")
		if !strings.HasSuffix(l.text, "\n") {
			text += "\\ (no newline)"
		}
		out.WriteByte(l.op)
		out.WriteString(text)
		out.WriteByte('\n')
	}
	return out.String()
}
