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

// Package insightobjects is the REST storage of the five read-only,
// cluster-scoped per-insight kinds of update.openshift.io (one object per
// ClusterVersion, ClusterOperator, MachineConfigPool, Node and Health
// insight): a virtualstore.Store per kind, which the live view publishes
// each revision's changes to, served by the apiserver's registry and watch
// cache, with tables for kubectl. Their namespaced hosted twins
// (HostedNodeProgressInsight and the others, resources.InsightKind.Hosted)
// are served the same way with the same tables (NewHostedStores,
// NewHostedREST); the hosted publisher publishes to them.
//
// Selectors need nothing of their own: the registry's default attributes
// of a resource are metadata.name (and metadata.namespace) and the labels,
// which carry the scope, pool, informer, impact level and hosted cluster.
package insightobjects

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
	"github.com/update-status/apiserver/pkg/view"
)

// tables are the kubectl tables of the per-insight kinds, indexed by
// resources.InsightKind: all that the registry adds to a kind's names and
// types.
var tables = [resources.NumInsightKinds]cells.Kind{
	resources.ClusterVersionInsights:    clusterVersionTable,
	resources.ClusterOperatorInsights:   clusterOperatorTable,
	resources.MachineConfigPoolInsights: poolTable,
	resources.NodeInsights:              nodeTable,
	resources.HealthInsights:            healthTable,
}

// kind is one per-insight kind as the registry serves it: its names (package
// resources), the constructors of its objects (from the scheme) and its
// table.
type kind struct {
	resources.Names
	virtualstore.Types
	table cells.Kind
}

// kindsOf returns the per-insight kinds, indexed by resources.InsightKind,
// with the constructors scheme registers for the internal version; their
// hosted twins when hosted.
func kindsOf(scheme *runtime.Scheme, hosted bool) ([resources.NumInsightKinds]kind, error) {
	var out [resources.NumInsightKinds]kind
	for k := range out {
		names, t := resources.InsightKind(k).Names(), tables[k]
		if hosted {
			names, t = resources.InsightKind(k).Hosted(), hostedTable(t)
		}
		types, err := virtualstore.TypesOf(scheme, update.SchemeGroupVersion, names.Kind)
		if err != nil {
			return out, err
		}
		out[k] = kind{Names: names, Types: types, table: t}
	}
	return out, nil
}

// Stores are the stores of the per-insight kinds, indexed by
// resources.InsightKind: the view publishes Revision.Insights[k] to
// Stores[k].
type Stores [resources.NumInsightKinds]*virtualstore.Store

// NewStores returns an empty, not yet ready store for each kind; scheme
// registers the kinds' internal types.
func NewStores(scheme *runtime.Scheme) (Stores, error) { return newStores(scheme, false) }

// NewHostedStores returns an empty, not yet ready store for each hosted
// kind, indexed by the resources.InsightKind of its standalone twin.
func NewHostedStores(scheme *runtime.Scheme) (Stores, error) { return newStores(scheme, true) }

func newStores(scheme *runtime.Scheme, hosted bool) (Stores, error) {
	kinds, err := kindsOf(scheme, hosted)
	if err != nil {
		return Stores{}, err
	}
	var stores Stores
	for k := range kinds {
		s, err := virtualstore.New(virtualstore.Config{
			Resource: kinds[k].GroupResource(),
			Prefix:   "/" + kinds[k].Resource,
			New:      kinds[k].New,
			NewList:  kinds[k].NewList,
		})
		if err != nil {
			return Stores{}, fmt.Errorf("%s: %w", kinds[k].Resource, err)
		}
		stores[k] = s
	}
	return stores, nil
}

// Publish publishes one revision's changes of every kind: changes[k] to
// stores[k]. It goes on past an error and returns the first one.
func (s Stores) Publish(rv uint64, changes *[resources.NumInsightKinds]view.Changes, synced bool) error {
	var first error
	for k, store := range s {
		if err := store.PublishChanges(rv, changes[k].Changed, changes[k].Deleted, synced); err != nil && first == nil {
			first = fmt.Errorf("%s: %w", resources.InsightKind(k).Resource(), err)
		}
	}
	return first
}

// NewREST returns the read-only storage of each kind's resource over
// stores, indexed by resources.InsightKind. scheme and codec are the
// server's scheme and storage codec; clock gives the ages and estimates in
// tables.
func NewREST(stores Stores, scheme *runtime.Scheme, codec runtime.Codec, clock clock.PassiveClock) ([resources.NumInsightKinds]*virtualstore.REST, error) {
	return newREST(stores, scheme, codec, clock, false)
}

// NewHostedREST returns the read-only, namespaced storage of each hosted
// kind over stores (NewHostedStores), indexed by the resources.InsightKind
// of its standalone twin, with the twin's table.
func NewHostedREST(stores Stores, scheme *runtime.Scheme, codec runtime.Codec, clock clock.PassiveClock) ([resources.NumInsightKinds]*virtualstore.REST, error) {
	return newREST(stores, scheme, codec, clock, true)
}

func newREST(stores Stores, scheme *runtime.Scheme, codec runtime.Codec, clock clock.PassiveClock, hosted bool) ([resources.NumInsightKinds]*virtualstore.REST, error) {
	var out [resources.NumInsightKinds]*virtualstore.REST
	kinds, err := kindsOf(scheme, hosted)
	if err != nil {
		return out, err
	}
	for k := range kinds {
		r, err := virtualstore.NewREST(virtualstore.RESTConfig{
			Store:      stores[k],
			Codec:      codec,
			Typer:      scheme,
			Singular:   kinds[k].Singular,
			ShortNames: []string{kinds[k].ShortName},
			New:        kinds[k].New,
			NewList:    kinds[k].NewList,
			Table:      cells.Convertor{Kind: kinds[k].table, Clock: clock},
			// Insight objects are small: let the watch server write
			// several per flush when a client is behind.
			WatchBuffer: 64,
			Namespaced:  hosted,
		})
		if err != nil {
			for _, built := range out[:k] {
				built.Destroy()
			}
			return out, fmt.Errorf("%s: %w", kinds[k].Resource, err)
		}
		out[k] = r
	}
	return out, nil
}
