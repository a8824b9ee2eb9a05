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
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/informers/externalversions"
)

// The resources the page reads.
const (
	// SourceInsights is the five per-insight resources: a node change is
	// one small event.
	SourceInsights = "insights"
	// SourceUpdateStatus is updatestatuses/cluster alone, for a server
	// that does not serve the per-insight resources.
	SourceUpdateStatus = "updatestatus"
)

// discoveryResource names the discovery request among the page's errors.
const discoveryResource = "discovery"

// apiError turns a failure to read resource into what the page shows.
func apiError(resource string, err error) *APIError {
	e := &APIError{Resource: resource, Reason: "Failed", Message: err.Error()}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if m := status.Status().Message; m != "" {
			e.Message = m
		}
	}
	switch {
	case apierrors.IsForbidden(err):
		e.Reason = "Forbidden"
	case apierrors.IsUnauthorized(err):
		e.Reason = "Unauthorized"
	case apierrors.IsNotFound(err):
		e.Reason = "NotFound"
	}
	return e
}

// watchCluster picks the resources to read, then keeps the model from
// their informers until ctx ends.
func (h *Handler) watchCluster(ctx context.Context) {
	source := h.opts.Source
	for source == "" {
		var err error
		source, err = h.discover(ctx)
		if err != nil {
			klog.ErrorS(err, "Discovery of update.openshift.io failed; retrying")
			h.model.setError(discoveryResource, apiError(discoveryResource, err))
			select {
			case <-ctx.Done():
				return
			case <-h.opts.Clock.After(h.opts.ProbeInterval):
			}
			continue
		}
		h.model.setError(discoveryResource, nil)
	}
	h.model.setSource(source)
	klog.InfoS("Watching the cluster", "source", source)

	factory := externalversions.NewSharedInformerFactory(h.opts.Client, 0)
	informers := factory.Update().V1alpha1()
	watched := map[string]cache.SharedIndexInformer{}
	if source == SourceInsights {
		watched[resources.NodeInsights.Resource()] = informers.NodeProgressInsights().Informer()
		watched[resources.MachineConfigPoolInsights.Resource()] = informers.MachineConfigPoolProgressInsights().Informer()
		watched[resources.ClusterVersionInsights.Resource()] = informers.ClusterVersionProgressInsights().Informer()
		watched[resources.ClusterOperatorInsights.Resource()] = informers.ClusterOperatorProgressInsights().Informer()
		watched[resources.HealthInsights.Resource()] = informers.HealthInsights().Informer()
	} else {
		watched[resources.UpdateStatus.Resource] = informers.UpdateStatuses().Informer()
	}
	for resource, inf := range watched {
		if err := inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) {
			if errors.Is(err, context.Canceled) {
				return
			}
			klog.V(2).InfoS("Reading the cluster failed", "resource", resource, "err", err)
			h.model.setError(resource, apiError(resource, err))
		}); err != nil {
			klog.ErrorS(err, "Cannot set the watch error handler", "resource", resource)
		}
		if _, err := inf.AddEventHandler(h.eventHandler(resource)); err != nil {
			klog.ErrorS(err, "Cannot add an event handler", "resource", resource)
		}
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	go func() {
		for _, ok := range factory.WaitForCacheSync(ctx.Done()) {
			if !ok {
				return
			}
		}
		h.model.setSynced()
	}()
	h.probe(ctx)
}

