package apiserver

import "net/http"

// DiscardWriter is an http.ResponseWriter (and http.Flusher) that keeps
// nothing but the status code, the headers and the byte count, so that
// benchmarks measure the server, not a buffer.
type DiscardWriter struct {
	Head http.Header
	Code int
	N    int
}

// NewDiscardWriter returns an empty DiscardWriter.
func NewDiscardWriter() *DiscardWriter { return &DiscardWriter{Head: http.Header{}} }

// Reset forgets the previous response.
func (w *DiscardWriter) Reset() {
	w.Code, w.N = 0, 0
	clear(w.Head)
}

func (w *DiscardWriter) Header() http.Header  { return w.Head }
func (w *DiscardWriter) WriteHeader(code int) { w.Code = code }
func (w *DiscardWriter) Flush()               {}
func (w *DiscardWriter) Write(p []byte) (int, error) {
	if w.Code == 0 {
		w.Code = http.StatusOK
	}
	w.N += len(p)
	return len(p), nil
}

// ListGzipChunk is the size of the writes of a compressed LIST answer.
const ListGzipChunk = listGzipChunk

// WithListGzip is the filter that compresses large LIST answers.
var WithListGzip = withListGzip
