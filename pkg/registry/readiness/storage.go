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

// Package readiness is the REST storage of the readiness kinds of
// update.openshift.io (UpdateReadiness, the singleton named cluster, and
// UpdateCandidate, one per release): a publisher that computes them with
// pkg/readiness from the sources' snapshots (the ClusterVersion and the
// alerts) on every source change, two virtualstore.Stores it publishes to,
// and their read-only REST storage with kubectl tables.
package readiness

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/google/uuid"
	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/readiness"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
	"github.com/update-status/apiserver/pkg/view"
)

// Source is what the publisher reads; *sources.Set implements it.
type Source interface {
	Snapshot() view.Snapshot
	AddListener(func(source, object string))
}

// FoldDelay is how long the publisher waits after a source change before it
// computes, so that a burst of changes is computed once.
const FoldDelay = 100 * time.Millisecond

// Publisher computes the readiness objects and publishes them to its stores.
type Publisher struct {
	source  Source
	clock   clock.Clock
	trigger chan struct{}
	// Readiness and Candidates are the stores of the two kinds.
	Readiness, Candidates *virtualstore.Store

	// Owned by Run.
	rv        uint64
	synced    bool
	published map[string]published
}

// published is one object as last published: the computed object, to tell
// a change, and the stored internal object with its resourceVersion.
type published struct {
	computed runtime.Object
	stored   runtime.Object
}

// newStore returns an empty store of the resource names, its objects under
// "/<resource>"; newObj and newList make an object and a list of the kind.
func newStore(names resources.Names, newObj, newList func() runtime.Object) (*virtualstore.Store, error) {
	return virtualstore.New(virtualstore.Config{Resource: names.GroupResource(), Prefix: "/" + names.Resource, New: newObj, NewList: newList})
}

// NewPublisher returns a publisher over source with empty, not yet ready
// stores; it registers for source changes.
func NewPublisher(source Source, c clock.Clock) (*Publisher, error) {
	r, err := newStore(resources.UpdateReadiness, func() runtime.Object { return &update.UpdateReadiness{} }, func() runtime.Object { return &update.UpdateReadinessList{} })
	if err != nil {
		return nil, err
	}
	cs, err := newStore(resources.UpdateCandidate, func() runtime.Object { return &update.UpdateCandidate{} }, func() runtime.Object { return &update.UpdateCandidateList{} })
	if err != nil {
		return nil, err
	}
	p := &Publisher{source: source, clock: c, trigger: make(chan struct{}, 1), Readiness: r, Candidates: cs, published: map[string]published{}}
	source.AddListener(func(string, string) {
		select {
		case p.trigger <- struct{}{}:
		default:
		}
	})
	return p, nil
}

// Run computes once, then after every burst of source changes, until ctx is
// done.
func (p *Publisher) Run(ctx context.Context) {
	p.Publish()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.trigger:
		}
		select {
		case <-ctx.Done():
			return
		case <-p.clock.After(FoldDelay):
		}
		p.Publish()
	}
}

// Publish computes the objects from a snapshot of the sources and publishes
// those that changed. The resourceVersion of a revision is the highest etcd
// resourceVersion among the inputs times 1,000,000 when that is past the
// previous one (as the view numbers its own: docs/watch.md), else one more
// than the previous one (alerts carry no resourceVersion).
func (p *Publisher) Publish() {
	snap := p.source.Snapshot()
	var in readiness.Input
	if snap.Inputs != nil {
		in.ClusterVersion, in.Alerts = snap.Inputs.ClusterVersion, snap.Inputs.Alerts
	}
	in.AlertsUnavailable = snap.AlertsUnavailable
	res := computeSafely(in)
	var readinessObjs, candidateObjs []runtime.Object
	if res.Readiness != nil {
		readinessObjs = []runtime.Object{res.Readiness}
	}
	for _, c := range res.Candidates {
		candidateObjs = append(candidateObjs, c)
	}
	rv := max(p.rv+1, min(snap.MaxResourceVersion, 1<<40)*1_000_000)
	changed := false
	next := map[string]published{}
	convert := func(kind string, objs []runtime.Object) []runtime.Object {
		out := make([]runtime.Object, 0, len(objs))
		for _, obj := range objs {
			m, _ := obj.(metav1.Object)
			setMeta(m, in.ClusterVersion, kind)
			key := kind + "/" + m.GetName()
			if old, ok := p.published[key]; ok && reflect.DeepEqual(old.computed, obj) {
				next[key] = old
				out = append(out, old.stored)
				continue
			}
			stored, err := toInternal(obj)
			if err != nil {
				klog.ErrorS(err, "Cannot convert a readiness object", "object", key)
				continue
			}
			stored.(metav1.Object).SetResourceVersion(fmt.Sprint(rv))
			next[key] = published{computed: obj, stored: stored}
			out = append(out, stored)
			changed = true
		}
		return out
	}
	readinessStored := convert("UpdateReadiness", readinessObjs)
	candidateStored := convert("UpdateCandidate", candidateObjs)
	if len(next) != len(p.published) {
		changed = true
	}
	if !changed && p.rv != 0 && p.synced == snap.InitialSyncDone {
		return
	}
	if err := p.Readiness.Publish(rv, readinessStored, snap.InitialSyncDone); err != nil {
		klog.ErrorS(err, "Cannot publish the UpdateReadiness", "resourceVersion", rv)
		return
	}
	if err := p.Candidates.Publish(rv, candidateStored, snap.InitialSyncDone); err != nil {
		klog.ErrorS(err, "Cannot publish the UpdateCandidates", "resourceVersion", rv)
		return
	}
	p.rv, p.published, p.synced = rv, next, snap.InitialSyncDone
}

