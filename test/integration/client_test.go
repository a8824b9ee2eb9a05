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

package integration

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/informers/externalversions"
	"github.com/update-status/apiserver/pkg/simulator"
)

// updateTimeout bounds one whole update of the simulated cluster (a few
// seconds at clusterSpeed).
const updateTimeout = 90 * time.Second

func TestClientsetGetList(t *testing.T) {
	ctx := t.Context()
	client := updateClient(t, &cp.Users.Admin).UpdateV1alpha1().UpdateStatuses()
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != statusName {
		t.Fatalf("list = %d items, want exactly %q", len(list.Items), statusName)
	}
	if list.ResourceVersion == "" {
		t.Error("the list has no resourceVersion")
	}
	if _, err := client.Get(ctx, "other", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get updatestatus/other: err = %v, want NotFound", err)
	}
}

// TestFollowUpdate follows a whole update, from the moment it starts to
// Completed, with the generated clientset's watch and with a generated
// informer (WatchList client feature off and on).
func TestFollowUpdate(t *testing.T) {
	tests := []struct {
		name   string
		follow func(ctx context.Context, t *testing.T, rec *recorder)
	}{
		{"clientset watch", followWithWatch},
		{"informer WatchListClient=false", followWithInformer(false)},
		{"informer WatchListClient=true", followWithInformer(true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*updateTimeout)
			defer cancel()
			driveToDone(ctx, t)
			from := cluster.Options().ToVersion
			to, err := simulator.NextPatch(from)
			if err != nil {
				t.Fatal(err)
			}

			rec := &recorder{target: to, completed: make(chan struct{})}
			followCtx, stopFollowing := context.WithCancel(ctx)
			defer stopFollowing()
			tt.follow(followCtx, t, rec)

			if err := cluster.StartNextUpdate(ctx, to); err != nil {
				t.Fatal(err)
			}
			driveErr := make(chan error, 1)
			go func() { driveErr <- cluster.Run(ctx) }()
			select {
			case <-rec.completed:
			case <-time.After(updateTimeout):
				t.Fatalf("the client did not see the update to %s complete within %v; last object seen:\n%s",
					to, updateTimeout, dump(rec.lastObject()))
			}
			if err := <-driveErr; err != nil {
				t.Fatalf("driving the update: %v", err)
			}
			rec.check(t, from)
		})
	}
}

// driveToDone finishes whatever update is in progress.
func driveToDone(ctx context.Context, t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, updateTimeout)
	defer cancel()
	if err := cluster.Run(ctx); err != nil {
		t.Fatalf("finishing the current update: %v", err)
	}
}

// recorder keeps what a client saw of the update to target.
type recorder struct {
	target    string
	mu        sync.Mutex
	objects   []*v1alpha1.UpdateStatus
	errs      []error
	once      sync.Once
	completed chan struct{}
}

func (r *recorder) seen(us *v1alpha1.UpdateStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.objects = append(r.objects, us.DeepCopy())
	if cv := cvInsight(us); cv != nil && cv.Versions.Target.Version == r.target &&
		cv.Assessment == v1alpha1.ControlPlaneAssessmentCompleted && allPoolsCompleted(us) {
		r.once.Do(func() { close(r.completed) })
	}
}

func allPoolsCompleted(us *v1alpha1.UpdateStatus) bool {
	for _, p := range us.Status.WorkerPools {
		if pi := poolInsight(us, p.Name); pi == nil || pi.Assessment != v1alpha1.PoolCompleted {
			return false
		}
	}
	return len(us.Status.WorkerPools) > 0
}

// fail records an error of the client (reported by check: it may come from
// a goroutine that outlives the test).
func (r *recorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
}

func (r *recorder) lastObject() *v1alpha1.UpdateStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.objects) == 0 {
		return nil
	}
	return r.objects[len(r.objects)-1]
}

