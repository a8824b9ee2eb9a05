package apiserver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/view/viewtest"
)

// jsonBody returns about size bytes of JSON that compresses like an API
// object; different seeds give different content.
func jsonBody(seed, size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"kind":"UpdateStatus","items":[`)
	for i := 0; b.Len() < size-64; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"worker-%06d","pool":"worker","state":"Updated","seed":%d,"version":"4.%d.%d"}`,
			i, seed, i%20, (i*seed)%97)
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

// compressionRequest builds a request with the RequestInfo the generic
// apiserver would attach; verb "" means a non-resource request.
func compressionRequest(method, verb, group, acceptEncoding string) *http.Request {
	req := httptest.NewRequest(method, "/apis/update.openshift.io/v1alpha1/updatestatuses/cluster", nil)
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	info := &request.RequestInfo{IsResourceRequest: verb != "", Verb: verb, APIGroup: group, APIVersion: "v1alpha1",
		Resource: "updatestatuses", Name: "cluster", Path: req.URL.Path}
	return req.WithContext(request.WithRequestInfo(req.Context(), info))
}

// fakeHandler writes a response the way a filter chain and the generic
// apiserver would: headers, an optional status code, the body in chunks.
type fakeHandler struct {
	code   int // 0: WriteHeader is never called
	body   []byte
	chunks int

	mu         sync.Mutex
	acceptSeen []string // Accept-Encoding of each request it served
}

func (h *fakeHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h.mu.Lock()
	h.acceptSeen = append(h.acceptSeen, req.Header.Get("Accept-Encoding"))
	h.mu.Unlock()
	hdr := w.Header()
	hdr.Set("Audit-Id", "0d6c8a3e-audit")
	hdr.Set("Cache-Control", "no-cache, private")
	hdr.Add("Warning", `299 - "a warning"`)
	hdr.Set("X-Kubernetes-Pf-Flowschema-Uid", "fs-uid")
	hdr.Set("Content-Type", "application/json")
	if h.code != 0 {
		w.WriteHeader(h.code)
	}
	n := max(h.chunks, 1)
	step := (len(h.body) + n - 1) / n
	for p := h.body; len(p) > 0; {
		k := min(step, len(p))
		if _, err := w.Write(p[:k]); err != nil {
			panic(err) // the test fails loudly; the recorder never errors
		}
		p = p[k:]
	}
}

func (h *fakeHandler) lastAccept() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.acceptSeen) == 0 {
		return "<not called>"
	}
	return h.acceptSeen[len(h.acceptSeen)-1]
}

func gunzip(tb testing.TB, b []byte) []byte {
	tb.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		tb.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		tb.Fatalf("gunzip: %v", err)
	}
	return out
}

// checkGzipResponse asserts rec is the gzip encoding of want with the
// headers the handler set.
func checkGzipResponse(t *testing.T, rec *httptest.ResponseRecorder, want []byte) {
	t.Helper()
	res := rec.Result()
	if res.StatusCode != http.StatusOK {
		t.Errorf("status %d, want 200", res.StatusCode)
	}
	h := res.Header
	for k, v := range map[string]string{
		"Content-Encoding":               "gzip",
		"Vary":                           "Accept-Encoding",
		"Content-Type":                   "application/json",
		"Content-Length":                 strconv.Itoa(rec.Body.Len()),
		"Audit-Id":                       "0d6c8a3e-audit",
		"Cache-Control":                  "no-cache, private",
		"Warning":                        `299 - "a warning"`,
		"X-Kubernetes-Pf-Flowschema-Uid": "fs-uid",
	} {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("header %s = %q, want [%q]", k, got, v)
		}
	}
	if got := gunzip(t, rec.Body.Bytes()); !bytes.Equal(got, want) {
		t.Errorf("decompressed body: %d bytes, not the %d the handler wrote", len(got), len(want))
	}
	if rec.Body.Len() >= len(want)/2 {
		t.Errorf("compressed %d bytes to %d", len(want), rec.Body.Len())
	}
}

// checkSameResponse asserts got is byte for byte what want recorded.
func checkSameResponse(t *testing.T, got, want *httptest.ResponseRecorder) {
	t.Helper()
	g, w := got.Result(), want.Result()
	if g.StatusCode != w.StatusCode {
		t.Errorf("status %d, want %d", g.StatusCode, w.StatusCode)
	}
	if fmt.Sprint(g.Header) != fmt.Sprint(w.Header) {
		t.Errorf("headers\n%v\nwant\n%v", g.Header, w.Header)
	}
	if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
		t.Errorf("body: %d bytes, want the %d the handler wrote", got.Body.Len(), want.Body.Len())
	}
}

