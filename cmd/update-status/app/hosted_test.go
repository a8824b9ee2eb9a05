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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
)

// hostedTwin returns the hosted cluster ns/name whose status is that of
// truncatedCluster(n) and its hosted per-insight objects, and one node of
// another hosted cluster of the same namespace.
func hostedTwin(n int, ns, name string) ([]runtime.Object, *v1alpha1.HostedClusterUpdateStatus, metav1.Time) {
	obj, objs, now := truncatedCluster(n)
	hosted := &v1alpha1.HostedClusterUpdateStatus{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "HostedClusterUpdateStatus"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: obj.ResourceVersion},
		Status:     obj.Status,
	}
	meta := func(m metav1.ObjectMeta, cluster string) metav1.ObjectMeta {
		m.Namespace, m.Name = ns, cluster+"-"+m.Name
		m.Labels[v1alpha1.LabelHostedCluster] = cluster
		return m
	}
	out := []runtime.Object{hosted}
	for _, o := range objs {
		switch o := o.(type) {
		case *v1alpha1.NodeProgressInsight:
			out = append(out, &v1alpha1.HostedNodeProgressInsight{
				TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "HostedNodeProgressInsight"},
				ObjectMeta: meta(o.ObjectMeta, name), Status: o.Status})
		case *v1alpha1.MachineConfigPoolProgressInsight:
			out = append(out, &v1alpha1.HostedMachineConfigPoolProgressInsight{
				TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "HostedMachineConfigPoolProgressInsight"},
				ObjectMeta: meta(o.ObjectMeta, name), Status: o.Status})
		}
	}
	// A node of another hosted cluster, which no report of ns/name shows.
	other := objs[len(objs)-1].(*v1alpha1.NodeProgressInsight).DeepCopy()
	other.Status.InsightUID, other.Status.Name = "node-worker-other", "worker-other"
	out = append(out, &v1alpha1.HostedNodeProgressInsight{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "HostedNodeProgressInsight"},
		ObjectMeta: meta(other.ObjectMeta, "other"), Status: other.Status})
	return out, hosted, metav1.NewTime(now)
}

