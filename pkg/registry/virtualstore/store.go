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

// Package virtualstore is a read-only storage.Interface whose objects are
// computed, not stored: the live view publishes each revision as a whole set
// of objects, and the store answers "get now", "list now" and "watch from
// revision R" from it. It is meant to sit behind the apiserver's watch cache
// (see NewRESTOptionsGetter), which serves clients; the store itself serves
// only the cache's reflector and the few requests the cache delegates.
package virtualstore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"
	storagefeature "k8s.io/apiserver/pkg/storage/feature"
)

// cacheListWait bounds how long the watch cache's list waits for the first
// synced revision before it fails and is retried.
const cacheListWait = 30 * time.Second

// DefaultHistoryLength is how many past events a Store keeps by default, so
// that a watch from a recent revision resumes without a relist.
const DefaultHistoryLength = 1024

// Config configures a Store.
type Config struct {
	// Resource names the served resource in errors. Required.
	Resource schema.GroupResource
	// Prefix is the storage key prefix of the resource, "/" + resource; an
	// object's key is Prefix + "/" + name, or Prefix + "/" + namespace + "/" +
	// name for an object in a namespace, as the registry keys them.
	Prefix string
	// New returns an empty object of the served type (bookmarks). Required.
	New func() runtime.Object
	// NewList returns an empty list of the served type. Required.
	NewList func() runtime.Object
	// HistoryLength is how many past events are kept for watches that resume
	// from an older revision; DefaultHistoryLength when 0. A watch from a
	// revision older than the history gets 410 Expired.
	HistoryLength int
}

// event is one change of one object, at revision rv.
type event struct {
	typ watch.EventType
	key string
	obj runtime.Object
	rv  uint64
}

// Store implements storage.Interface over published revisions. Publish is its
// only input; every write method is refused.
type Store struct {
	cfg       Config
	versioner storage.APIObjectVersioner

	// readyCh is closed when the first synced revision is published.
	readyCh chan struct{}

	mu       sync.RWMutex
	ready    bool
	rv       uint64
	objects  map[string]runtime.Object
	keys     []string // sorted keys of objects
	history  []event  // oldest first, at most HistoryLength
	oldest   uint64   // a watch may start from any revision >= oldest
	watchers map[*watcher]struct{}
}

var _ storage.Interface = &Store{}

// New returns an empty Store that is not ready: until the first synced
// revision is published every read is refused with 429.
func New(cfg Config) (*Store, error) {
	if cfg.Resource.Empty() || cfg.New == nil || cfg.NewList == nil || !strings.HasPrefix(cfg.Prefix, "/") || len(cfg.Prefix) < 2 {
		return nil, errors.New("virtualstore: Config.Resource, Config.New, Config.NewList and a Prefix of the form /resource are required")
	}
	if cfg.HistoryLength <= 0 {
		cfg.HistoryLength = DefaultHistoryLength
	}
	declareProgressNotifySupport()
	return &Store{cfg: cfg, readyCh: make(chan struct{}), objects: map[string]runtime.Object{}, watchers: map[*watcher]struct{}{}}, nil
}

// Key returns the storage key of the object named name ("namespace/name" for
// an object in a namespace).
func (s *Store) Key(name string) string { return s.cfg.Prefix + "/" + name }

func (s *Store) keyOf(m metav1.Object) string {
	if ns := m.GetNamespace(); ns != "" {
		return s.Key(ns + "/" + m.GetName())
	}
	return s.Key(m.GetName())
}

