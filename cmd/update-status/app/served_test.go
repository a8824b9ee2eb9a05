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
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/fixtures"
	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/report"
	"github.com/update-status/apiserver/pkg/sourcefiles"
	"github.com/update-status/apiserver/pkg/untruncate"
)

// truncatedCluster returns the UpdateStatus of a cluster whose pool "worker"
// has n nodes, of which the object keeps 1,022 beside the pool insight and
// the notice of what it left out (the engine's limit of 1,024), and the
// per-insight objects of the pool and of all n nodes. One node in ten is
// updated, the others wait.
func truncatedCluster(n int) (*v1alpha1.UpdateStatus, []runtime.Object, time.Time) {
	st := viewtest.Synthetic(0, 1)
	cv := st.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight
	now := cv.StartedAt.Add(50 * time.Minute)
	at := metav1.NewTime(cv.StartedAt.Add(40 * time.Minute))
	ref := v1alpha1.PoolResourceRef{ResourceRef: v1alpha1.ResourceRef{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: "worker"}}
	labels := func() map[string]string {
		return map[string]string{v1alpha1.LabelScope: string(v1alpha1.WorkerPoolScope), v1alpha1.LabelPool: "worker",
			v1alpha1.LabelInformer: v1alpha1.InformerNodes}
	}
	mcp := v1alpha1.MachineConfigPoolStatusInsight{Name: "worker", Resource: ref, Scope: v1alpha1.WorkerPoolScope,
		Assessment: v1alpha1.PoolProgressing, Completion: 10,
		Summaries: []v1alpha1.NodeSummary{{Type: v1alpha1.NodesTotal, Count: int32(n)}, {Type: v1alpha1.NodesAvailable, Count: int32(n)},
			{Type: v1alpha1.NodesOutdated, Count: int32(n - n/10)}}}
	objs := []runtime.Object{&v1alpha1.MachineConfigPoolProgressInsight{
		ObjectMeta: metav1.ObjectMeta{Name: "worker", Labels: labels()},
		Status:     v1alpha1.MachineConfigPoolProgressInsightStatus{InsightUID: "mcp-worker", AcquiredAt: at, MachineConfigPoolStatusInsight: mcp},
	}}
	inf := v1alpha1.WorkerPoolInformer{Name: v1alpha1.InformerNodes, Insights: []v1alpha1.WorkerPoolInsight{{UID: "mcp-worker", AcquiredAt: at,
		Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.MachineConfigPoolStatusInsightType, MachineConfigPoolStatusInsight: &mcp}}}}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("worker-%05d", i)
		node := v1alpha1.NodeStatusInsight{Name: name, Resource: v1alpha1.ResourceRef{Resource: "nodes", Name: name}, PoolResource: ref,
			Scope: v1alpha1.WorkerPoolScope, Version: "4.16.21",
			Conditions: []metav1.Condition{{Type: "Updating", Status: metav1.ConditionFalse, Reason: "Pending", LastTransitionTime: at},
				{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: at},
				{Type: "Degraded", Status: metav1.ConditionFalse, Reason: "AsExpected", LastTransitionTime: at}}}
		if i%10 == 0 {
			node.Version = "4.17.5"
			node.Conditions[0].Reason = "Completed"
		}
		uid := "node-" + name
		objs = append(objs, &v1alpha1.NodeProgressInsight{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels()},
			Status:     v1alpha1.NodeProgressInsightStatus{InsightUID: uid, AcquiredAt: at, NodeStatusInsight: node},
		})
		if i < 1022 {
			inf.Insights = append(inf.Insights, v1alpha1.WorkerPoolInsight{UID: uid, AcquiredAt: at,
				Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.NodeStatusInsightType, NodeStatusInsight: &node}})
		}
	}
	inf.Insights = append(inf.Insights, v1alpha1.WorkerPoolInsight{
		UID: conventions.UID(string(v1alpha1.HealthInsightsOmitted), "", "", "", "workerPools-worker-nodes"), AcquiredAt: at,
		Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.HealthInsightType, HealthInsight: &v1alpha1.HealthStatusInsight{
			StartedAt: at, Scope: v1alpha1.InsightScope{Type: v1alpha1.WorkerPoolScope},
			Impact: v1alpha1.InsightImpact{Level: v1alpha1.InfoImpactLevel, Type: v1alpha1.NoneImpactType,
				Summary:     fmt.Sprintf("%d insights were left out of workerPools/worker/nodes to stay within the API's limit of 1024", n-1022),
				Description: "The list has more insights than the API allows."},
			Remediation: v1alpha1.InsightRemediation{Reference: "https://example.com/api"}}}})
	st.WorkerPools = []v1alpha1.Pool{{Name: "worker", Resource: ref, Informers: []v1alpha1.WorkerPoolInformer{inf}}}
	obj := &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: "7"}, Status: st}
	return obj, objs, now
}

