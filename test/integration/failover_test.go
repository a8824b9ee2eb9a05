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
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	informers "github.com/update-status/apiserver/pkg/generated/informers/externalversions"
)

// TestFailover puts two replicas behind the APIService (through a
// balancer that spreads connections as a Service does), follows the
// NodeProgressInsights with a client-go informer (WatchList) and the
// UpdateStatus with a protobuf watch that resumes from its last
// resourceVersion (watchtools.RetryWatcher), kills the replica that serves
// them with SIGKILL, changes a node, and checks that both converge to a
// fresh LIST of the same content from the other replica.
func TestFailover(t *testing.T) {
	ctx := t.Context()
	replicas := map[string]*localstack.Instance{}
	var backends []string
	for _, name := range []string{"failover-a", "failover-b"} {
		in := startInstance(t, localstack.InstanceOptions{Name: name})
		replicas[localstack.HostPort(in.URL)] = in
		backends = append(backends, localstack.HostPort(in.URL))
	}
	lb, err := localstack.StartBalancer(backends...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lb.Close)
	if err := cp.PointAPIService(ctx, lb.Port()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.PointAPIService(context.Background(), cp.ServerPort()); err != nil {
			t.Errorf("pointing the APIService back at the server: %v", err)
		}
	})

	admin := updateClient(t, &cp.Users.Admin)
	pbCfg := cp.RESTConfig(&cp.Users.Admin)
	pbCfg.ContentType = runtime.ContentTypeProtobuf
	pbCfg.AcceptContentTypes = runtime.ContentTypeProtobuf
	pb := clientFor(t, versioned.NewForConfig, pbCfg)

	// The informer of NodeProgressInsights.
	factory := informers.NewSharedInformerFactory(admin, 0)
	npis := factory.Update().V1alpha1().NodeProgressInsights()
	inf := npis.Informer()
	fctx, stop := context.WithCancel(ctx)
	t.Cleanup(func() {
		stop()
		factory.Shutdown()
	})
	factory.Start(fctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}

	// The protobuf watch of the UpdateStatus, resumed from its last
	// resourceVersion when its stream ends.
	first, err := pb.UpdateV1alpha1().UpdateStatuses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, first.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return pb.UpdateV1alpha1().UpdateStatuses().Watch(ctx, o)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rw.Stop)
	var mu sync.Mutex
	watched := first.Items[0].DeepCopy()
	go func() {
		for ev := range rw.ResultChan() {
			if us, ok := ev.Object.(*v1alpha1.UpdateStatus); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) {
				mu.Lock()
				watched = us
				mu.Unlock()
			}
		}
	}()

	// converged tells whether the informer's cache and the watched
	// UpdateStatus hold what a fresh LIST returns, content included.
	converged := func() (bool, string) {
		list, err := admin.UpdateV1alpha1().NodeProgressInsights().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		cached := map[string]string{}
		for _, obj := range inf.GetStore().List() {
			n := obj.(*v1alpha1.NodeProgressInsight)
			cached[n.Name] = dump(n.Status)
		}
		fresh := map[string]string{}
		for _, n := range list.Items {
			fresh[n.Name] = dump(n.Status)
		}
		if !maps.Equal(cached, fresh) {
			return false, fmt.Sprintf("the informer holds %d NodeProgressInsights, the LIST %d, or their content differs", len(cached), len(fresh))
		}
		us, err := pb.UpdateV1alpha1().UpdateStatuses().Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		mu.Lock()
		defer mu.Unlock()
		if dump(watched.Status) != dump(us.Status) {
			return false, fmt.Sprintf("the watch is at resourceVersion %s, the GET at %s, with other content", watched.ResourceVersion, us.ResourceVersion)
		}
		return true, ""
	}
	waitConverged := func(what string) {
		t.Helper()
		var why string
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			var ok bool
			ok, why = converged()
			return ok, nil
		}); err != nil {
			t.Fatalf("%s: not converged within 30s: %s", what, why)
		}
	}
	waitConverged("before the failover")
	mu.Lock()
	before := dump(watched.Status)
	mu.Unlock()

	// The replica the aggregator's connection goes to.
	var serving string
	for backend, n := range lb.Active() {
		if n > 0 {
			serving = backend
		}
	}
	if serving == "" {
		t.Fatalf("no connection through the balancer: %v", lb.Active())
	}
	replicas[serving].Process.Kill()
	t.Logf("killed the replica at %s", serving)

	// A change after the failover: a worker cordoned (the engine reports it).
	kube := clientFor(t, kubernetes.NewForConfig, cp.RESTConfig(&cp.Users.Admin))
	nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "node-role.kubernetes.io/worker"})
	if err != nil || len(nodes.Items) == 0 {
		t.Fatalf("no worker: %v", err)
	}
	worker := slices.MinFunc(nodes.Items, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	cordon := func(ctx context.Context, v bool) error {
		_, err := kube.CoreV1().Nodes().Patch(ctx, worker.Name, types.MergePatchType, fmt.Appendf(nil, `{"spec":{"unschedulable":%t}}`, v), metav1.PatchOptions{})
		return err
	}
	if err := cordon(ctx, !worker.Spec.Unschedulable); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cordon(context.Background(), worker.Spec.Unschedulable); err != nil {
			t.Error(err)
		}
	})
	waitConverged("after the failover and a change")
	mu.Lock()
	changed := dump(watched.Status) != before
	mu.Unlock()
	if !changed {
		t.Errorf("the watch shows no change after %s was cordoned", worker.Name)
	}
	if lb.Active()[serving] != 0 {
		t.Errorf("connections to the killed replica: %v", lb.Active())
	}
}
