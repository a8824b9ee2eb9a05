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

package monitoring

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"

	"github.com/update-status/apiserver/pkg/apis/update"
)

func cvInsight(completion int32, assessment string, started time.Time, estimated *time.Time) update.ControlPlaneInsight {
	cv := &update.ClusterVersionStatusInsight{
		Assessment: update.ControlPlaneAssessment(assessment),
		Completion: completion,
		StartedAt:  metav1.NewTime(started),
		Versions: update.ControlPlaneUpdateVersions{
			Previous: update.Version{Version: "4.20.1"},
			Target:   update.Version{Version: "4.21.0"},
		},
	}
	if estimated != nil {
		t := metav1.NewTime(*estimated)
		cv.EstimatedCompletedAt = &t
	}
	return update.ControlPlaneInsight{UID: "cv", Insight: update.ControlPlaneInsightUnion{ClusterVersionStatusInsight: cv}}
}

func poolInsight(name, assessment string, completion int32, counts map[string]int32) *update.MachineConfigPoolStatusInsight {
	p := &update.MachineConfigPoolStatusInsight{Name: name, Assessment: update.PoolAssessment(assessment), Completion: completion}
	for _, t := range []string{"Total", "Available", "Progressing", "Outdated", "Draining", "Excluded", "Degraded"} {
		if c, ok := counts[t]; ok {
			p.Summaries = append(p.Summaries, update.NodeSummary{Type: update.NodeSummaryType(t), Count: c})
		}
	}
	return p
}

func health(level string) *update.HealthStatusInsight {
	return &update.HealthStatusInsight{Impact: update.InsightImpact{Level: update.InsightImpactLevel(level)}}
}

