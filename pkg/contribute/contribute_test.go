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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
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
			_, err := New(client, tc.namespace, tc.informer, tc.opts...)
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
	c, err := New(cs.InformersV1alpha1(), "ns", "demo", WithLease(90*time.Second), WithClock(clk))
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
	c, err := New(cs.InformersV1alpha1(), "ns", "demo")
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
	c, err := New(cs.InformersV1alpha1(), "ns", "demo")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(t.Context()); !apierrors.IsForbidden(err) {
		t.Fatalf("Write: %v, want Forbidden", err)
	}
}

func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cs := newFake()
	clk := clocktesting.NewFakeClock(start)
	c, err := New(cs.InformersV1alpha1(), "ns", "demo", WithLease(60*time.Second), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()

	waitFor(t, "the first write", func() bool { _, ok := tryGet(cs, "ns", "demo"); return ok })
	waitFor(t, "the renewal ticker", clk.HasWaiters)
	clk.Step(20 * time.Second)
	waitFor(t, "a renewal", func() bool {
		ui, ok := tryGet(cs, "ns", "demo")
		return ok && ui.Spec.RenewTime.Time.Equal(start.Add(20*time.Second))
	})
	c.Set([]updatev1alpha1.ControlPlaneInsight{healthInsight("a"), healthInsight("b")}, nil)
	waitFor(t, "the write of a Set", func() bool {
		ui, ok := tryGet(cs, "ns", "demo")
		return ok && ui.Spec.ControlPlane != nil && len(ui.Spec.ControlPlane.Insights) == 2
	})

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, ok := tryGet(cs, "ns", "demo"); ok {
		t.Error("the object is still there after Run returned")
	}
}

func TestWithdrawAbsent(t *testing.T) {
	c, err := New(newFake().InformersV1alpha1(), "ns", "demo")
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
