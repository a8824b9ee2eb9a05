/*
Copyright The update-status-apiserver Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package apiserver

import (
	"bytes"
	"net/http"
	"strings"
	"sync"

	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/updatestatus"
)

// The GET cache keeps, for the current revision only, the answers to plain
// GETs of the UpdateStatus (no query, no table): the object is large (up to
// about 1 MiB of JSON) and every client of a revision asks for the same
// bytes, which the apiserver would otherwise encode and, for gzip clients,
// compress again per request. docs/benchmarks.md section 0 has the figures
// that keep it; docs/watch.md says why.
//
// getCacheEntries bounds the answers kept for the revision (media type and
// content encoding combinations).
const getCacheEntries = 8

// getCacheKey is what makes two plain GETs of one revision answer alike.
type getCacheKey struct {
	path, accept, acceptEncoding string
}

type cachedAnswer struct {
	header http.Header
	body   []byte
}

// getCache is the filter's state. revision returns the store's current
// revision (false before there is one).
type getCache struct {
	revision func() (uint64, bool)

	mu      sync.Mutex
	rv      uint64
	answers map[getCacheKey]*cachedAnswer
}

// answerHeaders are the headers the apiserver's GET handler sets on the
// answer; the filters around this one set the rest per request.
var answerHeaders = []string{"Content-Type", "Content-Encoding", "Vary", "X-Content-Type-Options"}

// withGetCache serves plain GETs of the UpdateStatus (and its status
// subresource) from c; everything else passes through.
func withGetCache(handler http.Handler, c *getCache) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, ok := request.RequestInfoFrom(req.Context())
		if !ok || !info.IsResourceRequest || info.Verb != "get" || info.APIGroup != update.GroupName ||
			info.Resource != updatestatus.Resource || req.URL.RawQuery != "" || strings.Contains(req.Header.Get("Accept"), "as=") {
			handler.ServeHTTP(w, req)
			return
		}
		rv, ok := c.revision()
		if !ok {
			handler.ServeHTTP(w, req)
			return
		}
		key := getCacheKey{path: req.URL.Path, accept: req.Header.Get("Accept"), acceptEncoding: req.Header.Get("Accept-Encoding")}
		if a := c.lookup(rv, key); a != nil {
			for k, v := range a.header {
				w.Header()[k] = v
			}
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(a.body)
			return
		}
		rec := &recorder{header: http.Header{}}
		handler.ServeHTTP(rec, req)
		// The answer is of rv or of a newer revision published meanwhile;
		// either may answer a request that found rv current.
		if rec.code == http.StatusOK {
			a := &cachedAnswer{header: http.Header{}, body: rec.body.Bytes()}
			for _, k := range answerHeaders {
				if v, ok := rec.header[k]; ok {
					a.header[k] = v
				}
			}
			c.store(rv, key, a)
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.code)
		_, _ = w.Write(rec.body.Bytes())
	})
}

func (c *getCache) lookup(rv uint64, key getCacheKey) *cachedAnswer {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rv != c.rv {
		return nil
	}
	return c.answers[key]
}

func (c *getCache) store(rv uint64, key getCacheKey, a *cachedAnswer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rv < c.rv {
		return
	}
	if rv != c.rv || c.answers == nil {
		c.rv, c.answers = rv, map[getCacheKey]*cachedAnswer{}
	}
	if len(c.answers) < getCacheEntries {
		c.answers[key] = a
	}
}

// recorder keeps a handler's answer.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.body.Write(p)
}
