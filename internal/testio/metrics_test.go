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

import "testing"

func TestMetricSum(t *testing.T) {
	body := []byte(`# TYPE requests_total counter
requests_total{code="200",resource="a",subresource="",verb="GET"} 3
requests_total{code="500",resource="a",subresource="",verb="GET"} 2
requests_total{code="200",resource="a",subresource="status",verb="GET"} 7
requests_total{code="200",resource="b",verb="GET"} 11
# TYPE duration_seconds histogram
duration_seconds_bucket{resource="a",le="1"} 4
duration_seconds_bucket{resource="a",le="+Inf"} 5
duration_seconds_sum{resource="a"} 0.5
duration_seconds_count{resource="a"} 5
duration_seconds_bucket{resource="b",le="1"} 1
duration_seconds_bucket{resource="b",le="+Inf"} 1
duration_seconds_sum{resource="b"} 0.1
duration_seconds_count{resource="b"} 1
`)
	tests := []struct {
		name    string
		want    map[string]string
		sum     float64
		wantErr bool
	}{
		{name: "requests_total", want: map[string]string{"resource": "a", "subresource": "", "verb": "GET"}, sum: 5},
		{name: "requests_total", want: map[string]string{"subresource": ""}, sum: 16},
		{name: "requests_total", want: nil, sum: 23},
		{name: "requests_total", want: map[string]string{"resource": "c"}, sum: 0},
		{name: "duration_seconds", want: map[string]string{"resource": "a"}, sum: 5},
		{name: "duration_seconds", want: nil, sum: 6},
		{name: "absent_total", wantErr: true},
	}
	for _, tt := range tests {
		got, err := MetricSum(body, tt.name, tt.want)
		if (err != nil) != tt.wantErr || got != tt.sum {
			t.Errorf("MetricSum(%s, %v) = %v, %v; want %v (error %v)", tt.name, tt.want, got, err, tt.sum, tt.wantErr)
		}
	}
	if _, err := MetricSum([]byte("not metrics {"), "x", nil); err == nil {
		t.Error("a body that does not parse: no error")
	}
}
