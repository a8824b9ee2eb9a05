package updatestatus

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/update-status/apiserver/pkg/apis/update"
)

// cachedObject wraps an immutable UpdateStatus and remembers its encodings,
// one per encoder identifier. The apiserver's encoders (GET responses and
// watch events) recognise runtime.CacheableObject, so an object sent to a
// thousand watchers is encoded once per encoder, not once per watcher.
type cachedObject struct {
	obj *update.UpdateStatus

	mu        sync.Mutex                                       // serialises additions to encodings
	encodings atomic.Pointer[map[runtime.Identifier]*encoding] // copy on write; read without locks
}

// encoding is the result of one encoder on the object.
type encoding struct {
	once sync.Once
	raw  []byte
	err  error
}

var (
	_ runtime.CacheableObject   = &cachedObject{}
	_ runtime.Object            = &cachedObject{}
	_ metav1.ObjectMetaAccessor = &cachedObject{}
)

// newCachedObject wraps obj, which must never be modified afterwards.
func newCachedObject(obj *update.UpdateStatus) *cachedObject {
	c := &cachedObject{obj: obj}
	empty := map[runtime.Identifier]*encoding{}
	c.encodings.Store(&empty)
	return c
}

// CacheEncode implements runtime.CacheableObject: the first call for an
// identifier encodes, every later call writes the remembered bytes.
//
// The apiserver's watch event encoder encodes the embedded object into a
// buffer of the watch stream that asked first, then the event around it
// into a second one, and keeps both buffers for the life of the stream: every
// stream would hold about twice the size of the object for good, which with
// large objects and many watchers adds up to most of the server's heap
// (docs/benchmarks.md). The event encoder is therefore given this
// object itself: its embedded encoder then comes back here for the object's
// own encoding, which is shared with every other request of that encoder,
// and splices those bytes into the stream's buffer instead of copying them.
func (c *cachedObject) CacheEncode(id runtime.Identifier, encode func(runtime.Object, io.Writer) error, w io.Writer) error {
	e := c.encodingFor(id)
	e.once.Do(func() {
		var buf bytes.Buffer
		var obj runtime.Object = c.GetObject()
		if isWatchEventEncoder(id) {
			obj = c
		}
		e.err = encode(obj, &buf)
		e.raw = buf.Bytes()
	})
	if e.err != nil {
		return e.err
	}
	if s, ok := w.(runtime.Splice); ok {
		s.Splice(e.raw)
		return nil
	}
	_, err := w.Write(e.raw)
	return err
}

// isWatchEventEncoder reports whether id is the identifier of the
// apiserver's watch event encoder (k8s.io/apiserver handlers.watchEncoder:
// a JSON object named "watch"). That encoder wraps the object in an event
// with an embedded encoder that accepts a runtime.CacheableObject; any other
// encoder gets a plain object, as a CacheableObject given to its own
// encoding function would come back here under the same identifier.
func isWatchEventEncoder(id runtime.Identifier) bool {
	if !strings.HasPrefix(string(id), "{") {
		return false
	}
	var named struct {
		Name string `json:"name"`
	}
	return json.Unmarshal([]byte(id), &named) == nil && named.Name == "watch"
}

func (c *cachedObject) encodingFor(id runtime.Identifier) *encoding {
	if e, ok := (*c.encodings.Load())[id]; ok {
		return e
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.encodings.Load()
	if e, ok := old[id]; ok {
		return e
	}
	next := make(map[runtime.Identifier]*encoding, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	e := &encoding{}
	next[id] = e
	c.encodings.Store(&next)
	return e
}

// GetObject implements runtime.CacheableObject. It returns a shallow copy:
// encoders set the TypeMeta of the object they are given, and the copy keeps
// those writes away from the shared object. Nothing below the top level is
// ever written, so the nested data is shared.
func (c *cachedObject) GetObject() runtime.Object {
	out := *c.obj
	return &out
}

// GetObjectKind implements runtime.Object. The wrapper has no kind of its
// own; encoders use the object from GetObject.
func (c *cachedObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object with a new wrapper around a deep
// copy and no remembered encodings.
func (c *cachedObject) DeepCopyObject() runtime.Object {
	return newCachedObject(c.obj.DeepCopy())
}

// GetObjectMeta implements metav1.ObjectMetaAccessor (used for
// PartialObjectMetadata responses) with a copy of the metadata.
func (c *cachedObject) GetObjectMeta() metav1.Object {
	meta := c.obj.ObjectMeta
	return &meta
}

// unwrap returns the object inside a cachedObject (a shallow copy), or obj.
func unwrap(obj runtime.Object) runtime.Object {
	if c, ok := obj.(*cachedObject); ok {
		return c.GetObject()
	}
	return obj
}
