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
	"errors"
	"net/http"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/update-status/apiserver/internal/localstack"
)

var updateStatuses = schema.GroupVersionResource{Group: "update.openshift.io", Version: "v1alpha1", Resource: "updatestatuses"}

// TestRBAC checks who may read UpdateStatus through the kube-apiserver.
func TestRBAC(t *testing.T) {
	tests := []struct {
		name     string
		user     *localstack.User
		wantCode int
	}{
		{"no credentials", nil, http.StatusUnauthorized},
		{"authenticated, no role", &cp.Users.Nobody, http.StatusForbidden},
		{"reader role", &cp.Users.Viewer, http.StatusOK},
		{"cluster-admin", &cp.Users.Admin, http.StatusOK},
	}
	verbs := []struct {
		verb string
		call func(ctx context.Context, t *testing.T, user *localstack.User) error
	}{
		{"get", func(ctx context.Context, t *testing.T, user *localstack.User) error {
			_, err := updateClient(t, user).UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
			return err
		}},
		{"list", func(ctx context.Context, t *testing.T, user *localstack.User) error {
			_, err := updateClient(t, user).UpdateV1alpha1().UpdateStatuses().List(ctx, metav1.ListOptions{})
			return err
		}},
		{"watch", func(ctx context.Context, t *testing.T, user *localstack.User) error {
			w, err := updateClient(t, user).UpdateV1alpha1().UpdateStatuses().Watch(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			defer w.Stop()
			select {
			case ev, ok := <-w.ResultChan():
				if !ok || ev.Object == nil {
					t.Errorf("the watch closed without an event")
				} else if s, isStatus := ev.Object.(*metav1.Status); isStatus {
					return &apierrors.StatusError{ErrStatus: *s}
				}
			case <-time.After(10 * time.Second):
				t.Errorf("no initial watch event within 10s")
			}
			return nil
		}},
	}
	for _, tt := range tests {
		for _, v := range verbs {
			t.Run(tt.name+"/"+v.verb, func(t *testing.T) {
				err := v.call(t.Context(), t, tt.user)
				if got := statusCode(err); got != tt.wantCode {
					t.Errorf("%s as %s: HTTP %d (%v), want %d", v.verb, tt.name, got, err, tt.wantCode)
				}
			})
		}
	}
}

// TestWritesAreNotAllowed: every write is refused, with 405 for a user whom
// RBAC would allow anything and 403 (RBAC, before the server) for the reader.
func TestWritesAreNotAllowed(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "update.openshift.io/v1alpha1", "kind": "UpdateStatus",
		"metadata": map[string]any{"name": statusName}, "spec": map[string]any{},
	}}
	writes := []struct {
		verb string
		do   func(ctx context.Context, ri dynamic.ResourceInterface) error
	}{
		{"create", func(ctx context.Context, ri dynamic.ResourceInterface) error {
			o := obj.DeepCopy()
			o.SetName("other")
			_, err := ri.Create(ctx, o, metav1.CreateOptions{})
			return err
		}},
		{"update", func(ctx context.Context, ri dynamic.ResourceInterface) error {
			o := obj.DeepCopy()
			o.SetResourceVersion("1")
			_, err := ri.Update(ctx, o, metav1.UpdateOptions{})
			return err
		}},
		{"merge patch", func(ctx context.Context, ri dynamic.ResourceInterface) error {
			_, err := ri.Patch(ctx, statusName, types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})
			return err
		}},
		{"json patch", func(ctx context.Context, ri dynamic.ResourceInterface) error {
			_, err := ri.Patch(ctx, statusName, types.JSONPatchType, []byte(`[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`), metav1.PatchOptions{})
			return err
		}},
		{"apply", func(ctx context.Context, ri dynamic.ResourceInterface) error {
			_, err := ri.Apply(ctx, statusName, obj, metav1.ApplyOptions{FieldManager: "it", Force: true})
			return err
		}},
		{"delete", func(ctx context.Context, ri dynamic.ResourceInterface) error {
			return ri.Delete(ctx, statusName, metav1.DeleteOptions{})
		}},
		{"deletecollection", func(ctx context.Context, ri dynamic.ResourceInterface) error {
			return ri.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		}},
	}
	users := []struct {
		name     string
		user     *localstack.User
		wantCode int
	}{
		{"cluster-admin", &cp.Users.Admin, http.StatusMethodNotAllowed},
		{"reader role", &cp.Users.Viewer, http.StatusForbidden},
	}
	for _, u := range users {
		dyn := clientFor(t, dynamic.NewForConfig, cp.RESTConfig(u.user))
		for _, w := range writes {
			t.Run(u.name+"/"+w.verb, func(t *testing.T) {
				err := w.do(t.Context(), dyn.Resource(updateStatuses))
				if got := statusCode(err); got != u.wantCode {
					t.Errorf("%s as %s: HTTP %d (%v), want %d", w.verb, u.name, got, err, u.wantCode)
				}
			})
		}
	}
	// The object is unchanged by all of this.
	us := getStatus(t.Context(), t)
	if us.Labels["a"] != "" {
		t.Errorf("a refused write left a label: %v", us.Labels)
	}
}

// statusCode is the HTTP status of a client error; 200 for nil, 0 when the
// error carries none.
func statusCode(err error) int {
	if err == nil {
		return http.StatusOK
	}
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		return int(s.Status().Code)
	}
	return 0
}