func TestCachedCompression(t *testing.T) {
	large := jsonBody(1, 850<<10)
	threshold := bytes.Repeat([]byte("a"), gzipThreshold)
	tests := []struct {
		name     string
		method   string
		verb     string // "" for a non-resource request
		group    string
		accept   string
		gateOff  bool
		noInfo   bool
		handler  *fakeHandler
		wantGzip bool
		// wantAccept is the Accept-Encoding the inner handler must see.
		wantAccept string
	}{
		{name: "get, large body", method: "GET", verb: "get", group: "update.openshift.io", accept: "gzip",
			handler: &fakeHandler{code: 200, body: large}, wantGzip: true},
		{name: "list, large body in chunks, no WriteHeader", method: "GET", verb: "list", group: "update.openshift.io",
			accept: "deflate, gzip", handler: &fakeHandler{body: large, chunks: 7}, wantGzip: true},
		{name: "body at the threshold", method: "GET", verb: "get", group: "update.openshift.io", accept: "gzip",
			handler: &fakeHandler{code: 200, body: threshold}},
		{name: "small body", method: "GET", verb: "get", group: "update.openshift.io", accept: "gzip",
			handler: &fakeHandler{code: 200, body: []byte(`{"kind":"UpdateStatus"}`)}},
		{name: "not found, large body", method: "GET", verb: "get", group: "update.openshift.io", accept: "gzip",
			handler: &fakeHandler{code: 404, body: large}},
		{name: "no content", method: "GET", verb: "get", group: "update.openshift.io", accept: "gzip",
			handler: &fakeHandler{code: 204}},
		{name: "nothing written", method: "GET", verb: "get", group: "update.openshift.io", accept: "gzip",
			handler: &fakeHandler{}},
		{name: "gzip not accepted", method: "GET", verb: "get", group: "update.openshift.io",
			handler: &fakeHandler{code: 200, body: large}},
		{name: "other encodings only", method: "GET", verb: "get", group: "update.openshift.io", accept: "br, deflate",
			handler: &fakeHandler{code: 200, body: large}, wantAccept: "br, deflate"},
		{name: "gzip with parameters", method: "GET", verb: "get", group: "update.openshift.io", accept: "gzip;q=1.0",
			handler: &fakeHandler{code: 200, body: large}, wantAccept: "gzip;q=1.0"},
		{name: "watch", method: "GET", verb: "watch", group: "update.openshift.io", accept: "gzip",
			handler: &fakeHandler{code: 200, body: large, chunks: 3}, wantAccept: "gzip"},
		{name: "other group", method: "GET", verb: "get", group: "apps", accept: "gzip",
			handler: &fakeHandler{code: 200, body: large}, wantAccept: "gzip"},
		{name: "non-resource request", method: "GET", group: "", accept: "gzip",
			handler: &fakeHandler{code: 200, body: large}, wantAccept: "gzip"},
		{name: "no request info", method: "GET", verb: "get", group: "update.openshift.io", accept: "gzip", noInfo: true,
			handler: &fakeHandler{code: 200, body: large}, wantAccept: "gzip"},
		{name: "head", method: "HEAD", verb: "get", group: "update.openshift.io", accept: "gzip",
			handler: &fakeHandler{code: 200, body: large}, wantAccept: "gzip"},
		{name: "feature gate off", method: "GET", verb: "get", group: "update.openshift.io", accept: "gzip", gateOff: true,
			handler: &fakeHandler{code: 200, body: large}, wantAccept: "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.gateOff {
				featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.APIResponseCompression, false)
			}
			newReq := func() *http.Request {
				req := compressionRequest(tt.method, tt.verb, tt.group, tt.accept)
				if tt.noInfo {
					req = req.WithContext(context.Background())
				}
				return req
			}
			f := newCompressionFilter(tt.handler, gzipCacheEntries)
			got := httptest.NewRecorder()
			f.ServeHTTP(got, newReq())
			if seen := tt.handler.lastAccept(); seen != tt.wantAccept {
				t.Errorf("inner handler saw Accept-Encoding %q, want %q", seen, tt.wantAccept)
			}
			if tt.wantGzip {
				checkGzipResponse(t, got, tt.handler.body)
				if n := f.cache.compressions.Load(); n != 1 {
					t.Errorf("%d compressions, want 1", n)
				}
				return
			}
			want := httptest.NewRecorder()
			tt.handler.ServeHTTP(want, newReq())
			checkSameResponse(t, got, want)
			if got.Header().Get("Content-Encoding") != "" {
				t.Errorf("Content-Encoding %q on a plain response", got.Header().Get("Content-Encoding"))
			}
			if n := f.cache.compressions.Load(); n != 0 {
				t.Errorf("%d compressions, want 0", n)
			}
		})
	}
}

