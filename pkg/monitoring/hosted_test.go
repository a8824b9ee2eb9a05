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
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// hostedCluster returns a hosted cluster ns/name whose control plane is at
// completion and whose NodePool np has five machines, two of them updated.
func hostedCluster(ns, name string, completion int32, np string) *update.HostedClusterUpdateStatus {
	started := time.Unix(1700000000, 0)
	return &update.HostedClusterUpdateStatus{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Status: update.UpdateStatusStatus{
			Conditions: []metav1.Condition{{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected"}},
			ControlPlane: &update.ControlPlane{Informers: []update.ControlPlaneInformer{{Name: "cpi", Insights: []update.ControlPlaneInsight{
				cvInsight(completion, "Progressing", started, nil),
			}}}},
			WorkerPools: []update.Pool{{Name: np, Informers: []update.WorkerPoolInformer{{Name: "nodes", Insights: []update.WorkerPoolInsight{
				{UID: "np", Insight: update.WorkerPoolInsightUnion{MachineConfigPoolStatusInsight: poolInsight(np, "Progressing", 40,
					map[string]int32{"Total": 5, "Available": 4, "Progressing": 1, "Outdated": 3, "Draining": 1})}},
				{UID: "drain", Insight: update.WorkerPoolInsightUnion{HealthInsight: health("Error")}},
			}}}}},
		},
	}
}

func TestCollectHosted(t *testing.T) {
	started := time.Unix(1700000000, 0)
	standalone := &update.UpdateStatus{Status: update.UpdateStatusStatus{
		ControlPlane: &update.ControlPlane{Informers: []update.ControlPlaneInformer{{Name: "cpi", Insights: []update.ControlPlaneInsight{
			cvInsight(10, "Progressing", started, nil),
		}}}},
	}}
	demo := hostedCluster("clusters", "demo", 71, "workers")
	tests := []struct {
		name       string
		standalone *update.UpdateStatus
		hosted     []*update.HostedClusterUpdateStatus
		names      []string
		want       string
	}{{
		name:       "two hosted clusters, NodePools of the same name, beside the standalone cluster",
		standalone: standalone,
		hosted:     []*update.HostedClusterUpdateStatus{demo, hostedCluster("team-b", "prod", 30, "workers")},
		names: []string{MetricCompletion, HostedName(MetricCompletion), HostedName(MetricPoolCompletion), HostedName(MetricPoolNodes),
			HostedName(MetricAvailable)},
		want: `
# HELP update_status_control_plane_completion_ratio [ALPHA] Completion of the control plane update (0..1): the share of cluster operators updated, as status.controlPlane's ClusterVersion insight says.
# TYPE update_status_control_plane_completion_ratio gauge
update_status_control_plane_completion_ratio 0.1
# HELP update_status_hosted_available [ALPHA] 1 when a HostedClusterUpdateStatus's Available condition is True, 0 otherwise; reason is the condition's reason. One set per hosted cluster.
# TYPE update_status_hosted_available gauge
update_status_hosted_available{hosted_cluster="demo",hosted_cluster_namespace="clusters",reason="AsExpected"} 1
update_status_hosted_available{hosted_cluster="prod",hosted_cluster_namespace="team-b",reason="AsExpected"} 1
# HELP update_status_hosted_control_plane_completion_ratio [ALPHA] Completion of the control plane update (0..1): the share of control-plane components updated, as status.controlPlane's ClusterVersion insight says. One set per hosted cluster.
# TYPE update_status_hosted_control_plane_completion_ratio gauge
update_status_hosted_control_plane_completion_ratio{hosted_cluster="demo",hosted_cluster_namespace="clusters"} 0.71
update_status_hosted_control_plane_completion_ratio{hosted_cluster="prod",hosted_cluster_namespace="team-b"} 0.3
# HELP update_status_hosted_pool_completion_ratio [ALPHA] Completion of a pool's update (0..1): the share of its nodes updated. One set per hosted cluster.
# TYPE update_status_hosted_pool_completion_ratio gauge
update_status_hosted_pool_completion_ratio{hosted_cluster="demo",hosted_cluster_namespace="clusters",pool="workers"} 0.4
update_status_hosted_pool_completion_ratio{hosted_cluster="prod",hosted_cluster_namespace="team-b",pool="workers"} 0.4
# HELP update_status_hosted_pool_nodes [ALPHA] Nodes of a hosted cluster's NodePool by state, from the pool insight's node summaries. One set per hosted cluster.
# TYPE update_status_hosted_pool_nodes gauge
update_status_hosted_pool_nodes{hosted_cluster="demo",hosted_cluster_namespace="clusters",pool="workers",state="available"} 4
update_status_hosted_pool_nodes{hosted_cluster="demo",hosted_cluster_namespace="clusters",pool="workers",state="degraded"} 0
update_status_hosted_pool_nodes{hosted_cluster="demo",hosted_cluster_namespace="clusters",pool="workers",state="draining"} 1
update_status_hosted_pool_nodes{hosted_cluster="demo",hosted_cluster_namespace="clusters",pool="workers",state="excluded"} 0
update_status_hosted_pool_nodes{hosted_cluster="demo",hosted_cluster_namespace="clusters",pool="workers",state="outdated"} 3
update_status_hosted_pool_nodes{hosted_cluster="demo",hosted_cluster_namespace="clusters",pool="workers",state="progressing"} 1
update_status_hosted_pool_nodes{hosted_cluster="demo",hosted_cluster_namespace="clusters",pool="workers",state="total"} 5
update_status_hosted_pool_nodes{hosted_cluster="prod",hosted_cluster_namespace="team-b",pool="workers",state="available"} 4
update_status_hosted_pool_nodes{hosted_cluster="prod",hosted_cluster_namespace="team-b",pool="workers",state="degraded"} 0
update_status_hosted_pool_nodes{hosted_cluster="prod",hosted_cluster_namespace="team-b",pool="workers",state="draining"} 1
update_status_hosted_pool_nodes{hosted_cluster="prod",hosted_cluster_namespace="team-b",pool="workers",state="excluded"} 0
update_status_hosted_pool_nodes{hosted_cluster="prod",hosted_cluster_namespace="team-b",pool="workers",state="outdated"} 3
update_status_hosted_pool_nodes{hosted_cluster="prod",hosted_cluster_namespace="team-b",pool="workers",state="progressing"} 1
update_status_hosted_pool_nodes{hosted_cluster="prod",hosted_cluster_namespace="team-b",pool="workers",state="total"} 5
`,
	}, {
		name:   "nil entries and a repeated hosted cluster are skipped",
		hosted: []*update.HostedClusterUpdateStatus{nil, demo, hostedCluster("clusters", "demo", 99, "other"), nil},
		names:  []string{MetricCompletion, HostedName(MetricCompletion), HostedName(MetricHealthInsights)},
		want: `
# HELP update_status_hosted_control_plane_completion_ratio [ALPHA] Completion of the control plane update (0..1): the share of control-plane components updated, as status.controlPlane's ClusterVersion insight says. One set per hosted cluster.
# TYPE update_status_hosted_control_plane_completion_ratio gauge
update_status_hosted_control_plane_completion_ratio{hosted_cluster="demo",hosted_cluster_namespace="clusters"} 0.71
# HELP update_status_hosted_health_insights [ALPHA] Health insights of a HostedClusterUpdateStatus by impact level. One set per hosted cluster.
# TYPE update_status_hosted_health_insights gauge
update_status_hosted_health_insights{hosted_cluster="demo",hosted_cluster_namespace="clusters",impact_level="Critical"} 0
update_status_hosted_health_insights{hosted_cluster="demo",hosted_cluster_namespace="clusters",impact_level="Error"} 1
update_status_hosted_health_insights{hosted_cluster="demo",hosted_cluster_namespace="clusters",impact_level="Info"} 0
update_status_hosted_health_insights{hosted_cluster="demo",hosted_cluster_namespace="clusters",impact_level="Unknown"} 0
update_status_hosted_health_insights{hosted_cluster="demo",hosted_cluster_namespace="clusters",impact_level="Warning"} 0
`,
	}, {
		name:  "no hosted cluster served",
		names: []string{HostedName(MetricCompletion), HostedName(MetricPoolNodes)},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkCollected(t, collectorOf(tc.standalone, tc.hosted), tc.want, tc.names...)
		})
	}
}

// stalledBy adds to obj's NodePool a Health insight of impact type Update
// Stalled at level, reported by informer.
func stalledBy(obj *update.HostedClusterUpdateStatus, informer, level string) *update.HostedClusterUpdateStatus {
	h := health(level)
	h.Impact.Type = update.InsightImpactType(v1alpha1.UpdateStalledImpactType)
	obj.Status.WorkerPools[0].Informers = append(obj.Status.WorkerPools[0].Informers, update.WorkerPoolInformer{Name: informer,
		Insights: []update.WorkerPoolInsight{{UID: "stall", Insight: update.WorkerPoolInsightUnion{HealthInsight: h}}}})
	return obj
}

func TestCollectFleet(t *testing.T) {
	started := time.Unix(1700000000, 0)
	done := hostedCluster("c", "done", 100, "workers")
	done.Status.ControlPlane.Informers[0].Insights[0] = cvInsight(100, "Completed", started, nil)
	blind := hostedCluster("d", "blind", 0, "workers")
	blind.Status.ControlPlane = nil
	// A Warning of type Update Stalled is no stall.
	slow := stalledBy(hostedCluster("f", "slow", 20, "workers"), "nodes", "Warning")
	held := stalledBy(hostedCluster("a", "held", 50, "workers"), "nodes", "Error")
	tests := []struct {
		name   string
		hosted []*update.HostedClusterUpdateStatus
		want   string
	}{{
		name: "a fleet: stalled by the server's insight and by an external informer's, a calm one, a done one, one without a control-plane insight",
		hosted: []*update.HostedClusterUpdateStatus{
			held, hostedCluster("b", "calm", 30, "workers"), done, blind,
			stalledBy(hostedCluster("e", "ext", 40, "workers"), "drain.update-status", "Critical"), slow,
			// A repeated hosted cluster counts once.
			hostedCluster("a", "held", 10, "other"),
		},
		want: `
# HELP update_status_hosted_clusters [ALPHA] Hosted clusters by the assessment of their control plane (a hosted cluster without a ClusterVersion insight counts as Unknown). Reported while at least one hosted cluster is served.
# TYPE update_status_hosted_clusters gauge
update_status_hosted_clusters{assessment="Completed"} 1
update_status_hosted_clusters{assessment="Degraded"} 0
update_status_hosted_clusters{assessment="Progressing"} 4
update_status_hosted_clusters{assessment="Unknown"} 1
# HELP update_status_hosted_clusters_stalled [ALPHA] Hosted clusters whose update is stalled: a Health insight of impact type Update Stalled at level Error or Critical. Reported while at least one hosted cluster is served.
# TYPE update_status_hosted_clusters_stalled gauge
update_status_hosted_clusters_stalled 2
# HELP update_status_hosted_update_stalled [ALPHA] 1 when the hosted cluster's update is stalled (a Health insight of impact type Update Stalled at level Error or Critical), 0 otherwise. One per hosted cluster.
# TYPE update_status_hosted_update_stalled gauge
update_status_hosted_update_stalled{hosted_cluster="blind",hosted_cluster_namespace="d"} 0
update_status_hosted_update_stalled{hosted_cluster="calm",hosted_cluster_namespace="b"} 0
update_status_hosted_update_stalled{hosted_cluster="done",hosted_cluster_namespace="c"} 0
update_status_hosted_update_stalled{hosted_cluster="ext",hosted_cluster_namespace="e"} 1
update_status_hosted_update_stalled{hosted_cluster="held",hosted_cluster_namespace="a"} 1
update_status_hosted_update_stalled{hosted_cluster="slow",hosted_cluster_namespace="f"} 0
`,
	}, {
		name:   "no hosted cluster: no fleet series",
		hosted: []*update.HostedClusterUpdateStatus{nil},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkCollected(t, collectorOf(nil, tc.hosted), tc.want, FleetNames()...)
		})
	}
}

// TestFleetCardinality: the fleet series do not grow with the fleet.
func TestFleetCardinality(t *testing.T) {
	for _, n := range []int{1, 50} {
		fleet := make([]*update.HostedClusterUpdateStatus, n)
		for i := range fleet {
			fleet[i] = stalledBy(hostedCluster("ns", fmt.Sprintf("hc-%d", i), 50, "workers"), "nodes", "Error")
		}
		series := seriesOf(t, collectorOf(nil, fleet))
		for name, want := range map[string]int{MetricHostedClusters: 4, MetricHostedClustersStalled: 1, MetricHostedUpdateStalled: n} {
			if got := series[name]; got != want {
				t.Errorf("%d hosted clusters: %d series of %s, want %d", n, got, name, want)
			}
		}
	}
}
