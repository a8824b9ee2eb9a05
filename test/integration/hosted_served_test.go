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
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
)

// TestHostedServed starts a management cluster of its own (the hosted
// CRDs installed before the server starts, the server allowed to read them
// by artifacts/local), lets the simulator
// update two hosted clusters, and checks what the server serves of them:
// one HostedClusterUpdateStatus per HostedCluster in its namespace, the
// kubectl table, and a watch of one hosted cluster's node objects by label
// that sees that hosted cluster's only.
func TestHostedServed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	own := ownControlPlaneWith(ctx, t, "hosted", localstack.Options{HostedCRDs: true})
	startServerOf(ctx, t, own, localstack.ServerOptions{})
	client := updateClientOf(t, own, &own.Users.Admin)

	const ns = "clusters-served"
	// A watch from before the hosted clusters exist, of the first hosted
	// cluster's node objects only.
	w, err := client.UpdateV1alpha1().HostedNodeProgressInsights(ns).Watch(ctx, metav1.ListOptions{LabelSelector: v1alpha1.LabelHostedCluster + "=replace"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var foreign []string
	var stopping atomic.Bool
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error && !stopping.Load() {
				foreign = append(foreign, fmt.Sprintf("error event %v", dump(ev.Object)))
				continue
			}
			if n, ok := ev.Object.(*v1alpha1.HostedNodeProgressInsight); ok && (n.Namespace != ns || n.Labels[v1alpha1.LabelHostedCluster] != "replace") {
				foreign = append(foreign, n.Namespace+"/"+n.Name)
			}
		}
	}()

	runHostedUpdate(ctx, t, own.RESTConfig(&own.Users.Admin), ns)

	// Two HostedClusterUpdateStatus objects, named and placed as their
	// HostedClusters, computed from synced caches.
	var names []string
	testio.Eventually(t, "a HostedClusterUpdateStatus per hosted cluster", func() bool {
		list, err := client.UpdateV1alpha1().HostedClusterUpdateStatuses(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		names = names[:0]
		for _, item := range list.Items {
			if conditionStatus(item.Status.Conditions, v1alpha1.UpdateStatusAvailable) == metav1.ConditionTrue {
				names = append(names, item.Name)
			}
		}
		return slices.Equal(names, []string{"inplace", "replace"})
	})
	if list, err := client.UpdateV1alpha1().HostedClusterUpdateStatuses("default").List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 0 {
		t.Errorf("another namespace lists %v, %v; want nothing", list, err)
	}

	// kubectl get hcus -A: the namespace, the hosted clusters and the
	// columns.
	out := own.Kubectl(ctx, localstack.AdminUser, "get", "hcus", "-A")
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	t.Logf("kubectl get hcus -A:\n%s", out.Stdout)
	lines := strings.Split(strings.TrimSpace(out.Stdout), "\n")
	header := strings.Join(strings.Fields(lines[0]), " ")
	if want := "NAMESPACE HOSTED CLUSTER CONTROL PLANE TARGET NODE POOLS WORST HEALTH UPDATE AGE"; header != want {
		t.Errorf("header %q, want %q\n%s", header, want, out.Stdout)
	}
	var rows []string
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		rows = append(rows, f[0]+" "+f[1])
	}
	if want := []string{ns + " inplace", ns + " replace"}; !slices.Equal(rows, want) {
		t.Errorf("rows %v, want %v\n%s", rows, want, out.Stdout)
	}

	// kubectl explain reads the published OpenAPI of the kind.
	if out := own.Kubectl(ctx, localstack.AdminUser, "explain", "hcus.status.conditions"); out.Err != nil || !strings.Contains(out.Stdout, "HostedClusterUpdateStatus") {
		t.Errorf("kubectl explain: %v\n%s", out.Err, out.Stdout)
	}
	// A client that speaks protobuf only reads the objects.
	pbCfg := own.RESTConfig(&own.Users.Admin)
	pbCfg.ContentType, pbCfg.AcceptContentTypes = runtime.ContentTypeProtobuf, runtime.ContentTypeProtobuf
	pb := clientFor(t, versioned.NewForConfig, pbCfg)
	if got, err := pb.UpdateV1alpha1().HostedClusterUpdateStatuses(ns).Get(ctx, "replace", metav1.GetOptions{}); err != nil || got.Namespace != ns || len(got.Status.Conditions) != 1 {
		t.Errorf("protobuf GET: %v, %v", got, err)
	}

	// The hosted insight kinds are served, namespaced, to kubectl too.
	if out := own.Kubectl(ctx, localstack.AdminUser, "get", "hnpi", "-n", ns, "-l", v1alpha1.LabelHostedCluster+"=replace"); out.Err != nil {
		t.Error(out.Err)
	}
	// Each hosted cluster's Health objects, by label: its own only, and
	// together all of the namespace's.
	all, err := client.UpdateV1alpha1().HostedHealthInsights(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byLabel := 0
	for _, hc := range []string{"inplace", "replace"} {
		list, err := client.UpdateV1alpha1().HostedHealthInsights(ns).List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.LabelHostedCluster + "=" + hc})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range list.Items {
			if h.Labels[v1alpha1.LabelHostedCluster] != hc || !strings.HasPrefix(h.Name, hc+".") {
				t.Errorf("%s's Health objects include %s (labels %v)", hc, h.Name, h.Labels)
			}
		}
		byLabel += len(list.Items)
	}
	if byLabel != len(all.Items) {
		t.Errorf("%d Health objects by hosted cluster, %d in the namespace", byLabel, len(all.Items))
	}

	stopping.Store(true)
	w.Stop()
	<-watched
	if len(foreign) > 0 {
		t.Errorf("the watch of replace's node objects saw %v", foreign)
	}
}
