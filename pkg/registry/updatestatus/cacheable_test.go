package updatestatus

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/update-status/apiserver/pkg/apis/update"
)

func TestCacheEncodeEncodesOncePerIdentifier(t *testing.T) {
	c := newCachedObject(viewRevision(rv1, "4.17.1").Object)
	var calls atomic.Int32
	encode := func(tag string) func(runtime.Object, io.Writer) error {
		return func(obj runtime.Object, w io.Writer) error {
			calls.Add(1)
			// Encoders set the kind on what they are given.
			obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Kind: "UpdateStatus"})
			_, err := io.WriteString(w, tag+":"+obj.(*update.UpdateStatus).ResourceVersion)
			return err
		}
	}
	var wg sync.WaitGroup
	outputs := make([]bytes.Buffer, 64)
	for i := range outputs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := runtime.Identifier("json")
			if i%2 == 1 {
				id = "yaml"
			}
			if err := c.CacheEncode(id, encode(string(id)), &outputs[i]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := calls.Load(); got != 2 {
		t.Errorf("%d encodings for 2 identifiers", got)
	}
	for i := range outputs {
		want := "json:1000001"
		if i%2 == 1 {
			want = "yaml:1000001"
		}
		if got := outputs[i].String(); got != want {
			t.Fatalf("output %d = %q, want %q", i, got, want)
		}
	}
	if c.obj.Kind != "" {
		t.Errorf("an encoder wrote %q on the shared object", c.obj.Kind)
	}
}

func TestCacheEncodeRemembersErrors(t *testing.T) {
	c := newCachedObject(viewRevision(rv1, "4.17.1").Object)
	boom := errors.New("boom")
	calls := 0
	encode := func(runtime.Object, io.Writer) error { calls++; return boom }
	for i := 0; i < 3; i++ {
		if err := c.CacheEncode("id", encode, io.Discard); !errors.Is(err, boom) {
			t.Fatalf("error = %v", err)
		}
	}
	if calls != 1 {
		t.Errorf("%d calls", calls)
	}
}

func TestCachedObjectAccessors(t *testing.T) {
	obj := viewRevision(rv1, "4.17.1").Object
	obj.UID = "u-1"
	c := newCachedObject(obj)

	got := c.GetObject().(*update.UpdateStatus)
	if got == obj || got.UID != "u-1" {
		t.Errorf("GetObject() = %p (uid %q), shared %p", got, got.UID, obj)
	}
	m, err := meta.Accessor(c)
	if err != nil || m.GetName() != "cluster" || m.GetResourceVersion() != "1000001" {
		t.Fatalf("meta.Accessor: %v, %v", m, err)
	}
	m.SetName("changed")
	if obj.Name != "cluster" {
		t.Error("the metadata accessor wrote through to the shared object")
	}
	deep := c.DeepCopyObject().(*cachedObject)
	if deep.obj == obj || deep.obj.Status.ControlPlane == obj.Status.ControlPlane {
		t.Error("DeepCopyObject shares data")
	}
	if k := c.GetObjectKind().GroupVersionKind(); !k.Empty() {
		t.Errorf("kind = %v", k)
	}
	if unwrap(&metav1.Status{}) == nil {
		t.Error("unwrap of a plain object")
	}
}

// recordingSplice is a runtime.Splice that records how it was filled.
type recordingSplice struct {
	bytes.Buffer
	spliced []byte
}

func (r *recordingSplice) Splice(raw []byte) { r.spliced = raw }

// TestWatchEventEncodingSplicesTheSharedObjectEncoding follows the shape of
// the apiserver's watch encoder: its event encoding calls an embedded
// encoder, which handles a runtime.CacheableObject, with what it was given,
// into a splice buffer of its own. That buffer must receive the shared
// encoding by reference, encoded once for every stream; other encoders
// must be given a plain object.
func TestWatchEventEncodingSplicesTheSharedObjectEncoding(t *testing.T) {
	c := newCachedObject(viewRevision(rv1, "4.17.1").Object)
	const watchID = runtime.Identifier(`{"name":"watch","embeddedEncoder":"json","encoder":"json","eventType":"MODIFIED"}`)
	objectEncodings := 0
	embedded := func(obj runtime.Object, w io.Writer) error {
		if co, ok := obj.(runtime.CacheableObject); ok {
			return co.CacheEncode("json", func(obj runtime.Object, w io.Writer) error {
				objectEncodings++
				if _, ok := obj.(*update.UpdateStatus); !ok {
					t.Errorf("the object encoder got a %T", obj)
				}
				_, err := io.WriteString(w, "object")
				return err
			}, w)
		}
		objectEncodings++
		_, err := io.WriteString(w, "object")
		return err
	}
	streamBuffers := make([]*recordingSplice, 3)
	for i := range streamBuffers {
		streamBuffers[i] = &recordingSplice{}
		buf := streamBuffers[i]
		var out bytes.Buffer
		err := c.CacheEncode(watchID, func(obj runtime.Object, w io.Writer) error {
			if err := embedded(obj, buf); err != nil {
				return err
			}
			raw := buf.spliced
			if raw == nil {
				raw = buf.Bytes()
			}
			_, err := io.WriteString(w, `{"type":"MODIFIED","object":`+string(raw)+"}")
			return err
		}, &out)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != `{"type":"MODIFIED","object":object}` {
			t.Fatalf("event %d = %q", i, got)
		}
	}
	if first := streamBuffers[0]; first.Len() != 0 || string(first.spliced) != "object" {
		t.Errorf("the first stream's buffer holds %d copied bytes and %q spliced; want the shared encoding spliced, nothing copied", first.Len(), first.spliced)
	}
	// A GET of the same encoder reuses the object's encoding.
	var get bytes.Buffer
	if err := c.CacheEncode("json", embedded, &get); err != nil || get.String() != "object" {
		t.Fatalf("GET = %q, %v", get.String(), err)
	}
	if objectEncodings != 1 {
		t.Errorf("the object was encoded %d times, want once", objectEncodings)
	}
}

func TestIsWatchEventEncoder(t *testing.T) {
	for id, want := range map[runtime.Identifier]bool{
		`{"name":"watch","embeddedEncoder":"x","encoder":"y","eventType":"ADDED"}`: true,
		`{"name":"embedded","encoder":"y"}`:                                        false,
		`{"encodeGV":"update.openshift.io/v1alpha1","encoder":"json"}`:             false,
		"json": false,
		"{":    false,
		"":     false,
	} {
		if got := isWatchEventEncoder(id); got != want {
			t.Errorf("isWatchEventEncoder(%s) = %v, want %v", id, got, want)
		}
	}
}
