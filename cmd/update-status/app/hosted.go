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

package app

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/report"
	"github.com/update-status/apiserver/pkg/untruncate"
)

// parseHostedCluster reads --hosted-cluster: NAMESPACE/NAME of a
// HostedCluster, whose HostedClusterUpdateStatus has the same namespace and
// name.
func parseHostedCluster(s string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" {
		return types.NamespacedName{}, fmt.Errorf("invalid --hosted-cluster %q: must be NAMESPACE/NAME", s)
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return types.NamespacedName{}, fmt.Errorf("invalid --hosted-cluster %q: namespace: %s", s, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return types.NamespacedName{}, fmt.Errorf("invalid --hosted-cluster %q: name: %s", s, strings.Join(errs, "; "))
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// hostedStatus is the HostedClusterUpdateStatus of one hosted cluster.
type hostedStatus struct {
	client versioned.Interface
	key    types.NamespacedName
}

func (t hostedStatus) String() string {
	return resources.HostedClusterUpdateStatus.Resource + "/" + t.key.String()
}

func (t hostedStatus) get(ctx context.Context) (string, *v1alpha1.UpdateStatusStatus, error) {
	obj, err := t.client.UpdateV1alpha1().HostedClusterUpdateStatuses(t.key.Namespace).Get(ctx, t.key.Name, metav1.GetOptions{})
	if err != nil {
		return "", nil, fmt.Errorf("reading %s: %w", t, err)
	}
	return obj.ResourceVersion, &obj.Status, nil
}

func (t hostedStatus) watch(ctx context.Context, rv string) (watch.Interface, error) {
	return t.client.UpdateV1alpha1().HostedClusterUpdateStatuses(t.key.Namespace).Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", t.key.Name).String(),
		ResourceVersion: rv,
	})
}

func (t hostedStatus) of(obj runtime.Object) (string, *v1alpha1.UpdateStatusStatus, bool) {
	o, ok := obj.(*v1alpha1.HostedClusterUpdateStatus)
	if !ok || o.Namespace != t.key.Namespace || o.Name != t.key.Name {
		return "", nil, false
	}
	return o.ResourceVersion, &o.Status, true
}

// insights lists the hosted per-insight objects labelled with the hosted
// cluster, in its namespace.
func (t hostedStatus) insights(ctx context.Context, rv string) (*untruncate.Objects, error) {
	c := t.client.UpdateV1alpha1()
	ns := t.key.Namespace
	opts := listOptions(rv)
	opts.LabelSelector = labels.SelectorFromSet(labels.Set{v1alpha1.LabelHostedCluster: t.key.Name}).String()
	var objs untruncate.HostedObjects
	failed := func(k resources.InsightKind, err error) error {
		return fmt.Errorf("listing %s in %s: %w", k.Hosted().Resource, ns, err)
	}
	nodes, err := c.HostedNodeProgressInsights(ns).List(ctx, opts)
	if err != nil {
		return nil, failed(resources.NodeInsights, err)
	}
	objs.Nodes = nodes.Items
	health, err := c.HostedHealthInsights(ns).List(ctx, opts)
	if err != nil {
		return nil, failed(resources.HealthInsights, err)
	}
	objs.Health = health.Items
	pools, err := c.HostedMachineConfigPoolProgressInsights(ns).List(ctx, opts)
	if err != nil {
		return nil, failed(resources.MachineConfigPoolInsights, err)
	}
	objs.MachineConfigPools = pools.Items
	operators, err := c.HostedClusterOperatorProgressInsights(ns).List(ctx, opts)
	if err != nil {
		return nil, failed(resources.ClusterOperatorInsights, err)
	}
	objs.ClusterOperators = operators.Items
	versions, err := c.HostedClusterVersionProgressInsights(ns).List(ctx, opts)
	if err != nil {
		return nil, failed(resources.ClusterVersionInsights, err)
	}
	objs.ClusterVersions = versions.Items
	return objs.For(t.key.Name), nil
}

func (hostedStatus) render(w io.Writer, st *v1alpha1.UpdateStatusStatus, now time.Time, details report.Details) error {
	return report.RenderHosted(w, &v1alpha1.HostedClusterUpdateStatus{Status: *st}, now, details)
}
