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

package virtualstore

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	cacherstorage "k8s.io/apiserver/pkg/storage/cacher"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
)

// RESTConfig describes one read-only resource served from a Store through
// the apiserver's registry and watch cache.
type RESTConfig struct {
	// Store holds the published objects. Required.
	Store *Store
	// Codec encodes the resource's objects; the watch cache checks it.
	Codec runtime.Codec
	// Typer knows the served types (the scheme).
	Typer runtime.ObjectTyper
	// Singular is the singular name of the resource.
	Singular string
	// ShortNames are the kubectl short names.
	ShortNames []string
	// New and NewList return empty objects of the served type.
	New, NewList func() runtime.Object
	// Attrs returns the labels and fields a selector may use; metadata.name
	// and the labels when nil.
	Attrs storage.AttrFunc
	// Table renders objects for kubectl.
	Table rest.TableConvertor
	// WatchBuffer is how many events may wait for a client's watch stream
	// past coalescing (see coalescingWatch): 0 for large objects.
	WatchBuffer int
	// Namespaced makes the resource namespace-scoped: its objects carry a
	// namespace, their keys are Prefix/namespace/name, and the default
	// selectors add metadata.namespace.
	Namespaced bool
}

// REST is the read-only REST storage of one resource: a genericregistry.Store
// whose storage is the watch cache in front of a Store, reduced to GET, LIST
// and WATCH, so that no write route is installed.
type REST struct {
	store       *genericregistry.Store
	singular    string
	shortNames  []string
	watchBuffer int
	resource    string // for metrics
	namespaced  bool
}

var (
	_ rest.Storage              = &REST{}
	_ rest.Scoper               = &REST{}
	_ rest.Getter               = &REST{}
	_ rest.Lister               = &REST{}
	_ rest.Watcher              = &REST{}
	_ rest.TableConvertor       = &REST{}
	_ rest.SingularNameProvider = &REST{}
	_ rest.ShortNamesProvider   = &REST{}
)

// NewREST builds the REST storage of cfg.Store's resource.
func NewREST(cfg RESTConfig) (*REST, error) {
	s := cfg.Store
	if s == nil || cfg.New == nil || cfg.NewList == nil || cfg.Table == nil || cfg.Typer == nil || cfg.Codec == nil {
		return nil, fmt.Errorf("virtualstore: RESTConfig needs Store, New, NewList, Table, Typer and Codec")
	}
	strategy := readOnlyStrategy{ObjectTyper: cfg.Typer, namespaced: cfg.Namespaced}
	store := &genericregistry.Store{
		NewFunc:                   cfg.New,
		NewListFunc:               cfg.NewList,
		DefaultQualifiedResource:  s.cfg.Resource,
		SingularQualifiedResource: schema.GroupResource{Group: s.cfg.Resource.Group, Resource: cfg.Singular},
		CreateStrategy:            strategy,
		DeleteStrategy:            strategy,
		TableConvertor:            cfg.Table,
	}
	if err := store.CompleteWithOptions(&generic.StoreOptions{
		RESTOptions: restOptions{store: s, codec: cfg.Codec},
		AttrFunc:    cfg.Attrs,
	}); err != nil {
		return nil, err
	}
	return &REST{store: store, singular: cfg.Singular, shortNames: cfg.ShortNames, watchBuffer: cfg.WatchBuffer, resource: s.cfg.Resource.Resource, namespaced: cfg.Namespaced}, nil
}

// New implements rest.Storage.
func (r *REST) New() runtime.Object { return r.store.New() }

// NewList implements rest.Lister.
func (r *REST) NewList() runtime.Object { return r.store.NewList() }

// Destroy implements rest.Storage: it stops the watch cache.
func (r *REST) Destroy() { r.store.Destroy() }

// NamespaceScoped implements rest.Scoper.
func (r *REST) NamespaceScoped() bool { return r.namespaced }

// GetSingularName implements rest.SingularNameProvider.
func (r *REST) GetSingularName() string { return r.singular }

// ShortNames implements rest.ShortNamesProvider.
func (r *REST) ShortNames() []string { return r.shortNames }

// Get implements rest.Getter.
func (r *REST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	if opts != nil {
		if err := checkResourceVersion(opts.ResourceVersion); err != nil {
			return nil, err
		}
	}
	return r.store.Get(ctx, name, opts)
}

// List implements rest.Lister.
func (r *REST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, opts)
}

// Watch implements rest.Watcher.
func (r *REST) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	return r.WatchEach(ctx, opts, nil)
}

// WatchEach is Watch with the object of every ADDED and MODIFIED event
// replaced by object's answer for it (no replacement when object is nil),
// for instance by one whose encodings the watchers of a revision share.
func (r *REST) WatchEach(ctx context.Context, opts *metainternalversion.ListOptions, object func(runtime.Object) runtime.Object) (watch.Interface, error) {
	if opts != nil {
		if err := checkResourceVersion(opts.ResourceVersion); err != nil {
			return nil, err
		}
	}
	w, err := r.store.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &metainternalversion.ListOptions{}
	}
	resume := func(rv string) (watch.Interface, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		again := opts.DeepCopy()
		again.ResourceVersion, again.ResourceVersionMatch, again.SendInitialEvents = rv, "", nil
		return r.store.Watch(ctx, again)
	}
	cw := newCoalescingWatch(w, r.watchBuffer, r.resource, resume, resumeFrom(opts.ResourceVersion, sendsChangesOnly(opts)), object)
	return cw, nil
}

