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
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"

	"github.com/update-status/apiserver/internal/fixtures"
	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sourcefiles"
)

// scenarioDir copies one scenario's input files into a directory of their own.
func scenarioDir(t *testing.T, name string) string {
	t.Helper()
	src := fixtures.Dir(t)
	dir := t.TempDir()
	matches, err := filepath.Glob(filepath.Join(src, name+"-*"))
	if err != nil || len(matches) == 0 {
		t.Fatalf("no input files %s-* in %s (err %v)", name, src, err)
	}
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(m)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func run(t *testing.T, deps Deps, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	deps.Out, deps.ErrOut = &out, &errOut
	code := Run(context.Background(), deps, args)
	return out.String(), errOut.String(), code
}

func TestCompute(t *testing.T) {
	dir := scenarioDir(t, "4.14.1-degraded")
	for _, format := range []string{"yaml", "json"} {
		out, errOut, code := run(t, Deps{}, "compute", "--from-dir", dir, "-o", format)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", format, code, errOut)
		}
		var obj v1alpha1.UpdateStatus
		if err := yaml.UnmarshalStrict([]byte(out), &obj); err != nil {
			t.Fatalf("-o %s: %v", format, err)
		}
		if errs := validation.ValidateUpdateStatus(&obj); len(errs) > 0 || obj.Kind != "UpdateStatus" || obj.Status.ControlPlane == nil {
			t.Fatalf("-o %s: %v", format, errs.ToAggregate())
		}
		if format == "json" && !json.Valid([]byte(out)) {
			t.Error("not JSON")
		}
	}
	// --now moves the clock: an hour later the estimate is an hour further
	// behind, but the object itself is the same.
	a, _, _ := run(t, Deps{}, "compute", "--from-dir", dir)
	b, _, _ := run(t, Deps{}, "compute", "--from-dir", dir, "--now", "2023-11-03T18:30:00Z")
	if a != b {
		t.Error("--now after every threshold changed the object")
	}
}

func TestComputeErrors(t *testing.T) {
	dir := scenarioDir(t, "not-upgrading")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compute"}, "--from-dir is required"},
		{[]string{"compute", "--from-dir", dir, "-o", "xml"}, `invalid -o "xml"`},
		{[]string{"compute", "--from-dir", dir, "--now", "yesterday"}, `invalid --now "yesterday"`},
		{[]string{"compute", "--from-dir", filepath.Join(dir, "missing")}, "missing"},
		{[]string{"compute", "--from-dir", t.TempDir()}, "pass --now"},
		{[]string{"compute", "--from-dir", dir, "--kind", "nodes"}, `invalid --kind "nodes": must be one of UpdateStatus, ClusterVersionProgressInsight`},
		{[]string{"report", "--details", "some"}, "invalid value for --details: some"},
		{[]string{"report"}, "one of --from-dir, --from-file or --kubeconfig is required"},
		{[]string{"report", "--from-file", "f", "--kubeconfig", "k"}, "mutually exclusive"},
		{[]string{"report", "--from-file", filepath.Join(dir, "none"), "--watch"}, "--watch needs --kubeconfig"},
		{[]string{"report", "--from-file", filepath.Join(dir, "none")}, "none"},
		{[]string{"report", "--from-file", "f", "--now", "later"}, `invalid --now "later"`},
		{[]string{"report", "--from-dir", dir, "--hosted-cluster", "clusters/demo"}, "--hosted-cluster needs --kubeconfig or --from-file"},
		{[]string{"report", "--kubeconfig", "k", "--hosted-cluster", "demo"}, `invalid --hosted-cluster "demo": must be NAMESPACE/NAME`},
		{[]string{"report", "--kubeconfig", "k", "--hosted-cluster", "clusters/"}, "must be NAMESPACE/NAME"},
		{[]string{"report", "--kubeconfig", "k", "--hosted-cluster", "Clusters/demo"}, `invalid --hosted-cluster "Clusters/demo": namespace:`},
		{[]string{"report", "--kubeconfig", "k", "--hosted-cluster", "clusters/demo/x"}, "name:"},
		{[]string{"report", "--from-dir", dir, "--kubeconfig", "k"}, "mutually exclusive"},
		{[]string{"report", "--from-dir", dir, "--watch"}, "--watch needs --kubeconfig"},
		{[]string{"report", "--kubeconfig", filepath.Join(dir, "none"), "--now", "now"}, "--now needs --from-dir"},
		{[]string{"report", "--kubeconfig", filepath.Join(dir, "none")}, "none"},
	} {
		_, errOut, code := run(t, Deps{}, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestReportFromDir(t *testing.T) {
	for _, name := range []string{"4.15.0-ec2-unavailable-mco-20m", "ocpbugs-60768"} {
		dir := scenarioDir(t, name)
		for flag, file := range map[string]string{"none": ".output", "all": ".detailed-output"} {
			out, errOut, code := run(t, Deps{}, "report", "--from-dir", dir, "--details", flag)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, errOut)
			}
			want := fixtures.Read(t, name+file)
			if out != string(want) {
				t.Errorf("%s --details=%s differs from %s", name, flag, name+file)
			}
		}
	}
}

