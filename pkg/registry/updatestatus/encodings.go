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

package updatestatus

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
)

// REST is the storage of updatestatuses: the registry's, with GET answers
// and watch events whose encodings are kept for the newest revisions read.
// The object is large (at 5,000 nodes about 1 MiB of JSON) and every
// client of a revision asks for the same bytes; the apiserver's GET and
// watch handlers encode a runtime.CacheableObject through CacheEncode, so
// a GET or a watch event of a revision already encoded in its format
// copies those bytes instead of encoding again. Everything else about the
// request stays the library's: the route's metrics and audit, negotiation,
// headers, compression, framing, tables.
//
// The watch events' encodings are the server's own work, not a watcher's
// (watchEncodings): the watch handler encodes on a cache miss into buffers
// of its watch that keep their size for the watch's life, so that with
// the watch cache's events (shared only among the watchers of one
// dispatch, and not at all for the initial state of a watch) every
// watcher of the singleton would end up holding two buffers of its size.
type REST struct {
	*virtualstore.REST
	encodings *encodingCache
	encoders  *watchEncodings // nil: watch events are the watch cache's
}

var (
	_ rest.Getter  = &REST{}
	_ rest.Lister  = &REST{}
	_ rest.Watcher = &REST{}
)

// Get implements rest.Getter.
func (r *REST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.REST.Get(ctx, name, opts)
	if err != nil || r.encodings == nil {
		return obj, err
	}
	us, ok := obj.(*update.UpdateStatus)
	if !ok {
		return obj, nil
	}
	return &cachedStatus{UpdateStatus: us, encodings: r.encodings.of(us.ResourceVersion), answer: compressedFrom(ctx)}, nil
}

// Watch implements rest.Watcher: the registry's watch, whose events carry
// the encodings of their revision (watchObject).
func (r *REST) Watch(ctx context.Context, opts *internalversion.ListOptions) (watch.Interface, error) {
	return r.WatchEach(ctx, opts, r.watchObject)
}

// Published prepares revision us in the background, once it is published:
// encoded by each encoder of watchEncodings' objects that a client read one
// of the revisions kept before it in, and compressed when that encoding's
// gzip form was sent. A client that polls gets each new revision, and a GET
// that comes first pays the encoding (and the compression) of a large
// object in its latency; prepared, the GET copies bytes. A client that
// polls more slowly than revisions are published skips some, so what it
// read stays wanted while the revision it read is kept (the newest
// revisions read or prepared): a client that stops polling costs the keep
// revisions after its last read.
func (r *REST) Published(us *update.UpdateStatus) {
	if work := r.prepare(us); work != nil {
		go work()
	}
}

// prepare returns the work of Published, or nil when there is none.
func (r *REST) prepare(us *update.UpdateStatus) func() {
	if r == nil || r.encodings == nil || r.encoders == nil || us == nil {
		return nil
	}
	wanted := map[runtime.Identifier]bool{} // the identifiers read, true when gzipped too
	for _, prev := range r.encodings.before(us.ResourceVersion) {
		prev.mu.Lock()
		for id, enc := range prev.byID {
			if _, ok := r.encoders.objects[id]; ok && enc.read.Load() {
				wanted[id] = wanted[id] || enc.gzipRead.Load()
			}
		}
		prev.mu.Unlock()
	}
	if len(wanted) == 0 {
		return nil
	}
	c := &cachedStatus{UpdateStatus: us, encodings: r.encodings.of(us.ResourceVersion), encoders: r.encoders}
	return func() {
		for id, gzipped := range wanted {
			enc := c.encoded(id, nil)
			if enc.err == nil && gzipped {
				enc.gzipped()
			}
		}
	}
}

// watchObject returns the object of an ADDED or MODIFIED event of the
// watch cache as one that shares the encodings of its revision; the
// revision's object is taken from the first event of it (the watch cache
// hands its watchers an object that copies itself when asked for).
func (r *REST) watchObject(obj runtime.Object) runtime.Object {
	if r.encodings == nil || r.encoders == nil {
		return obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj
	}
	enc := r.encodings.of(m.GetResourceVersion())
	us := enc.object(func() *update.UpdateStatus {
		switch o := obj.(type) {
		case *update.UpdateStatus:
			return o
		case runtime.CacheableObject:
			us, _ := o.GetObject().(*update.UpdateStatus)
			return us
		}
		return nil
	})
	if us == nil {
		return obj
	}
	return &cachedStatus{UpdateStatus: us, encodings: enc, encoders: r.encoders}
}

