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

package insights_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/update-status/apiserver/internal/viewtest"
	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// contributionOf returns an UpdateInformer of the worker pool with n Health
// insights, renewed at renewed; version changes their summaries.
func contributionOf(i, n int, renewed time.Time, version int) *informersv1alpha1.UpdateInformer {
	o := &informersv1alpha1.UpdateInformer{
		ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("team-%02d", i), Name: "informer",
			CreationTimestamp: metav1.NewTime(renewed.Add(-time.Hour))},
		Spec: informersv1alpha1.UpdateInformerSpec{LeaseDurationSeconds: ptr.To(int32(60)), RenewTime: ptr.To(metav1.NewMicroTime(renewed))},
	}
	pool := informersv1alpha1.WorkerPoolContribution{Name: "worker"}
	for j := range n {
		pool.Insights = append(pool.Insights, v1alpha1.WorkerPoolInsight{
			UID: fmt.Sprintf("finding-%04d", j), AcquiredAt: metav1.NewTime(renewed.Add(-time.Minute)),
			Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.HealthInsightType, HealthInsight: &v1alpha1.HealthStatusInsight{
				StartedAt: metav1.NewTime(renewed.Add(-time.Hour)),
				Scope:     v1alpha1.InsightScope{Type: v1alpha1.WorkerPoolScope},
				Impact: v1alpha1.InsightImpact{Level: v1alpha1.WarningImpactLevel, Type: v1alpha1.UpdateSpeedImpactType,
					Summary: fmt.Sprintf("finding %d, version %d", j, version), Description: "A finding of a benchmark informer."},
				Remediation: v1alpha1.InsightRemediation{Reference: "https://example.com/runbook"},
			}},
		})
	}
	o.Spec.WorkerPools = []informersv1alpha1.WorkerPoolContribution{pool}
	return o
}

// BenchmarkContributions measures, at 5,000 nodes with 16 external informers
// of 1,024 insights each (the API's caps; the lists keep room for the
// built-in informers, so some are refused, as they would be), what one
// recomputation costs when one contribution changed its insights, and when
// one was only renewed; heap-B/insight is the live heap the contributions add
// per external insight.
//
//	go test -run '^$' -bench BenchmarkContributions -benchtime 20x ./pkg/insights/
func BenchmarkContributions(b *testing.B) {
	const informers, perInformer = 16, informersv1alpha1.MaxWorkerPoolInsights
	base, now := viewtest.Cluster(4997, 4, 1)
	with := func(objs []*informersv1alpha1.UpdateInformer) *insights.Sources {
		src := *base
		src.UpdateInformers = objs
		return &src
	}
	objs := make([]*informersv1alpha1.UpdateInformer, informers)
	for i := range objs {
		objs[i] = contributionOf(i, perInformer, now.Add(-10*time.Second), 0)
	}
	for _, tc := range []struct {
		name   string
		change func(i int) *informersv1alpha1.UpdateInformer
	}{
		{"change=insights", func(i int) *informersv1alpha1.UpdateInformer {
			return contributionOf(0, perInformer, now.Add(-10*time.Second), i+1)
		}},
		{"change=renewal", func(i int) *informersv1alpha1.UpdateInformer {
			return contributionOf(0, perInformer, now.Add(-10*time.Second+time.Duration(i+1)*time.Millisecond), 0)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e := insights.NewEngine()
			res := e.Compute(with(objs), now)
			accepted := 0
			for _, v := range res.Verdicts {
				if v.Accepted {
					accepted++
				}
			}
			if accepted == 0 {
				b.Fatal("no contribution accepted")
			}
			cur := append([]*informersv1alpha1.UpdateInformer(nil), objs...)
			// The changed objects are built beforehand: one op is the
			// recomputation alone.
			alternates := []*informersv1alpha1.UpdateInformer{tc.change(0), tc.change(1)}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cur[0] = alternates[i%2]
				e.Compute(with(cur), now)
			}
		})
	}
	b.Run("heap", func(b *testing.B) {
		for b.Loop() {
			heap := func() uint64 {
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				return m.HeapAlloc
			}
			e := insights.NewEngine()
			e.Compute(base, now)
			before := heap()
			res := e.Compute(with(objs), now)
			after := heap()
			n := 0
			for _, v := range res.Verdicts {
				n += int(v.Insights)
			}
			if n == 0 {
				b.Fatal("no external insight merged")
			}
			b.ReportMetric(float64(after-before)/float64(n), "heap-B/insight")
			runtime.KeepAlive(e)
			runtime.KeepAlive(res)
		}
	})
}