// servedScenario returns a fake cluster that serves the UpdateStatus computed
// from a scenario, and the scenario's clock. (The simple fake clientset is
// used on purpose: NewClientset's field-managed tracker needs OpenAPI
// schemas that the generated fake does not register.)
func servedScenario(t *testing.T, name string) (*fake.Clientset, *v1alpha1.UpdateStatus, time.Time) {
	t.Helper()
	src, err := sourcefiles.LoadScenario(fixtures.Dir(t), name)
	if err != nil {
		t.Fatal(err)
	}
	now := sourcefiles.MockNow(src)
	obj := &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: "1"}, Status: insights.Compute(src, now).Status}
	return fake.NewSimpleClientset(obj), obj, now
}

func TestReportFromCluster(t *testing.T) {
	client, _, now := servedScenario(t, "4.14.1-degraded")
	deps := Deps{
		Clock:     clocktesting.NewFakePassiveClock(now),
		NewClient: func(string) (versioned.Interface, error) { return client, nil },
	}
	out, errOut, code := run(t, deps, "report", "--kubeconfig", "kubeconfig")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := fixtures.Read(t, "4.14.1-degraded.output")
	if out != string(want) {
		t.Errorf("the report of the served object differs:\n%s", out)
	}
	empty := fake.NewSimpleClientset()
	deps.NewClient = func(string) (versioned.Interface, error) { return empty, nil }
	if _, errOut, code := run(t, deps, "report", "--kubeconfig", "kubeconfig"); code == 0 || !strings.Contains(errOut, "updatestatuses/cluster") {
		t.Errorf("a missing object: exit %d, %q", code, errOut)
	}
}

func TestReportWatch(t *testing.T) {
	client, obj, now := servedScenario(t, "4.14.1-degraded")
	var out, errOut testio.SyncBuffer
	deps := Deps{
		Out: &out, ErrOut: &errOut,
		Clock:     clocktesting.NewFakePassiveClock(now),
		NewClient: func(string) (versioned.Interface, error) { return client, nil },
	}
	// Know when the command's watch is registered with the tracker, so
	// that one change is enough (no change published into the void).
	watching := make(chan struct{})
	var once sync.Once
	testio.OnWatch(client, "updatestatuses", func(watch.Interface) { once.Do(func() { close(watching) }) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- Run(ctx, deps, []string{"report", "--kubeconfig", "k", "--watch"}) }()
	waitFor := func(what string, ok func(string) bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return ok(out.String()), nil
		}); err != nil {
			cancel()
			t.Fatalf("timed out waiting for %s; output:\n%s\nerrors:\n%s", what, out.String(), errOut.String())
		}
	}
	waitFor("the first report", func(s string) bool { return strings.Contains(s, "= Update Health =") })
	// The watch starts after the first read; once it is registered, one
	// change reaches it.
	select {
	case <-watching:
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatalf("the command never watched; output:\n%s\nerrors:\n%s", out.String(), errOut.String())
	}
	changed := obj.DeepCopy()
	changed.ResourceVersion = "2"
	changed.Status.WorkerPools = nil
	if err := client.Tracker().Update(v1alpha1.SchemeGroupVersion.WithResource("updatestatuses"), changed, ""); err != nil {
		t.Fatal(err)
	}
	waitFor("a report of the changed object", func(s string) bool {
		reports := strings.Split(s, "= Control Plane =")
		return len(reports) == 3 && !strings.Contains(reports[2], "= Worker Upgrade =")
	})
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
}

