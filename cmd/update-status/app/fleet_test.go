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
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
)

// fleetOf returns hosted clusters: clusters/demo and team-b/prod updating,
// team-c/done not (its control plane completed, no NodePool left to
// update), and the instant to judge them at.
func fleetOf(t *testing.T) ([]runtime.Object, time.Time) {
	t.Helper()
	_, demo, now := hostedTwin(20, "clusters", "demo")
	prod := demo.DeepCopy()
	prod.Namespace, prod.Name = "team-b", "prod"
	done := demo.DeepCopy()
	done.Namespace, done.Name = "team-c", "done"
	done.Status.WorkerPools = nil
	for i := range done.Status.ControlPlane.Informers {
		for j := range done.Status.ControlPlane.Informers[i].Insights {
			if cv := done.Status.ControlPlane.Informers[i].Insights[j].Insight.ClusterVersionStatusInsight; cv != nil {
				cv.Assessment, cv.Completion = v1alpha1.ControlPlaneAssessmentCompleted, 100
				cv.CompletedAt = &now
				for k := range cv.Conditions {
					cv.Conditions[k].Status = metav1.ConditionFalse
				}
			}
		}
	}
	return []runtime.Object{demo, prod, done}, now.Time
}

// fleetRows returns the first field of each table row of out.
func fleetRows(out string) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "/") {
			rows = append(rows, f[0])
		}
	}
	return rows
}

// TestReportHostedClusters: report --hosted-clusters lists the hosted
// clusters of every namespace, or of -n, from the cluster or a saved file,
// one row per hosted cluster updating and a count of the others.
func TestReportHostedClusters(t *testing.T) {
	objs, now := fleetOf(t)
	client := fake.NewSimpleClientset(objs...)
	var listed []string
	client.PrependReactor("list", resources.HostedClusterUpdateStatus.Resource, func(action clienttesting.Action) (bool, runtime.Object, error) {
		listed = append(listed, action.GetNamespace())
		return false, nil, nil
	})
	saved := saveList(t, objs)
	deps := Deps{
		Clock:     clocktesting.NewFakePassiveClock(now),
		NewClient: func(string) (versioned.Interface, error) { return client, nil },
	}
	for _, tc := range []struct {
		name     string
		args     []string
		rows     []string
		idle     string
		listedNS []string
	}{
		{name: "served, all namespaces", args: []string{"--kubeconfig", "k"}, rows: []string{"clusters/demo", "team-b/prod"},
			idle: "\n1 hosted cluster not updating: team-c/done\n", listedNS: []string{""}},
		{name: "served, one namespace", args: []string{"--kubeconfig", "k", "-n", "team-b"}, rows: []string{"team-b/prod"}, listedNS: []string{"team-b"}},
		{name: "saved", args: []string{"--from-file", saved}, rows: []string{"clusters/demo", "team-b/prod"}, idle: "\n1 hosted cluster not updating: team-c/done\n"},
		{name: "saved, one namespace", args: []string{"--from-file", saved, "--namespace", "team-c"}, idle: "1 hosted cluster not updating: team-c/done\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			listed = nil
			out, errOut, code := run(t, deps, append([]string{"report", "--hosted-clusters"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got := fleetRows(out); strings.Join(got, " ") != strings.Join(tc.rows, " ") {
				t.Errorf("rows %v, want %v:\n%s", got, tc.rows, out)
			}
			if len(tc.rows) > 0 && !strings.HasPrefix(out, "HOSTED CLUSTER ") {
				t.Errorf("no table header:\n%s", out)
			}
			if tc.idle != "" && !strings.HasSuffix(out, tc.idle) || tc.idle == "" && strings.Contains(out, "not updating") {
				t.Errorf("want the count line %q:\n%s", tc.idle, out)
			}
			if strings.Join(listed, ",") != strings.Join(tc.listedNS, ",") {
				t.Errorf("listed in namespaces %q, want %q", listed, tc.listedNS)
			}
		})
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--hosted-clusters", "--hosted-cluster", "clusters/demo", "--kubeconfig", "k"}, "mutually exclusive"},
		{[]string{"--hosted-clusters", "--from-dir", "."}, "--hosted-clusters needs --kubeconfig or --from-file"},
		{[]string{"--hosted-clusters", "--kubeconfig", "k", "--details", "nodes"}, "--details"},
		{[]string{"--hosted-clusters", "--kubeconfig", "k", "-n", "Not_A_Namespace"}, "invalid --namespace"},
		{[]string{"--kubeconfig", "k", "-n", "clusters"}, "--namespace needs --hosted-clusters"},
		{[]string{"--hosted-clusters", "--from-file", saved, "--now", "yesterday"}, "invalid --now"},
		{[]string{"--hosted-clusters", "--from-file", filepath.Join(t.TempDir(), "missing.yaml")}, "missing.yaml"},
	} {
		_, errOut, code := run(t, deps, append([]string{"report"}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want an error with %q", tc.args, code, errOut, tc.want)
		}
	}

	// A user who may not list every namespace is told to pass -n.
	denied := fake.NewSimpleClientset()
	denied.PrependReactor("list", resources.HostedClusterUpdateStatus.Resource, func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(v1alpha1.SchemeGroupVersion.WithResource(resources.HostedClusterUpdateStatus.Resource).GroupResource(), "", nil)
	})
	deps.NewClient = func(string) (versioned.Interface, error) { return denied, nil }
	if _, errOut, code := run(t, deps, "report", "--hosted-clusters", "--kubeconfig", "k"); code == 0 || !strings.Contains(errOut, "pass -n NAMESPACE") {
		t.Errorf("forbidden: exit %d, stderr %q", code, errOut)
	}
}

// TestReportHostedClustersWatch: report --hosted-clusters --watch prints
// the fleet again when a hosted cluster appears, and not when a change
// leaves the view as it was.
func TestReportHostedClustersWatch(t *testing.T) {
	objs, now := fleetOf(t)
	client := fake.NewSimpleClientset(objs...)
	const sep = "HOSTED CLUSTER "
	r := startHostedWatch(t, client, now, "report", "--hosted-clusters")
	r.waitFor("the first view", sep, func(v []string) bool { return len(v) == 1 })
	gvr := v1alpha1.SchemeGroupVersion.WithResource(resources.HostedClusterUpdateStatus.Resource)
	// A change that the view does not show, then a new hosted cluster.
	same := objs[0].(*v1alpha1.HostedClusterUpdateStatus).DeepCopy()
	same.ResourceVersion = "8"
	if err := client.Tracker().Update(gvr, same, same.Namespace); err != nil {
		t.Fatal(err)
	}
	added := same.DeepCopy()
	added.Namespace, added.Name, added.ResourceVersion = "team-d", "new", "9"
	if err := client.Tracker().Add(added); err != nil {
		t.Fatal(err)
	}
	r.waitFor("a view with the new hosted cluster", sep, func(v []string) bool {
		return len(v) >= 2 && strings.Contains(v[len(v)-1], "team-d/new")
	})
	if v := r.parts(sep); len(v) != 2 {
		t.Errorf("%d views, want 2: a change that leaves the view as it was printed it again:\n%s", len(v), r.out.String())
	}
	r.stop()
}
