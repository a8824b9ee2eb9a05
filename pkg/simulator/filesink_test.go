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
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"sigs.k8s.io/yaml"

	"github.com/update-status/apiserver/internal/fixtures"
	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sourcefiles"
)

// runToFiles runs a whole update into a FileSink and returns the directory.
func runToFiles(t *testing.T, o Options, asJSON bool) (string, *Simulator) {
	t.Helper()
	dir := t.TempDir()
	sink, err := NewFileSink(dir)
	if err != nil {
		t.Fatal(err)
	}
	sink.JSON = asJSON
	o.Sink = sink
	s, fc, _ := newTestSimulator(t, o)
	if err := s.RunVirtual(context.Background(), fc, 0); err != nil {
		t.Fatalf("RunVirtual: %v", err)
	}
	return dir, s
}

// stepDirs lists the step directories in order.
func stepDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

func TestFileSinkWritesEveryState(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		t.Run(map[bool]string{false: "yaml", true: "json"}[asJSON], func(t *testing.T) {
			testFileSinkWritesEveryState(t, asJSON)
		})
	}
}

func testFileSinkWritesEveryState(t *testing.T, asJSON bool) {
	var steps int
	const nodes = 3
	dir, s := runToFiles(t, Options{Nodes: nodes, Seed: 2, OnProgress: func(Progress) { steps++ }}, asJSON)
	dirs := stepDirs(t, dir)
	cache := decodeCache{}
	if len(dirs) != steps || steps < 20 {
		t.Fatalf("%d step directories for %d steps", len(dirs), steps)
	}
	o := s.Options()
	var prev time.Time
	phases := map[Phase]bool{}
	for i, d := range dirs {
		if want := filepath.Join(dir, strings.Repeat("0", 4-len(itoa(i)))+itoa(i)); d != want {
			t.Fatalf("step directory %s, want %s", d, want)
		}
		for _, name := range []string{"cv.yaml", "co.yaml", "mcp.yaml", "mc.yaml", "node.yaml", "mco-deployment.yaml", "step.txt"} {
			if _, err := os.Stat(filepath.Join(d, name)); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
		if i == 0 || i == len(dirs)-1 {
			checkListFile(t, filepath.Join(d, "node.yaml"), nodes)
		}
		st := readState(t, cache, d)
		if st.ClusterVersion == nil || st.MCODeployment == nil || len(st.ClusterOperators) != len(ocp.Operators) || len(st.MachineConfigPools) != 2 || len(st.Nodes) != nodes {
			t.Fatalf("step %d: incomplete state", i)
		}
		if i > 1 && !st.Time.After(prev) || i == 1 && st.Time.Before(prev) {
			t.Errorf("step %d at %s, not after the previous step %s", i, st.Time, prev)
		}
		prev = st.Time
		phases[st.Phase] = true
		for _, n := range st.Nodes {
			if n.ResourceVersion == "" || n.Kind != "Node" {
				t.Fatalf("step %d: node %s has kind %q and resourceVersion %q", i, n.Name, n.Kind, n.ResourceVersion)
			}
		}
	}
	last, err := ReadStateDir(dirs[len(dirs)-1])
	if err != nil {
		t.Fatal(err)
	}
	if last.Phase != PhaseCompleted || last.ClusterVersion.Status.History[0].Version != o.ToVersion || last.ClusterVersion.Status.History[0].State != configv1.CompletedUpdate {
		t.Errorf("last state: phase %s, history %+v", last.Phase, last.ClusterVersion.Status.History[0])
	}
	if !phases[PhaseIdle] || !phases[PhaseNodes] || !phases[PhaseCompleted] {
		t.Errorf("phases written: %v", phases)
	}
	versions := last.MachineConfigVersions()
	for _, n := range last.Nodes {
		if versions[n.Annotations[insights.CurrentConfigAnnotation]] != o.ToVersion {
			t.Errorf("node %s runs %s in the last state", n.Name, n.Annotations[insights.CurrentConfigAnnotation])
		}
	}
}

// checkListFile checks that a file is a v1 List of n items.
func checkListFile(t *testing.T, path string, n int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		APIVersion string        `json:"apiVersion"`
		Kind       string        `json:"kind"`
		Items      []interface{} `json:"items"`
	}
	if err := yaml.Unmarshal(raw, &head); err != nil || head.APIVersion != "v1" || head.Kind != "List" || len(head.Items) != n {
		t.Fatalf("%s: %s %s with %d items (err %v), want a v1 List of %d", path, head.APIVersion, head.Kind, len(head.Items), err, n)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestLooksLikeTheFixtures compares the simulated objects with a real cluster
// snapshot: every machine-config annotation, label role and ClusterOperator
// annotation key that the real objects carry, the simulated ones carry too.
func TestLooksLikeTheFixtures(t *testing.T) {
	const scenario = "4.14.1-workers-started-updating-multiple-pools"
	real := t.TempDir()
	for short, suffix := range map[string]string{"cv.yaml": "-cv.yaml", "co.yaml": "-co.yaml", "mcp.yaml": "-mcp.yaml", "mc.yaml": "-mc.yaml", "node.yaml": "-node.yaml"} {
		raw := fixtures.Read(t, scenario+suffix)
		if err := os.WriteFile(filepath.Join(real, short), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := ReadStateDir(real)
	if err != nil {
		t.Fatalf("read the fixture through ReadStateDir: %v", err)
	}
	if len(want.Nodes) != 7 || len(want.ClusterOperators) != 33 || len(want.MachineConfigPools) != 3 {
		t.Fatalf("fixture read as %d nodes, %d operators, %d pools", len(want.Nodes), len(want.ClusterOperators), len(want.MachineConfigPools))
	}

	s, fc, _ := startedSimulator(t, Options{Nodes: 9, Seed: 1, WorkerPools: []PoolOptions{{Name: "worker"}, {Name: "infra", Nodes: 2}}})
	got := stepUntil(t, s, fc, nil, func(st *State) bool { return st.Phase == PhaseNodes })

	keys := func(m map[string]string, prefix string) map[string]bool {
		out := map[string]bool{}
		for k := range m {
			if strings.HasPrefix(k, prefix) {
				out[k] = true
			}
		}
		return out
	}
	subset := func(what string, real, sim map[string]bool) {
		for k := range real {
			if !sim[k] {
				t.Errorf("%s: the real objects have %s, the simulated ones do not", what, k)
			}
		}
	}
	simNode := keys(got.Nodes[len(got.Nodes)-1].Annotations, "machineconfiguration.openshift.io/")
	for _, n := range want.Nodes {
		subset("node annotations", keys(n.Annotations, "machineconfiguration.openshift.io/"), simNode)
	}
	simCO := map[string]bool{}
	for _, co := range got.ClusterOperators {
		for k := range keys(co.Annotations, "") {
			simCO[k] = true
		}
	}
	for _, co := range want.ClusterOperators {
		subset("operator annotations", keys(co.Annotations, "include.release.openshift.io/"), simCO)
		subset("operator annotations", keys(co.Annotations, "exclude.release.openshift.io/"), simCO)
		if operator(got, co.Name) == nil && co.Name != "cluster-api" {
			t.Errorf("the real cluster has operator %s, the simulated one does not", co.Name)
		}
	}
	for _, p := range want.MachineConfigPools {
		var sim = got.MachineConfigPools[0]
		for _, q := range got.MachineConfigPools {
			if q.Name == p.Name {
				sim = q
			}
		}
		real := keys(p.Labels, "")
		if p.Name != "master" && p.Name != "worker" {
			// The fixture's infra pool is a copy of the worker pool; a real
			// custom pool is not built in.
			delete(real, "machineconfiguration.openshift.io/mco-built-in")
		}
		subset("pool "+p.Name+" labels", real, keys(sim.Labels, ""))
	}
	simMC := map[string]bool{}
	for _, mc := range got.MachineConfigs {
		if strings.HasPrefix(mc.Name, "rendered-") {
			simMC = keys(mc.Annotations, "")
		}
	}
	for _, mc := range want.MachineConfigs {
		if strings.HasPrefix(mc.Name, "rendered-") {
			subset("rendered MachineConfig annotations", keys(mc.Annotations, ""), simMC)
		}
	}
	realCV := map[string]bool{}
	for _, c := range want.ClusterVersion.Status.Conditions {
		realCV[string(c.Type)] = true
	}
	simCV := map[string]bool{}
	for _, c := range got.ClusterVersion.Status.Conditions {
		simCV[string(c.Type)] = true
	}
	subset("ClusterVersion conditions", realCV, simCV)
}

// TestComputeFromDirReadsTheFiles checks that `update-status compute
// --from-dir DIR/<step>` (package sourcefiles) reads the files as the
// simulator wrote them, in both formats.
func TestComputeFromDirReadsTheFiles(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		dir, _ := runToFiles(t, Options{Nodes: 4, Seed: 5, Speed: 60}, asJSON)
		dirs := stepDirs(t, dir)
		for _, d := range []string{dirs[0], dirs[len(dirs)/2], dirs[len(dirs)-1]} {
			want, err := ReadStateDir(d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sourcefiles.Load(d)
			if err != nil {
				t.Fatalf("sourcefiles.Load(%s): %v", d, err)
			}
			if got.ClusterVersion == nil || got.ClusterVersion.Status.History[0].Version != want.ClusterVersion.Status.History[0].Version ||
				len(got.ClusterOperators) != len(want.ClusterOperators) || len(got.MachineConfigPools) != len(want.MachineConfigPools) ||
				len(got.Nodes) != len(want.Nodes) || got.MCODeployment == nil ||
				!reflect.DeepEqual(got.MachineConfigVersions, want.MachineConfigVersions()) {
				t.Errorf("json=%v %s: sourcefiles read %d operators, %d pools, %d nodes, versions %v; the simulator wrote %d, %d, %d, %v",
					asJSON, filepath.Base(d), len(got.ClusterOperators), len(got.MachineConfigPools), len(got.Nodes), got.MachineConfigVersions,
					len(want.ClusterOperators), len(want.MachineConfigPools), len(want.Nodes), want.MachineConfigVersions())
			}
		}
	}
}
