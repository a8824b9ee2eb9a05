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

package view

import (
	"k8s.io/component-base/metrics"
)

// Values of the labels of the recomputations metric.
const (
	triggerStart   = "start"
	triggerSources = "sources"
	triggerTime    = "time"

	resultChanged   = "changed"
	resultUnchanged = "unchanged"
	resultProgress  = "progress"
	resultFailed    = "failed"

	changeIsolated = "isolated"
	changeBurst    = "burst"
)

var (
	computeDuration = metrics.NewHistogram(&metrics.HistogramOpts{
		Namespace:      "update_status",
		Name:           "computation_duration_seconds",
		Help:           "Time to snapshot the source caches and compute the UpdateStatus.",
		Buckets:        metrics.ExponentialBuckets(0.001, 2, 15),
		StabilityLevel: metrics.ALPHA,
	})
	changeToRevision = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace:      "update_status",
		Name:           "change_to_revision_seconds",
		Help:           "Time from the first source change a computation covers to the publication of its revision (the fold window's wait, the snapshot, the engine and the stores), by whether an isolated change called the computation at once or it covered a burst's changes (isolated, burst). Computations that publish nothing are left out.",
		Buckets:        metrics.ExponentialBuckets(0.001, 2, 15),
		StabilityLevel: metrics.ALPHA,
	}, []string{"change"})
	recomputations = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "update_status",
		Name:           "recomputations_total",
		Help:           "UpdateStatus computations by trigger (start, sources, time) and result (changed; progress: same content at newer inputs, published without events; unchanged; failed).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"trigger", "result"})
)

// RegisterMetrics registers the view's metrics with register, for example
// legacyregistry.Register or the Register method of a test registry.
func RegisterMetrics(register func(metrics.Registerable) error) error {
	for _, m := range []metrics.Registerable{computeDuration, changeToRevision, recomputations} {
		if err := register(m); err != nil {
			return err
		}
	}
	return nil
}