// maxEncodings bounds the encodings kept for one revision: one per
// encoder (JSON, protobuf, YAML, pretty JSON, ...) and, for watch events,
// per event type.
const maxEncodings = 16

// DefaultEncodingRevisions is how many revisions the encoding cache keeps
// by default: the newest ones read. Watchers take an event a little after
// one another, so under load some take revision n after others have taken
// n+1; with the newest few kept, they still share its encodings.
const DefaultEncodingRevisions = 8

// encodingCache holds the encodings of the keep newest revisions read.
type encodingCache struct {
	keep  int
	mu    sync.Mutex
	byRev map[uint64]*revisionEncodings
}

// revisionEncodings are the encodings of one revision, by encoder, and
// the revision's object for watch events.
type revisionEncodings struct {
	mu   sync.Mutex
	byID map[runtime.Identifier]*encoding
	obj  *update.UpdateStatus
}

// object returns the revision's object, from get the first time.
func (e *revisionEncodings) object(get func() *update.UpdateStatus) *update.UpdateStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.obj == nil {
		e.obj = get()
	}
	return e.obj
}

type encoding struct {
	once sync.Once
	raw  []byte
	err  error

	gzipOnce sync.Once
	gz       []byte // the gzip form of raw, for Compressed; nil until asked for or when it failed

	// read and gzipRead tell whether a client was sent raw, or gz: the
	// encodings of the next revision prepared ahead follow them (Published).
	read, gzipRead atomic.Bool
}

