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

package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
)

const (
	// maxClusterPages bounds the clusters followed at once besides the
	// handler's own: each is a set of informers.
	maxClusterPages = 32
	// clusterPageIdle is how long a cluster's page is kept without browser.
	clusterPageIdle = time.Minute
)

// ParseHostedCluster reads NAMESPACE/NAME, a hosted cluster's key.
func ParseHostedCluster(s string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || !conventions.IsDNSLabel(ns) || !conventions.IsDNSSubdomain(name) {
		return types.NamespacedName{}, fmt.Errorf("a hosted cluster is NAMESPACE/NAME (a DNS label and a DNS subdomain), not %q", s)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// clusterPages are the clusters a handler follows besides its own, each
// by a handler of its own (without fleet), started when a browser first
// asks for it and stopped once no browser followed it for clusterPageIdle.
type clusterPages struct {
	mu    sync.Mutex
	ctx   context.Context
	pages map[types.NamespacedName]*clusterPage
}

type clusterPage struct {
	h         *Handler
	cancel    context.CancelFunc
	done      chan struct{}
	idleSince time.Time
}

func newClusterPages() clusterPages {
	return clusterPages{pages: map[types.NamespacedName]*clusterPage{}}
}

// start lets pages be opened, until ctx ends.
func (c *clusterPages) start(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ctx = ctx
}

// context returns the context of the running handler, nil before Run.
func (c *clusterPages) context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

// stopAll stops every page and waits for them.
func (c *clusterPages) stopAll() {
	c.mu.Lock()
	pages := c.pages
	c.pages = map[types.NamespacedName]*clusterPage{}
	c.ctx = nil
	c.mu.Unlock()
	for _, p := range pages {
		p.cancel()
		<-p.done
	}
}

// reap stops the pages no browser followed for clusterPageIdle.
func (c *clusterPages) reap(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, p := range c.pages {
		switch {
		case p.h.count() > 0:
			p.idleSince = time.Time{}
		case p.idleSince.IsZero():
			p.idleSince = now
		case now.Sub(p.idleSince) >= clusterPageIdle:
			klog.V(2).InfoS("No browser follows the cluster any more; stopped following it", "cluster", key.String())
			p.cancel()
			delete(c.pages, key)
		}
	}
}

// childSource maps the handler's forced source to the same choice for a
// hosted cluster or for the standalone cluster.
func childSource(source string, hosted bool) string {
	pairs := map[string][2]string{
		SourceInsights: {SourceInsights, SourceHostedInsights}, SourceHostedInsights: {SourceInsights, SourceHostedInsights},
		SourceUpdateStatus: {SourceUpdateStatus, SourceHostedStatus}, SourceHostedStatus: {SourceUpdateStatus, SourceHostedStatus},
	}
	p, ok := pairs[source]
	if !ok {
		return source
	}
	if hosted {
		return p[1]
	}
	return p[0]
}

// cluster returns the handler of the cluster the request names: a hosted
// cluster by ?hosted=NAMESPACE/NAME, the standalone cluster by
// ?view=standalone, else the handler's own. It answers the request with an
// error and returns false when it cannot.
func (h *Handler) cluster(w http.ResponseWriter, r *http.Request) (*Handler, bool) {
	q := r.URL.Query()
	var key types.NamespacedName
	switch {
	case q.Has("hosted"):
		var err error
		if key, err = ParseHostedCluster(q.Get("hosted")); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return nil, false
		}
	case q.Get("view") == "standalone":
	default:
		return h, true
	}
	if key == h.opts.HostedCluster || h.fleet == nil {
		return h, true
	}
	c := &h.clusters
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.pages[key]; p != nil {
		p.idleSince = time.Time{}
		return p.h, true
	}
	if c.ctx == nil {
		http.Error(w, "the page is not running yet", http.StatusServiceUnavailable)
		return nil, false
	}
	if len(c.pages) >= maxClusterPages {
		http.Error(w, fmt.Sprintf("this server follows %d clusters already; close some pages", maxClusterPages), http.StatusServiceUnavailable)
		return nil, false
	}
	opts := h.opts
	opts.HostedCluster = key
	opts.Source = childSource(h.opts.Source, key.Name != "")
	child := newHandler(opts)
	ctx, cancel := context.WithCancel(c.ctx)
	p := &clusterPage{h: child, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		_ = child.Run(ctx)
	}()
	c.pages[key] = p
	klog.V(2).InfoS("A browser opened the page of another cluster; following it", "cluster", key.String())
	return child, true
}