func TestComputeKind(t *testing.T) {
	dir := scenarioDir(t, "4.14.1-degraded")
	status, _, _ := run(t, Deps{}, "compute", "--from-dir", dir)
	var obj v1alpha1.UpdateStatus
	if err := yaml.UnmarshalStrict([]byte(status), &obj); err != nil {
		t.Fatal(err)
	}
	nodes := 0
	for _, inf := range obj.Status.ControlPlane.Informers {
		for _, in := range inf.Insights {
			if in.Insight.NodeStatusInsight != nil {
				nodes++
			}
		}
	}
	for _, p := range obj.Status.WorkerPools {
		for _, inf := range p.Informers {
			for _, in := range inf.Insights {
				if in.Insight.NodeStatusInsight != nil {
					nodes++
				}
			}
		}
	}
	if same, _, _ := run(t, Deps{}, "compute", "--from-dir", dir, "--kind", "us"); same != status {
		t.Error("--kind us differs from the default")
	}
	for _, tc := range []struct {
		kind, format string
		list         any
		want         string
	}{
		{"NodeProgressInsight", "yaml", &v1alpha1.NodeProgressInsightList{}, "NodeProgressInsight"},
		{"npi", "json", &v1alpha1.NodeProgressInsightList{}, "NodeProgressInsight"},
		{"nodeprogressinsights", "yaml", &v1alpha1.NodeProgressInsightList{}, "NodeProgressInsight"},
		{"CLUSTERVERSIONPROGRESSINSIGHT", "yaml", &v1alpha1.ClusterVersionProgressInsightList{}, "ClusterVersionProgressInsight"},
		{"copi", "yaml", &v1alpha1.ClusterOperatorProgressInsightList{}, "ClusterOperatorProgressInsight"},
		{"MachineConfigPoolProgressInsights", "json", &v1alpha1.MachineConfigPoolProgressInsightList{}, "MachineConfigPoolProgressInsight"},
		{"hi", "yaml", &v1alpha1.HealthInsightList{}, "HealthInsight"},
	} {
		out, errOut, code := run(t, Deps{}, "compute", "--from-dir", dir, "--kind", tc.kind, "-o", tc.format)
		if code != 0 {
			t.Fatalf("--kind %s: exit %d: %s", tc.kind, code, errOut)
		}
		if err := yaml.UnmarshalStrict([]byte(out), tc.list); err != nil {
			t.Fatalf("--kind %s: %v", tc.kind, err)
		}
		var kind, itemKind string
		var items int
		switch l := tc.list.(type) {
		case *v1alpha1.NodeProgressInsightList:
			kind, items = l.Kind, len(l.Items)
			if items != nodes {
				t.Errorf("--kind %s: %d nodes, want the %d of the UpdateStatus", tc.kind, items, nodes)
			}
			itemKind = l.Items[0].Kind
			if l.Items[0].Status.InsightUID == "" || l.Items[0].UID == "" || l.Items[0].Labels[v1alpha1.LabelPool] == "" {
				t.Errorf("--kind %s: an incomplete object: %+v", tc.kind, l.Items[0])
			}
		case *v1alpha1.ClusterVersionProgressInsightList:
			kind, items, itemKind = l.Kind, len(l.Items), l.Items[0].Kind
		case *v1alpha1.ClusterOperatorProgressInsightList:
			kind, items, itemKind = l.Kind, len(l.Items), l.Items[0].Kind
		case *v1alpha1.MachineConfigPoolProgressInsightList:
			kind, items, itemKind = l.Kind, len(l.Items), l.Items[0].Kind
		case *v1alpha1.HealthInsightList:
			kind, items, itemKind = l.Kind, len(l.Items), l.Items[0].Kind
		}
		if items == 0 || kind != tc.want+"List" || itemKind != tc.want {
			t.Errorf("--kind %s: a %s of %d %s", tc.kind, kind, items, itemKind)
		}
	}
}
