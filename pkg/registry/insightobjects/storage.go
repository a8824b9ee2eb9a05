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
// cache, with tables for kubectl.
//
// Selectors need nothing of their own: the registry's default attributes
// of a cluster-scoped resource are metadata.name and the labels, which carry
// the scope, pool, informer and impact level.
package insightobjects

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
	"github.com/update-status/apiserver/pkg/view"
)

// Names are the names of one kind's resource.
type Names struct {
	// Resource is the plural resource name.
	Resource string
	// Singular is the singular name.
	Singular string
	// ShortNames are the kubectl short names.
	ShortNames []string
}

// kind is all that differs from one per-insight kind to another.
type kind struct {
	Names
	new, newList func() runtime.Object
	table        table
}

// kinds are indexed by view.InsightKind.
var kinds = [view.NumInsightKinds]kind{
	view.ClusterVersionInsights: {
		Names:   namesOf(view.ClusterVersionInsights),
		new:     func() runtime.Object { return &update.ClusterVersionProgressInsight{} },
		newList: func() runtime.Object { return &update.ClusterVersionProgressInsightList{} },
		table:   clusterVersionTable,
	},
	view.ClusterOperatorInsights: {
		Names:   namesOf(view.ClusterOperatorInsights),
		new:     func() runtime.Object { return &update.ClusterOperatorProgressInsight{} },
		newList: func() runtime.Object { return &update.ClusterOperatorProgressInsightList{} },
		table:   clusterOperatorTable,
	},
	view.MachineConfigPoolInsights: {
		Names:   namesOf(view.MachineConfigPoolInsights),
		new:     func() runtime.Object { return &update.MachineConfigPoolProgressInsight{} },
		newList: func() runtime.Object { return &update.MachineConfigPoolProgressInsightList{} },
		table:   poolTable,
	},
	view.NodeInsights: {
		Names:   namesOf(view.NodeInsights),
		new:     func() runtime.Object { return &update.NodeProgressInsight{} },
		newList: func() runtime.Object { return &update.NodeProgressInsightList{} },
		table:   nodeTable,
	},
	view.HealthInsights: {
		Names:   namesOf(view.HealthInsights),
		new:     func() runtime.Object { return &update.HealthInsight{} },
		newList: func() runtime.Object { return &update.HealthInsightList{} },
		table:   healthTable,
	},
}

// namesOf derives the names of kind k's resource from the kind.
func namesOf(k view.InsightKind) Names {
	return Names{Resource: k.Resource(), Singular: strings.ToLower(k.Kind()), ShortNames: []string{k.ShortName()}}
}

// NamesOf returns the names of kind k's resource.
func NamesOf(k view.InsightKind) Names { return kinds[k].Names }

// Stores are the stores of the per-insight kinds, indexed by
// view.InsightKind: the view publishes Revision.Insights[k] to Stores[k].
type Stores [view.NumInsightKinds]*virtualstore.Store

// NewStores returns an empty, not yet ready store for each kind.
func NewStores() (Stores, error) {
	var stores Stores
	for k := range kinds {
		s, err := virtualstore.New(virtualstore.Config{
			Resource: update.Resource(kinds[k].Resource),
			Prefix:   "/" + kinds[k].Resource,
			New:      kinds[k].new,
			NewList:  kinds[k].newList,
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
func (s Stores) Publish(rv uint64, changes *[view.NumInsightKinds]view.Changes, synced bool) error {
	var first error
	for k, store := range s {
		if err := store.PublishChanges(rv, changes[k].Changed, changes[k].Deleted, synced); err != nil && first == nil {
			first = fmt.Errorf("%s: %w", kinds[k].Resource, err)
		}
	}
	return first
}

// NewREST returns the read-only storage of each kind's resource over
// stores, indexed by view.InsightKind. typer and codec are the server's
// scheme and storage codec; clock gives the ages and estimates in tables.
func NewREST(stores Stores, typer runtime.ObjectTyper, codec runtime.Codec, clock clock.PassiveClock) ([view.NumInsightKinds]*virtualstore.REST, error) {
	var out [view.NumInsightKinds]*virtualstore.REST
	for k := range kinds {
		r, err := virtualstore.NewREST(virtualstore.RESTConfig{
			Store:      stores[k],
			Codec:      codec,
			Typer:      typer,
			Singular:   kinds[k].Singular,
			ShortNames: kinds[k].ShortNames,
			New:        kinds[k].new,
			NewList:    kinds[k].newList,
			Table:      tableConvertor{table: kinds[k].table, clock: clock},
			// Insight objects are small: let the watch server write
			// several per flush when a client is behind.
			WatchBuffer: 64,
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
