package apiserver

import (
	"bytes"
	"compress/gzip"
	"hash/maphash"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/endpoints/responsewriter"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/pkg/apis/update"
)

const (
	// gzipThreshold is the body size above which a response is compressed;
	// the generic apiserver uses the same 128 KiB.
	gzipThreshold = 128 * 1024
	// maxBufferedBody bounds the plain body the filter holds for one
	// request. A body that outgrows it is streamed instead (see
	// compressionWriter.overflow) and never enters the cache.
	maxBufferedBody = 16 << 20
	// maxPooledBuffer is the largest request buffer kept for reuse.
	maxPooledBuffer = 8 << 20
	// gzipCacheEntries is how many distinct bodies the cache remembers. A
	// handful covers the revisions clients are still fetching, and the
	// list and the object forms of the same revision.
	gzipCacheEntries = 4
	// gzipLevel matches the generic apiserver's choice (level 1): least CPU
	// for a compression ratio close to the higher levels.
	gzipLevel = gzip.BestSpeed
)

// withCachedCompression serves gzip-compressed responses for GET and LIST
// requests of the update.openshift.io group from a small cache keyed by the
// content of the response, so that an unchanged object is compressed once
// rather than on every request.
//
// It must sit inside authentication, authorization, audit and the timeout
// filter, right around the API handler. For a request it applies to (GET
// method, verb get or list, group update.openshift.io, and a client that
// accepts gzip with the APIResponseCompression feature gate on, decided
// exactly as the generic apiserver decides it) it hides Accept-Encoding from
// the inner handler, which therefore writes plain bytes, buffers them, and
// when the handler returns:
//   - status 200 with a body over 128 KiB: answers with the gzip encoding of
//     the body, taken from the cache or compressed and remembered;
//   - anything else: writes what the handler wrote, unchanged.
//
// Everything else, watches included, passes through untouched. Until the
// handler returns, Flush is a no-op: a buffered response cannot be flushed
// in part. A body larger than 16 MiB stops being buffered and is streamed,
// gzip-compressed when the status is 200, like the generic apiserver would,
// and is not cached. Memory: the cache holds at most gzipCacheEntries bodies
// with their encodings, and each request in flight holds its plain body.
func withCachedCompression(handler http.Handler) http.Handler {
	return newCompressionFilter(handler, gzipCacheEntries)
}

// compressionFilter is the handler withCachedCompression returns.
type compressionFilter struct {
	handler   http.Handler
	cache     *gzipCache
	maxBuffer int // the bound of one buffered body, maxBufferedBody but in tests
}

func newCompressionFilter(handler http.Handler, entries int) *compressionFilter {
	return &compressionFilter{handler: handler, cache: newGzipCache(entries), maxBuffer: maxBufferedBody}
}

func (f *compressionFilter) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if !cachedCompressionApplies(req) {
		f.handler.ServeHTTP(w, req)
		return
	}
	// A shallow copy with its own header map, so that the generic apiserver
	// sees no Accept-Encoding and writes the plain encoding.
	inner := new(http.Request)
	*inner = *req
	inner.Header = req.Header.Clone()
	inner.Header.Del("Accept-Encoding")

	cw := &compressionWriter{outer: w, buf: getBuffer(), maxBuffer: f.maxBuffer}
	f.handler.ServeHTTP(responsewriter.WrapForHTTP1Or2(cw), inner)
	// A panicking handler never gets here: nothing buffered is written and
	// the panic goes on to the outer filters.
	cw.finish(f.cache)
}

// cachedCompressionApplies reports whether the filter handles req.
func cachedCompressionApplies(req *http.Request) bool {
	if req.Method != http.MethodGet {
		return false
	}
	info, ok := request.RequestInfoFrom(req.Context())
	if !ok || !info.IsResourceRequest || info.APIGroup != update.GroupName {
		return false
	}
	if info.Verb != "get" && info.Verb != "list" {
		return false
	}
	return responsewriters.ContentEncodingSupported(req, features.APIResponseCompression) == "gzip"
}

// compressionWriter buffers the response of the inner handler. Headers go
// straight to the outer writer's header map (nothing is sent before finish),
// so everything the handler or outer filters set passes through.
type compressionWriter struct {
	outer     http.ResponseWriter
	maxBuffer int

	code int           // first final status code; 0 until written
	buf  *bytes.Buffer // the plain body while buffering

	// Set once the body outgrew maxBuffer: the response is then
	// streamed to out (the outer writer, or gz around it).
	streaming bool
	out       io.Writer
	gz        *gzip.Writer
}

