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
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/informers/externalversions"
	"github.com/update-status/apiserver/pkg/report"
)

// checkNamespace validates -n/--namespace; empty means every namespace.
func checkNamespace(ns string) error {
	if ns == "" {
		return nil
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return fmt.Errorf("invalid --namespace %q: %s", ns, strings.Join(errs, "; "))
	}
	return nil
}

// fleetFromFile prints the fleet view of the HostedClusterUpdateStatuses
// saved in path (in namespace ns, or all of them when ns is empty).
func fleetFromFile(out io.Writer, path, ns, nowFlag string, c clock.PassiveClock) error {
	now, saved, err := readSavedAt(path, nowFlag, c)
	if err != nil {
		return err
	}
	var objs []v1alpha1.HostedClusterUpdateStatus
	for _, o := range saved.hosted {
		if ns == "" || o.Namespace == ns {
			objs = append(objs, o)
		}
	}
	return report.RenderFleet(out, objs, now)
}

// fleet prints the fleet view of the hosted clusters a cluster serves, in
// namespace ns or in every namespace.
type fleet struct {
	client versioned.Interface
	ns     string
	out    io.Writer
	clock  clock.PassiveClock
	// last is the last view printed; printed counts them.
	last    []byte
	printed int
}

// where names the namespaces listed, for messages.
func (f *fleet) where() string {
	if f.ns == "" {
		return "all namespaces"
	}
	return "namespace " + f.ns
}

// print renders objs and writes the view unless it is the one last printed.
func (f *fleet) print(objs []v1alpha1.HostedClusterUpdateStatus) error {
	var b bytes.Buffer
	if err := report.RenderFleet(&b, objs, f.clock.Now()); err != nil {
		return err
	}
	if bytes.Equal(b.Bytes(), f.last) {
		return nil
	}
	if f.printed > 0 {
		if _, err := fmt.Fprintln(f.out); err != nil {
			return err
		}
	}
	f.last, f.printed = b.Bytes(), f.printed+1
	_, err := f.out.Write(f.last)
	return err
}

// once lists the HostedClusterUpdateStatuses and prints their view.
func (f *fleet) once(ctx context.Context) error {
	list, err := f.client.UpdateV1alpha1().HostedClusterUpdateStatuses(f.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		err = fmt.Errorf("listing %s in %s: %w", resources.HostedClusterUpdateStatus.Resource, f.where(), err)
		if apierrors.IsForbidden(err) && f.ns == "" {
			err = fmt.Errorf("%w (pass -n NAMESPACE to list the hosted clusters of one namespace)", err)
		}
		return err
	}
	return f.print(list.Items)
}

// watch prints the view, then again whenever a change of a hosted cluster
// changes it, until ctx ends. The generated informer follows the objects;
// the view is rendered from its cache after each burst of events.
func (f *fleet) watch(ctx context.Context) error {
	if err := f.once(ctx); err != nil {
		return err
	}
	factory := externalversions.NewSharedInformerFactoryWithOptions(f.client, 0, externalversions.WithNamespace(f.ns))
	informer := factory.Update().V1alpha1().HostedClusterUpdateStatuses()
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { notify() },
		UpdateFunc: func(any, any) { notify() },
		DeleteFunc: func(any) { notify() },
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
		return nil // ctx ended
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
		objs, err := informer.Lister().List(labels.Everything())
		if err != nil {
			return err
		}
		items := make([]v1alpha1.HostedClusterUpdateStatus, len(objs))
		for i, o := range objs {
			items[i] = *o
		}
		if err := f.print(items); err != nil {
			return err
		}
	}
}
