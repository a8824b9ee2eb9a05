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

package testio

import (
	"bytes"
	"fmt"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// MetricSum reads a /metrics body (the Prometheus text format) and sums,
// over the series of the counter or histogram name whose labels have the
// values of want (an absent label counts as empty), the counter values or
// the histograms' counts.
func MetricSum(body []byte, name string, want map[string]string) (float64, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("parse /metrics: %w", err)
	}
	family, ok := families[name]
	if !ok {
		return 0, fmt.Errorf("no %s in /metrics", name)
	}
	sum := 0.0
next:
	for _, m := range family.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		sum += m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
	}
	return sum, nil
}