func TestCachedCompressionCache(t *testing.T) {
	bodies := map[string][]byte{
		"A": jsonBody(1, 300<<10),
		"B": jsonBody(2, 300<<10),
		"C": jsonBody(3, 300<<10),
		"D": jsonBody(4, 300<<10),
		"E": jsonBody(5, 300<<10),
	}
	// A' has A's length and differs in its last bytes only.
	ap := bytes.Clone(bodies["A"])
	copy(ap[len(ap)-4:], "]}]\n")
	bodies["A'"] = ap
	// A" has A's length and hash: it differs between the sampled windows.
	app := bytes.Clone(bodies["A"])
	app[len(app)/8+2000] ^= 1
	bodies[`A"`] = app

	tests := []struct {
		name  string
		steps []string // the bodies served in turn
		// wantCompressions is the compression count after each step.
		wantCompressions []int64
	}{
		{name: "same body twice is compressed once", steps: []string{"A", "A", "A"}, wantCompressions: []int64{1, 1, 1}},
		{name: "a new revision is compressed, the old one stays", steps: []string{"A", "B", "A", "B"},
			wantCompressions: []int64{1, 2, 2, 2}},
		{name: "same length, different end", steps: []string{"A", "A'", "A", "A'"}, wantCompressions: []int64{1, 2, 2, 2}},
		{name: "same length and hash, different middle", steps: []string{"A", `A"`, "A", `A"`},
			wantCompressions: []int64{1, 2, 2, 2}},
		{name: "least recently used goes first", steps: []string{"A", "B", "C", "D", "A", "E", "A", "C", "B"},
			wantCompressions: []int64{1, 2, 3, 4, 4, 5, 5, 5, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &fakeHandler{code: 200}
			f := newCompressionFilter(h, 4)
			for i, name := range tt.steps {
				h.body = bodies[name]
				rec := httptest.NewRecorder()
				f.ServeHTTP(rec, compressionRequest("GET", "get", "update.openshift.io", "gzip"))
				if got := gunzip(t, rec.Body.Bytes()); !bytes.Equal(got, bodies[name]) {
					t.Fatalf("step %d (%s): served the encoding of other content", i, name)
				}
				if n := f.cache.compressions.Load(); n != tt.wantCompressions[i] {
					t.Fatalf("step %d (%s): %d compressions, want %d", i, name, n, tt.wantCompressions[i])
				}
			}
			if n := len(f.cache.entries); n > 4 {
				t.Errorf("%d cache entries, want at most 4", n)
			}
		})
	}
}

// TestCachedCompressionHashCollision plants an entry with the hash and
// length of a body but other content: it must not be served.
func TestCachedCompressionHashCollision(t *testing.T) {
	c := newGzipCache(4)
	body := jsonBody(1, 200<<10)
	other := jsonBody(2, len(body))[:len(body)]
	done := make(chan struct{})
	close(done)
	c.entries = []*gzipEntry{{hash: c.hash(body), plain: other, done: done, gz: []byte("stale")}}
	gz, err := c.get(body)
	if err != nil {
		t.Fatal(err)
	}
	if got := gunzip(t, gz); !bytes.Equal(got, body) {
		t.Fatal("served the entry of other content with the same hash")
	}
	if n := c.compressions.Load(); n != 1 {
		t.Errorf("%d compressions, want 1", n)
	}
}

