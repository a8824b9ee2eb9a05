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

// Package monitoring is how Prometheus follows an update through this server:
// the metrics of the update, derived from the served UpdateStatus, and the
// alerting rules over them (docs/monitoring.md).
package monitoring

import (
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Names of the update metrics; the rules and docs/monitoring.md use them.
const (
	MetricCompletion          = "update_status_control_plane_completion_ratio"
	MetricAssessment          = "update_status_control_plane_assessment"
	MetricPoolNodes           = "update_status_pool_nodes"
	MetricPoolCompletion      = "update_status_pool_completion_ratio"
	MetricPoolAssessment      = "update_status_pool_assessment"
	MetricStarted             = "update_status_update_started_timestamp_seconds"
	MetricEstimatedCompletion = "update_status_estimated_completion_timestamp_seconds"
	MetricHealthInsights      = "update_status_health_insights"
	// MetricInformerInsights and MetricInformerHealthInsights count per
	// informer, the server's own and the external ones
	// (docs/insights.md#external-informers).
	MetricInformerInsights       = "update_status_informer_insights"
	MetricInformerHealthInsights = "update_status_informer_health_insights"
	MetricInfo                   = "update_status_info"
	MetricAvailable              = "update_status_available"
)

// Every value an enumerated label takes: a gauge per value, 1 for the
// current one and 0 for the others, so that a change shows as two samples
// and not as a series that goes stale.
var (
	controlPlaneAssessments = []string{
		string(v1alpha1.ControlPlaneAssessmentUnknown), string(v1alpha1.ControlPlaneAssessmentProgressing),
		string(v1alpha1.ControlPlaneAssessmentCompleted), string(v1alpha1.ControlPlaneAssessmentDegraded),
	}
	poolAssessments = []string{
		string(v1alpha1.PoolPending), string(v1alpha1.PoolProgressing), string(v1alpha1.PoolCompleted),
		string(v1alpha1.PoolDegraded), string(v1alpha1.PoolExcluded),
	}
	nodeStates = []v1alpha1.NodeSummaryType{
		v1alpha1.NodesTotal, v1alpha1.NodesAvailable, v1alpha1.NodesProgressing, v1alpha1.NodesOutdated,
		v1alpha1.NodesDraining, v1alpha1.NodesExcluded, v1alpha1.NodesDegraded,
	}
	impactLevels = []v1alpha1.InsightImpactLevel{
		v1alpha1.UnknownImpactLevel, v1alpha1.InfoImpactLevel, v1alpha1.WarningImpactLevel,
		v1alpha1.ErrorImpactLevel, v1alpha1.CriticalInfoLevel,
	}
)

func desc(name, help string, labels ...string) *metrics.Desc {
	return metrics.NewDesc(name, help, labels, nil, metrics.ALPHA, "")
}

var (
	completionDesc = desc(MetricCompletion,
		"Completion of the control plane update (0..1): the share of cluster operators updated, as status.controlPlane's ClusterVersion insight says.")
	assessmentDesc = desc(MetricAssessment,
		"The control plane's assessment: 1 for the current one, 0 for the others.", "assessment")
	poolNodesDesc = desc(MetricPoolNodes,
		"Nodes of a MachineConfigPool by state, from the pool insight's node summaries (the control plane's pool is pool=\"master\").", "pool", "state")
	poolCompletionDesc = desc(MetricPoolCompletion,
		"Completion of a pool's update (0..1): the share of its nodes updated.", "pool")
	poolAssessmentDesc = desc(MetricPoolAssessment,
		"A pool's assessment: 1 for the current one, 0 for the others.", "pool", "assessment")
	startedDesc = desc(MetricStarted,
		"When the current or last update started (Unix seconds).")
	estimatedDesc = desc(MetricEstimatedCompletion,
		"When the control plane update is estimated to complete (Unix seconds); absent when unknown.")
	healthDesc = desc(MetricHealthInsights,
		"Health insights of the UpdateStatus by impact level.", "impact_level")
	informerDesc = desc(MetricInformerInsights,
		"Insights an informer lists in the UpdateStatus, under the control plane and every pool.", "informer")
	informerHealthDesc = desc(MetricInformerHealthInsights,
		"Health insights an informer lists in the UpdateStatus, by impact level.", "informer", "impact_level")
	infoDesc = desc(MetricInfo,
		"Always 1; the labels are the target and previous versions of the current or last update.", "target_version", "previous_version")
	availableDesc = desc(MetricAvailable,
		"1 when the UpdateStatus's Available condition is True, 0 otherwise; reason is the condition's reason.", "reason")

	allDescs = []*metrics.Desc{completionDesc, assessmentDesc, poolNodesDesc, poolCompletionDesc, poolAssessmentDesc,
		startedDesc, estimatedDesc, healthDesc, informerDesc, informerHealthDesc, infoDesc, availableDesc}
)

// Names lists the names of the update metrics.
func Names() []string {
	return []string{MetricCompletion, MetricAssessment, MetricPoolNodes, MetricPoolCompletion, MetricPoolAssessment,
		MetricStarted, MetricEstimatedCompletion, MetricHealthInsights, MetricInformerInsights, MetricInformerHealthInsights,
		MetricInfo, MetricAvailable}
}

// Collector exposes the update metrics of the UpdateStatus its source
// returns. Everything is computed from that one object when /metrics is
// scraped, so every replica that serves the same revision reports the same
// values, and the cost is one walk over the object per scrape, nothing
// between scrapes. There is no per-node series.
type Collector struct {
	metrics.BaseStableCollector
	source atomic.Pointer[func() *update.UpdateStatus]
}

// NewCollector returns a Collector without a source; it reports nothing
// until SetSource.
func NewCollector() *Collector { return &Collector{} }

// SetSource makes c report the object source returns: the served UpdateStatus,
// or nil while none is served.
func (c *Collector) SetSource(source func() *update.UpdateStatus) { c.source.Store(&source) }

// DescribeWithStability implements metrics.StableCollector.
func (c *Collector) DescribeWithStability(ch chan<- *metrics.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// CollectWithStability implements metrics.StableCollector.
func (c *Collector) CollectWithStability(ch chan<- metrics.Metric) {
	src := c.source.Load()
	if src == nil {
		return
	}
	if obj := (*src)(); obj != nil {
		Collect(obj, func(m metrics.Metric) { ch <- m })
	}
}

// Collect emits the update metrics of obj.
func Collect(obj *update.UpdateStatus, emit func(metrics.Metric)) {
	gauge := func(d *metrics.Desc, v float64, labels ...string) {
		emit(metrics.NewLazyConstMetric(d, metrics.GaugeValue, v, labels...))
	}
	oneOf := func(d *metrics.Desc, current string, values []string, prefix ...string) {
		for _, v := range values {
			gauge(d, boolValue(v == current), append(prefix, v)...)
		}
	}

	for _, c := range obj.Status.Conditions {
		if c.Type == v1alpha1.UpdateStatusAvailable {
			gauge(availableDesc, boolValue(c.Status == metav1.ConditionTrue), c.Reason)
		}
	}

	health := map[v1alpha1.InsightImpactLevel]int{}
	type informerCounts struct {
		insights int
		health   map[v1alpha1.InsightImpactLevel]int
	}
	informers := map[string]*informerCounts{}
	// The progress is the server's assessment: of an external informer's
	// insights only the health counts (docs/insights.md#external-informers).
	// Each series is emitted once, from the first insight that gives it.
	cvSeen, poolSeen := false, map[string]bool{}
	visit := func(informer string, cv *update.ClusterVersionStatusInsight, pool *update.MachineConfigPoolStatusInsight, h *update.HealthStatusInsight) {
		ic := informers[informer]
		if ic == nil {
			ic = &informerCounts{health: map[v1alpha1.InsightImpactLevel]int{}}
			informers[informer] = ic
		}
		ic.insights++
		external := conventions.IsExternalInformer(informer)
		switch {
		case h != nil:
			health[v1alpha1.InsightImpactLevel(h.Impact.Level)]++
			ic.health[v1alpha1.InsightImpactLevel(h.Impact.Level)]++
		case external:
		case cv != nil && !cvSeen:
			cvSeen = true
			gauge(completionDesc, float64(cv.Completion)/100)
			oneOf(assessmentDesc, string(cv.Assessment), controlPlaneAssessments)
			gauge(startedDesc, unixSeconds(cv.StartedAt.UnixNano()))
			if cv.EstimatedCompletedAt != nil {
				gauge(estimatedDesc, unixSeconds(cv.EstimatedCompletedAt.UnixNano()))
			}
			gauge(infoDesc, 1, cv.Versions.Target.Version, cv.Versions.Previous.Version)
		case pool != nil && !poolSeen[pool.Name]:
			poolSeen[pool.Name] = true
			gauge(poolCompletionDesc, float64(pool.Completion)/100, pool.Name)
			oneOf(poolAssessmentDesc, string(pool.Assessment), poolAssessments, pool.Name)
			for _, state := range nodeStates {
				gauge(poolNodesDesc, float64(count(pool.Summaries, state)), pool.Name, strings.ToLower(string(state)))
			}
		}
	}
	if cp := obj.Status.ControlPlane; cp != nil {
		for i := range cp.Informers {
			for j := range cp.Informers[i].Insights {
				in := &cp.Informers[i].Insights[j].Insight
				visit(cp.Informers[i].Name, in.ClusterVersionStatusInsight, in.MachineConfigPoolStatusInsight, in.HealthInsight)
			}
		}
	}
	for p := range obj.Status.WorkerPools {
		for i := range obj.Status.WorkerPools[p].Informers {
			inf := &obj.Status.WorkerPools[p].Informers[i]
			for j := range inf.Insights {
				in := &inf.Insights[j].Insight
				visit(inf.Name, nil, in.MachineConfigPoolStatusInsight, in.HealthInsight)
			}
		}
	}
	for _, l := range impactLevels {
		gauge(healthDesc, float64(health[l]), string(l))
	}
	for _, name := range slices.Sorted(maps.Keys(informers)) {
		ic := informers[name]
		gauge(informerDesc, float64(ic.insights), name)
		for _, l := range impactLevels {
			gauge(informerHealthDesc, float64(ic.health[l]), name, string(l))
		}
	}
}

func count(summaries []update.NodeSummary, t v1alpha1.NodeSummaryType) int32 {
	for _, s := range summaries {
		if s.Type == update.NodeSummaryType(t) {
			return s.Count
		}
	}
	return 0
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func unixSeconds(nanos int64) float64 { return float64(nanos) / 1e9 }
