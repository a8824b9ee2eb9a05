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

package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
)

func TestKubectlAPIResources(t *testing.T) {
	res := cp.Kubectl(t.Context(), localstack.AdminUser, "api-resources", "--api-group=update.openshift.io", "-o", "wide")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	rows := parseTable(res.Stdout)
	var row map[string]string
	for _, r := range rows {
		if r["NAME"] == "updatestatuses" {
			row = r
		}
	}
	if row == nil {
		t.Fatalf("api-resources does not list updatestatuses:\n%s", res.Stdout)
	}
	want := map[string]string{
		"APIVERSION": "update.openshift.io/v1alpha1",
		"NAMESPACED": "false",
		"KIND":       "UpdateStatus",
		"VERBS":      "get,list,watch",
	}
	for col, v := range want {
		// Some kubectl versions print verbs as [get list watch].
		got := row[col]
		if col == "VERBS" {
			got = strings.Join(strings.Fields(strings.Trim(got, "[]")), ",")
		}
		if got != v {
			t.Errorf("updatestatuses %s = %q, want %q\n%s", col, row[col], v, res.Stdout)
		}
	}
}

// parseTable splits kubectl's column-aligned output into rows keyed by the
// header; each column starts where its header word starts.
func parseTable(out string) []map[string]string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 {
		return nil
	}
	header := lines[0]
	var names []string
	var starts []int
	for i := 0; i < len(header); {
		if header[i] == ' ' {
			i++
			continue
		}
		end := strings.IndexByte(header[i:], ' ')
		if end < 0 {
			end = len(header) - i
		}
		names, starts = append(names, header[i:i+end]), append(starts, i)
		i += end
	}
	var rows []map[string]string
	for _, line := range lines[1:] {
		row := map[string]string{}
		for c, name := range names {
			from, to := starts[c], len(line)
			if c+1 < len(starts) {
				to = min(starts[c+1], len(line))
			}
			if from < len(line) {
				row[name] = strings.TrimSpace(line[from:to])
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func TestKubectlGetTable(t *testing.T) {
	for _, args := range [][]string{
		{"get", "updatestatus"},
		{"get", "updatestatuses", "cluster"},
		{"get", "updatestatus.update.openshift.io", "-o", "wide"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			res := cp.Kubectl(t.Context(), localstack.AdminUser, args...)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
			if len(lines) != 2 {
				t.Fatalf("want a header and one row, got:\n%s", res.Stdout)
			}
			header := strings.Fields(lines[0])
			if header[0] != "NAME" {
				t.Errorf("header %q does not start with NAME", lines[0])
			}
			// kubectl's fallback for a server without a table is NAME and
			// CREATED AT; the server's own columns say more.
			if len(header) < 3 || strings.Join(header, " ") == "NAME CREATED AT" {
				t.Errorf("header %q is not the server's table", lines[0])
			}
			if f := strings.Fields(lines[1]); len(f) == 0 || f[0] != statusName {
				t.Errorf("row %q is not the %q object", lines[1], statusName)
			}
		})
	}
}

func TestKubectlGetYAMLIsValid(t *testing.T) {
	ensureUpdating(t)
	res := cp.Kubectl(t.Context(), localstack.AdminUser, "get", "updatestatus", statusName, "-o", "yaml")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var us v1alpha1.UpdateStatus
	if err := yaml.UnmarshalStrict([]byte(res.Stdout), &us); err != nil {
		t.Fatalf("the YAML does not decode strictly into UpdateStatus: %v\n%s", err, res.Stdout)
	}
	if us.APIVersion != "update.openshift.io/v1alpha1" || us.Kind != "UpdateStatus" || us.Name != statusName {
		t.Errorf("got %s %s %q, want update.openshift.io/v1alpha1 UpdateStatus %q", us.APIVersion, us.Kind, us.Name, statusName)
	}
	if errs := validation.ValidateUpdateStatus(&us); len(errs) > 0 {
		t.Errorf("the served object is invalid: %v\n%s", errs.ToAggregate(), res.Stdout)
	}
	if cvInsight(&us) == nil {
		t.Errorf("the served object has no ClusterVersion insight although the simulated cluster is updating:\n%s", res.Stdout)
	}
}

func TestKubectlExplain(t *testing.T) {
	tests := []struct {
		field string
		want  []string
	}{
		{"updatestatus.status.controlPlane", []string{"KIND:", "UpdateStatus", "FIELD:", "controlPlane", "informers", "conditions"}},
		{"clusterversionprogressinsights.status", []string{"ClusterVersionProgressInsight", "insightUID", "completion"}},
		{"clusteroperatorprogressinsights.status", []string{"ClusterOperatorProgressInsight", "insightUID", "conditions"}},
		{"machineconfigpoolprogressinsights.status", []string{"MachineConfigPoolProgressInsight", "insightUID", "summaries"}},
		{"nodeprogressinsights.status", []string{"NodeProgressInsight", "insightUID", "poolResource"}},
		{"healthinsights.status", []string{"HealthInsight", "insightUID", "impact"}},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			// The kube-apiserver adds an aggregated group to its OpenAPI v3
			// a little after the APIService is available.
			var res localstack.KubectlResult
			_ = wait.PollUntilContextTimeout(t.Context(), time.Second, 90*time.Second, true, func(context.Context) (bool, error) {
				res = cp.Kubectl(t.Context(), localstack.AdminUser, "explain", tt.field)
				return res.Err == nil, nil
			})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			for _, want := range tt.want {
				if !strings.Contains(res.Stdout, want) {
					t.Errorf("explain output lacks %q:\n%s", want, res.Stdout)
				}
			}
		})
	}
}

