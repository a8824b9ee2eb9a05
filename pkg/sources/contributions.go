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

package sources

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/insights"
)

// transformUpdateInformer drops the managed fields and kubectl's copy of the
// object; the spec and the status (which the status writer compares with
// the engine's verdict) stay.
func transformUpdateInformer(obj interface{}) (interface{}, error) {
	o, ok := obj.(*informersv1alpha1.UpdateInformer)
	if !ok {
		return obj, nil
	}
	o.ManagedFields = nil
	delete(o.Annotations, lastAppliedAnnotation)
	return o, nil
}

// transformLease drops the managed fields of a contribution Lease.
func transformLease(obj interface{}) (interface{}, error) {
	if l, ok := obj.(*coordinationv1.Lease); ok {
		l.ManagedFields = nil
	}
	return obj, nil
}

// contributionCaches are the caches of the UpdateInformers and of their
// companion Leases, each set when its informer starts.
type contributionCaches struct {
	informers, leases atomic.Pointer[cache.SharedIndexInformer]
}

func (c *contributionCaches) updateInformer(namespace, name string) *informersv1alpha1.UpdateInformer {
	return cached[informersv1alpha1.UpdateInformer](&c.informers, namespace, name)
}

func (c *contributionCaches) lease(namespace, name string) *coordinationv1.Lease {
	return cached[coordinationv1.Lease](&c.leases, namespace, name)
}

// cached returns the object namespace/name of the cache of the informer inf
// holds, nil when there is none (or no informer yet).
func cached[T any](inf *atomic.Pointer[cache.SharedIndexInformer], namespace, name string) *T {
	i := inf.Load()
	if i == nil {
		return nil
	}
	obj, ok, err := (*i).GetStore().GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil
	}
	o, _ := obj.(*T)
	return o
}

// withCompanion returns a source's matters function for objects of type O
// whose updates matter depending on their companion: the object of the same
// namespace and name in the other source of contributions (an
// UpdateInformer's Lease, a Lease's UpdateInformer), which companion finds.
// matters gets the companion (nil when none) and the clock's time.
func withCompanion[O metav1.Object, C any](companion func(namespace, name string) C, clk clock.PassiveClock, matters func(old, updated interface{}, companion C, now time.Time) bool) func(old, updated interface{}) bool {
	return func(old, updated interface{}) bool {
		var c C
		if o, ok := updated.(O); ok {
			c = companion(o.GetNamespace(), o.GetName())
		}
		return matters(old, updated, c, clk.Now())
	}
}

// contributionMatters says whether an update of an UpdateInformer, whose
// companion Lease is lease (nil when none), can change the engine's result.
// A renewal (a later renewTime and nothing else in the spec) of a current
// lease cannot: the engine looks at the lease again when the old one would
// have lapsed (the result's NextChange), so a component renewing every few
// seconds costs no computation. A renewal of a lapsed lease, or one that
// involves a renewTime ahead of the clock, does matter. The server's own
// status writes change no spec and do not matter either.
func contributionMatters(old, updated interface{}, lease *coordinationv1.Lease, now time.Time) bool {
	o, ok := old.(*informersv1alpha1.UpdateInformer)
	n, ok2 := updated.(*informersv1alpha1.UpdateInformer)
	if !ok || !ok2 {
		return true
	}
	if o.UID != n.UID || !o.CreationTimestamp.Equal(&n.CreationTimestamp) || !leaseCurrent(o, lease, now) || !leaseCurrent(n, lease, now) {
		return true
	}
	os, ns := o.Spec, n.Spec
	os.RenewTime, ns.RenewTime = nil, nil
	return !equality.Semantic.DeepEqual(os, ns)
}

// leaseMatters says whether an update of the companion Lease of ui (nil when
// there is no such UpdateInformer) can change the engine's result: only when
// the contribution's lease is not current before or after it, as for
// contributionMatters. A Lease without its UpdateInformer does not matter
// (the UpdateInformer's creation does).
func leaseMatters(old, updated interface{}, ui *informersv1alpha1.UpdateInformer, now time.Time) bool {
	o, ok := old.(*coordinationv1.Lease)
	n, ok2 := updated.(*coordinationv1.Lease)
	if !ok || !ok2 {
		return true
	}
	if ui == nil {
		return false
	}
	if insights.IsContributionLease(o) != insights.IsContributionLease(n) {
		return true
	}
	return !leaseCurrent(ui, o, now) || !leaseCurrent(ui, n, now)
}

