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
	"sync"
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/example"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/storage"
)

// The library's storage suites (k8s.io/apiserver/pkg/storage/testing) write
// example.Pods through storage.Interface and read them back. suiteStore is the
// small fixture that lets them run against a Store as the server serves it:
// reads and watches go to the storage the server builds for a resource (the
// watch cache over the Store, through restOptions' decorator), while each
// write becomes the next revision of the whole object set, published on the
// Store, the way the live view publishes.
type suiteStore struct {
	storage.Interface // what the suites read and watch

	store  *Store
	cached bool // reads go through the watch cache

	mu      sync.Mutex
	rv      uint64
	objects map[string]*example.Pod // by the suites' keys
}

// keyLayout is how the watch cache keys the suites' pods.
type keyLayout int

const (
	// namespacedKeys: /pods/<namespace>/<name>, as the suites' own keys.
	namespacedKeys keyLayout = iota
	// clusterKeys: /pods/<name>, as the registry keys a cluster-scoped
	// resource (every resource this server serves).
	clusterKeys
)

var suiteCodec = func() runtime.Codec {
	scheme := runtime.NewScheme()
	utilruntime.Must(example.AddToScheme(scheme))
	utilruntime.Must(examplev1.AddToScheme(scheme))
	return serializer.NewCodecFactory(scheme).LegacyCodec(examplev1.SchemeGroupVersion)
}()

var podResource = schema.GroupResource{Resource: "pods"}