// of returns the encodings of revision rv: the shared ones when rv is
// among the c.keep newest read, which displaces the oldest kept; a
// set of its own for an older revision (a read from a watch cache that has
// not caught up yet, a watcher far behind), so that it never displaces a
// newer one.
func (c *encodingCache) of(rv string) *revisionEncodings {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return &revisionEncodings{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byRev[n]; ok {
		return e
	}
	if c.byRev == nil {
		c.byRev = map[uint64]*revisionEncodings{}
	}
	if len(c.byRev) >= c.keep {
		oldest := slices.Min(slices.Collect(maps.Keys(c.byRev)))
		if n < oldest {
			return &revisionEncodings{}
		}
		delete(c.byRev, oldest)
	}
	e := &revisionEncodings{}
	c.byRev[n] = e
	return e
}

// before returns the encodings of the revisions kept older than rv.
func (c *encodingCache) before(rv string) []*revisionEncodings {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*revisionEncodings
	for k, e := range c.byRev {
		if k < n {
			out = append(out, e)
		}
	}
	return out
}

// get returns the encoding for id, or a new one that is not kept once
// maxEncodings are.
func (e *revisionEncodings) get(id runtime.Identifier) *encoding {
	e.mu.Lock()
	defer e.mu.Unlock()
	if enc, ok := e.byID[id]; ok {
		return enc
	}
	enc := &encoding{}
	if e.byID == nil {
		e.byID = map[runtime.Identifier]*encoding{}
	}
	if len(e.byID) < maxEncodings {
		e.byID[id] = enc
	}
	return enc
}

// cachedStatus is the UpdateStatus of one GET or watch event with the
// encodings of its revision. The embedded object of a GET is the request's
// own: the store hands every read a copy of the object's top level and
// shares the rest, which no reader modifies, as the plain GET does; that
// of a watch event is shared by the revision's events, which no watch
// handler modifies either.
type cachedStatus struct {
	*update.UpdateStatus
	encodings *revisionEncodings
	encoders  *watchEncodings // nil for a GET
	answer    *Compressed     // where a GET records its encoding, or nil
}

var _ runtime.CacheableObject = &cachedStatus{}

// CacheEncode implements runtime.CacheableObject: the first GET or watch
// event of the revision in an encoding encodes it, the others copy its
// bytes (or splice them, into a writer that takes them so).
func (c *cachedStatus) CacheEncode(id runtime.Identifier, encode func(runtime.Object, io.Writer) error, w io.Writer) error {
	enc := c.encoded(id, encode)
	if enc.err != nil {
		return enc.err
	}
	enc.read.Store(true)
	c.answer.answered(enc)
	if s, ok := w.(runtime.Splice); ok {
		s.Splice(enc.raw)
		return nil
	}
	_, err := w.Write(enc.raw)
	return err
}

// encoded returns the revision's encoding for id, encoding it the first
// time: with the server's own encoder when id is one of watchEncodings',
// else with encode.
func (c *cachedStatus) encoded(id runtime.Identifier, encode func(runtime.Object, io.Writer) error) *encoding {
	enc := c.encodings.get(id)
	enc.once.Do(func() {
		var buf bytes.Buffer
		enc.err = c.encode(id, encode, &buf)
		enc.raw = buf.Bytes()
	})
	return enc
}

// encode encodes a copy of the object's top level: an encoder sets the
// object's kind while it encodes, and the object of a watch event is
// shared by the revision's watchers, which encode it concurrently in
// their formats. The rest is shared; no encoder modifies it.
func (c *cachedStatus) encode(id runtime.Identifier, encode func(runtime.Object, io.Writer) error, w io.Writer) error {
	top := *c.UpdateStatus
	if c.encoders != nil {
		if e, ok := c.encoders.objects[id]; ok {
			return e.Encode(&top, w)
		}
		if ev, ok := c.encoders.event(id); ok {
			obj := c.encoded(ev.object, nil)
			if obj.err != nil {
				return obj.err
			}
			return ev.encoder.Encode(&metav1.WatchEvent{Type: ev.eventType, Object: runtime.RawExtension{Raw: obj.raw}}, w)
		}
	}
	return encode(&top, w)
}

// GetObject implements runtime.CacheableObject.
func (c *cachedStatus) GetObject() runtime.Object { return c.UpdateStatus }

// watchEncodings are the encoders the watch handler builds for a watch of
// updatestatuses, by the identifiers it gives them: of the object (the
// serializer of each media type, for the served version, as GET encodes
// it too) and of the watch event around it (the stream serializer). With
// them the server encodes a revision's events itself; an identifier it
// does not know (a table, pretty JSON, another version) is encoded by the
// handler.
type watchEncodings struct {
	objects map[runtime.Identifier]runtime.Encoder
	events  map[runtime.Identifier]runtime.Encoder
}

// newWatchEncodings returns the encoders of serializers for gv.
func newWatchEncodings(serializers runtime.NegotiatedSerializer, gv schema.GroupVersion) *watchEncodings {
	e := &watchEncodings{objects: map[runtime.Identifier]runtime.Encoder{}, events: map[runtime.Identifier]runtime.Encoder{}}
	for _, info := range serializers.SupportedMediaTypes() {
		if info.Serializer == nil || info.StreamSerializer == nil {
			continue
		}
		obj := serializers.EncoderForVersion(info.Serializer, gv)
		e.objects[obj.Identifier()] = obj
		ev := serializers.EncoderForVersion(info.StreamSerializer.Serializer, gv)
		e.events[ev.Identifier()] = ev
	}
	return e
}

// watchEventEncoding is what the identifier of the watch handler's event
// encoder names: the object's encoder, the event's, the event type.
type watchEventEncoding struct {
	object    runtime.Identifier
	encoder   runtime.Encoder
	eventType string
}

// event parses id as the identifier the watch handler gives its event
// encoder (k8s.io/apiserver/pkg/endpoints/handlers: a JSON object with the
// name "watch", the identifiers of its embedded and event encoders and the
// event type) and returns it when both encoders are known.
func (e *watchEncodings) event(id runtime.Identifier) (watchEventEncoding, bool) {
	var parsed struct {
		Name            string `json:"name"`
		EmbeddedEncoder string `json:"embeddedEncoder"`
		Encoder         string `json:"encoder"`
		EventType       string `json:"eventType"`
	}
	if err := json.Unmarshal([]byte(id), &parsed); err != nil || parsed.Name != "watch" {
		return watchEventEncoding{}, false
	}
	object := runtime.Identifier(parsed.EmbeddedEncoder)
	encoder, ok := e.events[runtime.Identifier(parsed.Encoder)]
	if _, known := e.objects[object]; !ok || !known {
		return watchEventEncoding{}, false
	}
	switch watch.EventType(parsed.EventType) {
	case watch.Added, watch.Modified:
	default:
		return watchEventEncoding{}, false
	}
	return watchEventEncoding{object: object, encoder: encoder, eventType: parsed.EventType}, true
}
