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
