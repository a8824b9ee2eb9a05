// Package updatestatus is the REST storage of the virtual, read-only
// UpdateStatus resource: GET, LIST and WATCH of the singleton "cluster",
// served from the revisions the live view publishes, plus tables for kubectl.
// It has no write methods, so the generic apiserver installs no write routes.
package updatestatus

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/view"
)

// Names of the resource.
const (
	Resource     = "updatestatuses"
	SingularName = "updatestatus"
	ShortName    = "us"
)

// REST serves updatestatuses.
type REST struct {
	hub *Hub
	tableConvertor
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

// NewREST returns the storage of updatestatuses, serving what hub holds.
// clock is used for the ages in tables.
func NewREST(hub *Hub, clock clock.PassiveClock) *REST {
	return &REST{hub: hub, tableConvertor: tableConvertor{clock: clock}}
}

// New implements rest.Storage.
func (r *REST) New() runtime.Object { return &update.UpdateStatus{} }

// Destroy implements rest.Storage.
func (r *REST) Destroy() { r.hub.Shutdown() }

// NamespaceScoped implements rest.Scoper: UpdateStatus is cluster-scoped.
func (r *REST) NamespaceScoped() bool { return false }

// GetSingularName implements rest.SingularNameProvider.
func (r *REST) GetSingularName() string { return SingularName }

// ShortNames implements rest.ShortNamesProvider.
func (r *REST) ShortNames() []string { return []string{ShortName} }

// Get implements rest.Getter. Only "cluster" exists. The object returned is
// shared and remembers its encodings: a GET of an unchanged status neither
// computes nor copies nor encodes again.
func (r *REST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return get(ctx, r.hub, name, opts)
}

func get(ctx context.Context, hub *Hub, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	if _, err := hub.currentRevision(); err != nil {
		return nil, err
	}
	if name != view.ObjectName {
		return nil, apierrors.NewNotFound(update.Resource(Resource), name)
	}
	var rv string
	if opts != nil {
		rv = opts.ResourceVersion
	}
	rev, err := hub.revisionAt(ctx, rv, "")
	if err != nil {
		return nil, err
	}
	return rev.cached, nil
}

// NewList implements rest.Lister.
func (r *REST) NewList() runtime.Object { return &update.UpdateStatusList{} }

// List implements rest.Lister: the list holds the one object when it matches
// the selectors. There is nothing to page through, so limit is honoured
// trivially and continue tokens are refused.
func (r *REST) List(ctx context.Context, opts *metainternalversion.ListOptions) (runtime.Object, error) {
	if _, err := r.hub.currentRevision(); err != nil {
		return nil, err
	}
	f := filter{}
	var rv string
	var match metav1.ResourceVersionMatch
	if opts != nil {
		if opts.Continue != "" {
			return nil, apierrors.NewBadRequest("continue tokens are not supported: the list has at most one item")
		}
		f = filter{label: opts.LabelSelector, field: opts.FieldSelector}
		rv, match = opts.ResourceVersion, opts.ResourceVersionMatch
	}
	rev, err := r.hub.revisionAt(ctx, rv, match)
	if err != nil {
		return nil, err
	}
	list := &update.UpdateStatusList{ListMeta: metav1.ListMeta{ResourceVersion: rev.rvString}}
	if f.matches(rev.sets) {
		// A shallow copy: the list encoder never writes below the top level
		// of its items.
		list.Items = []update.UpdateStatus{*rev.cached.obj}
	}
	return list, nil
}

// Watch implements rest.Watcher (semantics in docs/watch.md and Hub.watch).
func (r *REST) Watch(ctx context.Context, opts *metainternalversion.ListOptions) (watch.Interface, error) {
	if _, err := r.hub.currentRevision(); err != nil {
		return nil, err
	}
	req := watchRequest{}
	if opts != nil {
		req = watchRequest{
			resourceVersion:   opts.ResourceVersion,
			sendInitialEvents: opts.SendInitialEvents,
			allowBookmarks:    opts.AllowWatchBookmarks,
			filter:            filter{label: opts.LabelSelector, field: opts.FieldSelector},
		}
	}
	return r.hub.watch(ctx, req)
}

// StatusREST serves updatestatuses/status: the same object, read-only.
type StatusREST struct {
	hub *Hub
	tableConvertor
}

var (
	_ rest.Storage        = &StatusREST{}
	_ rest.Scoper         = &StatusREST{}
	_ rest.Getter         = &StatusREST{}
	_ rest.TableConvertor = &StatusREST{}
)

// NewStatusREST returns the storage of updatestatuses/status.
func NewStatusREST(hub *Hub, clock clock.PassiveClock) *StatusREST {
	return &StatusREST{hub: hub, tableConvertor: tableConvertor{clock: clock}}
}

// New implements rest.Storage.
func (r *StatusREST) New() runtime.Object { return &update.UpdateStatus{} }

// Destroy implements rest.Storage. The hub belongs to REST.
func (r *StatusREST) Destroy() {}

// NamespaceScoped implements rest.Scoper.
func (r *StatusREST) NamespaceScoped() bool { return false }

// Get implements rest.Getter.
func (r *StatusREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return get(ctx, r.hub, name, opts)
}
