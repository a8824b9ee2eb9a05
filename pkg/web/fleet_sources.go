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

package web

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/informers/externalversions"
)

// fleetRediscovery is how often discovery is asked again while the server
// does not serve hostedclusterupdatestatuses.
const fleetRediscovery = 30 * time.Second

// fleetStatus keeps of a HostedClusterUpdateStatus what the fleet cell
// reads (the control plane's conditions and ClusterVersion insight, the
// pools' conditions and insights, every health insight): the informer's
// cache then holds neither the components nor the nodes of 500 hosted
// clusters.
func fleetStatus(obj any) (any, error) {
	o, ok := obj.(*v1alpha1.HostedClusterUpdateStatus)
	if !ok {
		return obj, nil
	}
	out := &v1alpha1.HostedClusterUpdateStatus{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name,
		UID: o.UID, ResourceVersion: o.ResourceVersion}}
	st := &o.Status
	if cp := st.ControlPlane; cp != nil {
		c := &v1alpha1.ControlPlane{Conditions: cp.Conditions}
		for _, inf := range cp.Informers {
			c.Informers = append(c.Informers, v1alpha1.ControlPlaneInformer{Name: inf.Name,
				Insights: keptOf(inf.Insights, func(in *v1alpha1.ControlPlaneInsight) bool {
					return in.Insight.ClusterVersionStatusInsight != nil || in.Insight.HealthInsight != nil
				})})
		}
		out.Status.ControlPlane = c
	}
	for _, wp := range st.WorkerPools {
		p := v1alpha1.Pool{Name: wp.Name, Conditions: wp.Conditions}
		for _, inf := range wp.Informers {
			p.Informers = append(p.Informers, v1alpha1.WorkerPoolInformer{Name: inf.Name,
				Insights: keptOf(inf.Insights, func(in *v1alpha1.WorkerPoolInsight) bool {
					return in.Insight.MachineConfigPoolStatusInsight != nil || in.Insight.HealthInsight != nil
				})})
		}
		out.Status.WorkerPools = append(out.Status.WorkerPools, p)
	}
	return out, nil
}

// keptOf returns, in a new slice, the insights keep says to keep.
func keptOf[I any](insights []I, keep func(*I) bool) []I {
	var kept []I
	for i := range insights {
		if keep(&insights[i]) {
			kept = append(kept, insights[i])
		}
	}
	return kept
}

// watchFleet keeps the fleet model from one informer of every
// HostedClusterUpdateStatus the user may list, in every namespace, until
// ctx ends.
func (h *Handler) watchFleet(ctx context.Context) {
	f := h.fleet
	resource := resources.HostedClusterUpdateStatus.Resource
	for {
		served, err := h.opts.Client.Discovery().ServerResourcesForGroupVersion(v1alpha1.SchemeGroupVersion.String())
		wait := h.opts.ProbeInterval
		if err != nil {
			klog.V(2).InfoS("Discovery of update.openshift.io failed; retrying", "err", err)
			f.setError(discoveryResource, apiError(discoveryResource, err))
		} else {
			f.setError(discoveryResource, nil)
			has := map[string]bool{}
			for _, r := range served.APIResources {
				has[r.Name] = true
			}
			f.setDiscovered(has[resource])
			if has[resource] {
				if has[resources.UpdateStatus.Resource] {
					go h.findStandalone(ctx)
				}
				break
			}
			wait = fleetRediscovery
		}
		select {
		case <-ctx.Done():
			return
		case <-h.opts.Clock.After(wait):
		}
	}

	factory := externalversions.NewSharedInformerFactoryWithOptions(h.opts.Client, 0, externalversions.WithTransform(fleetStatus))
	inf := factory.Update().V1alpha1().HostedClusterUpdateStatuses().Informer()
	if err := inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) {
		if errors.Is(err, context.Canceled) {
			return
		}
		klog.V(2).InfoS("Reading the fleet failed", "resource", resource, "err", err)
		f.setError(resource, apiError(resource, err))
	}); err != nil {
		klog.ErrorS(err, "Cannot set the watch error handler", "resource", resource)
	}
	apply := func(obj any, deleted bool) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj, deleted = t.Obj, true
		}
		o, ok := obj.(*v1alpha1.HostedClusterUpdateStatus)
		if !ok {
			return
		}
		f.setError(resource, nil)
		if deleted {
			f.set(o.Namespace, o.Name, nil, h.opts.Clock.Now())
		} else {
			f.set(o.Namespace, o.Name, &o.Status, h.opts.Clock.Now())
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { apply(obj, false) },
		UpdateFunc: func(_, obj any) { apply(obj, false) },
		DeleteFunc: func(obj any) { apply(obj, true) },
	}); err != nil {
		klog.ErrorS(err, "Cannot add an event handler", "resource", resource)
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	go func() {
		if cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			f.setSynced()
		}
	}()
	// A relist that works again changes nothing: a small read clears the
	// error.
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.opts.Clock.After(h.opts.ProbeInterval):
		}
		if !f.erroring(resource) {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := h.opts.Client.UpdateV1alpha1().HostedClusterUpdateStatuses("").List(rctx, metav1.ListOptions{Limit: 1})
		cancel()
		if err != nil {
			f.setError(resource, apiError(resource, err))
		} else {
			f.setError(resource, nil)
		}
	}
}

// findStandalone says whether updatestatuses/cluster exists (and the user
// may read it), for the fleet page's link to it. It looks again every
// fleetRediscovery while the object is not found, and stops at a refusal.
func (h *Handler) findStandalone(ctx context.Context) {
	for {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := h.opts.Client.UpdateV1alpha1().UpdateStatuses().Get(rctx, resources.UpdateStatusName, metav1.GetOptions{})
		cancel()
		wait := h.opts.ProbeInterval
		switch {
		case err == nil:
			h.fleet.setStandalone(true)
			return
		case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
			return
		case apierrors.IsNotFound(err):
			wait = fleetRediscovery
		}
		select {
		case <-ctx.Done():
			return
		case <-h.opts.Clock.After(wait):
		}
	}
}
