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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/rest"
	restclientwatch "k8s.io/client-go/rest/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/informers/externalversions"
)

// The Accept headers of a client that prefers protobuf and takes JSON too
// (library-go, many controllers), and of one that takes protobuf only.
const (
	protobufOrJSON = runtime.ContentTypeProtobuf + ", " + runtime.ContentTypeJSON
	protobufOnly   = runtime.ContentTypeProtobuf
)

// protobufAccepts are the Accept headers every protobuf test sends.
var protobufAccepts = []string{protobufOrJSON, protobufOnly}

// objectPath is the URL path of the singleton.
const objectPath = collectionPath + "/" + statusName

// changeTimeout bounds the time from a change of the cluster to the event
// that shows it (generous: the machine is shared).
const changeTimeout = 30 * time.Second

// dnsDegraded is the verdict the change of these tests (degradeOperator
// "dns", as in TestFaultVerdicts) brings.
func dnsDegraded(us *v1alpha1.UpdateStatus) bool {
	h := healthInsightAbout(us, "clusteroperators", "dns")
	return h != nil && strings.Contains(h.Impact.Summary, "degraded")
}

// rawClient is an HTTP client with the admin user's TLS and credentials and
// nothing else: the Accept header is exactly the one a test sets.
type rawClient struct {
	host string
	c    *http.Client
}

func newRawClient(t *testing.T) *rawClient {
	t.Helper()
	cfg := cp.RESTConfig(&cp.Users.Admin)
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatalf("HTTP client: %v", err)
	}
	return &rawClient{host: cfg.Host, c: c}
}

// open sends GET path with accept and returns the response, whatever its
// status.
func (rc *rawClient) open(ctx context.Context, t *testing.T, path, accept string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rc.host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := rc.c.Do(req)
	if err != nil {
		t.Fatalf("GET %s (Accept %q): %v", path, accept, err)
	}
	return resp
}

// get sends GET path with accept, fails the test unless the answer is 200
// with Content-Type wantType, and returns the body.
func (rc *rawClient) get(ctx context.Context, t *testing.T, path, accept, wantType string) []byte {
	t.Helper()
	resp := rc.open(ctx, t, path, accept)
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s (Accept %q): reading the body: %v", path, accept, err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != wantType {
		t.Fatalf("GET %s (Accept %q): %d, Content-Type %q, want 200 %q; body: %.300q",
			path, accept, resp.StatusCode, resp.Header.Get("Content-Type"), wantType, body)
	}
	return body
}