// Publish makes objects the content of revision rv. Each object must carry its
// resourceVersion: the revision in which its content last changed, so an
// unchanged object keeps the one it had and produces no event. Objects that
// were present before and are missing now produce DELETED at rv. Revisions
// that are not synced are kept but never served; the first synced one makes
// the store ready and starts the history afresh. rv must grow from one synced
// revision to the next. The store keeps the objects: never modify them.
func (s *Store) Publish(rv uint64, objects []runtime.Object, synced bool) error {
	next := make(map[string]runtime.Object, len(objects))
	for _, obj := range objects {
		m, err := meta.Accessor(obj)
		if err != nil {
			return fmt.Errorf("virtualstore: %w", err)
		}
		next[s.keyOf(m)] = obj
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var changed []runtime.Object
	var deleted []string
	for key, obj := range next {
		if old, ok := s.objects[key]; !ok || (old != obj && resourceVersionOf(old) != resourceVersionOf(obj)) {
			changed = append(changed, obj)
		}
	}
	for key := range s.objects {
		if _, ok := next[key]; !ok {
			deleted = append(deleted, strings.TrimPrefix(key, s.cfg.Prefix+"/"))
		}
	}
	return s.applyLocked(rv, changed, deleted, synced)
}

// PublishChanges makes revision rv the content of the store given what
// changed since the previous revision: the objects added or changed (each
// with its new resourceVersion) and the names of the objects removed
// ("namespace/name" for an object in a namespace). Its
// cost is proportional to the changes, not to the number of objects; it
// otherwise behaves as Publish.
func (s *Store) PublishChanges(rv uint64, changed []runtime.Object, deleted []string, synced bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applyLocked(rv, changed, deleted, synced)
}

func (s *Store) applyLocked(rv uint64, changed []runtime.Object, deleted []string, synced bool) error {
	if s.ready && rv <= s.rv {
		return fmt.Errorf("virtualstore: revision %d does not follow %d", rv, s.rv)
	}
	events := make([]event, 0, len(changed)+len(deleted))
	keysChanged := false
	for _, obj := range changed {
		m, err := meta.Accessor(obj)
		if err != nil {
			return fmt.Errorf("virtualstore: %w", err)
		}
		key := s.keyOf(m)
		typ := watch.Modified
		if _, ok := s.objects[key]; !ok {
			typ = watch.Added
			keysChanged = true
		}
		events = append(events, event{typ: typ, key: key, obj: obj, rv: rv})
	}
	for _, name := range deleted {
		key := s.Key(name)
		old, ok := s.objects[key]
		if !ok {
			continue
		}
		gone := old.DeepCopyObject()
		if m, err := meta.Accessor(gone); err == nil {
			m.SetResourceVersion(formatRV(rv))
		}
		events = append(events, event{typ: watch.Deleted, key: key, obj: gone, rv: rv})
		keysChanged = true
	}
	// A stable order: watchers and tests see the same sequence every time.
	sort.Slice(events, func(i, j int) bool { return events[i].key < events[j].key })
	for _, ev := range events {
		if ev.typ == watch.Deleted {
			delete(s.objects, ev.key)
		} else {
			s.objects[ev.key] = ev.obj
		}
	}
	if keysChanged {
		s.keys = s.keys[:0]
		for k := range s.objects {
			s.keys = append(s.keys, k)
		}
		sort.Strings(s.keys)
	}
	wasReady := s.ready
	if synced && !s.ready {
		s.ready = true
		s.oldest = rv
		s.history = s.history[:0]
		close(s.readyCh)
	}
	s.rv = rv
	if !wasReady {
		// Nobody watched an unsynced store: its first synced revision is
		// where the history starts.
		return nil
	}
	for _, ev := range events {
		s.appendHistoryLocked(ev)
	}
	for w := range s.watchers {
		w.send(events, rv)
	}
	return nil
}

func (s *Store) appendHistoryLocked(ev event) {
	if len(s.history) >= s.cfg.HistoryLength {
		// The dropped event's revision is no longer a safe starting point,
		// unless the next retained event belongs to the same revision.
		s.oldest = s.history[0].rv
		copy(s.history, s.history[1:])
		s.history = s.history[:len(s.history)-1]
	}
	s.history = append(s.history, ev)
}

func resourceVersionOf(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}

// Versioner implements storage.Interface.
func (s *Store) Versioner() storage.Versioner { return s.versioner }

// notReady is the answer before the first synced revision.
func (s *Store) notReady() error {
	return apierrors.NewTooManyRequests(fmt.Sprintf("%s are not computed yet: the source caches are still syncing", s.cfg.Resource.Resource), 1)
}

func (s *Store) readOnly(verb string) error {
	return apierrors.NewMethodNotSupported(s.cfg.Resource, verb)
}

// Create implements storage.Interface: refused.
func (s *Store) Create(context.Context, string, runtime.Object, runtime.Object, uint64) error {
	return s.readOnly("create")
}

// Delete implements storage.Interface: refused.
func (s *Store) Delete(context.Context, string, runtime.Object, *storage.Preconditions, storage.ValidateObjectFunc, runtime.Object, storage.DeleteOptions) error {
	return s.readOnly("delete")
}

// GuaranteedUpdate implements storage.Interface: refused.
func (s *Store) GuaranteedUpdate(context.Context, string, runtime.Object, bool, *storage.Preconditions, storage.UpdateFunc, runtime.Object) error {
	return s.readOnly("update")
}

// Get implements storage.Interface: the current object at key. objPtr gets a
// shallow copy that shares the published object's contents, which nothing on
// the read path modifies.
func (s *Store) Get(_ context.Context, key string, opts storage.GetOptions, objPtr runtime.Object) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.ready {
		return s.notReady()
	}
	if err := s.checkFresh(opts.ResourceVersion); err != nil {
		return err
	}
	obj, ok := s.objects[key]
	if !ok {
		if opts.IgnoreNotFound {
			return setZero(objPtr)
		}
		return storage.NewKeyNotFoundError(key, int64(s.rv))
	}
	return shallowCopy(obj, objPtr)
}

