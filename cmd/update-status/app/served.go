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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	updatev1alpha1 "github.com/update-status/apiserver/pkg/generated/clientset/versioned/typed/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/report"
	"github.com/update-status/apiserver/pkg/untruncate"
)

// newClient builds the generated clientset from a kubeconfig file.
func newClient(kubeconfig string) (versioned.Interface, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	return versioned.NewForConfig(cfg)
}

func newKubeClient(kubeconfig string) (kubernetes.Interface, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = "update-status"
	return cfg, nil
}

// served prints reports of the object a cluster serves: its UpdateStatus or
// one HostedClusterUpdateStatus (the target).
type served struct {
	target  target
	out     io.Writer
	clock   clock.PassiveClock
	details report.Details
	// printed counts the reports written, to separate them.
	printed int
}

// target is the object a report follows.
type target interface {
	// String names the object in messages, e.g. updatestatuses/cluster.
	String() string
	// get reads the object: its resourceVersion and status.
	get(ctx context.Context) (string, *v1alpha1.UpdateStatusStatus, error)
	// watch watches the object from resourceVersion rv.
	watch(ctx context.Context, rv string) (watch.Interface, error)
	// of returns the resourceVersion and status of obj, a watch's object;
	// false when obj is not the object followed.
	of(obj runtime.Object) (string, *v1alpha1.UpdateStatusStatus, bool)
	// insights lists the per-insight objects about the object at a
	// revision not older than rv.
	insights(ctx context.Context, rv string) (*untruncate.Objects, error)
	// render writes the report of st.
	render(w io.Writer, st *v1alpha1.UpdateStatusStatus, now time.Time, details report.Details) error
}

// render prints the report of st, completed with the insights it left out.
func (s *served) render(ctx context.Context, rv string, st *v1alpha1.UpdateStatusStatus) error {
	st = s.completed(ctx, rv, st)
	if s.printed > 0 {
		if _, err := fmt.Fprintln(s.out); err != nil {
			return err
		}
	}
	s.printed++
	return s.target.render(s.out, st, s.clock.Now(), s.details)
}

// once prints the report of the object as served now.
func (s *served) once(ctx context.Context) error {
	rv, st, err := s.target.get(ctx)
	if err != nil {
		return err
	}
	return s.render(ctx, rv, st)
}

// watch prints the report, then again on every watch event that changes
// the object, until ctx ends. A watch that closes is resumed from the last
// resourceVersion; an expired one starts over from a fresh read.
func (s *served) watch(ctx context.Context) error {
	rv, st, err := s.target.get(ctx)
	if err != nil {
		return err
	}
	if err := s.render(ctx, rv, st); err != nil {
		return err
	}
	for ctx.Err() == nil {
		w, err := s.target.watch(ctx, rv)
		if err != nil {
			klog.ErrorS(err, "Watching failed, retrying", "object", s.target.String(), "resourceVersion", rv)
			if !sleep(ctx, time.Second) {
				break
			}
			continue
		}
		rv, err = s.drain(ctx, w, rv)
		w.Stop()
		if err != nil {
			return err
		}
	}
	return nil
}

// drain renders every event of one watch and returns the resourceVersion
// to resume from.
func (s *served) drain(ctx context.Context, w watch.Interface, rv string) (string, error) {
	for {
		select {
		case <-ctx.Done():
			return rv, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv, nil
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				objRV, st, ours := s.target.of(ev.Object)
				if !ours || (rv != "" && objRV == rv) {
					continue // not ours, or the version already shown
				}
				rv = objRV
				if err := s.render(ctx, rv, st); err != nil {
					return rv, err
				}
			case watch.Deleted:
				_, _ = fmt.Fprintf(s.out, "\n%s was deleted\n", s.target)
			case watch.Error:
				err := apierrors.FromObject(ev.Object)
				if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
					objRV, st, gerr := s.target.get(ctx)
					if gerr != nil {
						return rv, gerr
					}
					rv = objRV
					if err := s.render(ctx, rv, st); err != nil {
						return rv, err
					}
					return rv, nil
				}
				klog.ErrorS(err, "The watch reported an error", "object", s.target.String(), "resourceVersion", rv)
				return rv, nil
			}
		}
	}
}

