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

package web

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
)

// hostedObjects returns the scenario's status and per-insight objects as
// those of the hosted cluster ns/name: its HostedClusterUpdateStatus and
// its hosted per-insight objects, labelled with its name.
func hostedObjects(t *testing.T, ns, name string) (*v1alpha1.UpdateStatus, []runtime.Object) {
	t.Helper()
	us, objs := computed(t)
	meta := func(m metav1.ObjectMeta) metav1.ObjectMeta {
		m.Namespace, m.Name = ns, name+"-"+m.Name
		l := map[string]string{v1alpha1.LabelHostedCluster: name}
		for k, v := range m.Labels {
			l[k] = v
		}
		m.Labels = l
		return m
	}
	out := []runtime.Object{&v1alpha1.HostedClusterUpdateStatus{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: "1"}, Status: us.Status}}
	for _, o := range objs {
		switch o := o.(type) {
		case *v1alpha1.NodeProgressInsight:
			out = append(out, &v1alpha1.HostedNodeProgressInsight{ObjectMeta: meta(o.ObjectMeta), Status: o.Status})
		case *v1alpha1.MachineConfigPoolProgressInsight:
			out = append(out, &v1alpha1.HostedMachineConfigPoolProgressInsight{ObjectMeta: meta(o.ObjectMeta), Status: o.Status})
		case *v1alpha1.ClusterVersionProgressInsight:
			out = append(out, &v1alpha1.HostedClusterVersionProgressInsight{ObjectMeta: meta(o.ObjectMeta), Status: o.Status})
		case *v1alpha1.ClusterOperatorProgressInsight:
			out = append(out, &v1alpha1.HostedClusterOperatorProgressInsight{ObjectMeta: meta(o.ObjectMeta), Status: o.Status})
		case *v1alpha1.HealthInsight:
			out = append(out, &v1alpha1.HostedHealthInsight{ObjectMeta: meta(o.ObjectMeta), Status: o.Status})
		default:
			t.Fatalf("unexpected %T", o)
		}
	}
	return us, out
}

// newHostedFake returns a fake management cluster serving objs, whose
// discovery lists HostedClusterUpdateStatus, and the hosted per-insight
// resources when insights is true.
func newHostedFake(insights bool, objs ...runtime.Object) *fake.Clientset {
	c := fake.NewSimpleClientset(objs...)
	served := []metav1.APIResource{{Name: resources.HostedClusterUpdateStatus.Resource, Kind: resources.HostedClusterUpdateStatus.Kind, Namespaced: true}}
	if insights {
		for k := range resources.NumInsightKinds {
			served = append(served, metav1.APIResource{Name: k.Hosted().Resource, Kind: k.Hosted().Kind, Namespaced: true})
		}
	}
	c.Resources = []*metav1.APIResourceList{{GroupVersion: v1alpha1.SchemeGroupVersion.String(), APIResources: served}}
	return c
}

