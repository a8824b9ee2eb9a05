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

package hosted

import (
	"context"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
	"github.com/update-status/apiserver/pkg/registry/internal/registrytest"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
)

// publishedRESTs publishes f's snapshots and returns the storage of
// HostedClusterUpdateStatus and of the hosted per-insight kinds, destroyed
// when the test ends.
func (f *fixture) publishedRESTs(t *testing.T) (*virtualstore.REST, [resources.NumInsightKinds]*virtualstore.REST) {
	t.Helper()
	f.pub.Publish(nil, true)
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(v1alpha1.SchemeGroupVersion)
	status, insightRESTs, err := f.pub.NewREST(scheme, codec, clocktesting.NewFakePassiveClock(time.Unix(5000, 0)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(status.Destroy)
	for _, r := range insightRESTs {
		t.Cleanup(r.Destroy)
	}
	return status, insightRESTs
}

// inNamespace is a request context in namespace ns ("" for all).
func inNamespace(ns string) context.Context {
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{})
	return genericapirequest.WithNamespace(ctx, ns)
}

// TestNamespacedStorage: the hosted kinds are namespaced — LIST and GET
// in a namespace see its objects only, a label selector on the hosted
// cluster picks one hosted cluster's, and so does a WATCH.
func TestNamespacedStorage(t *testing.T) {
	f := newFixture(t, "", hostedSnapshot("a", 1, "a-workers", "m1"), hostedSnapshot("b", 2, "b-workers", "m1", "m2"))
	status, insightRESTs := f.publishedRESTs(t)
	nodes := insightRESTs[resources.NodeInsights]
	testio.Eventually(t, "the watch caches ready", func() bool { return status.ReadinessCheck() == nil && nodes.ReadinessCheck() == nil })
	if !status.NamespaceScoped() || !nodes.NamespaceScoped() || !slices.Equal(status.ShortNames(), []string{"hcus"}) || !slices.Equal(nodes.ShortNames(), []string{"hnpi"}) {
		t.Fatalf("scope %v/%v, short names %v/%v", status.NamespaceScoped(), nodes.NamespaceScoped(), status.ShortNames(), nodes.ShortNames())
	}

	ofB := labels.SelectorFromSet(labels.Set{v1alpha1.LabelHostedCluster: "b"})
	tests := []struct {
		name      string
		namespace string
		selector  labels.Selector
		want      []string
	}{
		{"all namespaces", "", labels.Everything(), []string{"a.m1", "b.m1", "b.m2"}},
		{"the hosted clusters' namespace", "clusters", labels.Everything(), []string{"a.m1", "b.m1", "b.m2"}},
		{"another namespace", "clusters-a", labels.Everything(), nil},
		{"one hosted cluster", "clusters", ofB, []string{"b.m1", "b.m2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, err := nodes.List(inNamespace(tt.namespace), &metainternalversion.ListOptions{LabelSelector: tt.selector})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, item := range obj.(*update.HostedNodeProgressInsightList).Items {
				got = append(got, item.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("listed %v, want %v", got, tt.want)
			}
		})
	}

	got, err := status.Get(inNamespace("clusters"), "a", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hc := got.(*update.HostedClusterUpdateStatus); hc.Namespace != "clusters" || hc.Name != "a" {
		t.Errorf("got %s/%s", hc.Namespace, hc.Name)
	}
	if _, err := status.Get(inNamespace("elsewhere"), "a", &metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("GET in another namespace: %v, want NotFound", err)
	}
	table, err := status.ConvertToTable(inNamespace("clusters"), got, nil)
	if err != nil || len(table.Rows) != 1 || table.Rows[0].Cells[0] != "a" {
		t.Errorf("table %+v, %v", table, err)
	}

	// A watch of b's node objects sees b's and only b's.
	w, err := nodes.Watch(inNamespace("clusters"), &metainternalversion.ListOptions{LabelSelector: ofB, ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	f.source.set(hostedSnapshot("a", 3, "a-workers", "m1", "m9"))
	f.source.set(hostedSnapshot("b", 4, "b-workers", "m1", "m2", "m3"))
	f.pub.Publish(map[string]bool{"clusters/a": true, "clusters/b": true}, false)
	want := []string{"ADDED b.m1", "ADDED b.m2", "ADDED b.m3"}
	var seen []string
	timeout := time.After(10 * time.Second)
	for len(seen) < len(want) {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == watch.Bookmark {
				continue
			}
			n, ok := cells.Unwrap(ev.Object).(*update.HostedNodeProgressInsight)
			if !ok {
				t.Fatalf("event %s of %T", ev.Type, ev.Object)
			}
			seen = append(seen, string(ev.Type)+" "+n.Name)
		case <-timeout:
			t.Fatalf("events %v, want %v", seen, want)
		}
	}
	slices.Sort(seen)
	if !slices.Equal(seen, want) {
		t.Errorf("events %v, want %v", seen, want)
	}
}

// TestWatchList: a watch-list of one hosted cluster's HostedClusterUpdateStatus
// in its namespace (client-go's WatchList) gets the object, then the
// bookmark that ends the initial events.
func TestWatchList(t *testing.T) {
	f := newFixture(t, "", hostedSnapshot("a", 1, "a-workers", "m1"), hostedSnapshot("b", 2, "b-workers", "m1"))
	status, _ := f.publishedRESTs(t)
	testio.Eventually(t, "the watch cache ready", func() bool { return status.ReadinessCheck() == nil })
	w := registrytest.WatchList(inNamespace("clusters"), t, status, metainternalversion.ListOptions{
		LabelSelector: labels.Everything(),
		FieldSelector: fields.OneTermEqualSelector("metadata.name", "b"),
	})
	var seen []string
	timeout := time.After(10 * time.Second)
	for len(seen) < 2 {
		select {
		case ev := <-w.ResultChan():
			m, err := meta.Accessor(cells.Unwrap(ev.Object))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Type == watch.Bookmark {
				seen = append(seen, "BOOKMARK "+m.GetAnnotations()[metav1.InitialEventsAnnotationKey])
				continue
			}
			seen = append(seen, string(ev.Type)+" "+m.GetNamespace()+"/"+m.GetName())
		case <-timeout:
			t.Fatalf("events %v", seen)
		}
	}
	if want := []string{"ADDED clusters/b", "BOOKMARK true"}; !slices.Equal(seen, want) {
		t.Errorf("events %v, want %v", seen, want)
	}
}
