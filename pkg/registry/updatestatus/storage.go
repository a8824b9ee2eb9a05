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

// Package updatestatus is the REST storage of the virtual, read-only
// UpdateStatus resource: the singleton "cluster" and its status subresource,
// served by the apiserver's registry and watch cache from the revisions the
// live view publishes (pkg/registry/virtualstore), with each revision's GET
// encodings kept (encodings.go), plus tables for kubectl.
package updatestatus

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
)

// names are the names of the resource.
var names = resources.UpdateStatus

// typesOf returns the constructors of the internal UpdateStatus types that
// scheme registers.
func typesOf(scheme *runtime.Scheme) (virtualstore.Types, error) {
	return virtualstore.TypesOf(scheme, update.SchemeGroupVersion, names.Kind)
}

// NewStore returns the store the view publishes UpdateStatus revisions to;
// scheme registers the internal types.
func NewStore(scheme *runtime.Scheme) (*virtualstore.Store, error) {
	types, err := typesOf(scheme)
	if err != nil {
		return nil, err
	}
	return virtualstore.New(virtualstore.Config{
		Resource: names.GroupResource(),
		Prefix:   "/" + names.Resource,
		New:      types.New,
		NewList:  types.NewList,
	})
}

// NewREST returns the storage of updatestatuses and updatestatuses/status
// over store. scheme and codec are the server's scheme and storage codec;
// serializers are the server's, with which it encodes watch events of
// update.openshift.io/v1alpha1 itself (REST); clock gives the ages in
// tables. The encodings of the encodingRevisions newest revisions read are
// kept; with 0, none: every GET and watch event is encoded by its handler.
func NewREST(store *virtualstore.Store, scheme *runtime.Scheme, codec runtime.Codec, serializers runtime.NegotiatedSerializer, clock clock.PassiveClock, encodingRevisions int) (*REST, *StatusREST, error) {
	types, err := typesOf(scheme)
	if err != nil {
		return nil, nil, err
	}
	r, err := virtualstore.NewREST(virtualstore.RESTConfig{
		Store:      store,
		Codec:      codec,
		Typer:      scheme,
		Singular:   names.Singular,
		ShortNames: []string{names.ShortName},
		New:        types.New,
		NewList:    types.NewList,
		Table:      cells.Convertor{Kind: statusTable, Clock: clock},
	})
	if err != nil {
		return nil, nil, err
	}
	main := &REST{REST: r}
	if encodingRevisions > 0 {
		main.encodings = &encodingCache{keep: encodingRevisions}
		main.encoders = newWatchEncodings(serializers, v1alpha1.SchemeGroupVersion)
	}
	return main, &StatusREST{main: main}, nil
}

// StatusREST serves updatestatuses/status: the same object, read-only.
type StatusREST struct {
	main *REST
}

var (
	_ rest.Storage        = &StatusREST{}
	_ rest.Scoper         = &StatusREST{}
	_ rest.Getter         = &StatusREST{}
	_ rest.TableConvertor = &StatusREST{}
)

// New implements rest.Storage.
func (r *StatusREST) New() runtime.Object { return &update.UpdateStatus{} }

// Destroy implements rest.Storage. The storage belongs to the main resource.
func (r *StatusREST) Destroy() {}

// NamespaceScoped implements rest.Scoper.
func (r *StatusREST) NamespaceScoped() bool { return false }

// Get implements rest.Getter.
func (r *StatusREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return r.main.Get(ctx, name, opts)
}

// ConvertToTable implements rest.TableConvertor.
func (r *StatusREST) ConvertToTable(ctx context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.main.ConvertToTable(ctx, object, tableOptions)
}
