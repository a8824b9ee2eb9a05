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
	"io"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
)

// REST is the storage of updatestatuses: the registry's, with GET answers
// whose encodings are kept for the newest revision read. The object is
// large (at 5,000 nodes about 1.7 MiB of JSON) and every client of a
// revision asks for the same bytes; the apiserver's GET handler encodes a
// runtime.CacheableObject through CacheEncode, as it does the watch cache's
// events, so a GET of an unchanged revision copies the bytes of the first
// encoding in its format instead of encoding again. Everything else about
// the request stays the library's: the route's metrics and audit,
// negotiation, headers, compression, tables.
type REST struct {
	*virtualstore.REST
	encodings *encodingCache
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
	return &cachedStatus{UpdateStatus: us, encodings: r.encodings.of(us.ResourceVersion)}, nil
}

// WithoutEncodingCache makes r answer every GET as the registry does, each
// encoded anew: the plain path, for benchmarks that compare the two.
func (r *REST) WithoutEncodingCache() { r.encodings = nil }

// maxEncodings bounds the encodings kept for one revision: one per
// encoder (JSON, protobuf, YAML, pretty JSON, ...).
const maxEncodings = 8

// encodingCache holds the encodings of the newest revision read.
type encodingCache struct {
	mu  sync.Mutex
	rv  uint64
	cur *revisionEncodings
}

// revisionEncodings are the encodings of one revision, by encoder.
type revisionEncodings struct {
	mu   sync.Mutex
	byID map[runtime.Identifier]*encoding
}

type encoding struct {
	once sync.Once
	raw  []byte
	err  error
}

// of returns the encodings of revision rv: the shared ones when rv is the
// newest revision read, which replaces any older one; a set of its own
// for an older revision (a read from the watch cache that has not caught
// up yet), so that it never displaces the newer one.
func (c *encodingCache) of(rv string) *revisionEncodings {
	n, err := strconv.ParseUint(rv, 10, 64)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err != nil || n < c.rv:
		return &revisionEncodings{}
	case n > c.rv || c.cur == nil:
		c.rv, c.cur = n, &revisionEncodings{}
	}
	return c.cur
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

// cachedStatus is one GET's UpdateStatus with the encodings of its
// revision. The embedded object is this request's own: the store hands
// every read a copy of the object's top level and shares the rest, which
// no reader modifies, as the plain GET does.
type cachedStatus struct {
	*update.UpdateStatus
	encodings *revisionEncodings
}

var _ runtime.CacheableObject = &cachedStatus{}

// CacheEncode implements runtime.CacheableObject: the first GET of the
// revision in an encoding encodes it, the others copy its bytes.
func (c *cachedStatus) CacheEncode(id runtime.Identifier, encode func(runtime.Object, io.Writer) error, w io.Writer) error {
	enc := c.encodings.get(id)
	enc.once.Do(func() {
		var buf bytes.Buffer
		enc.err = encode(c.UpdateStatus, &buf)
		enc.raw = buf.Bytes()
	})
	if enc.err != nil {
		return enc.err
	}
	_, err := w.Write(enc.raw)
	return err
}

// GetObject implements runtime.CacheableObject.
func (c *cachedStatus) GetObject() runtime.Object { return c.UpdateStatus }
