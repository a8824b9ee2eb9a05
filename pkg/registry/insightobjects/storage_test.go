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

package insightobjects

import (
	"context"
	"testing"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/install"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/view"
)

func nodeObject(name, pool, scope string) *update.NodeProgressInsight {
	return &update.NodeProgressInsight{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "5",
		Labels: map[string]string{v1alpha1.LabelPool: pool, v1alpha1.LabelScope: scope, v1alpha1.LabelInformer: "mco"}}}
}

func TestNamesAndStores(t *testing.T) {
	stores, err := NewStores(scheme)
	if err != nil {
		t.Fatal(err)
	}
	kinds, err := kindsOf(scheme, false)
	if err != nil {
		t.Fatal(err)
	}
	for k := resources.InsightKind(0); k < resources.NumInsightKinds; k++ {
		if kinds[k].Names != k.Names() || kinds[k].table.Columns == nil {
			t.Errorf("%s: names %+v, table %v", k.Kind(), kinds[k].Names, kinds[k].table)
		}
		if got := kinds[k].New(); runtimeKind(t, got) != k.Kind() {
			t.Errorf("%s: New() is a %s", k.Kind(), runtimeKind(t, got))
		}
		if got := kinds[k].NewList(); runtimeKind(t, got) != k.Kind()+"List" {
			t.Errorf("%s: NewList() is a %s", k.Kind(), runtimeKind(t, got))
		}
		if stores[k] == nil || stores[k].Ready() {
			t.Errorf("%s: store %v", k.Kind(), stores[k])
		}
	}
}

var scheme = install.NewScheme()

func runtimeKind(t *testing.T, obj runtime.Object) string {
	t.Helper()
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	return gvks[0].Kind
}

// TestSelectors: the registry's default attributes give metadata.name and
// the labels to selectors.
func TestSelectors(t *testing.T) {
	stores, err := NewStores(scheme)
	if err != nil {
		t.Fatal(err)
	}
	var changes [resources.NumInsightKinds]view.Changes
	changes[resources.NodeInsights].Changed = []runtime.Object{
		nodeObject("master-0", "master", "ControlPlane"),
		nodeObject("worker-0", "worker", "WorkerPool"),
		nodeObject("worker-1", "worker", "WorkerPool"),
	}
	if err := stores.Publish(5, &changes, true); err != nil {
		t.Fatal(err)
	}
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(v1alpha1.SchemeGroupVersion)
	rests, err := NewREST(stores, scheme, codec, clocktesting.NewFakePassiveClock(t0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, r := range rests {
			r.Destroy()
		}
	})
	nodes := rests[resources.NodeInsights]
	// The watch cache serves once it has listed the store.
	testio.Eventually(t, "the watch cache to be ready", func() bool { return nodes.ReadinessCheck() == nil })
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: "list"})
	tests := []struct {
		name, label, field string
		want               []string
	}{
		{name: "all", want: []string{"master-0", "worker-0", "worker-1"}},
		{name: "pool", label: v1alpha1.LabelPool + "=worker", want: []string{"worker-0", "worker-1"}},
		{name: "scope", label: v1alpha1.LabelScope + "=ControlPlane", want: []string{"master-0"}},
		{name: "name", field: "metadata.name=worker-1", want: []string{"worker-1"}},
		{name: "pool and name", label: v1alpha1.LabelPool + "=worker", field: "metadata.name=master-0", want: nil},
		{name: "not a name", field: "metadata.name!=worker-1", want: []string{"master-0", "worker-0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &metainternalversion.ListOptions{}
			if tt.label != "" {
				sel, err := labels.Parse(tt.label)
				if err != nil {
					t.Fatal(err)
				}
				opts.LabelSelector = sel
			}
			if tt.field != "" {
				sel, err := fields.ParseSelector(tt.field)
				if err != nil {
					t.Fatal(err)
				}
				opts.FieldSelector = sel
			}
			obj, err := nodes.List(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, item := range obj.(*update.NodeProgressInsightList).Items {
				got = append(got, item.Name)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
	if obj, err := nodes.Get(ctx, "worker-0", &metav1.GetOptions{}); err != nil || obj.(*update.NodeProgressInsight).Labels[v1alpha1.LabelPool] != "worker" {
		t.Errorf("get: %v %v", obj, err)
	}
}
