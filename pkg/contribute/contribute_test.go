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

package contribute

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	updatev1alpha1 "github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
)

var start = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

func healthInsight(uid string) updatev1alpha1.ControlPlaneInsight {
	return updatev1alpha1.ControlPlaneInsight{
		UID:        uid,
		AcquiredAt: metav1.NewTime(start),
		Insight: updatev1alpha1.ControlPlaneInsightUnion{
			Type: updatev1alpha1.HealthInsightType,
			HealthInsight: &updatev1alpha1.HealthStatusInsight{
				StartedAt: metav1.NewTime(start),
				Scope:     updatev1alpha1.InsightScope{Type: updatev1alpha1.ControlPlaneScope},
				Impact: updatev1alpha1.InsightImpact{
					Level:   updatev1alpha1.WarningImpactLevel,
					Type:    updatev1alpha1.UpdateSpeedImpactType,
					Summary: "slow",
				},
			},
		},
	}
}

func TestNewRefuses(t *testing.T) {
	client := newFake().InformersV1alpha1()
	tests := []struct {
		name, namespace, informer string
		opts                      []Option
		want                      string
	}{
		{"namespace", "Not_A_Namespace", "demo", nil, `namespace "Not_A_Namespace"`},
		{"name", "default", "Demo!", nil, `name "Demo!"`},
		{"built-in", "default", "cpi", nil, `"cpi" is a built-in informer's`},
		{"too long", "default", strings.Repeat("a", 60), nil, "longer than 63 characters"},
		{"short lease", "default", "demo", []Option{WithLease(500 * time.Millisecond)}, "lease 500ms"},
		{"long lease", "default", "demo", []Option{WithLease(25 * time.Hour)}, "lease 25h0m0s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(client, kubefake.NewClientset(), tc.namespace, tc.informer, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	ctx := t.Context()
	cs := newFake()
	clk := clocktesting.NewFakeClock(start)
	c, err := New(cs.InformersV1alpha1(), kubefake.NewClientset(), "ns", "demo", WithLease(90*time.Second), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.InformerName(); got != "demo.ns" {
		t.Errorf("InformerName = %q", got)
	}
	pools := []informersv1alpha1.WorkerPoolContribution{{Name: "worker"}}
	c.Set([]updatev1alpha1.ControlPlaneInsight{healthInsight("a")}, pools)
	pools[0].Name = "changed after Set"

	if err := c.Write(ctx); err != nil {
		t.Fatal(err)
	}
	got := get(t, cs, "ns", "demo")
	if *got.Spec.LeaseDurationSeconds != 90 || !got.Spec.RenewTime.Time.Equal(start) {
		t.Errorf("lease %d, renewTime %v; want 90 and %v", *got.Spec.LeaseDurationSeconds, got.Spec.RenewTime, start)
	}
	if n := len(got.Spec.ControlPlane.Insights); n != 1 || got.Spec.WorkerPools[0].Name != "worker" {
		t.Errorf("spec = %+v", got.Spec)
	}

	// A renewal moves renewTime only; a Set with nothing clears the lists.
	clk.Step(30 * time.Second)
	if err := c.Write(ctx); err != nil {
		t.Fatal(err)
	}
	got = get(t, cs, "ns", "demo")
	if !got.Spec.RenewTime.Time.Equal(start.Add(30*time.Second)) || len(got.Spec.ControlPlane.Insights) != 1 {
		t.Errorf("after renewal: %+v", got.Spec)
	}
	c.Set(nil, nil)
	if err := c.Write(ctx); err != nil {
		t.Fatal(err)
	}
	if got = get(t, cs, "ns", "demo"); got.Spec.ControlPlane != nil || got.Spec.WorkerPools != nil {
		t.Errorf("after Set(nil, nil): %+v", got.Spec)
	}
}

func TestWriteRetriesOnConflict(t *testing.T) {
	existing := &informersv1alpha1.UpdateInformer{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "demo"}}
	cs := newFake(existing)
	var updates atomic.Int32
	cs.PrependReactor("update", "updateinformers", func(clienttesting.Action) (bool, runtime.Object, error) {
		if updates.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(informersv1alpha1.Resource("updateinformers"), "demo", errors.New("stale"))
		}
		return false, nil, nil
	})
	c, err := New(cs.InformersV1alpha1(), kubefake.NewClientset(), "ns", "demo")
	if err != nil {
		t.Fatal(err)
	}
	c.Set([]updatev1alpha1.ControlPlaneInsight{healthInsight("a")}, nil)
	if err := c.Write(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := updates.Load(); n != 2 {
		t.Errorf("%d updates, want 2 (a conflict, then the retry)", n)
	}
	if got := get(t, cs, "ns", "demo"); got.Spec.ControlPlane == nil {
		t.Errorf("spec not written: %+v", got.Spec)
	}
}

func TestWriteFails(t *testing.T) {
	cs := newFake()
	cs.PrependReactor("create", "updateinformers", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(informersv1alpha1.Resource("updateinformers"), "demo", errors.New("no"))
	})
	c, err := New(cs.InformersV1alpha1(), kubefake.NewClientset(), "ns", "demo")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(t.Context()); !apierrors.IsForbidden(err) {
		t.Fatalf("Write: %v, want Forbidden", err)
	}
}

func TestNewNeedsBothClients(t *testing.T) {
	if _, err := New(newFake().InformersV1alpha1(), nil, "ns", "demo"); err == nil {
		t.Error("New without a Kubernetes client: no error")
	}
}

func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cs, kube := newFake(), kubefake.NewClientset()
	// The fake clientset sets no uid; the Lease's owner reference needs one.
	cs.PrependReactor("create", "updateinformers", func(a clienttesting.Action) (bool, runtime.Object, error) {
		a.(clienttesting.CreateAction).GetObject().(*informersv1alpha1.UpdateInformer).UID = "uid-1"
		return false, nil, nil
	})
	clk := clocktesting.NewFakeClock(start)
	// A lease of 3 s: the Lease is renewed every second of real time.
	c, err := New(cs.InformersV1alpha1(), kube, "ns", "demo", WithLease(3*time.Second), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	c.Set([]updatev1alpha1.ControlPlaneInsight{healthInsight("a")}, nil)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	waitFor(t, "the first write", func() bool { _, ok := tryGet(cs, "ns", "demo"); return ok })
	ui := get(t, cs, "ns", "demo")
	if !ui.Spec.RenewTime.Time.Equal(start) {
		t.Errorf("renewTime %v, want %v", ui.Spec.RenewTime, start)
	}
	waitFor(t, "the companion Lease", func() bool { _, ok := tryLease(kube, "ns", "demo"); return ok })
	l, _ := tryLease(kube, "ns", "demo")
	if l.Labels[informersv1alpha1.LeaseLabel] != "demo" || *l.Spec.HolderIdentity != "demo.ns" || *l.Spec.LeaseDurationSeconds != 3 ||
		len(l.OwnerReferences) != 1 || l.OwnerReferences[0].UID != "uid-1" || ui.UID != "uid-1" || l.OwnerReferences[0].Kind != informersv1alpha1.KindUpdateInformer {
		t.Errorf("Lease %+v", l)
	}

	for _, a := range cs.Actions() {
		if a.GetVerb() == "update" {
			t.Errorf("the object was written twice at the start (a Set before Run): %v", a)
		}
	}

	// Renewals go to the Lease; the object is not written again.
	clk.Step(20 * time.Second)
	waitFor(t, "a renewal of the Lease", func() bool {
		l, ok := tryLease(kube, "ns", "demo")
		return ok && l.Spec.RenewTime.Time.Equal(start.Add(20*time.Second))
	})
	if got := get(t, cs, "ns", "demo"); got.ResourceVersion != ui.ResourceVersion {
		t.Errorf("the object was written again by a renewal: resourceVersion %s, was %s", got.ResourceVersion, ui.ResourceVersion)
	}
	c.Set([]updatev1alpha1.ControlPlaneInsight{healthInsight("a"), healthInsight("b")}, nil)
	waitFor(t, "the write of a Set", func() bool {
		ui, ok := tryGet(cs, "ns", "demo")
		return ok && ui.Spec.ControlPlane != nil && len(ui.Spec.ControlPlane.Insights) == 2 &&
			ui.Spec.RenewTime.Time.Equal(start.Add(20*time.Second))
	})

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, ok := tryGet(cs, "ns", "demo"); ok {
		t.Error("the object is still there after Run returned")
	}
	if _, ok := tryLease(kube, "ns", "demo"); ok {
		t.Error("the Lease is still there after Run returned")
	}
}

// TestRunRetriesAFailedWrite: a write that fails is retried at the next
// third of the lease, not only at the next Set.
func TestRunRetriesAFailedWrite(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cs := newFake()
	var creates atomic.Int32
	cs.PrependReactor("create", "updateinformers", func(clienttesting.Action) (bool, runtime.Object, error) {
		if creates.Add(1) == 1 {
			return true, nil, apierrors.NewServiceUnavailable("busy")
		}
		return false, nil, nil
	})
	clk := clocktesting.NewFakeClock(start)
	c, err := New(cs.InformersV1alpha1(), kubefake.NewClientset(), "ns", "demo", WithLease(time.Minute), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, "the first, failed, write", func() bool { return creates.Load() == 1 })
	waitFor(t, "the retry ticker", clk.HasWaiters)
	clk.Step(20 * time.Second)
	waitFor(t, "the retried write", func() bool { _, ok := tryGet(cs, "ns", "demo"); return ok })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestWithdrawAbsent(t *testing.T) {
	c, err := New(newFake().InformersV1alpha1(), kubefake.NewClientset(), "ns", "demo")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Withdraw(t.Context()); err != nil {
		t.Fatalf("Withdraw of an absent object: %v", err)
	}
}

// newFake is the fake clientset of these tests. It is the simple one:
// NewClientset's field-managed tracker needs the OpenAPI schema of the type,
// which is not generated for informers.update.openshift.io (a CRD, whose
// schema is the CRD's).
func newFake(objs ...runtime.Object) *fake.Clientset {
	return fake.NewSimpleClientset(objs...)
}

func tryGet(cs *fake.Clientset, namespace, name string) (*informersv1alpha1.UpdateInformer, bool) {
	ui, err := cs.InformersV1alpha1().UpdateInformers(namespace).Get(context.Background(), name, metav1.GetOptions{})
	return ui, err == nil
}

func tryLease(kube *kubefake.Clientset, namespace, name string) (*coordinationv1.Lease, bool) {
	l, err := kube.CoordinationV1().Leases(namespace).Get(context.Background(), name, metav1.GetOptions{})
	return l, err == nil
}

func get(t *testing.T, cs *fake.Clientset, namespace, name string) *informersv1alpha1.UpdateInformer {
	t.Helper()
	ui, err := cs.InformersV1alpha1().UpdateInformers(namespace).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ui
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}
