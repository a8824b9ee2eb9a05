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

package sources

import (
	"k8s.io/component-base/metrics"
)

var (
	alertReads = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "update_status",
		Name:           "alert_reads_total",
		Help:           "Reads of the alerts endpoint (--alerts-url) by result (success, failure).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})
	alertsLastSuccess = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace:      "update_status",
		Name:           "alerts_last_success_timestamp_seconds",
		Help:           "When the alerts endpoint was last read successfully (Unix seconds); absent before the first success.",
		StabilityLevel: metrics.ALPHA,
	})
)

// RegisterMetrics registers the metrics of the sources with register, for
// example legacyregistry.Register.
func RegisterMetrics(register func(metrics.Registerable) error) error {
	for _, m := range []metrics.Registerable{alertReads, alertsLastSuccess} {
		if err := register(m); err != nil {
			return err
		}
	}
	return nil
}
