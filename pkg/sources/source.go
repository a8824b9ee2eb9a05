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

package sources

import (
	"context"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// state is where a source is in its life.
type state int

const (
	// stateUnknown: discovery has not answered yet.
	stateUnknown state = iota
	// stateUnavailable: the API is not served.
	stateUnavailable
	// stateRunning: the informer runs (synced or not).
	stateRunning
)

// source is one informer-backed input of the engine, started when its API is
// served and stopped when it stops being served.
type source struct {
	// name is the resource's name for people, e.g. "nodes" or
	// "machineconfigpools.machineconfiguration.openshift.io".
	name string
	gvr  schema.GroupVersionResource
	// alwaysServed marks core APIs that need no discovery.
	alwaysServed bool
	newInformer  func() cache.SharedIndexInformer
	transform    cache.TransformFunc
	// matters, when set, says whether an update of a cached object can
	// change the engine's result; an update that cannot triggers nothing.
	matters func(old, updated interface{}) bool
	// observe, when set, sees every object an event is about (of an
	// update, the old and the updated one) before onChange is called.
	observe func(obj interface{})
	// mayBeForbidden marks an API the server may not be allowed to read
	// (the hosted clusters' on a cluster deployed without the
	// management-cluster RBAC): while its list is Forbidden, it counts as
	// unavailable, not as a cache still syncing, so that it holds up
	// neither the initial sync nor readiness.
	mayBeForbidden bool

	mu       sync.Mutex
	state    state
	informer cache.SharedIndexInformer
	bounds   *rvBounds // of informer
	cancel   context.CancelFunc
	lastErr  error
	synced   atomic.Bool
}

// rvBounds brackets the resourceVersions in one informer's cache without
// reading the objects. The informer passes every object through its
// transform before storing it, and hands it to the event handlers after:
// transformed is the highest resourceVersion that entered the pipeline,
// handled the highest that came out of it (an object's or a deletion's).
// Read handled before listing the cache and transformed after: when the
// two are equal, no event was between the store and the handlers, and
// handled is the highest resourceVersion among the objects listed and the
// deletions handled. A snapshot then needs no pass over the objects, which
// at 5,000 Nodes touches 5,000 allocations the engine does not otherwise
// read (BenchmarkSnapshot).
type rvBounds struct {
	transformed, handled atomic.Uint64
}

// wrap returns transform (nil: the object as it is), raising transformed
// with what it returns.
func (b *rvBounds) wrap(transform cache.TransformFunc) cache.TransformFunc {
	return func(obj interface{}) (interface{}, error) {
		if transform != nil {
			var err error
			if obj, err = transform(obj); err != nil {
				return nil, err
			}
		}
		raiseRV(&b.transformed, obj)
		return obj, nil
	}
}

// raiseRV raises maxRV to the resourceVersion of obj (the object of a
// tombstone), when it has one.
func raiseRV(maxRV *atomic.Uint64, obj interface{}) {
	rv, ok := resourceVersionOf(untomb(obj))
	if !ok {
		return
	}
	for {
		cur := maxRV.Load()
		if rv <= cur || maxRV.CompareAndSwap(cur, rv) {
			return
		}
	}
}

// snapshotState is the part of the source the snapshot needs: a source
// found Forbidden counts as unavailable (mayBeForbidden).
func (s *source) snapshotState() (state, cache.SharedIndexInformer, *rvBounds) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forbiddenLocked() {
		return stateUnavailable, nil, nil
	}
	return s.state, s.informer, s.bounds
}

// readable says whether a snapshot may read the source's cache, and gives
// its informer and the bounds of its resourceVersions when it may. An
// unavailable source (unserved or forbidden) is added to unavailable and
// may not be read; one that has not synced is added to unsynced, and may
// be read only once its informer runs.
func (s *source) readable(unavailable, unsynced *[]string) (cache.SharedIndexInformer, *rvBounds, bool) {
	st, inf, b := s.snapshotState()
	switch {
	case st == stateUnavailable:
		*unavailable = append(*unavailable, s.name)
		return nil, nil, false
	case st == stateUnknown:
		*unsynced = append(*unsynced, s.name)
		return nil, nil, false
	case !s.synced.Load():
		*unsynced = append(*unsynced, s.name)
	}
	return inf, b, true
}