// TestCachedCompressionOverflow checks that a body beyond the buffer bound
// is streamed: gzip for 200, unchanged otherwise, never cached.
func TestCachedCompressionOverflow(t *testing.T) {
	const limit = 1 << 20 // maxBufferedBody, scaled down
	huge := jsonBody(9, limit*3/2)
	tests := []struct {
		name     string
		code     int
		wantGzip bool
	}{
		{name: "ok", code: 200, wantGzip: true},
		{name: "error status", code: 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &fakeHandler{code: tt.code, body: huge, chunks: 40}
			f := newCompressionFilter(h, 4)
			f.maxBuffer = limit
			got := httptest.NewRecorder()
			f.ServeHTTP(got, compressionRequest("GET", "get", "update.openshift.io", "gzip"))
			if n := f.cache.compressions.Load(); n != 0 {
				t.Errorf("%d cached compressions, want 0", n)
			}
			if tt.wantGzip {
				if got.Code != 200 || got.Header().Get("Content-Encoding") != "gzip" || got.Header().Get("Content-Length") != "" {
					t.Errorf("status %d, headers %v", got.Code, got.Header())
				}
				if !bytes.Equal(gunzip(t, got.Body.Bytes()), huge) {
					t.Error("decompressed body differs from the handler's")
				}
				return
			}
			want := httptest.NewRecorder()
			h.ServeHTTP(want, compressionRequest("GET", "get", "update.openshift.io", "gzip"))
			checkSameResponse(t, got, want)
		})
	}
}

// fullWriter is a ResponseWriter with the optional interfaces of an
// HTTP/1.1 server's, recording which ones were reached.
type fullWriter struct {
	*httptest.ResponseRecorder
	flushes   int
	hijacked  bool
	deadlines int
}

func (w *fullWriter) Flush()                           { w.flushes++ }
func (w *fullWriter) CloseNotify() <-chan bool         { return make(chan bool) }
func (w *fullWriter) SetWriteDeadline(time.Time) error { w.deadlines++; return nil }
func (w *fullWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.hijacked = true
	return nil, nil, nil
}

func TestCachedCompressionWriterInterfaces(t *testing.T) {
	body := jsonBody(1, 200<<10)
	outer := &fullWriter{ResponseRecorder: httptest.NewRecorder()}
	var errs []error
	inner := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if _, ok := w.(http.CloseNotifier); !ok { //nolint:staticcheck // the apiserver still uses it
			errs = append(errs, fmt.Errorf("no http.CloseNotifier"))
		}
		if _, ok := w.(http.Hijacker); !ok {
			errs = append(errs, fmt.Errorf("no http.Hijacker"))
		}
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			errs = append(errs, fmt.Errorf("SetWriteDeadline: %w", err))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.WriteHeader(http.StatusInternalServerError) // superfluous: ignored
		if _, err := w.Write(body[:100]); err != nil {
			errs = append(errs, err)
		}
		if err := rc.Flush(); err != nil {
			errs = append(errs, fmt.Errorf("Flush: %w", err))
		}
		if outer.Code != http.StatusOK || outer.Body.Len() != 0 || outer.flushes != 0 {
			errs = append(errs, fmt.Errorf("sent before the handler returned: %d, %d bytes, %d flushes",
				outer.Code, outer.Body.Len(), outer.flushes))
		}
		if _, err := w.Write(body[100:]); err != nil {
			errs = append(errs, err)
		}
	})
	f := newCompressionFilter(inner, 4)
	f.ServeHTTP(outer, compressionRequest("GET", "get", "update.openshift.io", "gzip"))
	for _, err := range errs {
		t.Error(err)
	}
	if outer.deadlines != 1 {
		t.Errorf("SetWriteDeadline reached the outer writer %d times, want 1", outer.deadlines)
	}
	if outer.Code != http.StatusOK || !bytes.Equal(gunzip(t, outer.Body.Bytes()), body) {
		t.Errorf("status %d, body not the handler's", outer.Code)
	}

	// A body on a 204 is refused like net/http refuses it.
	rec := httptest.NewRecorder()
	var writeErr error
	newCompressionFilter(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.WriteHeader(http.StatusNoContent)
		_, writeErr = w.Write([]byte("x"))
	}), 4).ServeHTTP(rec, compressionRequest("GET", "get", "update.openshift.io", "gzip"))
	if writeErr != http.ErrBodyNotAllowed || rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
		t.Errorf("204 with a body: write error %v, status %d, %d bytes", writeErr, rec.Code, rec.Body.Len())
	}
}