// sendsChangesOnly tells whether a watch with opts starts without the
// current state: a resourceVersion other than "" and "0", or
// sendInitialEvents=false.
func sendsChangesOnly(opts *metainternalversion.ListOptions) bool {
	if opts.SendInitialEvents != nil {
		return !*opts.SendInitialEvents
	}
	return opts.ResourceVersion != "" && opts.ResourceVersion != "0"
}

// checkResourceVersion turns a malformed resourceVersion into 400: the watch
// cache reports it as an internal error.
func checkResourceVersion(rv string) error {
	if _, err := (storage.APIObjectVersioner{}).ParseResourceVersion(rv); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q: %v", rv, err))
	}
	return nil
}

// ReadinessCheck returns nil once the watch cache serves the resource.
func (r *REST) ReadinessCheck() error { return r.store.ReadinessCheckFunc() }

// ConvertToTable implements rest.TableConvertor.
func (r *REST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, object, tableOptions)
}

// readOnlyStrategy satisfies genericregistry.Store's need for create and
// delete strategies. REST exposes no write verb, so none of it ever runs;
// should it, every write is invalid.
type readOnlyStrategy struct {
	runtime.ObjectTyper
	names.NameGenerator
	namespaced bool
}

func (s readOnlyStrategy) NamespaceScoped() bool                          { return s.namespaced }
func (readOnlyStrategy) PrepareForCreate(context.Context, runtime.Object) {}
func (readOnlyStrategy) Validate(context.Context, runtime.Object) field.ErrorList {
	return field.ErrorList{field.Forbidden(field.NewPath(""), "this resource is computed and read-only")}
}
func (readOnlyStrategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (readOnlyStrategy) Canonicalize(runtime.Object)                               {}

// restOptions hands genericregistry.Store a decorator that builds the watch
// cache over the Store instead of an etcd client.
type restOptions struct {
	store *Store
	codec runtime.Codec
}

func (o restOptions) GetRESTOptions(resource schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	if resource != o.store.cfg.Resource {
		return generic.RESTOptions{}, fmt.Errorf("virtualstore: the store serves %s, not %s", o.store.cfg.Resource, resource)
	}
	return generic.RESTOptions{
		StorageConfig: &storagebackend.ConfigForResource{
			// The cacher's smallest event window: the Store's own history
			// is counted in events, not time.
			Config:        storagebackend.Config{Codec: o.codec, EventsHistoryWindow: cacherstorage.DefaultEventFreshDuration},
			GroupResource: resource,
		},
		Decorator:      o.decorate,
		ResourcePrefix: o.store.cfg.Prefix,
	}, nil
}

// decorate is a generic.StorageDecorator: the apiserver's cacher over the
// Store, behind the cache delegator that routes each request to one of them.
// It is the library's genericregistry.StorageWithCacher with the storage
// under the cache swapped, which that decorator has no way to take: it
// always builds its storage with generic.NewRawStorage, and factory.Create
// builds only etcd. So decorate assembles the same two library parts
// itself; what is its own is that the storage is the Store and that there
// is nothing to destroy below the cache. Stopping the delegator and the
// cacher twice is safe, as a DestroyFunc must be.
func (o restOptions) decorate(config *storagebackend.ConfigForResource, prefix string, keyFunc func(runtime.Object) (string, error),
	newFunc, newListFunc func() runtime.Object, getAttrs storage.AttrFunc, triggers storage.IndexerFuncs, indexers *cache.Indexers,
) (storage.Interface, factory.DestroyFunc, error) {
	if prefix != o.store.cfg.Prefix {
		return nil, nil, fmt.Errorf("virtualstore: prefix %q differs from the store's %q", prefix, o.store.cfg.Prefix)
	}
	cacher, err := cacherstorage.NewCacherFromConfig(cacherstorage.Config{
		Storage:             o.store,
		Versioner:           storage.APIObjectVersioner{},
		GroupResource:       config.GroupResource,
		EventsHistoryWindow: config.EventsHistoryWindow,
		ResourcePrefix:      prefix,
		KeyFunc:             keyFunc,
		NewFunc:             newFunc,
		NewListFunc:         newListFunc,
		GetAttrsFunc:        getAttrs,
		IndexerFuncs:        triggers,
		Indexers:            indexers,
		Codec:               config.Codec,
	})
	if err != nil {
		return nil, nil, err
	}
	delegator := cacherstorage.NewCacheDelegator(cacher, o.store)
	return delegator, func() {
		delegator.Stop()
		cacher.Stop()
	}, nil
}