// TestHostedClusterPage: with Options.HostedCluster the page shows that
// hosted cluster, from its hosted per-insight objects or from its
// HostedClusterUpdateStatus, and nothing of another hosted cluster in the
// same namespace or of the standalone cluster.
func TestHostedClusterPage(t *testing.T) {
	us, demo := hostedObjects(t, "clusters", "demo")
	want := expectedPools(us)
	// Another hosted cluster of the namespace, with a status of its own and
	// nodes of other names, and a standalone cluster's status.
	_, other := hostedObjects(t, "clusters", "other")
	other[0].(*v1alpha1.HostedClusterUpdateStatus).Status = v1alpha1.UpdateStatusStatus{}
	for _, o := range other[1:] {
		if n, ok := o.(*v1alpha1.HostedNodeProgressInsight); ok {
			n.Status.Name = "other-" + n.Status.Name
		}
	}
	objs := append(append(demo, other...), &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: resources.UpdateStatusName}})
	key := types.NamespacedName{Namespace: "clusters", Name: "demo"}

	for _, tc := range []struct {
		source   string
		insights bool
	}{
		{SourceHostedInsights, true},
		{SourceHostedStatus, false},
	} {
		t.Run(tc.source, func(t *testing.T) {
			client := newHostedFake(tc.insights, objs...)
			var listed []string
			client.PrependReactor("list", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
				l := a.(clienttesting.ListActionImpl)
				listed = append(listed, l.GetResource().Resource)
				if l.GetNamespace() != key.Namespace {
					t.Errorf("listed %s in namespace %q, want %q", l.GetResource().Resource, l.GetNamespace(), key.Namespace)
				}
				return false, nil, nil
			})
			_, srv := started(t, Options{Client: client, HostedCluster: key})
			settled(t, srv)
			snap := state(t, srv, "synced", func(s *Snapshot) bool { return s.Synced && len(s.Nodes) > 0 })
			if snap.Source != tc.source {
				t.Errorf("source %q, want %q", snap.Source, tc.source)
			}
			if snap.HostedCluster == nil || *snap.HostedCluster != (HostedCluster{Namespace: "clusters", Name: "demo"}) {
				t.Errorf("hostedCluster %+v, want clusters/demo", snap.HostedCluster)
			}
			if got := poolCounts(snap); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("pools by state:\n got %v\nwant %v", got, want)
			}
			for _, n := range snap.Nodes {
				if strings.HasPrefix(n.Name, "other-") {
					t.Errorf("node %s of another hosted cluster shown", n.Name)
				}
			}
			if cp := snap.ControlPlane; cp == nil || cp.Target != "4.14.1" || cp.Operators.Total == 0 {
				t.Errorf("control plane: %+v", cp)
			}
			if len(snap.Errors) != 0 {
				t.Errorf("errors: %+v", snap.Errors)
			}
			for _, r := range listed {
				if !strings.HasPrefix(r, "hosted") {
					t.Errorf("listed %s, a standalone resource", r)
				}
			}
		})
	}
}

// TestHostedInsightsForbiddenFallsBack: a user who may read the hosted
// cluster's HostedClusterUpdateStatus and not its hosted per-insight
// objects gets the page from the former.
func TestHostedInsightsForbiddenFallsBack(t *testing.T) {
	_, objs := hostedObjects(t, "clusters", "demo")
	client := newHostedFake(true, objs...)
	client.PrependReactor("list", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetResource().Resource == resources.HostedClusterUpdateStatus.Resource {
			return false, nil, nil
		}
		gr := schema.GroupResource{Group: v1alpha1.GroupName, Resource: a.GetResource().Resource}
		return true, nil, apierrors.NewForbidden(gr, "", fmt.Errorf("User \"reader\" cannot list resource %q", gr.Resource))
	})
	_, srv := started(t, Options{Client: client, HostedCluster: types.NamespacedName{Namespace: "clusters", Name: "demo"}})
	s := state(t, srv, "synced from hostedclusterupdatestatuses", func(s *Snapshot) bool { return s.Synced && len(s.Nodes) > 0 })
	if s.Source != SourceHostedStatus || len(s.Errors) != 0 {
		t.Errorf("source %q, errors %+v; want %q and none", s.Source, s.Errors, SourceHostedStatus)
	}
}

// TestStandaloneSnapshotNamesNoHostedCluster: the standalone page's state
// is what it was: no hostedCluster field.
func TestStandaloneSnapshotNamesNoHostedCluster(t *testing.T) {
	us, _ := computed(t)
	_, srv := started(t, Options{Client: newFake(false, us)})
	state(t, srv, "synced", func(s *Snapshot) bool { return s.Synced && len(s.Nodes) > 0 })
	resp, err := http.Get(srv.URL + "/state.json")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "hostedCluster") {
		t.Errorf("the standalone state names a hosted cluster: %.300s", body)
	}
}
