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

package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// summary describes a sample of durations.
type summary struct {
	N             int
	P50, P99, Max time.Duration
}

// summarize returns the nearest-rank percentiles of d; d is sorted in place.
func summarize(d []time.Duration) summary {
	if len(d) == 0 {
		return summary{}
	}
	slices.Sort(d)
	return summary{N: len(d), P50: percentile(d, 50), P99: percentile(d, 99), Max: d[len(d)-1]}
}

// percentile returns the nearest-rank p-th percentile of the sorted slice d
// (zero when d is empty; p is clamped to [0, 100]).
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	p = math.Max(0, math.Min(100, p))
	rank := int(math.Ceil(p / 100 * float64(len(d))))
	if rank < 1 {
		rank = 1
	}
	return d[rank-1]
}

// ms formats a duration in milliseconds with three significant decimals.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.3f ms", v)
	}
}

// ratio formats a/b as "12.3x" ("n/a" when b is zero).
func ratio(a, b float64) string {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return "n/a"
	}
	r := a / b
	if r >= 10 {
		return fmt.Sprintf("%.0fx", r)
	}
	return fmt.Sprintf("%.2fx", r)
}

// bytesIEC formats a byte count with a binary unit.
func bytesIEC(b float64) string {
	const unit = 1024
	if math.Abs(b) < unit {
		return fmt.Sprintf("%.0f B", b)
	}
	div, exp := float64(unit), 0
	for n := math.Abs(b) / unit; n >= unit && exp < 3; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", b/div, "KMGT"[exp])
}

// histogramDelta is what a Prometheus histogram of the server recorded
// between two scrapes, its series summed over every label but le.
type histogramDelta struct {
	// Bounds are the buckets' upper bounds, ascending; Counts the
	// observations at or below each.
	Bounds []float64
	Counts []float64
	// Count is every observation.
	Count float64
}

// histogramBetween returns the observations of histogram name between the
// scrapes m0 and m1 (metrics) whose labels contain match.
func histogramBetween(m0, m1 map[string]float64, name, match string) histogramDelta {
	byBound := map[float64]float64{}
	for k, v := range m1 {
		labels, ok := strings.CutPrefix(k, name+"_bucket{")
		if !ok || !strings.Contains(labels, match) {
			continue
		}
		_, le, ok := strings.Cut(labels, `le="`)
		if !ok {
			continue
		}
		le, _, _ = strings.Cut(le, `"`)
		bound, err := strconv.ParseFloat(le, 64)
		if err != nil {
			continue
		}
		byBound[bound] += v - m0[k]
	}
	var h histogramDelta
	for _, b := range slices.Sorted(maps.Keys(byBound)) {
		h.Bounds = append(h.Bounds, b)
		h.Counts = append(h.Counts, byBound[b])
	}
	// The +Inf bucket holds every observation.
	if n := len(h.Bounds); n > 0 && math.IsInf(h.Bounds[n-1], 1) {
		h.Count = h.Counts[n-1]
	}
	return h
}

// Quantile returns the upper bound of the bucket that holds quantile q (0 to
// 1) of the observations: q of them took at most that long. It is +Inf when
// they fall past the last finite bound, and 0 without observations.
func (h histogramDelta) Quantile(q float64) float64 {
	if h.Count <= 0 {
		return 0
	}
	for i, c := range h.Counts {
		if c >= q*h.Count {
			return h.Bounds[i]
		}
	}
	return math.Inf(1)
}
