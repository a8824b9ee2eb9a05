package updatestatus

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/storage"

	"github.com/update-status/apiserver/pkg/apis/update"
)

func TestNotReady(t *testing.T) {
	h, clk := newTestHub(t, HubConfig{})
	r := NewREST(h, clk)
	// A revision computed before the caches synced is never served.
	rev := viewRevision(rv1, "4.17.1")
	rev.Synced = false
	h.Publish(rev)
	ctx := context.Background()
	_, getErr := r.Get(ctx, "cluster", &metav1.GetOptions{})
	_, listErr := r.List(ctx, &metainternalversion.ListOptions{})
	_, watchErr := r.Watch(ctx, &metainternalversion.ListOptions{})
	_, statusErr := NewStatusREST(h, clk).Get(ctx, "cluster", &metav1.GetOptions{})
	for name, err := range map[string]error{"get": getErr, "list": listErr, "watch": watchErr, "status": statusErr} {
		if !apierrors.IsTooManyRequests(err) {
			t.Errorf("%s: %v, want 429", name, err)
			continue
		}
		if s, ok := apierrors.SuggestsClientDelay(err); !ok || s < 1 {
			t.Errorf("%s: no Retry-After in %v", name, err)
		}
	}
	if err := h.CheckReady(); err == nil {
		t.Error("CheckReady passed before a synced revision")
	}
	h.Publish(viewRevision(rv2, "4.17.2"))
	if _, err := r.Get(ctx, "cluster", &metav1.GetOptions{}); err != nil {
		t.Errorf("after sync: %v", err)
	}
}

func TestGet(t *testing.T) {
	tests := []struct {
		name       string
		objName    string
		rv         string
		wantRV     string
		wantStatus func(error) bool
	}{
		{name: "cluster", objName: "cluster", wantRV: fmt.Sprint(rv4)},
		{name: "cluster at resourceVersion 0", objName: "cluster", rv: "0", wantRV: fmt.Sprint(rv4)},
		{name: "cluster not older than an old version", objName: "cluster", rv: fmt.Sprint(rv2), wantRV: fmt.Sprint(rv4)},
		{name: "another name", objName: "version", wantStatus: apierrors.IsNotFound},
		{name: "invalid resourceVersion", objName: "cluster", rv: "x", wantStatus: apierrors.IsBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := historyHub(t)
			obj, err := r.Get(context.Background(), tt.objName, &metav1.GetOptions{ResourceVersion: tt.rv})
			if tt.wantStatus != nil {
				if !tt.wantStatus(err) {
					t.Fatalf("error = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			us, ok := unwrap(obj).(*update.UpdateStatus)
			if !ok || us.Name != "cluster" || us.ResourceVersion != tt.wantRV {
				t.Fatalf("got %#v", unwrap(obj))
			}
		})
	}
}

func TestGetOfAnUnchangedStatusSharesOneObject(t *testing.T) {
	_, r := historyHub(t)
	a, err := r.Get(context.Background(), "cluster", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Get(context.Background(), "cluster", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("two GETs of an unchanged status returned different objects")
	}
	s, err := NewStatusREST(r.hub, nil).Get(context.Background(), "cluster", nil)
	if err != nil || s != a {
		t.Fatalf("status subresource: %v, same object %v", err, s == a)
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		name      string
		opts      *metainternalversion.ListOptions
		wantItems int
		wantRV    string
		wantErr   func(error) bool
	}{
		{name: "no options", opts: nil, wantItems: 1, wantRV: fmt.Sprint(rv4)},
		{name: "everything", opts: &metainternalversion.ListOptions{}, wantItems: 1, wantRV: fmt.Sprint(rv4)},
		{name: "field selector on the name", opts: &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "cluster")}, wantItems: 1, wantRV: fmt.Sprint(rv4)},
		{name: "field selector on another name", opts: &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "x")}, wantItems: 0, wantRV: fmt.Sprint(rv4)},
		{name: "field selector excluding the name", opts: &metainternalversion.ListOptions{FieldSelector: fields.OneTermNotEqualSelector("metadata.name", "cluster")}, wantItems: 0, wantRV: fmt.Sprint(rv4)},
		{name: "label selector matching nothing", opts: &metainternalversion.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"app": "x"})}, wantItems: 0, wantRV: fmt.Sprint(rv4)},
		{name: "label selector on an absent label", opts: &metainternalversion.ListOptions{LabelSelector: mustSelector(t, "!app")}, wantItems: 1, wantRV: fmt.Sprint(rv4)},
		{name: "limit is honoured trivially", opts: &metainternalversion.ListOptions{Limit: 1}, wantItems: 1, wantRV: fmt.Sprint(rv4)},
		{name: "not older than", opts: &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv2), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, wantItems: 1, wantRV: fmt.Sprint(rv4)},
		{name: "exact, retained", opts: &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv2), ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantItems: 1, wantRV: fmt.Sprint(rv2)},
		{name: "exact, current", opts: &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv4), ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantItems: 1, wantRV: fmt.Sprint(rv4)},
		{name: "exact, not retained", opts: &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv1), ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantErr: apierrors.IsResourceExpired},
		{name: "exact, never published", opts: &metainternalversion.ListOptions{ResourceVersion: "2500000", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantErr: apierrors.IsResourceExpired},
		{name: "continue", opts: &metainternalversion.ListOptions{Continue: "abc"}, wantErr: apierrors.IsBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := historyHub(t)
			obj, err := r.List(context.Background(), tt.opts)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("error = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			list := obj.(*update.UpdateStatusList)
			if len(list.Items) != tt.wantItems || list.ResourceVersion != tt.wantRV {
				t.Fatalf("got %d items at %q, want %d at %q", len(list.Items), list.ResourceVersion, tt.wantItems, tt.wantRV)
			}
			if tt.wantItems == 1 && list.Items[0].ResourceVersion != tt.wantRV {
				t.Fatalf("item at %q, list at %q", list.Items[0].ResourceVersion, list.ResourceVersion)
			}
		})
	}
}

func TestListTooNew(t *testing.T) {
	h, clk := newTestHub(t, HubConfig{})
	h.Publish(viewRevision(rv1, "4.17.1"))
	r := NewREST(h, clk)
	errc := make(chan error, 1)
	go func() {
		_, err := r.List(context.Background(), &metainternalversion.ListOptions{ResourceVersion: fmt.Sprint(rv2)})
		errc <- err
	}()
	waitForWaiters(t, clk, 1)
	clk.Step(DefaultFreshnessTimeout)
	if err := <-errc; !storage.IsTooLargeResourceVersion(err) {
		t.Fatalf("error = %v", err)
	}
}

func TestStorageMetadata(t *testing.T) {
	r := NewREST(nil, nil)
	if r.NamespaceScoped() || r.GetSingularName() != "updatestatus" || len(r.ShortNames()) != 1 || r.ShortNames()[0] != "us" {
		t.Errorf("scope %v, singular %q, short names %v", r.NamespaceScoped(), r.GetSingularName(), r.ShortNames())
	}
	if _, ok := r.New().(*update.UpdateStatus); !ok {
		t.Errorf("New() = %T", r.New())
	}
	if _, ok := r.NewList().(*update.UpdateStatusList); !ok {
		t.Errorf("NewList() = %T", r.NewList())
	}
	s := NewStatusREST(nil, nil)
	if s.NamespaceScoped() {
		t.Error("status is namespaced")
	}
	if _, ok := s.New().(*update.UpdateStatus); !ok {
		t.Errorf("status New() = %T", s.New())
	}
}

func mustSelector(t *testing.T, s string) labels.Selector {
	t.Helper()
	sel, err := labels.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}