func TestKubectlWritesAreNotAllowed(t *testing.T) {
	manifest := "apiVersion: update.openshift.io/v1alpha1\nkind: UpdateStatus\nmetadata:\n  name: cluster\n  labels: {a: b}\nspec: {}\n"
	tests := []struct {
		name  string
		args  []string
		stdin string
	}{
		{"delete", []string{"delete", "updatestatus", statusName}, ""},
		{"patch", []string{"patch", "updatestatus", statusName, "--type=merge", "-p", `{"metadata":{"labels":{"a":"b"}}}`}, ""},
		{"apply", []string{"apply", "-f", "-"}, manifest},
		{"apply server-side", []string{"apply", "--server-side", "-f", "-"}, manifest},
		{"create", []string{"create", "-f", "-"}, strings.Replace(manifest, "name: cluster", "name: other", 1)},
		{"replace", []string{"replace", "-f", "-"}, manifest},
		{"label", []string{"label", "updatestatus", statusName, "a=b"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := cp.KubectlCommand(t.Context(), localstack.AdminUser, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("kubectl %s succeeded as cluster-admin:\n%s", strings.Join(tt.args, " "), out)
			}
			if !strings.Contains(string(out), "MethodNotAllowed") {
				t.Errorf("kubectl %s: want a MethodNotAllowed (405) refusal, got:\n%s", strings.Join(tt.args, " "), out)
			}
		})
	}
}

// TestKubectlWatchSeesChanges runs `kubectl get -w` and changes a Node and the
// ClusterVersion underneath it.
func TestKubectlWatchSeesChanges(t *testing.T) {
	ensureUpdating(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stdout, stderr := startKubectl(ctx, t, cancel, "get", "updatestatus", statusName, "-w", "-o", "json")
	events := decodeStream(stdout)
	next := func(what string, timeout time.Duration, pred func(*v1alpha1.UpdateStatus) bool) time.Duration {
		t.Helper()
		begin := time.Now()
		awaitWatch(t, events, stderr, what, timeout, pred)
		return time.Since(begin)
	}
	next("initial object", 10*time.Second, func(us *v1alpha1.UpdateStatus) bool { return us.Name == statusName })

	t.Run("Node", func(t *testing.T) {
		worker := workerNode(1)
		restore := makeNodeNotReady(t, worker)
		d := next(worker+" unavailable", 5*time.Second, func(us *v1alpha1.UpdateStatus) bool {
			n := nodeInsight(us, worker)
			return n != nil && conditionStatus(n.Conditions, "Available") == "False"
		})
		t.Logf("kubectl get -w showed the Node change after %v", d)
		restore()
		next(worker+" available again", 5*time.Second, func(us *v1alpha1.UpdateStatus) bool {
			n := nodeInsight(us, worker)
			return n != nil && conditionStatus(n.Conditions, "Available") == "True"
		})
	})
	t.Run("ClusterVersion", func(t *testing.T) {
		restore := failClusterVersion(t)
		d := next("the Failing ClusterVersion", 5*time.Second, func(us *v1alpha1.UpdateStatus) bool {
			h := healthInsightAbout(us, "clusterversions", "version")
			return h != nil && strings.Contains(h.Impact.Summary, "failing")
		})
		t.Logf("kubectl get -w showed the ClusterVersion change after %v", d)
		restore()
	})
}

// decodeStream decodes the concatenated JSON objects kubectl -w -o json
// prints, until the stream ends.
func decodeStream(r io.Reader) <-chan *v1alpha1.UpdateStatus {
	ch := make(chan *v1alpha1.UpdateStatus, 64)
	go func() {
		defer close(ch)
		dec := json.NewDecoder(bufio.NewReader(r))
		for {
			us := &v1alpha1.UpdateStatus{}
			if err := dec.Decode(us); err != nil {
				return
			}
			ch <- us
		}
	}()
	return ch
}
