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

package simulator

import (
	"context"
	"fmt"
	"sync/atomic"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"
)

// APISinkOptions bound the load an APISink puts on the API server.
type APISinkOptions struct {
	// QPS bounds the request rate of all clients together (requests per
	// second); zero or less means unbounded. It also becomes the clients'
	// own rest.Config QPS.
	QPS float64
	// Burst is the number of requests allowed at once above QPS; zero means
	// max(1, QPS).
	Burst int
	// Workers is the number of concurrent requests; zero means 16.
	Workers int
}

// APISink writes the simulated objects through the Kubernetes and OpenShift
// clients like the real operators: objects with Create/Update, statuses with
// UpdateStatus (the status subresource). An object left by an earlier run is
// taken over (updated) instead of failing. It is safe for concurrent use.
type APISink struct {
	// dynamic and mapper write *unstructured.Unstructured objects (custom
	// resources such as HyperShift's); nil for NewAPISinkForClients.
	dynamic  dynamic.Interface
	mapper   meta.RESTMapper
	kube     kubernetes.Interface
	config   configclient.Interface
	mcfg     mcfgclient.Interface
	limiter  *rate.Limiter
	workers  int
	requests atomic.Int64
}

var _ Sink = (*APISink)(nil)
var _ RequestCounter = (*APISink)(nil)

// NewAPISink builds the clients from cfg. cfg is copied; its QPS and Burst
// are set from o.
func NewAPISink(cfg *rest.Config, o APISinkOptions) (*APISink, error) {
	if cfg == nil {
		return nil, fmt.Errorf("simulator: nil rest config")
	}
	o = o.completed()
	c := rest.CopyConfig(cfg)
	if o.QPS > 0 {
		c.QPS, c.Burst = float32(o.QPS), o.Burst
	} else {
		c.QPS = -1 // no client-side rate limiting
	}
	if c.UserAgent == "" {
		c.UserAgent = "update-simulator"
	}
	kube, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	config, err := configclient.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("config.openshift.io client: %w", err)
	}
	mcfg, err := mcfgclient.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("machineconfiguration.openshift.io client: %w", err)
	}
	s := NewAPISinkForClients(kube, config, mcfg, o)
	if s.dynamic, err = dynamic.NewForConfig(c); err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	s.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))
	return s, nil
}

// NewAPISinkForClients returns a sink that uses the given clients (fake
// clientsets in tests).
func NewAPISinkForClients(kube kubernetes.Interface, config configclient.Interface, mcfg mcfgclient.Interface, o APISinkOptions) *APISink {
	o = o.completed()
	s := &APISink{kube: kube, config: config, mcfg: mcfg, workers: o.Workers}
	if o.QPS > 0 {
		s.limiter = rate.NewLimiter(rate.Limit(o.QPS), o.Burst)
	}
	return s
}

func (o APISinkOptions) completed() APISinkOptions {
	if o.Burst <= 0 {
		o.Burst = max(1, int(o.QPS))
	}
	if o.Workers <= 0 {
		o.Workers = 16
	}
	return o
}

// Requests implements RequestCounter.
func (s *APISink) Requests() int64 { return s.requests.Load() }

