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
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/simulator"
)

// The simulated cluster of the tests: 3 control-plane nodes and 2 workers,
// its update clusterSpeed times faster than a real one (a whole update in a
// few seconds), its timestamps read from the real clock.
const (
	clusterNodes = 5
	clusterSpeed = 2000
)

// newCluster creates the simulated cluster in control plane c, starts its
// update to simulator.DefaultToVersion and stops it as the first operators
// update, with every node still on the old configuration: a cluster in the
// middle of its update, which stays as it is until a test runs it on.
func newCluster(ctx context.Context, c *localstack.ControlPlane) (*simulator.Simulator, error) {
	sink, err := simulator.NewAPISink(c.RESTConfig(&c.Users.Admin), simulator.APISinkOptions{QPS: -1})
	if err != nil {
		return nil, err
	}
	sim, err := simulator.New(simulator.Options{Nodes: clusterNodes, ControlPlaneNodes: 3, Seed: 1, Speed: clusterSpeed, Sink: sink})
	if err != nil {
		return nil, err
	}
	if err := sim.RunUntil(ctx, func(r simulator.StepResult) bool { return r.Phase == simulator.PhaseOperators }); err != nil {
		return nil, fmt.Errorf("simulated cluster: %w", err)
	}
	return sim, nil
}

// workerNode is the name of the i-th worker node of the simulated cluster.
func workerNode(i int) string {
	return cluster.NodeNames("worker")[i]
}

// The OpenShift resources the tests change behind the simulator's back
// (and put back).
var (
	clusterVersions    = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusterversions"}
	clusterOperators   = schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}
	machineConfigPools = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}
)

// clusterDynamic is the admin's dynamic client of the shared control plane,
// built once.
var clusterDynamic = sync.OnceValues(func() (dynamic.Interface, error) {
	return dynamic.NewForConfig(cp.RESTConfig(&cp.Users.Admin))
})

// getObject reads a cluster-scoped object of gvr into a T (an openshift/api
// type).
func getObject[T any](ctx context.Context, gvr schema.GroupVersionResource, name string) (*T, error) {
	dyn, err := clusterDynamic()
	if err != nil {
		return nil, err
	}
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

// mutateObject reads the object, applies mutate and writes it back (its
// status subresource when status is true), retrying on conflicts. mutate
// returns false to skip the write.
func mutateObject[T any](ctx context.Context, gvr schema.GroupVersionResource, name string, status bool, mutate func(*T) bool) error {
	dyn, err := clusterDynamic()
	if err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj, err := getObject[T](ctx, gvr, name)
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
		if status {
			_, err = dyn.Resource(gvr).UpdateStatus(ctx, u, metav1.UpdateOptions{})
		} else {
			_, err = dyn.Resource(gvr).Update(ctx, u, metav1.UpdateOptions{})
		}
		return err
	})
}
