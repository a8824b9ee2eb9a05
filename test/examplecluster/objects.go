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

package examplecluster

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
)

// The OpenShift resources the cluster consists of (besides Nodes and the
// Deployment, which go through the typed Kubernetes clientset).
var (
	ClusterVersions    = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}
	ClusterOperators   = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}
	MachineConfigPools = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}
	MachineConfigs     = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
)

// Get reads a cluster-scoped object of gvr into a T (an openshift/api type).
func Get[T any](ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, name string) (*T, error) {
	u, err := dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return nil, fmt.Errorf("%s %s: %w", gvr.Resource, name, err)
	}
	return out, nil
}

// List reads every object of gvr into Ts.
func List[T any](ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource) ([]T, error) {
	l, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]T, len(l.Items))
	for i := range l.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(l.Items[i].Object, &out[i]); err != nil {
			return nil, fmt.Errorf("%s %s: %w", gvr.Resource, l.Items[i].GetName(), err)
		}
	}
	return out, nil
}

// Mutate reads the object, applies mutate and writes it back (its status
// subresource when status is true), retrying on conflicts. mutate returns
// false to skip the write.
func Mutate[T any](ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, name string, status bool, mutate func(*T) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj, err := Get[T](ctx, dyn, gvr, name)
		if err != nil {
			return err
		}
		if !mutate(obj) {
			return nil
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{Object: m}
		ri := dyn.Resource(gvr)
		if status {
			_, err = ri.UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: fieldManager})
		} else {
			_, err = ri.Update(ctx, u, metav1.UpdateOptions{FieldManager: fieldManager})
		}
		return err
	})
}

// Create creates obj (an openshift/api object with TypeMeta set) unless an
// object of that name exists.
func Create(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, obj any) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	_, err = dyn.Resource(gvr).Create(ctx, &unstructured.Unstructured{Object: m}, metav1.CreateOptions{FieldManager: fieldManager})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

const fieldManager = "update-status-example-driver"
