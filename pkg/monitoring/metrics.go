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

// Names of the fleet metrics of a management cluster, over its hosted
// clusters. MetricHostedClusters and MetricHostedClustersStalled have no
// per-cluster label: their cardinality does not grow with the fleet.
const (
	// MetricHostedClusters counts the hosted clusters per control-plane
	// assessment.
	MetricHostedClusters = "update_status_hosted_clusters"
	// MetricHostedClustersStalled counts the hosted clusters whose update
	// is stalled (see MetricHostedUpdateStalled).
	MetricHostedClustersStalled = "update_status_hosted_clusters_stalled"
	// MetricHostedUpdateStalled is 1 for a hosted cluster whose update is
	// stalled, 0 otherwise: one series per hosted cluster, as the other
	// metrics of hosted clusters. Stalled means a Health insight of impact
	// type Update Stalled at level Error or Critical
	// (conventions.StallsUpdate).
	MetricHostedUpdateStalled = "update_status_hosted_update_stalled"
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

// Hosted clusters' metrics are the same metrics under their own names (see
// HostedName), with the labels hosted_cluster_namespace and hosted_cluster first: one set
// per HostedClusterUpdateStatus. A name keeps one set of labels, as
// Prometheus requires, so the standalone cluster's series and the alerting
// rules over them are unchanged.
const (
	// LabelNamespace is the label of a hosted cluster's namespace.
	LabelNamespace = "hosted_cluster_namespace"
	// LabelHostedCluster is the label of a hosted cluster's name.
	LabelHostedCluster = "hosted_cluster"
)

// HostedName returns the name of the metric of hosted clusters that
// mirrors the update metric name, e.g.
// update_status_hosted_control_plane_completion_ratio.
func HostedName(name string) string {
	if rest, ok := strings.CutPrefix(name, "update_status_"); ok {
		return "update_status_hosted_" + rest
	}
	return name
}

// descs are the descriptors of one set of update metrics.
type descs struct {
	completion, assessment, poolNodes, poolCompletion, poolAssessment, started, estimated,
	health, informer, informerHealth, info, available *metrics.Desc
}

func (d *descs) all() []*metrics.Desc {
	return []*metrics.Desc{d.completion, d.assessment, d.poolNodes, d.poolCompletion, d.poolAssessment,
		d.started, d.estimated, d.health, d.informer, d.informerHealth, d.info, d.available}
}

// newDescs returns the descriptors of the standalone cluster's metrics, or
// with hosted those of the hosted clusters'.
func newDescs(hosted bool) *descs {
	object, pool := "the UpdateStatus", "a MachineConfigPool"
	var first []string
	if hosted {
		object, pool = "a HostedClusterUpdateStatus", "a hosted cluster's NodePool"
		first = []string{LabelNamespace, LabelHostedCluster}
	}
	desc := func(name, help string, labels ...string) *metrics.Desc {
		if hosted {
			name = HostedName(name)
			help = strings.ReplaceAll(help, "cluster operators", "control-plane components") + " One set per hosted cluster."
		}
		return metrics.NewDesc(name, help, append(append([]string(nil), first...), labels...), nil, metrics.ALPHA, "")
	}
	poolNodesHelp := "Nodes of " + pool + " by state, from the pool insight's node summaries"
	if !hosted {
		poolNodesHelp += " (the control plane's pool is pool=\"master\")"
	}
	return &descs{
		completion: desc(MetricCompletion,
			"Completion of the control plane update (0..1): the share of cluster operators updated, as status.controlPlane's ClusterVersion insight says."),
		assessment: desc(MetricAssessment,
			"The control plane's assessment: 1 for the current one, 0 for the others.", "assessment"),
		poolNodes: desc(MetricPoolNodes, poolNodesHelp+".", "pool", "state"),
		poolCompletion: desc(MetricPoolCompletion,
			"Completion of a pool's update (0..1): the share of its nodes updated.", "pool"),
		poolAssessment: desc(MetricPoolAssessment,
			"A pool's assessment: 1 for the current one, 0 for the others.", "pool", "assessment"),
		started: desc(MetricStarted,
			"When the current or last update started (Unix seconds)."),
		estimated: desc(MetricEstimatedCompletion,
			"When the control plane update is estimated to complete (Unix seconds); absent when unknown."),
		health: desc(MetricHealthInsights,
			"Health insights of "+object+" by impact level.", "impact_level"),
		informer: desc(MetricInformerInsights,
			"Insights an informer lists in "+object+", under the control plane and every pool.", "informer"),
		informerHealth: desc(MetricInformerHealthInsights,
			"Health insights an informer lists in "+object+", by impact level.", "informer", "impact_level"),
		info: desc(MetricInfo,
			"Always 1; the labels are the target and previous versions of the current or last update.", "target_version", "previous_version"),
		available: desc(MetricAvailable,
			"1 when "+object+"'s Available condition is True, 0 otherwise; reason is the condition's reason.", "reason"),
	}
}

var (
	standaloneDescs = newDescs(false)
	hostedDescs     = newDescs(true)

	hostedClustersDesc = metrics.NewDesc(MetricHostedClusters,
		"Hosted clusters by the assessment of their control plane (a hosted cluster without a ClusterVersion insight counts as Unknown). "+
			"Reported while at least one hosted cluster is served.", []string{"assessment"}, nil, metrics.ALPHA, "")
	hostedClustersStalledDesc = metrics.NewDesc(MetricHostedClustersStalled,
		"Hosted clusters whose update is stalled: a Health insight of impact type Update Stalled at level Error or Critical. "+
			"Reported while at least one hosted cluster is served.", nil, nil, metrics.ALPHA, "")
	hostedUpdateStalledDesc = metrics.NewDesc(MetricHostedUpdateStalled,
		"1 when the hosted cluster's update is stalled (a Health insight of impact type Update Stalled at level Error or Critical), 0 otherwise. "+
			"One per hosted cluster.", []string{LabelNamespace, LabelHostedCluster}, nil, metrics.ALPHA, "")
)

// Names lists the names of the update metrics.
func Names() []string {
	return []string{MetricCompletion, MetricAssessment, MetricPoolNodes, MetricPoolCompletion, MetricPoolAssessment,
		MetricStarted, MetricEstimatedCompletion, MetricHealthInsights, MetricInformerInsights, MetricInformerHealthInsights,
		MetricInfo, MetricAvailable}
}

// HostedNames lists the names of the update metrics of hosted clusters.
func HostedNames() []string {
	names := Names()
	for i, n := range names {
		names[i] = HostedName(n)
	}
	return names
}

// FleetNames lists the names of the fleet metrics of hosted clusters.
func FleetNames() []string {
	return []string{MetricHostedClusters, MetricHostedClustersStalled, MetricHostedUpdateStalled}
}

// Collector exposes the update metrics of the UpdateStatus its source
// returns, and those of the HostedClusterUpdateStatuses its hosted source
// returns. Everything is computed from those objects when /metrics is
// scraped, so every replica that serves the same revision reports the same
// values, and the cost is one walk over each object per scrape, nothing
// between scrapes. There is no per-node series.
type Collector struct {
	metrics.BaseStableCollector
	source       atomic.Pointer[func() *update.UpdateStatus]
	hostedSource atomic.Pointer[func() []*update.HostedClusterUpdateStatus]
}

// NewCollector returns a Collector without a source; it reports nothing
// until SetSource or SetHostedSource.
func NewCollector() *Collector { return &Collector{} }

// SetSource makes c report the object source returns: the served UpdateStatus,
// or nil while none is served.
func (c *Collector) SetSource(source func() *update.UpdateStatus) { c.source.Store(&source) }

// SetHostedSource makes c report, for every object source returns, the
// metrics of hosted clusters: the served HostedClusterUpdateStatuses of every
// namespace, none while none is served. Nil entries are skipped, and an
// object with the namespace and name of an earlier one.
func (c *Collector) SetHostedSource(source func() []*update.HostedClusterUpdateStatus) {
	c.hostedSource.Store(&source)
}

// DescribeWithStability implements metrics.StableCollector.
func (c *Collector) DescribeWithStability(ch chan<- *metrics.Desc) {
	for _, d := range standaloneDescs.all() {
		ch <- d
	}
	for _, d := range hostedDescs.all() {
		ch <- d
	}
	ch <- hostedClustersDesc
	ch <- hostedClustersStalledDesc
	ch <- hostedUpdateStalledDesc
}

// CollectWithStability implements metrics.StableCollector.
func (c *Collector) CollectWithStability(ch chan<- metrics.Metric) {
	emit := func(m metrics.Metric) { ch <- m }
	if src := c.source.Load(); src != nil {
		if obj := (*src)(); obj != nil {
			Collect(obj, emit)
		}
	}
	if src := c.hostedSource.Load(); src != nil {
		seen := map[[2]string]bool{}
		byAssessment := map[string]int{}
		stalled := 0
		for _, obj := range (*src)() {
			if obj == nil {
				continue
			}
			key := [2]string{obj.Namespace, obj.Name}
			if seen[key] {
				continue
			}
			seen[key] = true
			s := CollectHosted(obj, emit)
			if !slices.Contains(controlPlaneAssessments, s.Assessment) {
				s.Assessment = string(v1alpha1.ControlPlaneAssessmentUnknown)
			}
			byAssessment[s.Assessment]++
			if s.Stalled {
				stalled++
			}
		}
		if len(seen) > 0 {
			for _, a := range controlPlaneAssessments {
				emit(metrics.NewLazyConstMetric(hostedClustersDesc, metrics.GaugeValue, float64(byAssessment[a]), a))
			}
			emit(metrics.NewLazyConstMetric(hostedClustersStalledDesc, metrics.GaugeValue, float64(stalled)))
		}
	}
}

// State is what the fleet metrics count of one cluster.
type State struct {
	// Assessment is the control plane's assessment, Unknown without a
	// ClusterVersion insight.
	Assessment string
	// Stalled says a Health insight of impact type Update Stalled at level
	// Error or Critical is listed (conventions.StallsUpdate).
	Stalled bool
}

// Collect emits the update metrics of obj.
func Collect(obj *update.UpdateStatus, emit func(metrics.Metric)) {
	collect(standaloneDescs, &obj.Status, emit)
}

// CollectHosted emits the update metrics of the hosted cluster of obj,
// labelled with its namespace and name, with its stalled gauge, and returns
// its state.
func CollectHosted(obj *update.HostedClusterUpdateStatus, emit func(metrics.Metric)) State {
	s := collect(hostedDescs, &obj.Status, emit, obj.Namespace, obj.Name)
	emit(metrics.NewLazyConstMetric(hostedUpdateStalledDesc, metrics.GaugeValue, boolValue(s.Stalled), obj.Namespace, obj.Name))
	return s
}

// collect emits the metrics of st with the descriptors d, each with the
// label values first and then its own, and returns the state of st.
func collect(d *descs, st *update.UpdateStatusStatus, emit func(metrics.Metric), first ...string) State {
	state := State{Assessment: string(v1alpha1.ControlPlaneAssessmentUnknown)}
	gauge := func(desc *metrics.Desc, v float64, labels ...string) {
		emit(metrics.NewLazyConstMetric(desc, metrics.GaugeValue, v, append(append([]string(nil), first...), labels...)...))
	}
	oneOf := func(desc *metrics.Desc, current string, values []string, prefix ...string) {
		for _, v := range values {
			gauge(desc, boolValue(v == current), append(append([]string(nil), prefix...), v)...)
		}
	}

	for _, c := range st.Conditions {
		if c.Type == v1alpha1.UpdateStatusAvailable {
			gauge(d.available, boolValue(c.Status == metav1.ConditionTrue), c.Reason)
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
			if conventions.StallsUpdate(v1alpha1.InsightImpactLevel(h.Impact.Level), v1alpha1.InsightImpactType(h.Impact.Type)) {
				state.Stalled = true
			}
			ic.health[v1alpha1.InsightImpactLevel(h.Impact.Level)]++
		case external:
		case cv != nil && !cvSeen:
			cvSeen = true
			state.Assessment = string(cv.Assessment)
			gauge(d.completion, float64(cv.Completion)/100)
			oneOf(d.assessment, string(cv.Assessment), controlPlaneAssessments)
			gauge(d.started, unixSeconds(cv.StartedAt.UnixNano()))
			if cv.EstimatedCompletedAt != nil {
				gauge(d.estimated, unixSeconds(cv.EstimatedCompletedAt.UnixNano()))
			}
			gauge(d.info, 1, cv.Versions.Target.Version, cv.Versions.Previous.Version)
		case pool != nil && !poolSeen[pool.Name]:
			poolSeen[pool.Name] = true
			gauge(d.poolCompletion, float64(pool.Completion)/100, pool.Name)
			oneOf(d.poolAssessment, string(pool.Assessment), poolAssessments, pool.Name)
			for _, state := range nodeStates {
				gauge(d.poolNodes, float64(count(pool.Summaries, state)), pool.Name, strings.ToLower(string(state)))
			}
		}
	}
	if cp := st.ControlPlane; cp != nil {
		for i := range cp.Informers {
			for j := range cp.Informers[i].Insights {
				in := &cp.Informers[i].Insights[j].Insight
				visit(cp.Informers[i].Name, in.ClusterVersionStatusInsight, in.MachineConfigPoolStatusInsight, in.HealthInsight)
			}
		}
	}
	for p := range st.WorkerPools {
		for i := range st.WorkerPools[p].Informers {
			inf := &st.WorkerPools[p].Informers[i]
			for j := range inf.Insights {
				in := &inf.Insights[j].Insight
				visit(inf.Name, nil, in.MachineConfigPoolStatusInsight, in.HealthInsight)
			}
		}
	}
	for _, l := range impactLevels {
		gauge(d.health, float64(health[l]), string(l))
	}
	for _, name := range slices.Sorted(maps.Keys(informers)) {
		ic := informers[name]
		gauge(d.informer, float64(ic.insights), name)
		for _, l := range impactLevels {
			gauge(d.informerHealth, float64(ic.health[l]), name, string(l))
		}
	}
	return state
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
