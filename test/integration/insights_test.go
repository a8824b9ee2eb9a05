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
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/update-status/apiserver/cmd/update-status/app"
	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
	"github.com/update-status/apiserver/pkg/generated/informers/externalversions"
	"github.com/update-status/apiserver/pkg/simulator"
)

// insightResources are the five per-insight resources.
var insightResources = []string{
	"clusterversionprogressinsights", "clusteroperatorprogressinsights", "machineconfigpoolprogressinsights",
	"nodeprogressinsights", "healthinsights",
}

// workerNodeInsights returns the names of the Node insights of the worker
// pool inside UpdateStatus.
func workerNodeInsights(us *v1alpha1.UpdateStatus) []string {
	var names []string
	for _, p := range us.Status.WorkerPools {
		if p.Name != "worker" {
			continue
		}
		for _, inf := range p.Informers {
			for _, in := range inf.Insights {
				if n := in.Insight.NodeStatusInsight; n != nil {
					names = append(names, n.Name)
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

// TestKubectlGetNodeInsightsByPool: `kubectl get npi -l
// update.openshift.io/pool=worker` lists every node of the worker pool, with
// the columns of the specification, and agrees with UpdateStatus.
func TestKubectlGetNodeInsightsByPool(t *testing.T) {
	ctx := t.Context()
	us := getStatus(ctx, t)
	want := workerNodeInsights(us)
	if len(want) == 0 {
		t.Fatalf("UpdateStatus has no worker node insights:\n%s", dump(us))
	}
	res := cp.Kubectl(ctx, localstack.AdminUser, "get", "npi", "-l", v1alpha1.LabelPool+"=worker")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	rows := parseTable(res.Stdout)
	var got []string
	for _, r := range rows {
		got = append(got, r["NAME"])
		if r["POOL"] != "worker" {
			t.Errorf("row %v: POOL is not worker", r)
		}
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("kubectl get npi -l pool=worker lists %v, want the worker pool's nodes %v\n%s", got, want, res.Stdout)
	}
	header := strings.Fields(strings.SplitN(res.Stdout, "\n", 2)[0])
	if wantHeader := []string{"NAME", "POOL", "ASSESSMENT", "PHASE", "VERSION", "EST", "MESSAGE"}; !slices.Equal(header, wantHeader) {
		t.Errorf("columns %v, want %v", header, wantHeader)
	}

	// Every kind lists, validates, and has a table and an explanation.
	client := updateClient(t, &cp.Users.Admin)
	nodes, err := client.UpdateV1alpha1().NodeProgressInsights().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range nodes.Items {
		if errs := validation.Validate(&nodes.Items[i]); len(errs) > 0 {
			t.Errorf("NodeProgressInsight %s is invalid: %v", nodes.Items[i].Name, errs.ToAggregate())
		}
	}
	for _, r := range []string{"cvpi", "copi", "mcppi", "hi"} {
		if res := cp.Kubectl(ctx, localstack.AdminUser, "get", r); res.Err != nil {
			t.Errorf("kubectl get %s: %v", r, res.Err)
		}
	}
	one := cp.Kubectl(ctx, localstack.AdminUser, "get", "npi", "--field-selector=metadata.name="+want[0], "-o", "name")
	if one.Err != nil || strings.TrimSpace(one.Stdout) != "nodeprogressinsight.update.openshift.io/"+want[0] {
		t.Errorf("field selector metadata.name=%s: %v %q", want[0], one.Err, one.Stdout)
	}
}

// watchEvent is one event of `kubectl get -w -o json --output-watch-events`.
type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
	name   string
	rv     string
}

func decodeEvents(r io.Reader) <-chan watchEvent {
	ch := make(chan watchEvent, 1024)
	go func() {
		defer close(ch)
		dec := json.NewDecoder(bufio.NewReader(r))
		for {
			var ev watchEvent
			if err := dec.Decode(&ev); err != nil {
				return
			}
			var m struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			if err := json.Unmarshal(ev.Object, &m); err == nil {
				ev.name, ev.rv = m.Metadata.Name, m.Metadata.ResourceVersion
			}
			ch <- ev
		}
	}()
	return ch
}

// TestKubectlWatchNodeInsights: `kubectl get npi -w` shows one node's change
// as one small MODIFIED event, and a Node that leaves as DELETED.
func TestKubectlWatchNodeInsights(t *testing.T) {
	ensureUpdating(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	client := updateClient(t, &cp.Users.Admin)
	initial, err := client.UpdateV1alpha1().NodeProgressInsights().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := startKubectl(ctx, t, cancel, "get", "npi", "-w", "-o", "json", "--output-watch-events")
	events := decodeEvents(stdout)
	// wait returns the events up to the first that pred accepts.
	wait := func(what string, timeout time.Duration, pred func(watchEvent) bool) []watchEvent {
		t.Helper()
		return awaitWatch(t, events, stderr, what, timeout, pred)
	}

	// The watch starts with the current objects.
	listed := map[string]bool{}
	wait("the initial objects", 10*time.Second, func(ev watchEvent) bool {
		listed[ev.name] = true
		return len(listed) == len(initial.Items)
	})

	t.Run("one node changes", func(t *testing.T) {
		worker := workerNode(1)
		restore := makeNodeNotReady(t, worker)
		defer restore()
		seen := wait(worker+" unavailable", 10*time.Second, func(ev watchEvent) bool {
			var npi v1alpha1.NodeProgressInsight
			return ev.name == worker && json.Unmarshal(ev.Object, &npi) == nil &&
				conditionStatus(npi.Status.Conditions, "Available") == metav1.ConditionFalse
		})
		ev := seen[len(seen)-1]
		if ev.Type != string(watch.Modified) {
			t.Errorf("%s's change came as %s, want MODIFIED", worker, ev.Type)
		}
		if len(ev.Object) > 4096 {
			t.Errorf("the event carries %d bytes, want a small object (at most 4 KiB)", len(ev.Object))
		}
		for _, other := range seen {
			if other.rv == ev.rv && other.name != ev.name {
				t.Errorf("node %s changed in the same revision %s though only %s's Node changed", other.name, ev.rv, worker)
			}
		}
		t.Logf("%s's change: one %s event of %d bytes, after %d other events", worker, ev.Type, len(ev.Object), len(seen)-1)
	})

	t.Run("a node leaves", func(t *testing.T) {
		name := "worker-insights-extra"
		tmpl, err := cp.Kube.CoreV1().Nodes().Get(ctx, workerNode(1), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: tmpl.Labels, Annotations: tmpl.Annotations}}
		n.Labels = map[string]string{}
		for k, v := range tmpl.Labels {
			n.Labels[k] = v
		}
		n.Labels[corev1.LabelHostname] = name
		if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		deleted := false
		t.Cleanup(func() {
			if !deleted {
				_ = cp.Kube.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{})
			}
		})
		added := wait(name+" added", 10*time.Second, func(ev watchEvent) bool { return ev.name == name })
		if ev := added[len(added)-1]; ev.Type != string(watch.Added) {
			t.Errorf("the new node came as %s, want ADDED", ev.Type)
		}
		if err := cp.Kube.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		deleted = true
		wait(name+" deleted", 10*time.Second, func(ev watchEvent) bool { return ev.name == name && ev.Type == string(watch.Deleted) })
		if _, err := client.UpdateV1alpha1().NodeProgressInsights().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("GET of the deleted node's insight: %v, want NotFound", err)
		}
	})
}

// TestInsightResourcesRBAC: the reader role covers the five resources; a user
// without it is refused.
func TestInsightResourcesRBAC(t *testing.T) {
	for _, tt := range []struct {
		name string
		user *localstack.User
		ok   bool
	}{
		{"reader role", &cp.Users.Viewer, true},
		{"no role", &cp.Users.Nobody, false},
	} {
		dyn := clientFor(t, dynamic.NewForConfig, cp.RESTConfig(tt.user))
		for _, r := range insightResources {
			gvr := schema.GroupVersionResource{Group: v1alpha1.GroupName, Version: "v1alpha1", Resource: r}
			_, err := dyn.Resource(gvr).List(t.Context(), metav1.ListOptions{})
			switch {
			case tt.ok && err != nil:
				t.Errorf("%s: list %s: %v", tt.name, r, err)
			case !tt.ok && !apierrors.IsForbidden(err):
				t.Errorf("%s: list %s: %v, want Forbidden", tt.name, r, err)
			}
			w, err := dyn.Resource(gvr).Watch(t.Context(), metav1.ListOptions{})
			if err == nil {
				w.Stop()
			}
			if tt.ok != (err == nil) {
				t.Errorf("%s: watch %s: %v", tt.name, r, err)
			}
		}
	}
}

// TestInsightInformersSync: the generated informers of the five kinds sync,
// with and without the WatchList client feature, and agree with a LIST.
func TestInsightInformersSync(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("WatchListClient=%v", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			ctx := t.Context()
			client := updateClient(t, &cp.Users.Viewer)
			factory := externalversions.NewSharedInformerFactory(client, 0)
			v := factory.Update().V1alpha1()
			informers := map[string]cache.SharedIndexInformer{
				"clusterversionprogressinsights":    v.ClusterVersionProgressInsights().Informer(),
				"clusteroperatorprogressinsights":   v.ClusterOperatorProgressInsights().Informer(),
				"machineconfigpoolprogressinsights": v.MachineConfigPoolProgressInsights().Informer(),
				"nodeprogressinsights":              v.NodeProgressInsights().Informer(),
				"healthinsights":                    v.HealthInsights().Informer(),
			}
			startAndSync(ctx, t, factory)
			nodes, err := client.UpdateV1alpha1().NodeProgressInsights().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(informers["nodeprogressinsights"].GetStore().List()); got != len(nodes.Items) || got == 0 {
				t.Errorf("the node informer holds %d objects, a LIST %d", got, len(nodes.Items))
			}
			for _, r := range []string{"clusterversionprogressinsights", "clusteroperatorprogressinsights", "machineconfigpoolprogressinsights"} {
				if len(informers[r].GetStore().List()) == 0 {
					t.Errorf("the %s informer is empty", r)
				}
			}
		})
	}
}

