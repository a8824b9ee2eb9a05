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
	"errors"
	"sync"
	"testing"

	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
)

// Recompute runs one computation synchronously, for benchmarks.
func (v *View) Recompute() { v.recompute(triggerSources) }

// TriggerPending reports whether a trigger waits to be taken by the loop.
// Called from Publish (on the loop's goroutine, at the end of a
// computation), it tells whether the loop has more work queued.
func (v *View) TriggerPending() bool { return len(v.trigger) > 0 }

var registerOnce sync.Once

// ChangesToRevision returns the count and the sum (seconds) of the
// change_to_revision_seconds observations labelled change (isolated,
// burst). The first call registers the view's metrics in a registry of its
// own, so that they record.
func ChangesToRevision(t testing.TB, change string) (uint64, float64) {
	t.Helper()
	registerOnce.Do(func() {
		if err := RegisterMetrics(metrics.NewKubeRegistry().Register); err != nil {
			t.Fatal(err)
		}
	})
	h := changeToRevision.WithLabelValues(change)
	n, errCount := testutil.GetHistogramMetricCount(h)
	sum, errSum := testutil.GetHistogramMetricValue(h)
	if err := errors.Join(errCount, errSum); err != nil {
		t.Fatal(err)
	}
	return n, sum
}
