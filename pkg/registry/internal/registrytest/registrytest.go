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

// Package registrytest helps the tests of the registry's packages.
package registrytest

import (
	"context"
	"io"
	"testing"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Cacheable wraps an object as the watch cache wraps the objects of its
// events.
type Cacheable struct{ runtime.Object }

// CacheEncode implements runtime.CacheableObject.
func (c Cacheable) CacheEncode(_ runtime.Identifier, encode func(runtime.Object, io.Writer) error, w io.Writer) error {
	return encode(c.Object, w)
}

// GetObject implements runtime.CacheableObject.
func (c Cacheable) GetObject() runtime.Object { return c.Object }

// WatchList starts a watch-list on r with the selectors of opts, as
// client-go's WatchList asks for one: the current objects, then the
// bookmark that ends the initial events, then the changes. The watch stops
// when the test ends.
func WatchList(ctx context.Context, t testing.TB, r rest.Watcher, opts metainternalversion.ListOptions) watch.Interface {
	t.Helper()
	yes := true
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	opts.SendInitialEvents = &yes
	opts.AllowWatchBookmarks = true
	w, err := r.Watch(ctx, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}