// TestInsightResourcesHaveNoCap: a 2,000-node worker pool is served as 2,000
// NodeProgressInsight objects while UpdateStatus keeps to its limit of 1,024
// insights per pool and says so.
func TestInsightResourcesHaveNoCap(t *testing.T) {
	ctx := t.Context()
	const workers = 2000
	cp2, sim, _ := ownSimulatedCluster(ctx, t, "nocap", simulator.Options{Nodes: workers + 3, Seed: 11})
	startServerOf(ctx, t, cp2, localstack.ServerOptions{})
	// oc's report lists nodes only while an update runs.
	if err := sim.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	client := updateClientOf(t, cp2, &cp2.Users.Viewer)
	var (
		got int
		err error
	)
	if wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		var list *v1alpha1.NodeProgressInsightList
		list, err = client.UpdateV1alpha1().NodeProgressInsights().List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.LabelPool + "=worker"})
		if err == nil {
			got = len(list.Items)
		}
		return err == nil && got == workers, nil
	}) != nil {
		t.Fatalf("%d worker NodeProgressInsights after 60s (last error %v), want %d", got, err, workers)
	}
	// The served state includes the update that was started.
	var us *v1alpha1.UpdateStatus
	if wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		us, err = client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		cv := cvInsight(us)
		return cv != nil && cv.Versions.Target.Version == simulator.DefaultToVersion, nil
	}) != nil {
		t.Fatalf("UpdateStatus does not show the update to %s after 60s (last error %v)", simulator.DefaultToVersion, err)
	}
	inPool := 0
	for _, p := range us.Status.WorkerPools {
		for _, inf := range p.Informers {
			if len(inf.Insights) > 1024 {
				t.Errorf("UpdateStatus lists %d insights for pool %s, over its limit", len(inf.Insights), p.Name)
			}
			inPool += len(inf.Insights)
		}
	}
	if inPool == 0 || inPool > 1024 {
		t.Errorf("UpdateStatus lists %d worker pool insights, want 1..1024", inPool)
	}
	if c := conditionOf(us.Status.Conditions, v1alpha1.UpdateStatusAvailable); c == nil || !strings.Contains(c.Message, "left out") {
		t.Errorf("the Available condition does not say insights were left out: %+v", c)
	}
	t.Logf("%d NodeProgressInsights for the worker pool; UpdateStatus lists %d of its insights", got, inPool)

	// update-status report completes the truncated UpdateStatus from the
	// per-insight resources: every worker node has its row.
	var out, errOut strings.Builder
	code := app.Run(ctx, app.Deps{Out: &out, ErrOut: &errOut}, []string{"report", "--kubeconfig", cp2.KubeconfigPath(localstack.ViewerUser), "--details=nodes"})
	if code != 0 {
		t.Fatalf("update-status report: exit %d: %s", code, errOut.String())
	}
	names := map[string]bool{}
	for _, n := range sim.NodeNames("worker") {
		names[n] = true
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 && names[f[0]] {
			rows++
			delete(names, f[0])
		}
	}
	if rows != workers {
		report := out.String()
		if len(report) > 3000 {
			report = report[:3000]
		}
		t.Errorf("update-status report --details=nodes shows %d worker node rows, want %d:\n%s", rows, workers, report)
	}
}

func conditionOf(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}