// leaseCurrent reports whether o's lease, renewed through lease (nil when
// none), runs at now with a renewTime the engine accepts.
func leaseCurrent(o *informersv1alpha1.UpdateInformer, lease *coordinationv1.Lease, now time.Time) bool {
	if lease != nil && !insights.IsContributionLease(lease) {
		lease = nil
	}
	renewed, d := insights.LeaseOf(o, lease)
	return now.Before(renewed.Add(d)) && !renewed.After(now.Add(insights.MaxClockSkew))
}

// contributionStatus writes the engine's verdicts into the status of the
// UpdateInformers. It writes only what differs from the cached status, so a
// verdict that stands is written once, and replicas that agree on it write it
// once between them (the other finds it written, or loses the update on the
// resourceVersion and finds it written at the next verdict).
type contributionStatus struct {
	client versioned.Interface
	clock  clock.Clock

	caches *contributionCaches

	// wake has room for one signal: new verdicts are pending.
	wake chan struct{}

	mu      sync.Mutex
	pending []insights.Verdict
}

// record keeps verdicts, the latest, for the writer.
func (c *contributionStatus) record(verdicts []insights.Verdict) {
	c.mu.Lock()
	c.pending = verdicts
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// run writes the latest verdicts whenever new ones are recorded, until ctx is
// done.
func (c *contributionStatus) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		c.mu.Lock()
		verdicts := c.pending
		c.mu.Unlock()
		for i := range verdicts {
			if err := c.write(ctx, &verdicts[i]); err != nil {
				klog.V(2).InfoS("Cannot write the status of an UpdateInformer; the next verdict retries",
					"namespace", verdicts[i].Namespace, "name", verdicts[i].Name, "err", err)
			}
		}
	}
}

// write writes v into the status of its object when the cached status says
// something else. An object that is gone or changed meanwhile is left to the
// next verdict.
func (c *contributionStatus) write(ctx context.Context, v *insights.Verdict) error {
	cur := c.caches.updateInformer(v.Namespace, v.Name)
	if cur == nil {
		return nil
	}
	want := statusOf(&cur.Status, v, c.clock.Now())
	if equality.Semantic.DeepEqual(&cur.Status, want) {
		return nil
	}
	upd := cur.DeepCopy()
	upd.Status = *want
	_, err := c.client.InformersV1alpha1().UpdateInformers(v.Namespace).UpdateStatus(ctx, upd, metav1.UpdateOptions{FieldManager: "update-status-apiserver"})
	if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// statusOf returns the status that says v, keeping the transition times of
// the conditions of cur that v does not change. observedGeneration moves only
// when something else does: renewals, which change the generation and
// nothing the server says, write no status.
func statusOf(cur *informersv1alpha1.UpdateInformerStatus, v *insights.Verdict, now time.Time) *informersv1alpha1.UpdateInformerStatus {
	st := cur.DeepCopy()
	st.Informer = v.Informer
	st.Insights = ptr.To(v.Insights)
	accepted := metav1.Condition{Type: informersv1alpha1.ConditionAccepted, Status: metav1.ConditionTrue,
		Reason: informersv1alpha1.ReasonAccepted, Message: "The insights are merged into UpdateStatus while the lease is current."}
	if !v.Accepted {
		accepted.Status, accepted.Reason, accepted.Message = metav1.ConditionFalse, v.Reason, v.Message
	}
	expired := metav1.Condition{Type: informersv1alpha1.ConditionExpired, Status: metav1.ConditionFalse,
		Reason: informersv1alpha1.ReasonLeaseCurrent, Message: "The lease is current."}
	if v.Expired {
		expired.Status, expired.Reason = metav1.ConditionTrue, informersv1alpha1.ReasonLeaseExpired
		expired.Message = fmt.Sprintf("The lease lapsed at %s: the insights have left the API until the object is renewed.",
			v.ExpiresAt.UTC().Format(time.RFC3339))
	}
	for _, cond := range []metav1.Condition{accepted, expired} {
		if old := meta.FindStatusCondition(st.Conditions, cond.Type); old != nil {
			cond.ObservedGeneration = old.ObservedGeneration
		}
		cond.LastTransitionTime = metav1.NewTime(now)
		meta.SetStatusCondition(&st.Conditions, cond)
	}
	if !equality.Semantic.DeepEqual(cur, st) {
		st.ObservedGeneration = v.Generation
		for i := range st.Conditions {
			st.Conditions[i].ObservedGeneration = v.Generation
		}
	}
	return st
}
