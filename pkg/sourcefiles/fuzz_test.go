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

package sourcefiles

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/update-status/apiserver/internal/fixtures"
	"github.com/update-status/apiserver/pkg/insights"
)

// FuzzLoadBytes feeds arbitrary file contents to the loader and, when they
// load, the loaded sources to the engine: nothing may panic, and whatever the
// engine makes of the sources must be a valid UpdateStatus.
func FuzzLoadBytes(f *testing.F) {
	f.Add([]byte(cvYAML))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}]}`))
	f.Add([]byte("kind: ClusterOperatorList\nitems:\n- metadata: {name: etcd}\n"))
	f.Add([]byte(`{"data":{"alerts":[{"labels":{"alertname":"A"},"state":"firing"}]}}`))
	// Seed with the smaller fixture files so mutations start from real objects.
	seeds, err := filepath.Glob(filepath.Join(fixtures.Dir(f), "4.15.0-ec2-early-*.yaml"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed fixtures 4.15.0-ec2-early-*.yaml (err %v)", err)
	}
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) < 64<<10 {
			f.Add(data)
		}
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := LoadBytes(data)
		if err != nil {
			return // a clear error is an acceptable answer to bad input
		}
		if src == nil {
			t.Fatal("LoadBytes returned neither sources nor an error")
		}
		res := insights.Compute(src, MockNow(src))
		if _, err := res.Object(); err != nil {
			t.Fatal(err)
		}
	})
}