// check asserts the client saw the update start (Progressing at low
// completion), progress without going back, and complete.
func (r *recorder) check(t *testing.T, from string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, err := range r.errs {
		t.Error(err)
	}
	var started bool
	var last int32 = -1
	var lastRV string
	for _, us := range r.objects {
		cv := cvInsight(us)
		if cv == nil || cv.Versions.Target.Version != r.target {
			continue
		}
		if !started && cv.Assessment == v1alpha1.ControlPlaneAssessmentProgressing {
			started = true
			if cv.Versions.Previous.Version != from {
				t.Errorf("previous version = %q, want %q", cv.Versions.Previous.Version, from)
			}
		}
		if cv.Completion < last {
			t.Errorf("completion went back from %d%% to %d%% (resourceVersion %s -> %s)", last, cv.Completion, lastRV, us.ResourceVersion)
		}
		last, lastRV = cv.Completion, us.ResourceVersion
	}
	if !started {
		t.Errorf("never saw the update to %s in progress; %d objects seen", r.target, len(r.objects))
	}
	if last != 100 {
		t.Errorf("last completion = %d%%, want 100%%", last)
	}
	t.Logf("saw %d objects while following the update %s -> %s", len(r.objects), from, r.target)
}

func followWithWatch(ctx context.Context, t *testing.T, rec *recorder) {
	client := updateClient(t, &cp.Users.Admin).UpdateV1alpha1().UpdateStatuses()
	w, err := client.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			switch ev.Type {
			case watch.Added, watch.Modified:
				if us, ok := ev.Object.(*v1alpha1.UpdateStatus); ok {
					rec.seen(us)
				}
			case watch.Error:
				rec.fail(fmt.Errorf("watch error event: %w", apierrors.FromObject(ev.Object)))
				return
			}
		}
	}()
}

func followWithInformer(watchList bool) func(ctx context.Context, t *testing.T, rec *recorder) {
	return func(ctx context.Context, t *testing.T, rec *recorder) {
		clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
		reqs := &requestLog{}
		cfg := cp.RESTConfig(&cp.Users.Admin)
		cfg.WrapTransport = reqs.wrap
		client := clientFor(t, versioned.NewForConfig, cfg)
		factory := externalversions.NewSharedInformerFactory(client, 0)
		inf := factory.Update().V1alpha1().UpdateStatuses().Informer()
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { seenObject(obj, rec) },
			UpdateFunc: func(_, obj any) { seenObject(obj, rec) },
			DeleteFunc: func(obj any) { rec.fail(fmt.Errorf("informer saw a delete of %v", obj)) },
		})
		if err != nil {
			t.Fatal(err)
		}
		startAndSync(ctx, t, factory)
		if n := len(factory.Update().V1alpha1().UpdateStatuses().Informer().GetStore().List()); n != 1 {
			t.Fatalf("informer cache holds %d objects after sync, want 1", n)
		}
		// The informer synced the way the feature says: one streaming watch
		// (sendInitialEvents) with WatchList, a LIST then a WATCH without.
		lists, watchLists := reqs.counts()
		t.Logf("requests of the informer until it synced: %v", reqs.all())
		if watchList && (watchLists == 0 || lists > 0) {
			t.Errorf("WatchListClient on: %d LIST and %d watch-list requests, want only watch-list (%v)", lists, watchLists, reqs.all())
		}
		if !watchList && (lists == 0 || watchLists > 0) {
			t.Errorf("WatchListClient off: %d LIST and %d watch-list requests, want LIST (%v)", lists, watchLists, reqs.all())
		}
	}
}

func seenObject(obj any, rec *recorder) {
	us, ok := obj.(*v1alpha1.UpdateStatus)
	if !ok {
		rec.fail(fmt.Errorf("informer delivered a %T", obj))
		return
	}
	rec.seen(us)
}

// requestLog records the updatestatuses requests a client sends.
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if strings.HasSuffix(req.URL.Path, "/updatestatuses") {
			l.mu.Lock()
			l.reqs = append(l.reqs, req.Method+" "+req.URL.RequestURI())
			l.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

// counts returns the number of plain LISTs and of watch-list requests.
func (l *requestLog) counts() (lists, watchLists int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.reqs {
		u, err := url.ParseRequestURI(strings.TrimPrefix(r, "GET "))
		if err != nil {
			continue
		}
		q := u.Query()
		switch {
		case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
			watchLists++
		case q.Get("watch") != "true":
			lists++
		}
	}
	return lists, watchLists
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
