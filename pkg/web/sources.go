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
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
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
	// SourceHostedInsights is, for a hosted cluster (Options.HostedCluster),
	// the five hosted per-insight resources in its namespace, labelled with
	// its name.
	SourceHostedInsights = "hosted-insights"
	// SourceHostedStatus is, for a hosted cluster, its
	// HostedClusterUpdateStatus alone.
	SourceHostedStatus = "hostedclusterupdatestatus"
)

// resourceSet are the resources the page may read: the per-insight ones,
// or the one object that holds them all.
type resourceSet struct {
	// insights are the per-insight resources, in the order of
	// resources.InsightKind.
	insights [resources.NumInsightKinds]string
	// status is the resource of the object.
	status string
	// insightsSource and statusSource name the two choices.
	insightsSource, statusSource string
}

// resourceSet returns the resources of a standalone cluster, or of the
// hosted cluster the page follows.
func (h *Handler) resourceSet() resourceSet {
	rs := resourceSet{status: resources.UpdateStatus.Resource, insightsSource: SourceInsights, statusSource: SourceUpdateStatus}
	if h.hosted() {
		rs = resourceSet{status: resources.HostedClusterUpdateStatus.Resource, insightsSource: SourceHostedInsights, statusSource: SourceHostedStatus}
	}
	for k := range resources.NumInsightKinds {
		if h.hosted() {
			rs.insights[k] = k.Hosted().Resource
		} else {
			rs.insights[k] = k.Resource()
		}
	}
	return rs
}

// hosted reports whether the page follows a hosted cluster.
func (h *Handler) hosted() bool { return h.opts.HostedCluster.Name != "" }