// GetList implements storage.Interface: the current objects under key that
// match the predicate, in key order, all at once (no pages: the cache reads
// everything anyway). resourceVersionMatch=Exact is served for the current
// revision only.
//
// Before the first synced revision a client's request is refused with 429 at
// once, while the watch cache's own list (a call outside any request) waits
// for that revision for up to cacheListWait: the cache then fills as soon as
// there is something to serve instead of a retry period later.
func (s *Store) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	s.waitReadyForCache(ctx)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.ready {
		return s.notReady()
	}
	if opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact {
		rv, err := s.versioner.ParseResourceVersion(opts.ResourceVersion)
		if err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
		if rv > s.rv {
			return storage.NewTooLargeResourceVersionError(rv, s.rv, 1)
		}
		if rv != s.rv {
			return apierrors.NewResourceExpired(fmt.Sprintf("resourceVersion %d is not the current one (%d): only the current revision is served exactly", rv, s.rv))
		}
	} else if err := s.checkFresh(opts.ResourceVersion); err != nil {
		return err
	}
	var items []runtime.Object
	for _, k := range s.keys {
		if !inScope(k, key, opts.Recursive) {
			continue
		}
		obj := s.objects[k]
		if ok, err := opts.Predicate.Matches(obj); err != nil || !ok {
			continue
		}
		items = append(items, obj)
	}
	if err := meta.SetList(listObj, items); err != nil {
		return err
	}
	return s.versioner.UpdateList(listObj, s.rv, "", nil)
}

// waitReadyForCache waits up to cacheListWait for the first synced revision
// when the caller is the watch cache filling itself (a call outside any
// request), so that it fills as soon as there is something to serve instead
// of a retry period later. A request does not wait.
func (s *Store) waitReadyForCache(ctx context.Context) {
	if _, isRequest := genericapirequest.RequestInfoFrom(ctx); isRequest {
		return
	}
	t := time.NewTimer(cacheListWait)
	defer t.Stop()
	select {
	case <-s.readyCh:
	case <-t.C:
	case <-ctx.Done():
	}
}

// checkFresh refuses a resourceVersion newer than the current revision.
func (s *Store) checkFresh(rvString string) error {
	rv, err := s.versioner.ParseResourceVersion(rvString)
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	if rv > s.rv {
		return storage.NewTooLargeResourceVersionError(rv, s.rv, 1)
	}
	return nil
}