func TestCollect(t *testing.T) {
	started := time.Unix(1700000000, 0)
	estimated := started.Add(90 * time.Minute)
	available := metav1.Condition{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected"}

	updating := &update.UpdateStatus{Status: update.UpdateStatusStatus{
		Conditions: []metav1.Condition{available},
		ControlPlane: &update.ControlPlane{Informers: []update.ControlPlaneInformer{
			{Name: "cpi", Insights: []update.ControlPlaneInsight{
				cvInsight(42, "Progressing", started, &estimated),
				{UID: "h1", Insight: update.ControlPlaneInsightUnion{HealthInsight: health("Warning")}},
			}},
			{Name: "nodes", Insights: []update.ControlPlaneInsight{
				{UID: "mp", Insight: update.ControlPlaneInsightUnion{MachineConfigPoolStatusInsight: poolInsight("master", "Progressing", 33,
					map[string]int32{"Total": 3, "Available": 2, "Progressing": 1, "Outdated": 2})}},
			}},
		}},
		WorkerPools: []update.Pool{
			{Name: "worker", Informers: []update.WorkerPoolInformer{{Name: "nodes", Insights: []update.WorkerPoolInsight{
				{UID: "wp", Insight: update.WorkerPoolInsightUnion{MachineConfigPoolStatusInsight: poolInsight("worker", "Pending", 0,
					map[string]int32{"Total": 5, "Available": 5, "Outdated": 5})}},
				{UID: "h2", Insight: update.WorkerPoolInsightUnion{HealthInsight: health("Warning")}},
				{UID: "h3", Insight: update.WorkerPoolInsightUnion{HealthInsight: health("Error")}},
			}}}},
		},
	}}

	unsynced := &update.UpdateStatus{Status: update.UpdateStatusStatus{
		Conditions: []metav1.Condition{{Type: "Available", Status: metav1.ConditionFalse, Reason: "CachesNotSynced"}},
		ControlPlane: &update.ControlPlane{Informers: []update.ControlPlaneInformer{{Name: "cpi", Insights: []update.ControlPlaneInsight{
			cvInsight(100, "Completed", started, nil),
		}}}},
	}}

	tests := []struct {
		name  string
		obj   *update.UpdateStatus
		names []string
		want  string
	}{{
		name: "control plane updating",
		obj:  updating,
		names: []string{MetricCompletion, MetricAssessment, MetricStarted, MetricEstimatedCompletion, MetricInfo,
			MetricHealthInsights, MetricAvailable},
		want: `
# HELP update_status_available [ALPHA] 1 when the UpdateStatus's Available condition is True, 0 otherwise; reason is the condition's reason.
# TYPE update_status_available gauge
update_status_available{reason="AsExpected"} 1
# HELP update_status_control_plane_assessment [ALPHA] The control plane's assessment: 1 for the current one, 0 for the others.
# TYPE update_status_control_plane_assessment gauge
update_status_control_plane_assessment{assessment="Completed"} 0
update_status_control_plane_assessment{assessment="Degraded"} 0
update_status_control_plane_assessment{assessment="Progressing"} 1
update_status_control_plane_assessment{assessment="Unknown"} 0
# HELP update_status_control_plane_completion_ratio [ALPHA] Completion of the control plane update (0..1): the share of cluster operators updated, as status.controlPlane's ClusterVersion insight says.
# TYPE update_status_control_plane_completion_ratio gauge
update_status_control_plane_completion_ratio 0.42
# HELP update_status_estimated_completion_timestamp_seconds [ALPHA] When the control plane update is estimated to complete (Unix seconds); absent when unknown.
# TYPE update_status_estimated_completion_timestamp_seconds gauge
update_status_estimated_completion_timestamp_seconds 1.7000054e+09
# HELP update_status_health_insights [ALPHA] Health insights of the UpdateStatus by impact level.
# TYPE update_status_health_insights gauge
update_status_health_insights{impact_level="Critical"} 0
update_status_health_insights{impact_level="Error"} 1
update_status_health_insights{impact_level="Info"} 0
update_status_health_insights{impact_level="Unknown"} 0
update_status_health_insights{impact_level="Warning"} 2
# HELP update_status_info [ALPHA] Always 1; the labels are the target and previous versions of the current or last update.
# TYPE update_status_info gauge
update_status_info{previous_version="4.20.1",target_version="4.21.0"} 1
# HELP update_status_update_started_timestamp_seconds [ALPHA] When the current or last update started (Unix seconds).
# TYPE update_status_update_started_timestamp_seconds gauge
update_status_update_started_timestamp_seconds 1.7e+09
`,
	}, {
		name:  "pools, the control plane's included",
		obj:   updating,
		names: []string{MetricPoolNodes, MetricPoolCompletion, MetricPoolAssessment},
		want: `
# HELP update_status_pool_assessment [ALPHA] A pool's assessment: 1 for the current one, 0 for the others.
# TYPE update_status_pool_assessment gauge
update_status_pool_assessment{assessment="Completed",pool="master"} 0
update_status_pool_assessment{assessment="Completed",pool="worker"} 0
update_status_pool_assessment{assessment="Degraded",pool="master"} 0
update_status_pool_assessment{assessment="Degraded",pool="worker"} 0
update_status_pool_assessment{assessment="Excluded",pool="master"} 0
update_status_pool_assessment{assessment="Excluded",pool="worker"} 0
update_status_pool_assessment{assessment="Pending",pool="master"} 0
update_status_pool_assessment{assessment="Pending",pool="worker"} 1
update_status_pool_assessment{assessment="Progressing",pool="master"} 1
update_status_pool_assessment{assessment="Progressing",pool="worker"} 0
# HELP update_status_pool_completion_ratio [ALPHA] Completion of a pool's update (0..1): the share of its nodes updated.
# TYPE update_status_pool_completion_ratio gauge
update_status_pool_completion_ratio{pool="master"} 0.33
update_status_pool_completion_ratio{pool="worker"} 0
# HELP update_status_pool_nodes [ALPHA] Nodes of a MachineConfigPool by state, from the pool insight's node summaries (the control plane's pool is pool="master").
# TYPE update_status_pool_nodes gauge
update_status_pool_nodes{pool="master",state="available"} 2
update_status_pool_nodes{pool="master",state="degraded"} 0
update_status_pool_nodes{pool="master",state="draining"} 0
update_status_pool_nodes{pool="master",state="excluded"} 0
update_status_pool_nodes{pool="master",state="outdated"} 2
update_status_pool_nodes{pool="master",state="progressing"} 1
update_status_pool_nodes{pool="master",state="total"} 3
update_status_pool_nodes{pool="worker",state="available"} 5
update_status_pool_nodes{pool="worker",state="degraded"} 0
update_status_pool_nodes{pool="worker",state="draining"} 0
update_status_pool_nodes{pool="worker",state="excluded"} 0
update_status_pool_nodes{pool="worker",state="outdated"} 5
update_status_pool_nodes{pool="worker",state="progressing"} 0
update_status_pool_nodes{pool="worker",state="total"} 5
`,
	}, {
		name:  "no estimate, not available",
		obj:   unsynced,
		names: []string{MetricCompletion, MetricEstimatedCompletion, MetricAvailable, MetricPoolNodes},
		want: `
# HELP update_status_available [ALPHA] 1 when the UpdateStatus's Available condition is True, 0 otherwise; reason is the condition's reason.
# TYPE update_status_available gauge
update_status_available{reason="CachesNotSynced"} 0
# HELP update_status_control_plane_completion_ratio [ALPHA] Completion of the control plane update (0..1): the share of cluster operators updated, as status.controlPlane's ClusterVersion insight says.
# TYPE update_status_control_plane_completion_ratio gauge
update_status_control_plane_completion_ratio 1
`,
	}, {
		name:  "nothing served",
		obj:   nil,
		names: []string{MetricCompletion, MetricAvailable, MetricHealthInsights, MetricInfo},
		want:  "",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkCollected(t, collectorOf(tt.obj, nil), tt.want, tt.names...)
		})
	}
}