var (
	_ responsewriter.UserProvidedDecorator = &compressionWriter{}
	_ http.Flusher                         = &compressionWriter{}
)

// Unwrap returns the outer writer, for http.ResponseController and
// responsewriter.WrapForHTTP1Or2.
func (w *compressionWriter) Unwrap() http.ResponseWriter { return w.outer }

// Header returns the outer writer's header map.
func (w *compressionWriter) Header() http.Header { return w.outer.Header() }

// WriteHeader records the first final status code. Informational codes
// (1xx other than 101) are sent at once, like net/http does.
func (w *compressionWriter) WriteHeader(code int) {
	if w.code != 0 {
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		w.outer.WriteHeader(code)
		return
	}
	w.code = code
}

// Write buffers p, or streams it once the body is too large to buffer.
func (w *compressionWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if !bodyAllowed(w.code) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.streaming {
		return w.out.Write(p)
	}
	if w.buf.Len()+len(p) > w.maxBuffer {
		return w.overflow(p)
	}
	return w.buf.Write(p)
}

// Flush does nothing while the response is buffered; once it is streamed,
// it flushes the gzip writer and the outer writer.
func (w *compressionWriter) Flush() {
	if !w.streaming {
		return
	}
	if w.gz != nil {
		if err := w.gz.Flush(); err != nil {
			return
		}
	}
	if f, ok := w.outer.(http.Flusher); ok {
		f.Flush()
	}
}

// overflow switches to streaming: it sends the headers, then what was
// buffered and p, gzip-compressed for a 200 response (as the generic
// apiserver would for a body this large), plain otherwise.
func (w *compressionWriter) overflow(p []byte) (int, error) {
	w.streaming = true
	h := w.outer.Header()
	w.out = w.outer
	if w.code == http.StatusOK {
		setGzipHeaders(h)
		h.Del("Content-Length")
		w.gz = gzipWriters.Get().(*gzip.Writer)
		w.gz.Reset(w.outer)
		w.out = w.gz
	}
	w.outer.WriteHeader(w.code)
	buffered := w.buf
	w.buf = nil
	_, err := w.out.Write(buffered.Bytes())
	putBuffer(buffered)
	if err != nil {
		return 0, err
	}
	return w.out.Write(p)
}

// finish writes the buffered response, or ends the streamed one.
func (w *compressionWriter) finish(cache *gzipCache) {
	if w.streaming {
		if w.gz != nil {
			if err := w.gz.Close(); err != nil {
				klog.V(4).InfoS("Ending a streamed gzip response failed", "err", err)
			}
			w.gz.Reset(nil)
			gzipWriters.Put(w.gz)
			w.gz = nil
		}
		return
	}
	defer func() {
		putBuffer(w.buf)
		w.buf = nil
	}()
	body := w.buf.Bytes()
	if w.code == 0 {
		// The handler wrote nothing at all; neither do we.
		return
	}
	if w.code != http.StatusOK || len(body) <= gzipThreshold {
		w.outer.WriteHeader(w.code)
		if len(body) > 0 {
			if _, err := w.outer.Write(body); err != nil {
				klog.V(4).InfoS("Writing a response failed", "err", err)
			}
		}
		return
	}
	compressed, err := cache.get(body)
	if err != nil {
		// Compressing into memory cannot fail in practice; answer plain.
		klog.ErrorS(err, "Compressing a response failed; answering uncompressed")
		w.outer.WriteHeader(w.code)
		if _, err := w.outer.Write(body); err != nil {
			klog.V(4).InfoS("Writing a response failed", "err", err)
		}
		return
	}
	h := w.outer.Header()
	setGzipHeaders(h)
	h.Set("Content-Length", strconv.Itoa(len(compressed)))
	w.outer.WriteHeader(w.code)
	if _, err := w.outer.Write(compressed); err != nil {
		klog.V(4).InfoS("Writing a compressed response failed", "err", err)
	}
}

// setGzipHeaders marks a response as gzip-encoded, as the generic apiserver
// does. The Content-Type is the one the handler set.
func setGzipHeaders(h http.Header) {
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
}

// bodyAllowed reports whether a response with this status may have a body.
func bodyAllowed(code int) bool {
	return (code < 100 || code >= 200) && code != http.StatusNoContent && code != http.StatusNotModified
}

var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer {
	b := bufferPool.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

// putBuffer recycles b unless it is too large to keep around.
func putBuffer(b *bytes.Buffer) {
	if b == nil || b.Cap() > maxPooledBuffer {
		return
	}
	bufferPool.Put(b)
}

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzipLevel) // a valid level: never fails
	return w
}}