// Write implements Sink: the changes of each kind are written concurrently,
// the kinds one after another in the batch's order.
func (s *APISink) Write(ctx context.Context, b *Batch) error {
	for start := 0; start < len(b.Changes); {
		end := start
		for end < len(b.Changes) && kindRank(b.Changes[end].Object) == kindRank(b.Changes[start].Object) {
			end++
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(s.workers)
		for _, ch := range b.Changes[start:end] {
			g.Go(func() error { return s.apply(gctx, ch) })
		}
		if err := g.Wait(); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// wait takes one request from the rate budget.
func (s *APISink) wait(ctx context.Context) error {
	s.requests.Add(1)
	if s.limiter == nil {
		return ctx.Err()
	}
	return s.limiter.Wait(ctx)
}

// apply writes one change with the client of its kind.
func (s *APISink) apply(ctx context.Context, ch Change) error {
	switch obj := ch.Object.(type) {
	case *corev1.Namespace:
		return writeObject(ctx, s, specOps[*corev1.Namespace](s.kube.CoreV1().Namespaces()), obj, ch)
	case *corev1.Node:
		return writeObject(ctx, s, statusOps(s.kube.CoreV1().Nodes(), func(dst, src *corev1.Node) {
			src.Status.DeepCopyInto(&dst.Status)
		}), obj, ch)
	case *appsv1.Deployment:
		return writeObject(ctx, s, statusOps(s.kube.AppsV1().Deployments(obj.Namespace), func(dst, src *appsv1.Deployment) {
			src.Status.DeepCopyInto(&dst.Status)
			dst.Status.ObservedGeneration = dst.Generation
		}), obj, ch)
	case *configv1.ClusterVersion:
		return writeObject(ctx, s, statusOps(s.config.ConfigV1().ClusterVersions(), func(dst, src *configv1.ClusterVersion) {
			src.Status.DeepCopyInto(&dst.Status)
			dst.Status.ObservedGeneration = dst.Generation
		}), obj, ch)
	case *configv1.ClusterOperator:
		return writeObject(ctx, s, statusOps(s.config.ConfigV1().ClusterOperators(), func(dst, src *configv1.ClusterOperator) {
			src.Status.DeepCopyInto(&dst.Status)
		}), obj, ch)
	case *mcfgv1.MachineConfigPool:
		return writeObject(ctx, s, statusOps(s.mcfg.MachineconfigurationV1().MachineConfigPools(), func(dst, src *mcfgv1.MachineConfigPool) {
			src.Status.DeepCopyInto(&dst.Status)
			dst.Status.ObservedGeneration = dst.Generation
		}), obj, ch)
	case *corev1.Pod:
		c := s.kube.CoreV1().Pods(obj.Namespace)
		if ch.Delete {
			return deleteObject(ctx, s, c.Delete, obj)
		}
		return writeObject(ctx, s, statusOps(c, func(dst, src *corev1.Pod) {
			src.Status.DeepCopyInto(&dst.Status)
		}), obj, ch)
	case *policyv1.PodDisruptionBudget:
		return writeObject(ctx, s, statusOps(s.kube.PolicyV1().PodDisruptionBudgets(obj.Namespace), func(dst, src *policyv1.PodDisruptionBudget) {
			src.Status.DeepCopyInto(&dst.Status)
			dst.Status.ObservedGeneration = dst.Generation
		}), obj, ch)
	case *mcfgv1.MachineConfigNode:
		return writeObject(ctx, s, statusOps(s.mcfg.MachineconfigurationV1().MachineConfigNodes(), func(dst, src *mcfgv1.MachineConfigNode) {
			src.Status.DeepCopyInto(&dst.Status)
		}), obj, ch)
	case *mcfgv1.MachineConfig:
		return writeObject(ctx, s, specOps[*mcfgv1.MachineConfig](s.mcfg.MachineconfigurationV1().MachineConfigs()), obj, ch)
	case *unstructured.Unstructured:
		return s.applyUnstructured(ctx, obj, ch)
	default:
		return fmt.Errorf("simulator: cannot write %T", ch.Object)
	}
}

// applyUnstructured writes a custom resource with the dynamic client, its
// resource found by discovery. status.observedGeneration, when the object
// has one, follows the generation the server assigned.
func (s *APISink) applyUnstructured(ctx context.Context, obj *unstructured.Unstructured, ch Change) error {
	if s.dynamic == nil {
		return fmt.Errorf("simulator: cannot write %s: no dynamic client", obj.GroupVersionKind())
	}
	gvk := obj.GroupVersionKind()
	mapping, err := s.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("simulator: resource of %s: %w", gvk, err)
	}
	c := s.dynamic.Resource(mapping.Resource).Namespace(obj.GetNamespace())
	if ch.Delete {
		return deleteObject(ctx, s, func(ctx context.Context, name string, o metav1.DeleteOptions) error { return c.Delete(ctx, name, o) }, obj)
	}
	return writeObject(ctx, s, kindOps[*unstructured.Unstructured]{
		client: dynamicClient{c},
		updateStatus: func(ctx context.Context, u *unstructured.Unstructured, o metav1.UpdateOptions) (*unstructured.Unstructured, error) {
			return c.UpdateStatus(ctx, u, o)
		},
		copyStatus: func(dst, src *unstructured.Unstructured) {
			status, ok := src.Object["status"]
			if !ok {
				delete(dst.Object, "status")
				return
			}
			dst.Object["status"] = runtime.DeepCopyJSONValue(status)
			if _, found, _ := unstructured.NestedInt64(dst.Object, "status", "observedGeneration"); found {
				_ = unstructured.SetNestedField(dst.Object, dst.GetGeneration(), "status", "observedGeneration")
			}
		},
		store: func(dst, src *unstructured.Unstructured) { dst.Object = src.DeepCopy().Object },
	}, obj, ch)
}

// dynamicClient adapts a dynamic.ResourceInterface to objectClient.
type dynamicClient struct{ dynamic.ResourceInterface }

func (c dynamicClient) Create(ctx context.Context, u *unstructured.Unstructured, o metav1.CreateOptions) (*unstructured.Unstructured, error) {
	return c.ResourceInterface.Create(ctx, u, o)
}

func (c dynamicClient) Update(ctx context.Context, u *unstructured.Unstructured, o metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	return c.ResourceInterface.Update(ctx, u, o)
}

func (c dynamicClient) Get(ctx context.Context, name string, o metav1.GetOptions) (*unstructured.Unstructured, error) {
	return c.ResourceInterface.Get(ctx, name, o)
}

// objectClient is the part of a typed client the sink uses.
type objectClient[T any] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
}

// deleteObject deletes obj (at once: no kubelet confirms a graceful
// deletion here); an object already gone is not an error.
func deleteObject(ctx context.Context, s *APISink, del func(context.Context, string, metav1.DeleteOptions) error, obj metav1.Object) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	if err := del(ctx, obj.GetName(), metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// kindOps adapts one kind to writeObject.
type kindOps[T any] struct {
	client objectClient[T]
	// updateStatus is nil for kinds without a status subresource.
	updateStatus func(context.Context, T, metav1.UpdateOptions) (T, error)
	// copyStatus copies the status of src into dst.
	copyStatus func(dst, src T)
	// store copies src (what the server returned) into dst (the model).
	store func(dst, src T)
}

// statusClient is the part of a typed client of a kind with a status
// subresource the sink uses.
type statusClient[T any] interface {
	objectClient[T]
	UpdateStatus(context.Context, T, metav1.UpdateOptions) (T, error)
}

// specOps adapts a typed kind whose status the sink does not write.
func specOps[T interface{ DeepCopyInto(T) }](c objectClient[T]) kindOps[T] {
	return kindOps[T]{client: c, store: func(dst, src T) { src.DeepCopyInto(dst) }}
}

// statusOps adapts a typed kind whose status the sink writes through the
// status subresource, copied by copyStatus.
func statusOps[T interface{ DeepCopyInto(T) }](c statusClient[T], copyStatus func(dst, src T)) kindOps[T] {
	ops := specOps[T](c)
	ops.updateStatus, ops.copyStatus = c.UpdateStatus, copyStatus
	return ops
}

// maxConflictRetries bounds the retries of a write that hit a conflict.
const maxConflictRetries = 5

// writeObject creates or updates obj, then writes its status through the
// status subresource, and stores the server's copy back into obj.
func writeObject[T interface {
	metav1.Object
	runtime.Object
}](ctx context.Context, s *APISink, ops kindOps[T], obj T, ch Change) error {
	desired := obj.DeepCopyObject().(T)
	name := obj.GetName()
	cur := desired
	var err error
	switch {
	case ch.Create:
		if err = s.wait(ctx); err != nil {
			return err
		}
		desired.SetResourceVersion("")
		cur, err = ops.client.Create(ctx, desired, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			cur, err = updateWithRetry(ctx, s, ops, desired, true)
		}
	case ch.Spec:
		cur, err = updateWithRetry(ctx, s, ops, desired, false)
	}
	if err != nil {
		return fmt.Errorf("write %T %s: %w", obj, name, err)
	}
	if ops.updateStatus != nil && (ch.Status || ch.Create) {
		if ch.Create || ch.Spec {
			// cur is the server's copy: put the desired status on it.
			// (Never copy a status onto itself: DeepCopyInto would clear it.)
			ops.copyStatus(cur, desired)
		}
		for attempt := 0; ; attempt++ {
			if err = s.wait(ctx); err != nil {
				return err
			}
			var out T
			out, err = ops.updateStatus(ctx, cur, metav1.UpdateOptions{})
			if err == nil {
				cur = out
				break
			}
			if !apierrors.IsConflict(err) || attempt >= maxConflictRetries {
				return fmt.Errorf("write the status of %T %s: %w", obj, name, err)
			}
			if err = s.wait(ctx); err != nil {
				return err
			}
			if cur, err = ops.client.Get(ctx, name, metav1.GetOptions{}); err != nil {
				return fmt.Errorf("get %T %s: %w", obj, name, err)
			}
			ops.copyStatus(cur, desired)
		}
	}
	ops.store(obj, cur)
	return nil
}

// updateWithRetry updates desired, taking the latest resource version when
// the write conflicts (or, for takeOver, from the start).
func updateWithRetry[T interface {
	metav1.Object
	runtime.Object
}](ctx context.Context, s *APISink, ops kindOps[T], desired T, takeOver bool) (T, error) {
	var zero T
	refresh := takeOver
	for attempt := 0; ; attempt++ {
		if refresh {
			if err := s.wait(ctx); err != nil {
				return zero, err
			}
			latest, err := ops.client.Get(ctx, desired.GetName(), metav1.GetOptions{})
			if err != nil {
				return zero, err
			}
			desired.SetResourceVersion(latest.GetResourceVersion())
			desired.SetUID(latest.GetUID())
		}
		if err := s.wait(ctx); err != nil {
			return zero, err
		}
		out, err := ops.client.Update(ctx, desired, metav1.UpdateOptions{})
		if err == nil {
			return out, nil
		}
		if !apierrors.IsConflict(err) || attempt >= maxConflictRetries {
			return zero, err
		}
		refresh = true
	}
}