// collectorOf returns a collector whose sources return standalone and
// hosted.
func collectorOf(standalone *update.UpdateStatus, hosted []*update.HostedClusterUpdateStatus) *Collector {
	c := NewCollector()
	c.SetSource(func() *update.UpdateStatus { return standalone })
	c.SetHostedSource(func() []*update.HostedClusterUpdateStatus { return hosted })
	return c
}

// checkCollected checks that c reports want, in the text format, of the
// metrics names.
func checkCollected(t *testing.T, c *Collector, want string, names ...string) {
	t.Helper()
	if err := testutil.CustomCollectAndCompare(c, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}
}

// TestCollectorWithoutSource: a collector registered before any server
// exists reports nothing and does not panic.
func TestCollectorWithoutSource(t *testing.T) {
	checkCollected(t, NewCollector(), "", MetricCompletion)
}

// TestNames: Names and HostedNames, which clients filter /metrics by, list
// exactly the metrics the collector reports for an updating cluster and
// for hosted clusters beside it, gathered without a conflict of labels.
func TestNames(t *testing.T) {
	started := time.Unix(1700000000, 0)
	obj := &update.UpdateStatus{Status: update.UpdateStatusStatus{
		Conditions: []metav1.Condition{{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected"}},
		ControlPlane: &update.ControlPlane{Informers: []update.ControlPlaneInformer{{Name: "cpi", Insights: []update.ControlPlaneInsight{
			cvInsight(10, "Progressing", started, &started),
			{UID: "mp", Insight: update.ControlPlaneInsightUnion{MachineConfigPoolStatusInsight: poolInsight("master", "Pending", 0, nil)}},
		}}}},
	}}
	hosted := hostedCluster("clusters", "demo", 50, "workers")
	hosted.Status.ControlPlane.Informers[0].Insights[0] = cvInsight(50, "Progressing", started, &started)
	for _, tc := range []struct {
		name   string
		hosted []*update.HostedClusterUpdateStatus
		want   []string
	}{
		{name: "standalone", want: Names()},
		{name: "standalone and hosted", hosted: []*update.HostedClusterUpdateStatus{hosted}, want: append(append(Names(), HostedNames()...), FleetNames()...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkGathered(t, collectorOf(obj, tc.hosted), tc.want)
		})
	}
	for _, n := range HostedNames() {
		if !strings.HasPrefix(n, "update_status_hosted_") {
			t.Errorf("hosted metric %s lacks the update_status_hosted_ prefix", n)
		}
	}
}

// checkGathered checks c reports exactly the metrics named want, gathered
// as seriesOf does.
func checkGathered(t *testing.T, c *Collector, want []string) {
	t.Helper()
	got := slices.Sorted(maps.Keys(seriesOf(t, c)))
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("reported %v, want %v", got, want)
	}
}

// seriesOf registers c, gathers it (which fails on a conflict of labels)
// and returns how many series it reports of each metric.
func seriesOf(t *testing.T, c *Collector) map[string]int {
	t.Helper()
	reg := metrics.NewKubeRegistry()
	reg.CustomMustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]int{}
	for _, f := range families {
		series[f.GetName()] = len(f.GetMetric())
	}
	return series
}

