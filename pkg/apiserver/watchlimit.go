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
	"fmt"
	"net/http"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/component-base/metrics"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// DefaultMaxWatches is the default of ExtraConfig.MaxWatches.
const DefaultMaxWatches = 4000

// watchRetryAfter is the Retry-After, in seconds, of a refused watch.
const watchRetryAfter = 5

var (
	watchesOpen = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace:      "update_status",
		Name:           "watches",
		Help:           "update.openshift.io watch streams open on this server.",
		StabilityLevel: metrics.ALPHA,
	})
	watchesRefused = metrics.NewCounter(&metrics.CounterOpts{
		Namespace:      "update_status",
		Name:           "watches_refused_total",
		Help:           "update.openshift.io watches answered 429 because --max-watches were open.",
		StabilityLevel: metrics.ALPHA,
	})
)

// withWatchLimit answers an update.openshift.io watch with 429 Too Many
// Requests and a Retry-After when limit of them are open on this server, so
// that what clients connect cannot grow the server's memory without bound.
// The kube-apiserver's max-in-flight and priority and fairness do not count
// a watch once it is established; this bounds the streams themselves.
// client-go waits out the Retry-After and tries again. Other requests and the
// watches already open are not affected. limit <= 0 leaves the handler as it is.
func withWatchLimit(handler http.Handler, limit int64, codecs runtime.NegotiatedSerializer) http.Handler {
	if limit <= 0 {
		return handler
	}
	var open atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, ok := request.RequestInfoFrom(req.Context())
		if !ok || !info.IsResourceRequest || info.Verb != "watch" || info.APIGroup != update.GroupName {
			handler.ServeHTTP(w, req)
			return
		}
		if open.Add(1) > limit {
			open.Add(-1)
			watchesRefused.Inc()
			err := apierrors.NewTooManyRequests(fmt.Sprintf("this server has its limit of %d watches open; try again later", limit), watchRetryAfter)
			responsewriters.ErrorNegotiated(err, codecs, v1alpha1.SchemeGroupVersion, w, req)
			return
		}
		watchesOpen.Inc()
		defer func() {
			open.Add(-1)
			watchesOpen.Dec()
		}()
		handler.ServeHTTP(w, req)
	})
}