// protobufInfo returns the server's protobuf serializers.
func protobufInfo(t *testing.T) runtime.SerializerInfo {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(apiserver.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok || info.Serializer == nil || info.StreamSerializer == nil {
		t.Fatal("the server's codecs have no protobuf (stream) serializer")
	}
	return info
}

// decodeProtobufInto decodes a protobuf body into into.
func decodeProtobufInto[T runtime.Object](t *testing.T, body []byte, into T) T {
	t.Helper()
	out, gvk, err := protobufInfo(t).Serializer.Decode(body, nil, into)
	if err != nil {
		t.Fatalf("decoding the protobuf body (%d bytes): %v", len(body), err)
	}
	got, ok := out.(T)
	if !ok {
		t.Fatalf("the protobuf body holds a %T (%v), want %T", out, gvk, into)
	}
	return got
}

// canonical is the JSON form of obj without its type meta: the content two
// encodings of one object must share (JSON keeps times to the second).
func canonical(t *testing.T, obj runtime.Object) string {
	t.Helper()
	obj = obj.DeepCopyObject()
	switch o := obj.(type) {
	case *v1alpha1.UpdateStatus:
		o.TypeMeta = metav1.TypeMeta{}
	case *v1alpha1.UpdateStatusList:
		o.TypeMeta = metav1.TypeMeta{}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stableAttempts bounds the retries of a comparison when the object changes
// between the JSON reads around the protobuf one.
const stableAttempts = 5

// readStable reads path in protobuf (accept) between two JSON reads of it,
// until both JSON reads are at one resourceVersion (at most stableAttempts
// times), and returns the protobuf and the first JSON decoding.
func readStable[T interface {
	runtime.Object
	GetResourceVersion() string
}](ctx context.Context, t *testing.T, rc *rawClient, path, accept string, newObj func() T) (got, want T) {
	t.Helper()
	readJSON := func() T {
		obj := newObj()
		if err := json.Unmarshal(rc.get(ctx, t, path, runtime.ContentTypeJSON, runtime.ContentTypeJSON), obj); err != nil {
			t.Fatalf("decoding the JSON body: %v", err)
		}
		return obj
	}
	for attempt := 1; ; attempt++ {
		before := readJSON()
		body := rc.get(ctx, t, path, accept, runtime.ContentTypeProtobuf)
		after := readJSON()
		if before.GetResourceVersion() == after.GetResourceVersion() {
			return decodeProtobufInto(t, body, newObj()), before
		}
		if attempt == stableAttempts {
			t.Fatalf("%s changed between every pair of JSON reads (%d attempts)", path, attempt)
		}
	}
}

// TestProtobufGetAndList reads the singleton and the collection through the
// aggregator in protobuf and checks they are the objects JSON serves.
func TestProtobufGetAndList(t *testing.T) {
	rc := newRawClient(t)
	for _, accept := range protobufAccepts {
		t.Run(accept, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			t.Run("GET", func(t *testing.T) {
				got, before := readStable(ctx, t, rc, objectPath, accept, func() *v1alpha1.UpdateStatus { return &v1alpha1.UpdateStatus{} })
				if got.Name != statusName || got.ResourceVersion == "" || got.ResourceVersion != before.ResourceVersion {
					t.Fatalf("protobuf: %q at resourceVersion %q; JSON: %q at %q", got.Name, got.ResourceVersion, before.Name, before.ResourceVersion)
				}
				if g, w := canonical(t, got), canonical(t, before); g != w {
					t.Fatalf("the protobuf object differs from the JSON one at resourceVersion %s:\nprotobuf: %s\nJSON:     %s", got.ResourceVersion, g, w)
				}
			})
			t.Run("LIST", func(t *testing.T) {
				got, before := readStable(ctx, t, rc, collectionPath, accept, func() *v1alpha1.UpdateStatusList { return &v1alpha1.UpdateStatusList{} })
				if len(got.Items) != 1 || got.Items[0].Name != statusName || len(before.Items) != 1 {
					t.Fatalf("protobuf list: %d items, JSON list: %d items, want exactly %q", len(got.Items), len(before.Items), statusName)
				}
				if got.ResourceVersion == "" || got.ResourceVersion != before.ResourceVersion ||
					got.Items[0].ResourceVersion != before.Items[0].ResourceVersion {
					t.Fatalf("protobuf list at resourceVersion %q (item %q); JSON at %q (item %q)",
						got.ResourceVersion, got.Items[0].ResourceVersion, before.ResourceVersion, before.Items[0].ResourceVersion)
				}
				if g, w := canonical(t, got), canonical(t, before); g != w {
					t.Fatalf("the protobuf list differs from the JSON one at resourceVersion %s:\nprotobuf: %s\nJSON:     %s", got.ResourceVersion, g, w)
				}
			})
		})
	}
}

// TestProtobufWatch watches the collection through the aggregator in
// protobuf: the stream starts with the object (ADDED), never ends empty, and
// a change of the cluster arrives as MODIFIED.
func TestProtobufWatch(t *testing.T) {
	ensureUpdating(t)
	rc := newRawClient(t)
	info := protobufInfo(t)
	for _, accept := range protobufAccepts {
		t.Run(accept, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 2*changeTimeout)
			defer cancel()
			// Start from an object without the verdict (a previous subtest
			// may just have undone its change).
			waitForStatus(ctx, t, changeTimeout, "dns not degraded", func(us *v1alpha1.UpdateStatus) bool { return !dnsDegraded(us) })

			resp := rc.open(ctx, t, collectionPath+"?watch=true", accept)
			defer func() { _ = resp.Body.Close() }()
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != runtime.ContentTypeProtobuf+";stream=watch" {
				b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
				t.Fatalf("watch (Accept %q): %d, Content-Type %q, want 200 %q; body: %q",
					accept, resp.StatusCode, ct, runtime.ContentTypeProtobuf+";stream=watch", b)
			}
			// The context bounds every Decode: when it ends, the body read
			// fails.
			dec := restclientwatch.NewDecoder(
				streaming.NewDecoder(info.StreamSerializer.NewFrameReader(resp.Body), info.StreamSerializer.Serializer),
				info.Serializer)
			defer dec.Close()
			events := 0
			next := func() (watch.EventType, *v1alpha1.UpdateStatus) {
				t.Helper()
				typ, obj, err := dec.Decode()
				if err != nil {
					t.Fatalf("the watch ended after %d events: %v", events, err)
				}
				events++
				us, ok := obj.(*v1alpha1.UpdateStatus)
				if !ok {
					t.Fatalf("event %d: %s with a %T: %s", events, typ, obj, dump(obj))
				}
				return typ, us
			}

			typ, first := next()
			if typ != watch.Added || first.Name != statusName || first.ResourceVersion == "" {
				t.Fatalf("first event: %s %q at resourceVersion %q, want ADDED %q", typ, first.Name, first.ResourceVersion, statusName)
			}
			if dnsDegraded(first) {
				t.Fatal("the first event already shows dns degraded")
			}

			restore := degradeOperator(t, "dns")
			defer restore()
			for {
				typ, us := next()
				if typ != watch.Modified {
					t.Fatalf("event %d: %s, want MODIFIED", events, typ)
				}
				if us.ResourceVersion == first.ResourceVersion {
					t.Errorf("event %d: MODIFIED at the resourceVersion of ADDED (%s)", events, us.ResourceVersion)
				}
				if dnsDegraded(us) {
					t.Logf("the change arrived as MODIFIED at resourceVersion %s (event %d, ADDED at %s)",
						us.ResourceVersion, events, first.ResourceVersion)
					return
				}
			}
		})
	}
}