// runState is whether the informer runs, whatever it could list.
func (s *source) runState() state {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// forbiddenLocked reports whether the source may be forbidden, runs, has not
// synced and its last list was Forbidden.
func (s *source) forbiddenLocked() bool {
	return s.mayBeForbidden && s.state == stateRunning && !s.synced.Load() && apierrors.IsForbidden(s.lastErr)
}

// start creates and runs the informer. onChange is called with the source's
// name and the object's key on every event, and with no key once the cache
// has synced, after onSynced; onDelete sees every deleted object.
func (s *source) start(ctx context.Context, onChange func(source, object string), onDelete func(obj interface{}), onSynced func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateRunning {
		return
	}
	inf, b := s.newInformer(), &rvBounds{}
	if err := inf.SetTransform(b.wrap(s.transform)); err != nil {
		klog.ErrorS(err, "Cannot set the informer transform", "source", s.name)
	}
	if err := inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		s.mu.Lock()
		first := s.lastErr == nil
		s.lastErr = err
		s.mu.Unlock()
		if s.mayBeForbidden && apierrors.IsForbidden(err) {
			if first {
				klog.InfoS("Source API is not readable; it counts as not served until it is (grant the server list and watch)", "source", s.name, "err", err)
			}
			return
		}
		cache.DefaultWatchErrorHandler(ctx, r, err)
	}); err != nil {
		klog.ErrorS(err, "Cannot set the watch error handler", "source", s.name)
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) { raiseRV(&b.handled, obj); s.observed(obj); onChange(s.name, objectKey(obj)) },
		UpdateFunc: func(old, updated interface{}) {
			raiseRV(&b.handled, updated)
			if s.matters == nil || s.matters(old, updated) {
				s.observed(old)
				s.observed(updated)
				onChange(s.name, objectKey(updated))
			}
		},
		DeleteFunc: func(obj interface{}) {
			onDelete(obj)
			raiseRV(&b.handled, obj)
			s.observed(obj)
			onChange(s.name, objectKey(obj))
		},
	}); err != nil {
		klog.ErrorS(err, "Cannot add the event handler", "source", s.name)
	}
	ctx, cancel := context.WithCancel(ctx)
	s.informer, s.bounds, s.cancel, s.state = inf, b, cancel, stateRunning
	s.synced.Store(false)
	s.lastErr = nil
	klog.InfoS("Starting source informer", "source", s.name)
	go inf.RunWithContext(ctx)
	go func() {
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			return
		}
		s.mu.Lock()
		current := s.informer == inf
		if current {
			s.lastErr = nil
		}
		s.mu.Unlock()
		if current {
			s.synced.Store(true)
			klog.InfoS("Source cache synced", "source", s.name)
			onSynced()
			onChange(s.name, "")
		}
	}()
}

func (s *source) observed(obj interface{}) {
	if s.observe != nil {
		s.observe(obj)
	}
}

// stop stops the informer and drops its cache; the source becomes
// unavailable. reason is logged.
func (s *source) stop(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	if s.state == stateRunning {
		klog.InfoS("Stopping source informer", "source", s.name, "reason", reason)
	}
	s.informer, s.bounds, s.cancel, s.state = nil, nil, nil, stateUnavailable
	s.synced.Store(false)
}

// markUnavailable records that the API is not served, and returns whether
// that was not known before.
func (s *source) markUnavailable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateUnknown {
		klog.InfoS("Source API is not served; it will be picked up once it is", "source", s.name)
		s.state = stateUnavailable
		return true
	}
	return false
}

// status returns the state, whether the cache synced and the last list/watch
// error since the informer started. A source that may be forbidden and
// whose last list was Forbidden is reported unavailable.
func (s *source) status() (state, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forbiddenLocked() {
		return stateUnavailable, false, s.lastErr
	}
	return s.state, s.synced.Load(), s.lastErr
}
