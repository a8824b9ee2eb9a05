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