// headerLog records the Accept header of each updatestatuses request and the
// Content-Type of its answer.
type headerLog struct {
	mu      sync.Mutex
	entries []string // "<Accept> -> <Content-Type> <request URI>"
	bad     []string
}

func (l *headerLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if !strings.HasSuffix(req.URL.Path, "/updatestatuses") && !strings.HasSuffix(req.URL.Path, "/updatestatuses/"+statusName) {
			return rt.RoundTrip(req)
		}
		accept := req.Header.Get("Accept")
		resp, err := rt.RoundTrip(req)
		ct := "(no answer)"
		if resp != nil {
			ct = resp.Header.Get("Content-Type")
		}
		entry := fmt.Sprintf("%q -> %q %s", accept, ct, req.URL.RequestURI())
		l.mu.Lock()
		defer l.mu.Unlock()
		l.entries = append(l.entries, entry)
		if !strings.HasPrefix(accept, runtime.ContentTypeProtobuf) ||
			(err == nil && !strings.HasPrefix(ct, runtime.ContentTypeProtobuf)) {
			l.bad = append(l.bad, entry)
		}
		return resp, err
	})
}

func (l *headerLog) snapshot() (entries, bad []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.entries...), append([]string(nil), l.bad...)
}

// informerLog keeps what an informer's handlers saw.
type informerLog struct {
	mu      sync.Mutex
	events  []string
	objects []*v1alpha1.UpdateStatus
	errs    []string
	changed chan struct{}
}

func newInformerLog() *informerLog { return &informerLog{changed: make(chan struct{}, 1)} }

func (l *informerLog) add(what string, obj any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	us, ok := obj.(*v1alpha1.UpdateStatus)
	if !ok {
		l.errs = append(l.errs, fmt.Sprintf("%s of a %T", what, obj))
		return
	}
	l.events = append(l.events, what+" "+us.ResourceVersion)
	if what == "delete" {
		l.errs = append(l.errs, "the informer saw a delete")
	}
	l.objects = append(l.objects, us.DeepCopy())
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until the handlers have seen, at index from or later, an
// object that satisfies pred, and returns its index.
func (l *informerLog) waitFor(t *testing.T, from int, timeout time.Duration, what string, pred func(*v1alpha1.UpdateStatus) bool) int {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		for i := from; i < len(l.objects); i++ {
			if pred(l.objects[i]) {
				l.mu.Unlock()
				return i
			}
		}
		events := strings.Join(l.events, ", ")
		l.mu.Unlock()
		select {
		case <-l.changed:
		case <-deadline.C:
			t.Fatalf("the informer's handlers did not see %s within %v; events: [%s]", what, timeout, events)
		}
	}
}