// workerRows returns the names of the worker rows of a report.
func workerRows(out string) map[string]bool {
	rows := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "worker-") {
			rows[f[0]] = true
		}
	}
	return rows
}

func TestReportListsEveryServedNode(t *testing.T) {
	const n = 10000
	obj, objs, now := truncatedCluster(n)
	client := fake.NewSimpleClientset(append(objs, obj)...)
	var lists []string
	client.PrependReactor("list", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		lists = append(lists, action.GetResource().Resource)
		if opts := action.(clienttesting.ListActionImpl).ListOptions; opts.ResourceVersion != "7" ||
			opts.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
			t.Errorf("listed %s with %+v, want resourceVersion 7, not older than", action.GetResource().Resource, opts)
		}
		return false, nil, nil
	})
	deps := Deps{
		Clock:     clocktesting.NewFakePassiveClock(now),
		NewClient: func(string) (versioned.Interface, error) { return client, nil },
	}
	out, errOut, code := run(t, deps, "report", "--kubeconfig", "k", "--details", "nodes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if rows := workerRows(out); len(rows) != n {
		t.Errorf("%d worker nodes listed, want %d", len(rows), n)
	}
	if strings.Contains(out, "insights were left out") {
		t.Error("the report still says insights were left out")
	}
	if len(lists) != 5 {
		t.Errorf("listed %v, want the five per-insight resources", lists)
	}
	// Without details, the counts of the nodes not shown cover them all.
	out, errOut, code = run(t, deps, "report", "--kubeconfig", "k")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("Omitted additional %d Total", n-10)) {
		t.Errorf("exit %d: %s\nthe report does not count every node:\n%s", code, errOut, out)
	}
}

func TestReportWithoutPerInsightResources(t *testing.T) {
	obj, objs, now := truncatedCluster(2000)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"not served", apierrors.NewNotFound(v1alpha1.Resource("nodeprogressinsights"), "")},
		{"forbidden", apierrors.NewForbidden(v1alpha1.Resource("healthinsights"), "", fmt.Errorf("no"))},
	} {
		client := fake.NewSimpleClientset(append(objs, obj)...)
		client.PrependReactor("list", "*", func(clienttesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err })
		deps := Deps{
			Clock:     clocktesting.NewFakePassiveClock(now),
			NewClient: func(string) (versioned.Interface, error) { return client, nil },
		}
		out, errOut, code := run(t, deps, "report", "--kubeconfig", "k", "--details", "all")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		if rows := workerRows(out); len(rows) != 1022 || !strings.Contains(out, "978 insights were left out") {
			t.Errorf("%s: %d worker nodes listed, want the 1022 of the UpdateStatus and its notice:\n%s", tc.name, len(rows), out)
		}
	}
}

// TestCompleteOffline completes a status the engine truncated with the
// per-insight objects of the same computation.
func TestCompleteOffline(t *testing.T) {
	src, err := sourcefiles.LoadScenario(fixtures.Dir(t), "4.14.1-degraded")
	if err != nil {
		t.Fatal(err)
	}
	var worker *insights.Node
	for _, n := range src.Nodes {
		if n.Labels.Has("node-role.kubernetes.io/worker") {
			worker = n
		}
	}
	const extra = 1500
	for i := 0; i < extra; i++ {
		n := worker.DeepCopy()
		n.Name, n.UID = fmt.Sprintf("worker-%05d", i), types.UID(fmt.Sprintf("uid-%05d", i))
		src.Nodes = append(src.Nodes, n)
	}
	now := sourcefiles.MockNow(src)
	res := insights.Compute(src, now)
	obj := &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: res.Status}
	if !untruncate.Truncated(&obj.Status) {
		t.Fatal("the engine did not truncate the pool")
	}
	done, err := completeOffline(obj, &res)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := report.Render(&b, done, now, report.DetailsNodes); err != nil {
		t.Fatal(err)
	}
	if rows := workerRows(b.String()); len(rows) != extra {
		t.Errorf("%d of the %d added nodes listed", len(rows), extra)
	}
	if strings.Contains(b.String(), "insights were left out") {
		t.Error("the report still says insights were left out")
	}
}