func TestCachedCompressionConcurrent(t *testing.T) {
	bodies := [][]byte{jsonBody(1, 200<<10), jsonBody(2, 200<<10), jsonBody(3, 300<<10)}
	f := newCompressionFilter(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		i, _ := strconv.Atoi(req.URL.Query().Get("body"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bodies[i])
	}), 4)
	const workers, rounds = 8, 6
	errs := make(chan error, workers*rounds)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for r := range rounds {
				i := (g + r) % len(bodies)
				req := compressionRequest("GET", "get", "update.openshift.io", "gzip")
				req.URL.RawQuery = "body=" + strconv.Itoa(i)
				rec := httptest.NewRecorder()
				f.ServeHTTP(rec, req)
				zr, err := gzip.NewReader(rec.Body)
				if err != nil {
					errs <- err
					continue
				}
				got, err := io.ReadAll(zr)
				if err != nil || !bytes.Equal(got, bodies[i]) {
					errs <- fmt.Errorf("body %d: wrong content (%v)", i, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := f.cache.compressions.Load(); n != int64(len(bodies)) {
		t.Errorf("%d compressions, want %d: one per distinct body", n, len(bodies))
	}
}

// fixedEncoder writes the same bytes for any object in one Write, as the
// registry's cached encoding of an unchanged revision does.
type fixedEncoder []byte

func (e fixedEncoder) Encode(_ runtime.Object, w io.Writer) error {
	_, err := w.Write(e)
	return err
}

func (e fixedEncoder) Identifier() runtime.Identifier { return "fixed" }

// BenchmarkCachedCompression serves an 850 KiB JSON object (a synthetic
// UpdateStatus) to a client that
// accepts gzip, side by side: the generic apiserver's own writer, which
// gzips on every request; the same behind withCachedCompression with a warm
// cache; and, as the floor, the plain object to a client without gzip.
// BenchmarkGet measures the same through the whole handler chain.
//
//	go test -run '^$' -bench CachedCompression -benchtime 50x ./pkg/apiserver/
func BenchmarkCachedCompression(b *testing.B) {
	// A synthetic cluster of 1,080 workers encodes to about 850 KiB.
	obj := v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: viewtest.Synthetic(1080, 1)}
	info, _ := runtime.SerializerInfoForMediaType(Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	body, err := runtime.Encode(Codecs.EncoderForVersion(info.Serializer, v1alpha1.SchemeGroupVersion), &obj)
	if err != nil {
		b.Fatal(err)
	}
	apiserverHandler := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		responsewriters.SerializeObject("application/json", fixedEncoder(body), w, req, http.StatusOK, &obj)
	})
	filtered := withCachedCompression(apiserverHandler)
	gzSize := serveCounting(b, filtered, "gzip", 0)
	b.Logf("body: %d bytes, %d gzipped", len(body), gzSize)

	for _, bc := range []struct {
		name    string
		handler http.Handler
		accept  string
		want    int
	}{
		{name: "apiserver-gzip-every-request", handler: apiserverHandler, accept: "gzip"},
		{name: "cached-compression-warm", handler: filtered, accept: "gzip", want: gzSize},
		{name: "plain-no-gzip", handler: apiserverHandler, want: len(body)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				serveCounting(b, bc.handler, bc.accept, bc.want)
			}
		})
	}

}

// serveCounting serves one GET of the object and returns the byte count,
// which must be want unless want is 0.
func serveCounting(tb testing.TB, h http.Handler, accept string, want int) int {
	tb.Helper()
	w := NewDiscardWriter()
	h.ServeHTTP(w, compressionRequest("GET", "get", "update.openshift.io", accept))
	if w.Code != http.StatusOK || (want != 0 && w.N != want) {
		tb.Fatalf("GET: %d with %d bytes, want 200 with %d", w.Code, w.N, want)
	}
	return w.N
}

func TestCachedCompressionHashSamples(t *testing.T) {
	c := newGzipCache(4)
	body := jsonBody(1, 300<<10)
	tests := []struct {
		name     string
		flip     int // the byte changed
		sameHash bool
	}{
		{name: "first byte", flip: 0},
		{name: "last byte", flip: len(body) - 1},
		{name: "in a window", flip: len(body)/2 + 10},
		{name: "between windows", flip: len(body)/8 + 2000, sameHash: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := bytes.Clone(body)
			other[tt.flip] ^= 1
			if same := c.hash(other) == c.hash(body); same != tt.sameHash {
				t.Errorf("same hash %v, want %v", same, tt.sameHash)
			}
		})
	}
}