// TestProtobufInformers runs the generated clientset and informers with
// protobuf as the content type, WatchListClient off and on: the informer
// syncs and follows a change of the cluster, and every request and answer
// was protobuf.
func TestProtobufInformers(t *testing.T) {
	ensureUpdating(t)
	for _, watchList := range []bool{false, true} {
		t.Run(fmt.Sprintf("WatchListClient=%v", watchList), func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, watchList)
			ctx, cancel := context.WithTimeout(t.Context(), 3*changeTimeout)
			defer cancel()
			waitForStatus(ctx, t, changeTimeout, "dns not degraded", func(us *v1alpha1.UpdateStatus) bool { return !dnsDegraded(us) })

			// Every request of both clients goes through headers; reqs
			// counts the informer's alone.
			headers, reqs := &headerLog{}, &requestLog{}
			protobufClient := func(wrap func(http.RoundTripper) http.RoundTripper) versioned.Interface {
				cfg := cp.RESTConfig(&cp.Users.Admin)
				cfg.ContentType = runtime.ContentTypeProtobuf
				cfg.WrapTransport = wrap
				return clientFor(t, versioned.NewForConfig, cfg)
			}

			// The clientset's own GET and LIST.
			plain := protobufClient(headers.wrap).UpdateV1alpha1().UpdateStatuses()
			us, err := plain.Get(ctx, statusName, metav1.GetOptions{})
			if err != nil || us.Name != statusName || us.ResourceVersion == "" {
				t.Fatalf("protobuf clientset GET: %v, %v", us, err)
			}
			list, err := plain.List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) != 1 || list.ResourceVersion == "" {
				t.Fatalf("protobuf clientset LIST: %v, %v", list, err)
			}

			client := protobufClient(func(rt http.RoundTripper) http.RoundTripper { return reqs.wrap(headers.wrap(rt)) })

			factory := externalversions.NewSharedInformerFactory(client, 0)
			inf := factory.Update().V1alpha1().UpdateStatuses()
			seen := newInformerLog()
			if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
				AddFunc:    func(obj any) { seen.add("add", obj) },
				UpdateFunc: func(_, obj any) { seen.add("update", obj) },
				DeleteFunc: func(obj any) { seen.add("delete", obj) },
			}); err != nil {
				t.Fatal(err)
			}
			infCtx, stopInformer := context.WithCancel(ctx)
			factory.Start(infCtx.Done())
			defer func() {
				stopInformer()
				factory.Shutdown()
			}()
			syncCtx, syncCancel := context.WithTimeout(ctx, changeTimeout)
			defer syncCancel()
			if !cache.WaitForCacheSync(syncCtx.Done(), inf.Informer().HasSynced) {
				entries, _ := headers.snapshot()
				t.Fatalf("the protobuf informer did not sync within %v (WatchListClient=%v); requests: %v", changeTimeout, watchList, entries)
			}
			synced, err := inf.Lister().Get(statusName)
			if err != nil {
				t.Fatalf("lister after sync: %v", err)
			}
			if dnsDegraded(synced) {
				t.Fatal("the synced object already shows dns degraded")
			}

			// Follow a change and its undoing.
			restore := degradeOperator(t, "dns")
			defer restore()
			i := seen.waitFor(t, 0, changeTimeout, "dns degraded", dnsDegraded)
			restore()
			seen.waitFor(t, i+1, changeTimeout, "dns no longer degraded after it was",
				func(us *v1alpha1.UpdateStatus) bool { return !dnsDegraded(us) })
			if got, err := inf.Lister().Get(statusName); err != nil || dnsDegraded(got) {
				t.Errorf("lister after the change was undone: dns degraded %v, err %v", got != nil && dnsDegraded(got), err)
			}

			seen.mu.Lock()
			for _, e := range seen.errs {
				t.Error(e)
			}
			t.Logf("informer events: %v", seen.events)
			seen.mu.Unlock()

			// The informer synced the way the feature says, and every request
			// asked for protobuf and got it.
			lists, watchLists := reqs.counts()
			if watchList && (watchLists == 0 || lists > 0) {
				t.Errorf("WatchListClient on: %d LIST and %d watch-list requests, want only watch-list (%v)", lists, watchLists, reqs.all())
			}
			if !watchList && (lists == 0 || watchLists > 0) {
				t.Errorf("WatchListClient off: %d LIST and %d watch-list requests, want LIST (%v)", lists, watchLists, reqs.all())
			}
			entries, bad := headers.snapshot()
			t.Logf("requests (Accept -> Content-Type URI): %v", entries)
			if len(entries) < 3 {
				t.Errorf("only %d updatestatuses requests recorded: %v", len(entries), entries)
			}
			for _, b := range bad {
				t.Errorf("not protobuf: %s", b)
			}
		})
	}
}