// newSuiteStore returns a fixture whose first revision (1) is empty and
// synced. With behindCache the suites read through the watch cache, as
// clients do; without, they read the Store directly, as the watch cache does.
func newSuiteStore(t *testing.T, layout keyLayout, behindCache bool) *suiteStore {
	t.Helper()
	s, err := New(Config{
		Resource: podResource,
		Prefix:   "/pods",
		New:      func() runtime.Object { return &example.Pod{} },
		NewList:  func() runtime.Object { return &example.PodList{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	f := &suiteStore{Interface: s, store: s, rv: 1, objects: map[string]*example.Pod{}}
	if err := s.Publish(f.rv, nil, true); err != nil {
		t.Fatal(err)
	}
	if !behindCache {
		return f
	}

	opts, err := restOptions{store: s, codec: suiteCodec}.GetRESTOptions(podResource, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keyFunc func(runtime.Object) (string, error)
	switch layout {
	case namespacedKeys:
		keyFunc = func(obj runtime.Object) (string, error) { return storage.NamespaceKeyFunc("/pods/", obj) }
	case clusterKeys:
		keyFunc = func(obj runtime.Object) (string, error) { return storage.NoNamespaceKeyFunc("/pods/", obj) }
	}
	served, destroy, err := opts.Decorator(opts.StorageConfig, opts.ResourcePrefix, keyFunc,
		s.cfg.New, s.cfg.NewList, podAttrs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(destroy)
	ctx, cancel := context.WithTimeout(context.Background(), wait.ForeverTestTimeout)
	defer cancel()
	if err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, func(context.Context) (bool, error) {
		return served.ReadinessCheck() == nil, nil
	}); err != nil {
		t.Fatalf("the watch cache did not become ready: %v", served.ReadinessCheck())
	}
	f.Interface, f.cached = served, true
	return f
}

// podAttrs are the labels and fields of a pod a selector may use.
func podAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	pod, ok := obj.(*example.Pod)
	if !ok {
		return nil, nil, fmt.Errorf("not a pod: %T", obj)
	}
	return pod.Labels, fields.Set{
		"metadata.name":      pod.Name,
		"metadata.namespace": pod.Namespace,
		"spec.nodeName":      pod.Spec.NodeName,
		"status.phase":       string(pod.Status.Phase),
	}, nil
}

// commitLocked makes pod (nil: none) the object at key in the next revision
// and publishes the whole set; with no key, the next revision changes nothing.
// The Store keys objects by their metadata, not by the writer's key, so two
// keys that hold objects of one namespace and name are an error here rather
// than one object silently replacing the other.
func (f *suiteStore) commitLocked(key string, pod *example.Pod) error {
	if pod != nil {
		for k, other := range f.objects {
			if k != key && f.store.keyOf(other) == f.store.keyOf(pod) {
				return fmt.Errorf("suite fixture: %s and %s hold one object for the store (%s)", k, key, f.store.keyOf(pod))
			}
		}
	}
	f.rv++
	switch {
	case pod != nil:
		pod.ResourceVersion = fmt.Sprint(f.rv)
		f.objects[key] = pod
	case key != "":
		delete(f.objects, key)
	}
	objects := make([]runtime.Object, 0, len(f.objects))
	for _, o := range f.objects {
		objects = append(objects, o)
	}
	return f.store.Publish(f.rv, objects, true)
}

// Create implements storage.Interface: the object at key in a new revision.
func (f *suiteStore) Create(_ context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	if ttl != 0 {
		return fmt.Errorf("suite fixture: objects of a computed view have no TTL")
	}
	in, ok := obj.(*example.Pod)
	if !ok {
		return fmt.Errorf("suite fixture: cannot create a %T", obj)
	}
	if in.ResourceVersion != "" {
		return storage.ErrResourceVersionSetOnCreate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, exists := f.objects[key]; exists {
		return storage.NewKeyExistsError(key, 0)
	}
	pod := in.DeepCopy()
	if err := f.commitLocked(key, pod); err != nil {
		return err
	}
	return setPod(out, pod)
}

// Delete implements storage.Interface: the object at key is gone in a new
// revision; out gets its last content at that revision.
func (f *suiteStore) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, _ runtime.Object, _ storage.DeleteOptions,
) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	current, exists := f.objects[key]
	if !exists {
		return storage.NewKeyNotFoundError(key, int64(f.rv))
	}
	if preconditions != nil {
		if err := preconditions.Check(key, current); err != nil {
			return err
		}
	}
	if validateDeletion != nil {
		if err := validateDeletion(ctx, current.DeepCopy()); err != nil {
			return err
		}
	}
	if err := f.commitLocked(key, nil); err != nil {
		return err
	}
	gone := current.DeepCopy()
	gone.ResourceVersion = fmt.Sprint(f.rv)
	return setPod(out, gone)
}

// GuaranteedUpdate implements storage.Interface: tryUpdate's result is the
// object at key in a new revision, unless it equals the current object (then
// nothing is written, as etcd does).
func (f *suiteStore) GuaranteedUpdate(_ context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, _ runtime.Object,
) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	current, exists := f.objects[key]
	in := &example.Pod{}
	var meta storage.ResponseMeta
	switch {
	case exists:
		in = current.DeepCopy()
		rv, err := f.store.versioner.ParseResourceVersion(current.ResourceVersion)
		if err != nil {
			return err
		}
		meta.ResourceVersion = rv
	case !ignoreNotFound:
		return storage.NewKeyNotFoundError(key, int64(f.rv))
	}
	if exists && preconditions != nil {
		if err := preconditions.Check(key, in); err != nil {
			return err
		}
	}
	updated, ttl, err := tryUpdate(in, meta)
	if err != nil {
		return err
	}
	if ttl != nil && *ttl != 0 {
		return fmt.Errorf("suite fixture: objects of a computed view have no TTL")
	}
	next, ok := updated.(*example.Pod)
	if !ok {
		return fmt.Errorf("suite fixture: cannot store a %T", updated)
	}
	next = next.DeepCopy()
	next.ResourceVersion = ""
	if exists {
		unchanged := current.DeepCopy()
		unchanged.ResourceVersion = ""
		if apiequality.Semantic.DeepEqual(unchanged, next) {
			return setPod(destination, current)
		}
	}
	if err := f.commitLocked(key, next); err != nil {
		return err
	}
	return setPod(destination, next)
}

// increaseRV publishes a revision that changes nothing, the counterpart of
// the suites' write to a key outside the resource in etcd, and returns it.
// Behind the watch cache it returns once the cache has that revision: a
// Store sends a progress bookmark for each revision, so the cache follows
// without a consistent read, and the suites' reads after it are deterministic.
func (f *suiteStore) increaseRV(ctx context.Context, t *testing.T) int64 {
	t.Helper()
	f.mu.Lock()
	err := f.commitLocked("", nil)
	rv := f.rv
	f.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if f.cached {
		opts := storage.ListOptions{
			ResourceVersion:      fmt.Sprint(rv),
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			Predicate:            storage.Everything,
			Recursive:            true,
		}
		if err := f.GetList(ctx, "/pods/", opts, &example.PodList{}); err != nil {
			t.Fatalf("the watch cache did not reach revision %d: %v", rv, err)
		}
	}
	return int64(rv)
}

func setPod(out runtime.Object, pod *example.Pod) error {
	if out == nil {
		return nil // the caller wants no copy
	}
	dst, ok := out.(*example.Pod)
	if !ok {
		return fmt.Errorf("suite fixture: cannot return a pod in a %T", out)
	}
	*dst = *pod.DeepCopy()
	return nil
}
