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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/update-status/apiserver/internal/fixtures"
)

// recommendScenario copies one oc-recommend scenario's inputs into a
// directory of their own.
func recommendScenario(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, suffix := range []string{"-cv.yaml", "-alerts.json"} {
		data, err := os.ReadFile(filepath.Join(fixtures.RecommendDir(t), name+suffix))
		if os.IsNotExist(err) && suffix != "-cv.yaml" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+suffix), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRecommendFixtures renders every oc-recommend fixture in its three
// variants from the objects computed from its dumps: oc's text byte for byte,
// and, where oc fails, its error after a blank line (as oc's own test joins
// them) and a non-zero exit status.
func TestRecommendFixtures(t *testing.T) {
	cvs, err := filepath.Glob(filepath.Join(fixtures.RecommendDir(t), "*-cv.yaml"))
	if err != nil || len(cvs) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, cv := range cvs {
		name := strings.TrimSuffix(filepath.Base(cv), "-cv.yaml")
		versioned, err := filepath.Glob(filepath.Join(fixtures.RecommendDir(t), name+".version-*-output"))
		if err != nil || len(versioned) != 1 {
			t.Fatalf("%s: want one .version-V-output, got %v (%v)", name, versioned, err)
		}
		version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(versioned[0]), name+".version-"), "-output")
		dir := recommendScenario(t, name)
		for _, v := range []struct {
			file string
			args []string
		}{
			{name + ".output", nil},
			{name + ".show-outdated-releases-output", []string{"--show-outdated-releases"}},
			{filepath.Base(versioned[0]), []string{"--version", version}},
		} {
			t.Run(v.file, func(t *testing.T) {
				want, err := os.ReadFile(filepath.Join(fixtures.RecommendDir(t), v.file))
				if err != nil {
					t.Fatal(err)
				}
				out, errOut, code := run(t, Deps{}, append([]string{"recommend", "--from-dir", dir}, v.args...)...)
				got := out
				wantFail := strings.Contains(string(want), "\nerror: ")
				if code != 0 {
					i := strings.LastIndex(errOut, "error: ")
					if i < 0 {
						t.Fatalf("exit %d without an error line: %q", code, errOut)
					}
					got += "\n" + errOut[i:]
				}
				if wantFail != (code != 0) {
					t.Errorf("exit status %d, want failure %v (stderr %q)", code, wantFail, errOut)
				}
				if diff := cmp.Diff(string(want), got); diff != "" {
					t.Errorf("%s differs (-want +got):\n%s", v.file, diff)
				}
			})
		}
	}
}