// TestReportHostedCluster: report --hosted-cluster reads the hosted
// cluster's HostedClusterUpdateStatus, from the cluster or from a saved
// file, completes it with that cluster's hosted per-insight objects and
// prints it with a hosted cluster's words.
func TestReportHostedCluster(t *testing.T) {
	const n = 1500
	objs, _, now := hostedTwin(n, "clusters", "demo")
	client := fake.NewSimpleClientset(objs...)
	var lists []string
	client.PrependReactor("list", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		l := action.(clienttesting.ListActionImpl)
		lists = append(lists, l.GetResource().Resource)
		if l.GetNamespace() != "clusters" || l.ListOptions.LabelSelector != v1alpha1.LabelHostedCluster+"=demo" ||
			l.ListOptions.ResourceVersion != "7" {
			t.Errorf("listed %s in %q with %+v, want the hosted cluster's objects at resourceVersion 7", l.GetResource().Resource, l.GetNamespace(), l.ListOptions)
		}
		return false, nil, nil
	})

	// The same objects saved as kubectl get -o json saves them.
	saved := saveList(t, objs)

	deps := Deps{
		Clock:     clocktesting.NewFakePassiveClock(now.Time),
		NewClient: func(string) (versioned.Interface, error) { return client, nil },
	}
	for _, tc := range []struct {
		name  string
		args  []string
		lists int
	}{
		{name: "served", args: []string{"--kubeconfig", "k"}, lists: 5},
		{name: "saved", args: []string{"--from-file", saved, "--now", now.UTC().Format("2006-01-02T15:04:05Z")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lists = nil
			args := append([]string{"report", "--hosted-cluster", "clusters/demo", "--details", "nodes"}, tc.args...)
			out, errOut, code := run(t, deps, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			rows := workerRows(out)
			if len(rows) != n {
				t.Errorf("%d nodes listed, want %d", len(rows), n)
			}
			if rows["worker-other"] {
				t.Error("the report lists a node of another hosted cluster")
			}
			for _, want := range []string{"\n= Node Pool Upgrade =\n", "\nNode Pool Nodes: worker\n", "\nNODE POOL "} {
				if !strings.Contains(out, want) {
					t.Errorf("the report lacks %q", want)
				}
			}
			if strings.Contains(out, "insights were left out") || strings.Contains(out, "Worker") {
				t.Errorf("the report says insights were left out, or names worker pools:\n%.2000s", out)
			}
			if len(lists) != tc.lists {
				t.Errorf("listed %v, want %d lists", lists, tc.lists)
			}
		})
	}

	// A hosted cluster that is not there.
	for _, args := range [][]string{
		{"--kubeconfig", "k", "--hosted-cluster", "clusters/missing"},
		{"--from-file", saved, "--hosted-cluster", "clusters/missing"},
		{"--from-file", saved},
	} {
		_, errOut, code := run(t, deps, append([]string{"report"}, args...)...)
		if code == 0 || !strings.Contains(errOut, "missing") && !strings.Contains(errOut, "holds no UpdateStatus") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// saveList writes objs to a file as kubectl get -o json saves them (a v1
// List) and returns its path.
func saveList(t *testing.T, objs []runtime.Object) string {
	t.Helper()
	items := make([]json.RawMessage, len(objs))
	for i, o := range objs {
		data, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		items[i] = data
	}
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "saved.json")
	if err := os.WriteFile(path, list, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHostedStatusOf: a watch event is the followed object only when it is
// the HostedClusterUpdateStatus of the same namespace and name.
func TestHostedStatusOf(t *testing.T) {
	target := hostedStatus{key: mustHosted(t, "clusters/demo")}
	hc := func(ns, name string) *v1alpha1.HostedClusterUpdateStatus {
		return &v1alpha1.HostedClusterUpdateStatus{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "3"}}
	}
	for _, tc := range []struct {
		obj  runtime.Object
		want bool
	}{
		{hc("clusters", "demo"), true},
		{hc("clusters", "other"), false},
		{hc("other", "demo"), false},
		{&v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "demo"}}, false},
	} {
		rv, st, ok := target.of(tc.obj)
		if ok != tc.want || ok && (rv != "3" || st == nil) {
			t.Errorf("%s: got %q %v %v, want ours=%v", fmt.Sprintf("%T %v", tc.obj, tc.obj.(metav1.Object).GetName()), rv, st != nil, ok, tc.want)
		}
	}
}

func mustHosted(t *testing.T, s string) types.NamespacedName {
	t.Helper()
	k, err := parseHostedCluster(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestReportHostedWatch: report --hosted-cluster --watch prints the report
// again when that hosted cluster's object changes, and not when another
// hosted cluster's of the same namespace does.
func TestReportHostedWatch(t *testing.T) {
	objs, demo, now := hostedTwin(20, "clusters", "demo")
	other := demo.DeepCopy()
	other.Name = "other"
	client := fake.NewSimpleClientset(append(objs, other)...)
	const sep = "= Control Plane ="
	r := startHostedWatch(t, client, now.Time, "report", "--hosted-cluster", "clusters/demo")
	r.waitFor("the first report", sep, func(r []string) bool { return len(r) == 1 && strings.Contains(r[0], "= Update Health =") })
	gvr := v1alpha1.SchemeGroupVersion.WithResource(resources.HostedClusterUpdateStatus.Resource)
	// Another hosted cluster changes first, then ours: one more report, of
	// ours, without its NodePools.
	changedOther := other.DeepCopy()
	changedOther.ResourceVersion = "8"
	if err := client.Tracker().Update(gvr, changedOther, "clusters"); err != nil {
		t.Fatal(err)
	}
	changed := demo.DeepCopy()
	changed.ResourceVersion = "9"
	changed.Status.WorkerPools = nil
	if err := client.Tracker().Update(gvr, changed, "clusters"); err != nil {
		t.Fatal(err)
	}
	r.waitFor("a report of the changed object", sep, func(r []string) bool {
		return len(r) >= 2 && !strings.Contains(r[len(r)-1], "= Node Pool Upgrade =")
	})
	if reports := r.parts(sep); len(reports) != 2 {
		t.Errorf("%d reports, want 2: the other hosted cluster's change printed one", len(reports))
	}
	r.stop()
}