// computeSafely runs the rules and turns a panic into no objects.
func computeSafely(in readiness.Input) (res readiness.Result) {
	defer func() {
		if r := recover(); r != nil {
			klog.ErrorS(nil, "The readiness rules panicked", "panic", r)
			res = readiness.Result{}
		}
	}()
	return readiness.Compute(in)
}

// uidNamespace derives the objects' uids when the ClusterVersion has none
// that parses as a UUID.
var uidNamespace = uuid.MustParse("1b0c3e55-6d43-4a36-9f3a-5cbd1f3e0e51")

// setMeta gives an object the metadata every replica derives alike from the
// ClusterVersion: its creationTimestamp and a uid named after kind and name.
func setMeta(m metav1.Object, cv *configv1.ClusterVersion, kind string) {
	if cv == nil {
		return
	}
	m.SetCreationTimestamp(cv.CreationTimestamp)
	if cv.UID != "" {
		ns, err := uuid.Parse(string(cv.UID))
		if err != nil {
			ns = uidNamespace
		}
		m.SetUID(types.UID(uuid.NewSHA1(ns, []byte(kind+"/"+m.GetName())).String()))
	}
}

func toInternal(obj runtime.Object) (runtime.Object, error) {
	switch o := obj.(type) {
	case *v1alpha1.UpdateReadiness:
		out := &update.UpdateReadiness{}
		return out, v1alpha1.Convert_v1alpha1_UpdateReadiness_To_update_UpdateReadiness(o, out, nil)
	case *v1alpha1.UpdateCandidate:
		out := &update.UpdateCandidate{}
		return out, v1alpha1.Convert_v1alpha1_UpdateCandidate_To_update_UpdateCandidate(o, out, nil)
	}
	return nil, fmt.Errorf("not a readiness object: %T", obj)
}

// NewREST returns the read-only storage of updatereadinesses and
// updatecandidates. typer and codec are the server's scheme and storage codec.
func (p *Publisher) NewREST(typer runtime.ObjectTyper, codec runtime.Codec) (readinessREST, candidateREST *virtualstore.REST, err error) {
	readinessREST, err = virtualstore.NewREST(virtualstore.RESTConfig{
		Store: p.Readiness, Codec: codec, Typer: typer, Singular: resources.UpdateReadiness.Singular, ShortNames: []string{resources.UpdateReadiness.ShortName},
		New:     func() runtime.Object { return &update.UpdateReadiness{} },
		NewList: func() runtime.Object { return &update.UpdateReadinessList{} },
		Table:   cells.Convertor{Kind: readinessTable, Clock: p.clock},
	})
	if err != nil {
		return nil, nil, err
	}
	candidateREST, err = virtualstore.NewREST(virtualstore.RESTConfig{
		Store: p.Candidates, Codec: codec, Typer: typer, Singular: resources.UpdateCandidate.Singular, ShortNames: []string{resources.UpdateCandidate.ShortName},
		New:     func() runtime.Object { return &update.UpdateCandidate{} },
		NewList: func() runtime.Object { return &update.UpdateCandidateList{} },
		Table:   cells.Convertor{Kind: candidateTable, Clock: p.clock}, WatchBuffer: 64,
	})
	if err != nil {
		readinessREST.Destroy()
		return nil, nil, err
	}
	return readinessREST, candidateREST, nil
}
