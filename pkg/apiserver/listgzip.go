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

package apiserver

import (
	"bufio"
	"fmt"
	"net/http"
	"sync"

	"github.com/klauspost/compress/gzip"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/endpoints/responsewriter"
	"k8s.io/apiserver/pkg/features"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/registry/updatestatus"
)

// listGzipChunk is the size of the writes the compressed answer makes to
// the connection. The compressor writes a few hundred bytes at a time, and
// HTTP/2 hands each 4 KiB of a handler's writes to the connection's
// goroutine and waits for it: a LIST of 5,000 NodeProgressInsights is about
// 70 such round trips at 4 KiB, and they cost the server more CPU than
// HTTP/1.1 does for the same answer (docs/watch.md, "Why the library").
//
// It is also how much the filter holds back before it decides: an answer
// that ends within one chunk goes out as it is, in one write; a longer one
// is compressed (measured down to about 70 KB in docs/watch.md, "LIST
// compression").
const listGzipChunk = 32 << 10

var listGzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

var listGzipChunks = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, listGzipChunk) }}

// withListGzip compresses the LIST answers of update.openshift.io longer
// than listGzipChunk, for clients that accept gzip, with
// klauspost/compress at the library's level (best speed) instead of the
// library's compress/gzip. A LIST of 5,000 NodeProgressInsights is about
// 5.5 MiB of JSON, and compress/gzip took as long as encoding it
// (docs/benchmarks.md, section 4, and BenchmarkListNodeInsights).
// A GET answer that comes from the UpdateStatus encoding cache goes out in
// the gzip form kept beside that encoding (updatestatus.Compressed), made
// once per revision and encoding; other GETs are compressed as LISTs are.
// Watch streams stay the library's. Whether the client may get gzip is the
// library's decision (its Accept-Encoding parsing and
// APIResponseCompression gate); the filter then hides Accept-Encoding from
// it so that nothing is compressed twice.
func withListGzip(handler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, ok := request.RequestInfoFrom(req.Context())
		if !ok || !info.IsResourceRequest || (info.Verb != "list" && info.Verb != "get") || info.APIGroup != update.GroupName ||
			responsewriters.ContentEncodingSupported(req, features.APIResponseCompression) != "gzip" {
			handler.ServeHTTP(w, req)
			return
		}
		ctx := req.Context()
		lw := &listGzipWriter{ResponseWriter: w}
		if info.Verb == "get" && info.Resource == resources.UpdateStatus.Resource {
			ctx, lw.answer = updatestatus.WithCompressed(ctx)
		}
		inner := req.Clone(ctx)
		inner.Header.Del("Accept-Encoding")
		defer lw.finish()
		handler.ServeHTTP(responsewriter.WrapForHTTP1Or2(lw), inner)
	})
}

// listGzipWriter holds back the status and the first listGzipChunk bytes of
// a successful answer; an answer that grows past them goes out compressed, a
// shorter one, or any other status, as it is.
type listGzipWriter struct {
	http.ResponseWriter
	status  int
	buf     []byte
	gz      *gzip.Writer
	chunks  *bufio.Writer // between gz and the connection
	decided bool          // the status is written and buf is empty: writes go to gz, or straight down when gz is nil
	err     error
	// answer is a GET's: when the answer is an encoding with a kept gzip
	// form, that form goes out and the next kept bytes written are dropped.
	answer *updatestatus.Compressed
	kept   int
}

var _ responsewriter.UserProvidedDecorator = &listGzipWriter{}

// Unwrap returns the decorated writer (for http.ResponseController).
func (l *listGzipWriter) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// WriteHeader keeps the status until the size of the answer is known.
func (l *listGzipWriter) WriteHeader(code int) {
	if l.status != 0 {
		return
	}
	l.status = code
	if code != http.StatusOK {
		l.decide(false)
	}
}

func (l *listGzipWriter) Write(p []byte) (int, error) {
	if l.status == 0 {
		l.WriteHeader(http.StatusOK)
	}
	if l.err != nil {
		return 0, l.err
	}
	if l.kept > 0 || (!l.decided && len(l.buf) == 0 && l.sendKept()) {
		return l.drop(p)
	}
	if l.decided {
		return l.writeDown(p)
	}
	if len(l.buf)+len(p) <= listGzipChunk {
		l.buf = append(l.buf, p...)
		return len(p), nil
	}
	l.decide(true)
	if l.err != nil {
		return 0, l.err
	}
	return l.writeDown(p)
}

// Flush sends what is held back as it is: a client that wants the bytes now
// does not get them compressed later.
func (l *listGzipWriter) Flush() {
	if !l.decided {
		l.decide(false)
	}
	if l.gz != nil {
		if l.err = l.gz.Flush(); l.err == nil {
			l.err = l.chunks.Flush()
		}
	}
	if f, ok := l.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// sendKept sends the kept gzip form of a GET's answer, when there is one
// and the answer is longer than a chunk, and reports whether it did.
func (l *listGzipWriter) sendKept() bool {
	n, gz, ok := l.answer.Answer()
	if !ok || n <= listGzipChunk || gz == nil {
		return false
	}
	l.decided, l.kept = true, n
	h := l.Header()
	h.Set("Content-Encoding", "gzip")
	h.Add("Vary", "Accept-Encoding")
	h.Del("Content-Length")
	l.ResponseWriter.WriteHeader(l.status)
	_, l.err = l.ResponseWriter.Write(gz)
	return true
}

// drop takes the bytes of an answer whose kept gzip form went out instead.
func (l *listGzipWriter) drop(p []byte) (int, error) {
	if len(p) > l.kept {
		l.err = fmt.Errorf("the answer is longer than its encoding (%d bytes more)", len(p)-l.kept)
		return 0, l.err
	}
	l.kept -= len(p)
	return len(p), l.err
}

// decide writes the status, compressed or not, and what was held back.
func (l *listGzipWriter) decide(compress bool) {
	l.decided = true
	if l.status == 0 {
		l.status = http.StatusOK
	}
	if compress {
		h := l.Header()
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
		h.Del("Content-Length")
		l.chunks = listGzipChunks.Get().(*bufio.Writer)
		l.chunks.Reset(l.ResponseWriter)
		l.gz = listGzipWriters.Get().(*gzip.Writer)
		l.gz.Reset(l.chunks)
	}
	l.ResponseWriter.WriteHeader(l.status)
	if len(l.buf) > 0 {
		_, l.err = l.writeDown(l.buf)
	}
	l.buf = nil
}

func (l *listGzipWriter) writeDown(p []byte) (int, error) {
	var n int
	if l.gz != nil {
		n, l.err = l.gz.Write(p)
	} else {
		n, l.err = l.ResponseWriter.Write(p)
	}
	return n, l.err
}

// finish sends an answer shorter than the threshold as it is, and ends the
// compressed stream of a longer one.
func (l *listGzipWriter) finish() {
	if l.status == 0 && len(l.buf) == 0 {
		return // nothing was written: the server writes its default answer
	}
	if !l.decided {
		l.decide(false)
	}
	if l.gz != nil {
		// The handler has returned: a failed write has nobody to tell.
		if l.gz.Close() == nil {
			_ = l.chunks.Flush()
		}
		l.gz.Reset(nil)
		listGzipWriters.Put(l.gz)
		l.gz = nil
		l.chunks.Reset(nil)
		listGzipChunks.Put(l.chunks)
		l.chunks = nil
	}
}
