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

// Package contribute lets a component outside the update-status apiserver
// contribute insights to UpdateStatus as an external informer: it keeps one
// UpdateInformer object (informers.update.openshift.io/v1alpha1) in the
// component's namespace up to date with what the component asserts, renews
// its lease, and withdraws it on shutdown.
//
//	c, err := contribute.New(clientset.InformersV1alpha1(), "my-namespace", "my-informer")
//	c.Set(controlPlaneInsights, workerPools)
//	err = c.Run(ctx) // writes, renews every lease/3, deletes the object when ctx ends
//
// The component needs the update-status-informer ClusterRole bound in its
// namespace (artifacts/deploy/base/rbac-informer.yaml). Its insights are
// served under the informer name <name>.<namespace>.
package contribute

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	updatev1alpha1 "github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	informersclient "github.com/update-status/apiserver/pkg/generated/clientset/versioned/typed/informers/v1alpha1"
)

// withdrawTimeout bounds the deletion Run does after its context has ended.
const withdrawTimeout = 10 * time.Second

// Option configures a Contributor.
type Option func(*Contributor)

// WithLease sets the lease (spec.leaseDurationSeconds, rounded up to whole
// seconds; default 60 s). Run renews every third of it.
func WithLease(d time.Duration) Option {
	return func(c *Contributor) { c.lease = d }
}

// WithClock sets the clock of renewTime and of the renewal ticker (tests).
func WithClock(clk clock.WithTicker) Option {
	return func(c *Contributor) { c.clock = clk }
}

// Contributor keeps the UpdateInformer namespace/name equal to what the
// component asserts. Its methods are safe for concurrent use.
type Contributor struct {
	client    informersclient.UpdateInformerInterface
	namespace string
	name      string
	lease     time.Duration
	clock     clock.WithTicker

	mu      sync.Mutex
	cp      []updatev1alpha1.ControlPlaneInsight
	pools   []informersv1alpha1.WorkerPoolContribution
	changed chan struct{} // a Set since the last write, for Run
}

// New returns the Contributor of the UpdateInformer namespace/name. It
// writes nothing until Write or Run. The name must be a DNS subdomain other
// than a built-in informer's, and the informer name <name>.<namespace> must
// fit in a label value.
func New(client informersclient.UpdateInformersGetter, namespace, name string, opts ...Option) (*Contributor, error) {
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return nil, fmt.Errorf("namespace %q: %v", namespace, errs)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("name %q: %v", name, errs)
	}
	switch name {
	case updatev1alpha1.InformerControlPlane, updatev1alpha1.InformerNodes, updatev1alpha1.InformerAlerts:
		return nil, fmt.Errorf("name %q is a built-in informer's", name)
	}
	if n := informersv1alpha1.InformerName(namespace, name); len(n) > informersv1alpha1.MaxInformerNameLength {
		return nil, fmt.Errorf("informer name %q is longer than %d characters", n, informersv1alpha1.MaxInformerNameLength)
	}
	c := &Contributor{
		client:    client.UpdateInformers(namespace),
		namespace: namespace,
		name:      name,
		lease:     informersv1alpha1.DefaultLeaseDurationSeconds * time.Second,
		clock:     clock.RealClock{},
		changed:   make(chan struct{}, 1),
	}
	for _, o := range opts {
		o(c)
	}
	if c.lease < time.Second || c.lease > 24*time.Hour {
		return nil, fmt.Errorf("lease %v: must be between 1s and 24h", c.lease)
	}
	return c, nil
}

// InformerName is the name the insights are served under.
func (c *Contributor) InformerName() string {
	return informersv1alpha1.InformerName(c.namespace, c.name)
}

// Set replaces everything the component asserts: the insights about the
// control plane and those about each worker pool. Run writes it at once;
// otherwise the next Write does. The slices are copied.
func (c *Contributor) Set(controlPlane []updatev1alpha1.ControlPlaneInsight, workerPools []informersv1alpha1.WorkerPoolContribution) {
	cp := make([]updatev1alpha1.ControlPlaneInsight, len(controlPlane))
	for i := range controlPlane {
		controlPlane[i].DeepCopyInto(&cp[i])
	}
	pools := make([]informersv1alpha1.WorkerPoolContribution, len(workerPools))
	for i := range workerPools {
		workerPools[i].DeepCopyInto(&pools[i])
	}
	c.mu.Lock()
	c.cp, c.pools = cp, pools
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// spec is the spec to write now: what was Set, the lease, renewTime now.
func (c *Contributor) spec() informersv1alpha1.UpdateInformerSpec {
	c.mu.Lock()
	defer c.mu.Unlock()
	spec := informersv1alpha1.UpdateInformerSpec{
		LeaseDurationSeconds: ptr.To(int32(math.Ceil(c.lease.Seconds()))),
		RenewTime:            ptr.To(metav1.NewMicroTime(c.clock.Now())),
	}
	if len(c.cp) > 0 {
		spec.ControlPlane = &informersv1alpha1.ControlPlaneContribution{Insights: c.cp}
	}
	if len(c.pools) > 0 {
		spec.WorkerPools = c.pools
	}
	return *spec.DeepCopy()
}

// Write creates or updates the object with what was Set and renews the
// lease (renewTime now). An update that meets a conflict is retried on the
// latest object.
func (c *Contributor) Write(ctx context.Context) error {
	spec := c.spec()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := c.client.Get(ctx, c.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = c.client.Create(ctx, &informersv1alpha1.UpdateInformer{
				ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
				Spec:       spec,
			}, metav1.CreateOptions{FieldManager: "update-status-contribute"})
			if apierrors.IsAlreadyExists(err) {
				// Created meanwhile: a conflict, retried as an update.
				return apierrors.NewConflict(informersv1alpha1.Resource(informersv1alpha1.ResourceUpdateInformers), c.name, err)
			}
			return err
		}
		if err != nil {
			return err
		}
		current.Spec = spec
		_, err = c.client.Update(ctx, current, metav1.UpdateOptions{FieldManager: "update-status-contribute"})
		return err
	})
	if err != nil {
		return fmt.Errorf("writing UpdateInformer %s/%s: %w", c.namespace, c.name, err)
	}
	return nil
}

// Withdraw deletes the object: the server drops its insights at once, as
// for a component that stopped on purpose (a lapsed lease, by contrast, is
// reported as an informer that stopped reporting). An absent object is not
// an error.
func (c *Contributor) Withdraw(ctx context.Context) error {
	err := c.client.Delete(ctx, c.name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting UpdateInformer %s/%s: %w", c.namespace, c.name, err)
	}
	return nil
}

// Run writes at once, then again after every Set and every third of the
// lease, until ctx ends; then it withdraws the object and returns the
// withdrawal's error. A failed write is logged and retried at the next
// renewal or Set: the lease is long enough to survive a few.
func (c *Contributor) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithValues("informer", c.InformerName())
	ticker := c.clock.NewTicker(c.lease / 3)
	defer ticker.Stop()
	write := func() {
		if err := c.Write(ctx); err != nil && ctx.Err() == nil {
			logger.Error(err, "Cannot write the contribution; retrying at the next renewal")
		}
	}
	write()
	for {
		select {
		case <-ctx.Done():
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), withdrawTimeout)
			defer cancel()
			return c.Withdraw(wctx)
		case <-c.changed:
			write()
		case <-ticker.C():
			write()
		}
	}
}
