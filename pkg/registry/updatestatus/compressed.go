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
	"sync"

	"github.com/klauspost/compress/gzip"
)

// Compressed is where a GET of updatestatuses leaves the encoding its
// answer is written in, for an HTTP filter that sends that encoding's
// gzip form, made once per revision and encoding, instead of compressing
// the answer again for every request (docs/watch.md, "Compression").
// The answer's bytes still go through the library's GET handler, which
// negotiates, encodes (from the encoding cache) and writes them; the
// filter replaces them on the way out.
type Compressed struct {
	mu  sync.Mutex
	enc *encoding
}

type compressedKey struct{}

// WithCompressed returns ctx with a new Compressed that a GET of
// updatestatuses made with it fills.
func WithCompressed(ctx context.Context) (context.Context, *Compressed) {
	c := &Compressed{}
	return context.WithValue(ctx, compressedKey{}, c), c
}

func compressedFrom(ctx context.Context) *Compressed {
	c, _ := ctx.Value(compressedKey{}).(*Compressed)
	return c
}

// Answer returns the length of the encoding the answer was written in and
// its gzip form, or false when the answer did not come from the encoding
// cache (another resource, an error, an encoding not kept).
func (c *Compressed) Answer() (int, []byte, bool) {
	if c == nil {
		return 0, nil, false
	}
	c.mu.Lock()
	enc := c.enc
	c.mu.Unlock()
	if enc == nil || enc.err != nil {
		return 0, nil, false
	}
	enc.gzipRead.Store(true)
	return len(enc.raw), enc.gzipped(), true
}

// answered records that the answer is enc.
func (c *Compressed) answered(enc *encoding) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.enc = enc
	c.mu.Unlock()
}

// gzipLevel is the level of the kept gzip forms: each is made once per
// revision and encoding and sent to every client of it. At 5,000 nodes
// (530 KB of protobuf) the default level took about as long as best speed
// and left a fifth fewer bytes, which the client inflates a quarter
// faster.
const gzipLevel = gzip.DefaultCompression

// gzipped returns the gzip form of the encoding, made the first time.
func (e *encoding) gzipped() []byte {
	e.gzipOnce.Do(func() {
		var b bytes.Buffer
		w, err := gzip.NewWriterLevel(&b, gzipLevel)
		if err == nil {
			_, err = w.Write(e.raw)
		}
		if err == nil {
			err = w.Close()
		}
		if err == nil {
			e.gz = b.Bytes()
		}
	})
	return e.gz
}