// TestCollectExternalInformers: an external informer's health counts, in
// the total and under its own name; its other insights give no series (a
// second cluster version or pool series would fail the scrape) and change
// no assessment.
func TestCollectExternalInformers(t *testing.T) {
	started := time.Unix(1700000000, 0)
	const drain = "drain.openshift-drain"
	obj := &update.UpdateStatus{Status: update.UpdateStatusStatus{
		ControlPlane: &update.ControlPlane{Informers: []update.ControlPlaneInformer{
			// Sorted by name, the external informer comes first.
			{Name: "a-fake.ns", Insights: []update.ControlPlaneInsight{cvInsight(99, "Completed", started, nil)}},
			{Name: "cpi", Insights: []update.ControlPlaneInsight{
				cvInsight(42, "Progressing", started, nil),
				{UID: "h1", Insight: update.ControlPlaneInsightUnion{HealthInsight: health("Warning")}},
			}},
			{Name: drain, Insights: []update.ControlPlaneInsight{
				{UID: "pdb", Insight: update.ControlPlaneInsightUnion{HealthInsight: health("Error")}},
			}},
		}},
		WorkerPools: []update.Pool{{Name: "worker", Informers: []update.WorkerPoolInformer{
			{Name: drain, Insights: []update.WorkerPoolInsight{
				{UID: "wp", Insight: update.WorkerPoolInsightUnion{MachineConfigPoolStatusInsight: poolInsight("worker", "Degraded", 0, nil)}},
				{UID: "pdb", Insight: update.WorkerPoolInsightUnion{HealthInsight: health("Error")}},
			}},
			{Name: "nodes", Insights: []update.WorkerPoolInsight{
				{UID: "wp", Insight: update.WorkerPoolInsightUnion{MachineConfigPoolStatusInsight: poolInsight("worker", "Pending", 0,
					map[string]int32{"Total": 5})}},
			}},
		}}},
	}}
	want := `
# HELP update_status_control_plane_assessment [ALPHA] The control plane's assessment: 1 for the current one, 0 for the others.
# TYPE update_status_control_plane_assessment gauge
update_status_control_plane_assessment{assessment="Completed"} 0
update_status_control_plane_assessment{assessment="Degraded"} 0
update_status_control_plane_assessment{assessment="Progressing"} 1
update_status_control_plane_assessment{assessment="Unknown"} 0
# HELP update_status_health_insights [ALPHA] Health insights of the UpdateStatus by impact level.
# TYPE update_status_health_insights gauge
update_status_health_insights{impact_level="Critical"} 0
update_status_health_insights{impact_level="Error"} 2
update_status_health_insights{impact_level="Info"} 0
update_status_health_insights{impact_level="Unknown"} 0
update_status_health_insights{impact_level="Warning"} 1
# HELP update_status_informer_health_insights [ALPHA] Health insights an informer lists in the UpdateStatus, by impact level.
# TYPE update_status_informer_health_insights gauge
update_status_informer_health_insights{impact_level="Critical",informer="a-fake.ns"} 0
update_status_informer_health_insights{impact_level="Critical",informer="cpi"} 0
update_status_informer_health_insights{impact_level="Critical",informer="drain.openshift-drain"} 0
update_status_informer_health_insights{impact_level="Critical",informer="nodes"} 0
update_status_informer_health_insights{impact_level="Error",informer="a-fake.ns"} 0
update_status_informer_health_insights{impact_level="Error",informer="cpi"} 0
update_status_informer_health_insights{impact_level="Error",informer="drain.openshift-drain"} 2
update_status_informer_health_insights{impact_level="Error",informer="nodes"} 0
update_status_informer_health_insights{impact_level="Info",informer="a-fake.ns"} 0
update_status_informer_health_insights{impact_level="Info",informer="cpi"} 0
update_status_informer_health_insights{impact_level="Info",informer="drain.openshift-drain"} 0
update_status_informer_health_insights{impact_level="Info",informer="nodes"} 0
update_status_informer_health_insights{impact_level="Unknown",informer="a-fake.ns"} 0
update_status_informer_health_insights{impact_level="Unknown",informer="cpi"} 0
update_status_informer_health_insights{impact_level="Unknown",informer="drain.openshift-drain"} 0
update_status_informer_health_insights{impact_level="Unknown",informer="nodes"} 0
update_status_informer_health_insights{impact_level="Warning",informer="a-fake.ns"} 0
update_status_informer_health_insights{impact_level="Warning",informer="cpi"} 1
update_status_informer_health_insights{impact_level="Warning",informer="drain.openshift-drain"} 0
update_status_informer_health_insights{impact_level="Warning",informer="nodes"} 0
# HELP update_status_informer_insights [ALPHA] Insights an informer lists in the UpdateStatus, under the control plane and every pool.
# TYPE update_status_informer_insights gauge
update_status_informer_insights{informer="a-fake.ns"} 1
update_status_informer_insights{informer="cpi"} 2
update_status_informer_insights{informer="drain.openshift-drain"} 3
update_status_informer_insights{informer="nodes"} 1
# HELP update_status_pool_assessment [ALPHA] A pool's assessment: 1 for the current one, 0 for the others.
# TYPE update_status_pool_assessment gauge
update_status_pool_assessment{assessment="Completed",pool="worker"} 0
update_status_pool_assessment{assessment="Degraded",pool="worker"} 0
update_status_pool_assessment{assessment="Excluded",pool="worker"} 0
update_status_pool_assessment{assessment="Pending",pool="worker"} 1
update_status_pool_assessment{assessment="Progressing",pool="worker"} 0
`
	checkCollected(t, collectorOf(obj, nil), want, MetricAssessment, MetricHealthInsights,
		MetricInformerInsights, MetricInformerHealthInsights, MetricPoolAssessment)
}