// discover says which resources to read: the per-insight resources when
// the server serves them and the user may read them, else UpdateStatus.
func (h *Handler) discover(ctx context.Context) (string, error) {
	list, err := h.opts.Client.Discovery().ServerResourcesForGroupVersion(v1alpha1.SchemeGroupVersion.String())
	if err != nil {
		return "", fmt.Errorf("discovering %s: %w", v1alpha1.SchemeGroupVersion, err)
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	for k := resources.InsightKind(0); k < resources.NumInsightKinds; k++ {
		if !served[k.Resource()] {
			if !served[resources.UpdateStatus.Resource] {
				return "", fmt.Errorf("the server serves neither updatestatuses nor %s", k.Resource())
			}
			return SourceUpdateStatus, nil
		}
	}
	// A role may grant updatestatuses and not the per-insight resources:
	// the page then reads what the user may read.
	if err := h.read(ctx, resources.NodeInsights.Resource()); apierrors.IsForbidden(err) && served[resources.UpdateStatus.Resource] {
		if h.read(ctx, resources.UpdateStatus.Resource) == nil {
			klog.InfoS("The per-insight resources are forbidden to this user; reading updatestatuses", "reason", err.Error())
			return SourceUpdateStatus, nil
		}
	}
	return SourceInsights, nil
}

// eventHandler applies one informer's events to the model. An event also
// shows that reading resource works again.
func (h *Handler) eventHandler(resource string) cache.ResourceEventHandler {
	apply := func(obj any, deleted bool) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj, deleted = t.Obj, true
		}
		h.model.setError(resource, nil)
		m := h.model
		// The update's progress is the server's assessment: of an
		// external informer's objects, only Health insights are shown.
		if o, ok := obj.(metav1.Object); ok {
			if _, health := obj.(*v1alpha1.HealthInsight); !health && conventions.IsExternalInformer(o.GetLabels()[v1alpha1.LabelInformer]) {
				return
			}
		}
		switch o := obj.(type) {
		case *v1alpha1.NodeProgressInsight:
			if deleted {
				m.deleteNode(o.Name)
			} else {
				m.setNode(&o.Status.NodeStatusInsight)
			}
		case *v1alpha1.MachineConfigPoolProgressInsight:
			if deleted {
				m.setPool(o.Name, nil)
			} else {
				m.setPool(o.Status.Name, &o.Status.MachineConfigPoolStatusInsight)
			}
		case *v1alpha1.ClusterVersionProgressInsight:
			if deleted {
				m.setClusterVersion(nil)
			} else {
				m.setClusterVersion(&o.Status.ClusterVersionStatusInsight)
			}
		case *v1alpha1.ClusterOperatorProgressInsight:
			if deleted {
				m.setOperator(o.Name, nil)
			} else {
				m.setOperator(o.Status.Name, &o.Status.ClusterOperatorStatusInsight)
			}
		case *v1alpha1.HealthInsight:
			uid := o.Status.InsightUID
			if uid == "" {
				uid = o.Name
			}
			informer := o.Labels[v1alpha1.LabelInformer]
			if deleted {
				m.setHealth(uid, informer, nil)
			} else {
				m.setHealth(uid, informer, &o.Status.HealthStatusInsight)
			}
		case *v1alpha1.UpdateStatus:
			if o.Name != resources.UpdateStatusName {
				return
			}
			if deleted {
				m.setStatus(&v1alpha1.UpdateStatusStatus{})
			} else {
				m.setStatus(&o.Status)
			}
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { apply(obj, false) },
		UpdateFunc: func(_, obj any) { apply(obj, false) },
		DeleteFunc: func(obj any) { apply(obj, true) },
	}
}

// probe retries, every ProbeInterval, a small read of each resource whose
// informer reported an error, and clears the error once the read works: a
// relist that succeeds without changing anything produces no event.
func (h *Handler) probe(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.opts.Clock.After(h.opts.ProbeInterval):
		}
		for _, resource := range h.model.erroring() {
			if err := h.read(ctx, resource); err != nil {
				h.model.setError(resource, apiError(resource, err))
			} else {
				h.model.setError(resource, nil)
			}
		}
	}
}

// read lists at most one object of resource.
func (h *Handler) read(ctx context.Context, resource string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c := h.opts.Client.UpdateV1alpha1()
	opts := metav1.ListOptions{Limit: 1}
	var err error
	switch resource {
	case resources.UpdateStatus.Resource:
		_, err = c.UpdateStatuses().List(ctx, opts)
	case resources.NodeInsights.Resource():
		_, err = c.NodeProgressInsights().List(ctx, opts)
	case resources.MachineConfigPoolInsights.Resource():
		_, err = c.MachineConfigPoolProgressInsights().List(ctx, opts)
	case resources.ClusterVersionInsights.Resource():
		_, err = c.ClusterVersionProgressInsights().List(ctx, opts)
	case resources.ClusterOperatorInsights.Resource():
		_, err = c.ClusterOperatorProgressInsights().List(ctx, opts)
	case resources.HealthInsights.Resource():
		_, err = c.HealthInsights().List(ctx, opts)
	}
	return err
}
