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
// its lease through a companion coordination.k8s.io Lease, and withdraws both
// on shutdown.
//
//	c, err := contribute.New(clientset.InformersV1alpha1(), kubeClient, "my-namespace", "my-informer")
//	c.Set(controlPlaneInsights, workerPools)
//	err = c.Run(ctx) // writes, renews every lease/3, deletes both objects when ctx ends
//
// The UpdateInformer is written only when what the component asserts
// changes; the renewals go to the small Lease (with the lease controller
// kubelets renew their Nodes with), so that they cost the server nothing.
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

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-helpers/apimachinery/lease"
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

// WithClock sets the clock of the renewTimes and of the retry ticker
// (tests); the Lease is renewed every third of the lease of real time.
func WithClock(clk clock.WithTicker) Option {
	return func(c *Contributor) { c.clock = clk }
}

// Contributor keeps the UpdateInformer namespace/name equal to what the
// component asserts. Its methods are safe for concurrent use.
type Contributor struct {
	client    informersclient.UpdateInformerInterface
	kube      kubernetes.Interface
	namespace string
	name      string
	lease     time.Duration
	clock     clock.WithTicker

	mu      sync.Mutex
	cp      []updatev1alpha1.ControlPlaneInsight
	pools   []informersv1alpha1.WorkerPoolContribution
	changed chan struct{} // a Set since the last write, for Run
	uid     types.UID     // of the UpdateInformer last written, for the Lease's owner reference
}

// New returns the Contributor of the UpdateInformer namespace/name, whose
// companion Lease (the same namespace and name) kube renews. It writes
// nothing until Write or Run. The name must be a DNS subdomain other than a
// built-in informer's, and the informer name <name>.<namespace> must fit in
// a label value.
func New(client informersclient.UpdateInformersGetter, kube kubernetes.Interface, namespace, name string, opts ...Option) (*Contributor, error) {
	if client == nil || kube == nil {
		return nil, fmt.Errorf("both clients are required")
	}
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
		kube:      kube,
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
// lease in it (renewTime now). An update that meets a conflict is retried on
// the latest object.
func (c *Contributor) Write(ctx context.Context) error {
	spec := c.spec()
	var written *informersv1alpha1.UpdateInformer
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := c.client.Get(ctx, c.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			written, err = c.client.Create(ctx, &informersv1alpha1.UpdateInformer{
				ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
				Spec:       spec,
			}, metav1.CreateOptions{FieldManager: fieldManager})
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
		written, err = c.client.Update(ctx, current, metav1.UpdateOptions{FieldManager: fieldManager})
		return err
	})
	if err != nil {
		return fmt.Errorf("writing UpdateInformer %s/%s: %w", c.namespace, c.name, err)
	}
	c.mu.Lock()
	c.uid = written.UID
	c.mu.Unlock()
	return nil
}

// fieldManager is the field manager of the writes.
const fieldManager = "update-status-contribute"

// labelLease makes l the companion Lease of the UpdateInformer, owned by
// it so that a cluster's garbage collector removes it with the object.
func (c *Contributor) labelLease(l *coordinationv1.Lease) error {
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[informersv1alpha1.LeaseLabel] = c.name
	c.mu.Lock()
	uid := c.uid
	c.mu.Unlock()
	if uid != "" {
		l.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: informersv1alpha1.SchemeGroupVersion.String(), Kind: informersv1alpha1.KindUpdateInformer,
			Name: c.name, UID: uid,
		}}
	}
	return nil
}

// Withdraw deletes the object: the server drops its insights at once, as
// for a component that stopped on purpose (a lapsed lease, by contrast, is
// reported as an informer that stopped reporting). An absent object is not
// an error. Run deletes the companion Lease too.
func (c *Contributor) Withdraw(ctx context.Context) error {
	err := c.client.Delete(ctx, c.name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting UpdateInformer %s/%s: %w", c.namespace, c.name, err)
	}
	return nil
}

// Run writes the object at once and again after every Set, and renews the
// companion Lease every third of the lease, until ctx ends; then it
// withdraws both and returns the withdrawal's error. A failed write is
// logged and retried every third of the lease: the lease is long enough to
// survive a few.
func (c *Contributor) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithValues("informer", c.InformerName())
	ticker := c.clock.NewTicker(c.lease / 3)
	defer ticker.Stop()
	failed := false
	write := func() {
		err := c.Write(ctx)
		failed = err != nil
		if err != nil && ctx.Err() == nil {
			logger.Error(err, "Cannot write the contribution; retrying")
		}
	}
	// The first write covers what was Set before Run.
	select {
	case <-c.changed:
	default:
	}
	write()
	renewals := lease.NewController(c.clock, c.kube, c.InformerName(), int32(math.Ceil(c.lease.Seconds())), nil,
		c.lease/3, c.name, c.namespace, c.labelLease)
	renewing := make(chan struct{})
	go func() {
		defer close(renewing)
		renewals.Run(ctx)
	}()
	for {
		select {
		case <-ctx.Done():
			<-renewing
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), withdrawTimeout)
			defer cancel()
			err := c.Withdraw(wctx)
			renewals.Stop() // deletes the Lease
			return err
		case <-c.changed:
			write()
		case <-ticker.C():
			if failed {
				write()
			}
		}
	}
}