// inScope reports whether the object at k is selected by a request for key.
func inScope(k, key string, recursive bool) bool {
	if !recursive {
		return k == key
	}
	prefix := key
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return strings.HasPrefix(k, prefix)
}

// Stats implements storage.Interface.
func (s *Store) Stats(context.Context) (storage.Stats, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return storage.Stats{ObjectCount: int64(len(s.objects))}, nil
}

// ReadinessCheck implements storage.Interface: ready once a synced revision
// was published.
func (s *Store) ReadinessCheck() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.ready {
		return fmt.Errorf("no %s computed from synced caches yet", s.cfg.Resource.Resource)
	}
	return nil
}

// Ready reports whether a synced revision was published.
func (s *Store) Ready() bool { return s.ReadinessCheck() == nil }

// Current returns the current revision, and false before the first synced
// one.
func (s *Store) Current() (uint64, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rv, s.ready
}

// GetCurrentResourceVersion implements storage.Interface: the current
// revision, which the watch cache waits for before a consistent read.
func (s *Store) GetCurrentResourceVersion(context.Context) (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.ready {
		return 0, s.notReady()
	}
	return s.rv, nil
}

// RequestWatchProgress implements storage.Interface: every watcher that asked
// for progress notifications gets a bookmark at the current revision.
func (s *Store) RequestWatchProgress(context.Context) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.ready {
		return nil
	}
	for w := range s.watchers {
		w.send(nil, s.rv)
	}
	return nil
}

// EnableResourceSizeEstimation implements storage.Interface; sizes are known
// without it.
func (s *Store) EnableResourceSizeEstimation(storage.KeysFunc) error { return nil }

// CompactRevision implements storage.Interface: the oldest revision a watch
// may start from.
func (s *Store) CompactRevision() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return int64(s.oldest)
}

func shallowCopy(src, dst runtime.Object) error {
	sv, dv := reflect.ValueOf(src), reflect.ValueOf(dst)
	if sv.Type() != dv.Type() || dv.Kind() != reflect.Pointer {
		return fmt.Errorf("virtualstore: cannot copy %T into %T", src, dst)
	}
	dv.Elem().Set(sv.Elem())
	return nil
}

func setZero(dst runtime.Object) error {
	dv := reflect.ValueOf(dst)
	if dv.Kind() != reflect.Pointer {
		return fmt.Errorf("virtualstore: %T is not a pointer", dst)
	}
	dv.Elem().Set(reflect.Zero(dv.Elem().Type()))
	return nil
}

func formatRV(rv uint64) string { return fmt.Sprint(rv) }

// The watch cache serves watch-list streams and consistent reads only when
// the library's process-wide storagefeature.DefaultFeatureSupportChecker
// reports storage.RequestWatchProgress as supported (the cacher's Watch and
// delegator.ConsistentReadSupported ask it). That checker learns the answer
// from etcd alone: CheckClient reads the version of each etcd endpoint, and
// neither storage.Interface nor the cacher's Config has a way for another
// storage to say it. The checker is an exported variable of an exported
// interface, which the library's own tests assign too, so New installs in it,
// once and before any watch cache over a Store exists, a checker that reports
// RequestWatchProgress as supported, which a Store is (RequestWatchProgress
// above), and leaves every other feature to the checker it wraps. This holds
// only because the process has no etcd storage whose answer could differ.
var declareProgressNotify sync.Once

type progressNotifySupported struct {
	storagefeature.FeatureSupportChecker
}

func (c progressNotifySupported) Supports(feature storage.Feature) bool {
	return feature == storage.RequestWatchProgress || c.FeatureSupportChecker.Supports(feature)
}

func declareProgressNotifySupport() {
	declareProgressNotify.Do(func() {
		storagefeature.DefaultFeatureSupportChecker = progressNotifySupported{storagefeature.DefaultFeatureSupportChecker}
	})
}