// listOptions narrows a list or watch to the hosted cluster the page
// follows: its per-insight objects by label, its status object by name.
func (h *Handler) listOptions(o *metav1.ListOptions, source string) {
	switch source {
	case SourceHostedInsights:
		o.LabelSelector = labels.SelectorFromSet(labels.Set{v1alpha1.LabelHostedCluster: h.opts.HostedCluster.Name}).String()
	case SourceHostedStatus:
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", h.opts.HostedCluster.Name).String()
	}
}

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

	var factoryOpts []externalversions.SharedInformerOption
	if h.hosted() {
		factoryOpts = append(factoryOpts, externalversions.WithNamespace(h.opts.HostedCluster.Namespace),
			externalversions.WithTweakListOptions(func(o *metav1.ListOptions) { h.listOptions(o, source) }))
	}
	factory := externalversions.NewSharedInformerFactoryWithOptions(h.opts.Client, 0, factoryOpts...)
	informers := factory.Update().V1alpha1()
	watched := map[string]cache.SharedIndexInformer{}
	rs := h.resourceSet()
	switch source {
	case SourceInsights:
		watched[rs.insights[resources.NodeInsights]] = informers.NodeProgressInsights().Informer()
		watched[rs.insights[resources.MachineConfigPoolInsights]] = informers.MachineConfigPoolProgressInsights().Informer()
		watched[rs.insights[resources.ClusterVersionInsights]] = informers.ClusterVersionProgressInsights().Informer()
		watched[rs.insights[resources.ClusterOperatorInsights]] = informers.ClusterOperatorProgressInsights().Informer()
		watched[rs.insights[resources.HealthInsights]] = informers.HealthInsights().Informer()
	case SourceHostedInsights:
		watched[rs.insights[resources.NodeInsights]] = informers.HostedNodeProgressInsights().Informer()
		watched[rs.insights[resources.MachineConfigPoolInsights]] = informers.HostedMachineConfigPoolProgressInsights().Informer()
		watched[rs.insights[resources.ClusterVersionInsights]] = informers.HostedClusterVersionProgressInsights().Informer()
		watched[rs.insights[resources.ClusterOperatorInsights]] = informers.HostedClusterOperatorProgressInsights().Informer()
		watched[rs.insights[resources.HealthInsights]] = informers.HostedHealthInsights().Informer()
	case SourceHostedStatus:
		watched[rs.status] = informers.HostedClusterUpdateStatuses().Informer()
	default:
		watched[rs.status] = informers.UpdateStatuses().Informer()
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
// the server serves them and the user may read them, else the object that
// holds them all (updatestatuses/cluster, or the hosted cluster's
// hostedclusterupdatestatuses object).
func (h *Handler) discover(ctx context.Context) (string, error) {
	list, err := h.opts.Client.Discovery().ServerResourcesForGroupVersion(v1alpha1.SchemeGroupVersion.String())
	if err != nil {
		return "", fmt.Errorf("discovering %s: %w", v1alpha1.SchemeGroupVersion, err)
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	rs := h.resourceSet()
	for _, resource := range rs.insights {
		if !served[resource] {
			if !served[rs.status] {
				return "", fmt.Errorf("the server serves neither %s nor %s", rs.status, resource)
			}
			return rs.statusSource, nil
		}
	}
	// A role may grant the object and not the per-insight resources: the
	// page then reads what the user may read.
	if err := h.read(ctx, rs.insights[resources.NodeInsights]); apierrors.IsForbidden(err) && served[rs.status] {
		if h.read(ctx, rs.status) == nil {
			klog.InfoS("The per-insight resources are forbidden to this user; reading "+rs.status, "reason", err.Error())
			return rs.statusSource, nil
		}
	}
	return rs.insightsSource, nil
}

// standaloneTwin returns the standalone object that carries the same
// insight as a hosted per-insight object, obj itself for any other.
func standaloneTwin(obj any) any {
	switch o := obj.(type) {
	case *v1alpha1.HostedNodeProgressInsight:
		return &v1alpha1.NodeProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	case *v1alpha1.HostedMachineConfigPoolProgressInsight:
		return &v1alpha1.MachineConfigPoolProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	case *v1alpha1.HostedClusterVersionProgressInsight:
		return &v1alpha1.ClusterVersionProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	case *v1alpha1.HostedClusterOperatorProgressInsight:
		return &v1alpha1.ClusterOperatorProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	case *v1alpha1.HostedHealthInsight:
		return &v1alpha1.HealthInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	}
	return obj
}

// eventHandler applies one informer's events to the model. An event also
// shows that reading resource works again.
func (h *Handler) eventHandler(resource string) cache.ResourceEventHandler {
	apply := func(obj any, deleted bool) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj, deleted = t.Obj, true
		}
		// A hosted cluster's insights are those of the standalone kinds.
		obj = standaloneTwin(obj)
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
			if o.Name != resources.UpdateStatusName || h.hosted() {
				return
			}
			if deleted {
				m.setStatus(&v1alpha1.UpdateStatusStatus{})
			} else {
				m.setStatus(&o.Status)
			}
		case *v1alpha1.HostedClusterUpdateStatus:
			if o.Namespace != h.opts.HostedCluster.Namespace || o.Name != h.opts.HostedCluster.Name {
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

// read lists at most one object of resource, as the page reads it.
func (h *Handler) read(ctx context.Context, resource string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c := h.opts.Client.UpdateV1alpha1()
	opts := metav1.ListOptions{Limit: 1}
	ns := h.opts.HostedCluster.Namespace
	rs := h.resourceSet()
	if h.hosted() {
		source := rs.insightsSource
		if resource == rs.status {
			source = rs.statusSource
		}
		h.listOptions(&opts, source)
	}
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
	case resources.HostedClusterUpdateStatus.Resource:
		_, err = c.HostedClusterUpdateStatuses(ns).List(ctx, opts)
	case resources.NodeInsights.Hosted().Resource:
		_, err = c.HostedNodeProgressInsights(ns).List(ctx, opts)
	case resources.MachineConfigPoolInsights.Hosted().Resource:
		_, err = c.HostedMachineConfigPoolProgressInsights(ns).List(ctx, opts)
	case resources.ClusterVersionInsights.Hosted().Resource:
		_, err = c.HostedClusterVersionProgressInsights(ns).List(ctx, opts)
	case resources.ClusterOperatorInsights.Hosted().Resource:
		_, err = c.HostedClusterOperatorProgressInsights(ns).List(ctx, opts)
	case resources.HealthInsights.Hosted().Resource:
		_, err = c.HostedHealthInsights(ns).List(ctx, opts)
	}
	return err
}