// completed returns st with the insights it left out to stay within the
// API's limits put back from the per-insight resources, so that the report
// lists every node; st itself when nothing was left out. The lists are read
// at a revision not older than st's (rv): since the object's content is the
// same in every revision from its resourceVersion on, they describe the same
// cluster state or a newer one. A server that does not serve the per-insight
// resources (404) leaves st as it is, silently; any other failure leaves it
// too, with a warning: st still says what it left out.
func (s *served) completed(ctx context.Context, rv string, st *v1alpha1.UpdateStatusStatus) *v1alpha1.UpdateStatusStatus {
	if !untruncate.Truncated(st) {
		return st
	}
	objs, err := s.target.insights(ctx, rv)
	if err != nil {
		if !apierrors.IsNotFound(err) {
			klog.ErrorS(err, "Reading the per-insight resources failed; the report shows the object alone, which left out insights", "object", s.target.String())
		}
		return st
	}
	return untruncate.Status(st, objs)
}

// clusterStatus is the UpdateStatus of a standalone cluster.
type clusterStatus struct{ client versioned.Interface }

func (clusterStatus) String() string {
	return resources.UpdateStatus.Resource + "/" + resources.UpdateStatusName
}

func (t clusterStatus) get(ctx context.Context) (string, *v1alpha1.UpdateStatusStatus, error) {
	obj, err := t.client.UpdateV1alpha1().UpdateStatuses().Get(ctx, resources.UpdateStatusName, metav1.GetOptions{})
	if err != nil {
		return "", nil, fmt.Errorf("reading %s: %w", t, err)
	}
	return obj.ResourceVersion, &obj.Status, nil
}

func (t clusterStatus) watch(ctx context.Context, rv string) (watch.Interface, error) {
	return t.client.UpdateV1alpha1().UpdateStatuses().Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", resources.UpdateStatusName).String(),
		ResourceVersion: rv,
	})
}

func (clusterStatus) of(obj runtime.Object) (string, *v1alpha1.UpdateStatusStatus, bool) {
	o, ok := obj.(*v1alpha1.UpdateStatus)
	if !ok || o.Name != resources.UpdateStatusName {
		return "", nil, false
	}
	return o.ResourceVersion, &o.Status, true
}

func (t clusterStatus) insights(ctx context.Context, rv string) (*untruncate.Objects, error) {
	return listInsights(ctx, t.client.UpdateV1alpha1(), rv)
}

func (clusterStatus) render(w io.Writer, st *v1alpha1.UpdateStatusStatus, now time.Time, details report.Details) error {
	return report.Render(w, &v1alpha1.UpdateStatus{Status: *st}, now, details)
}

// listOptions are the options of the lists that complete an object of
// resourceVersion rv: not older than it.
func listOptions(rv string) metav1.ListOptions {
	opts := metav1.ListOptions{ResourceVersion: rv}
	if rv != "" {
		opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	}
	return opts
}

// listInsights lists every object of the five per-insight kinds at a
// revision not older than rv.
func listInsights(ctx context.Context, c updatev1alpha1.UpdateV1alpha1Interface, rv string) (*untruncate.Objects, error) {
	opts := listOptions(rv)
	var objs untruncate.Objects
	nodes, err := c.NodeProgressInsights().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing nodeprogressinsights: %w", err)
	}
	objs.Nodes = nodes.Items
	health, err := c.HealthInsights().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing healthinsights: %w", err)
	}
	objs.Health = health.Items
	pools, err := c.MachineConfigPoolProgressInsights().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing machineconfigpoolprogressinsights: %w", err)
	}
	objs.MachineConfigPools = pools.Items
	operators, err := c.ClusterOperatorProgressInsights().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing clusteroperatorprogressinsights: %w", err)
	}
	objs.ClusterOperators = operators.Items
	versions, err := c.ClusterVersionProgressInsights().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("listing clusterversionprogressinsights: %w", err)
	}
	objs.ClusterVersions = versions.Items
	return &objs, nil
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