// gzipCache maps plain bodies to their gzip encodings. It holds at most max
// entries, least recently used first out, so its memory is bounded by max
// times (plain + compressed) size. Entries are looked up by length and hash
// and confirmed with bytes.Equal, so a body is never answered with the
// encoding of different content; the hash samples the body (see hash).
// Concurrent requests for a body that is
// being compressed wait for that compression instead of repeating it.
type gzipCache struct {
	seed maphash.Seed
	max  int

	mu      sync.Mutex
	entries []*gzipEntry // most recently used first

	compressions atomic.Int64 // bodies compressed, for tests and benchmarks
}

// gzipEntry is one body and its encoding. plain, hash and done are set
// before the entry is shared; gz and err are set before done is closed.
type gzipEntry struct {
	hash  uint64
	plain []byte
	done  chan struct{}
	gz    []byte
	err   error
}

func newGzipCache(entries int) *gzipCache {
	return &gzipCache{seed: maphash.MakeSeed(), max: max(entries, 1)}
}

// get returns the gzip encoding of plain, which it does not keep: the cache
// stores its own copy.
func (c *gzipCache) get(plain []byte) ([]byte, error) {
	h := c.hash(plain)
	e := c.lookup(h, plain)
	if e == nil {
		var fresh bool
		e, fresh = c.insert(h, plain)
		if fresh {
			e.gz, e.err = compress(plain)
			c.compressions.Add(1)
			close(e.done)
		}
	}
	<-e.done
	return e.gz, e.err
}

// hash is a cheap fingerprint of plain: it hashes the first and the last
// 4 KiB and seven 512-byte windows in between, not the whole body, because
// hashing 1 MiB costs more than comparing it. It only narrows the entries
// that bytes.Equal then compares; a collision costs a comparison, never a
// wrong answer.
func (c *gzipCache) hash(plain []byte) uint64 {
	const ends, window, windows = 4 << 10, 512, 8
	var h maphash.Hash
	h.SetSeed(c.seed)
	if len(plain) <= 2*ends+windows*window {
		_, _ = h.Write(plain)
		return h.Sum64()
	}
	_, _ = h.Write(plain[:ends])
	_, _ = h.Write(plain[len(plain)-ends:])
	for i := 1; i < windows; i++ {
		at := len(plain) * i / windows
		_, _ = h.Write(plain[at : at+window])
	}
	return h.Sum64()
}

// lookup finds the entry holding plain and marks it most recently used.
// The byte comparison runs outside the lock.
func (c *gzipCache) lookup(h uint64, plain []byte) *gzipEntry {
	var candidates [gzipCacheEntries]*gzipEntry
	found := candidates[:0]
	c.mu.Lock()
	for _, e := range c.entries {
		if e.hash == h && len(e.plain) == len(plain) {
			found = append(found, e)
		}
	}
	c.mu.Unlock()
	for _, e := range found {
		if bytes.Equal(e.plain, plain) {
			c.mu.Lock()
			c.touch(e)
			c.mu.Unlock()
			return e
		}
	}
	return nil
}

// insert adds an entry for plain, unless one was added since lookup; fresh
// tells the caller it must compress and close done.
func (c *gzipCache) insert(h uint64, plain []byte) (e *gzipEntry, fresh bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		// Matches here are entries added by concurrent requests for the
		// same body: they are rare, so comparing under the lock is fine.
		if e.hash == h && len(e.plain) == len(plain) && bytes.Equal(e.plain, plain) {
			c.touch(e)
			return e, false
		}
	}
	e = &gzipEntry{hash: h, plain: bytes.Clone(plain), done: make(chan struct{})}
	if len(c.entries) >= c.max {
		last := len(c.entries) - 1
		c.entries[last] = nil
		c.entries = c.entries[:last]
	}
	c.entries = append([]*gzipEntry{e}, c.entries...)
	return e, true
}

// touch moves e to the front if it is still cached. c.mu must be held.
func (c *gzipCache) touch(e *gzipEntry) {
	for i, x := range c.entries {
		if x == e {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return
		}
	}
}

// compress returns the gzip encoding of plain.
func compress(plain []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(plain)/4 + 64)
	gw := gzipWriters.Get().(*gzip.Writer)
	defer func() {
		gw.Reset(nil)
		gzipWriters.Put(gw)
	}()
	gw.Reset(&out)
	if _, err := gw.Write(plain); err != nil {
		return nil, err
	}
	if err := gw.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(out.Bytes()), nil
}
