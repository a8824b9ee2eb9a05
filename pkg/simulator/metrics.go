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

package simulator

import (
	"maps"
	"net/http"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-base/metrics"

	"github.com/update-status/apiserver/internal/ocp"
)

// The simulated cluster exposes, in the format Prometheus scrapes, the
// kube-state-metrics series OpenShift's alerting rules read about nodes and
// PodDisruptionBudgets (artifacts/local/prometheus/rules.yaml turns them into
// alerts). Every value is derived from the simulated objects at scrape time:
//
//   - kube_node_status_condition{node, condition="Ready", status} is 1 for the
//     status of the node's Ready condition ("true", "false", "unknown") and 0
//     for the other two.
//   - kube_node_spec_unschedulable{node} is 1 while the node is cordoned.
//   - Each pool with nodes has one PodDisruptionBudget over a workload with a
//     pod on every node of the pool and maxUnavailable 1: the master pool's
//     is openshift-etcd/etcd-guard-pdb, the worker pool's
//     openshift-ingress/router-default and a custom pool P's
//     openshift-ingress/router-P. kube_poddisruptionbudget_status_expected_pods
//     is the pool's size, ..._desired_healthy the size minus one (never below
//     zero) and ..._current_healthy the size minus the disrupted nodes: those
//     draining, applying, rebooting, down or booting, and those whose Ready
//     condition is not True. A node that drains (or whose drain a fault
//     blocks) therefore puts its pool's budget at its limit (current ==
//     desired); two disrupted nodes put it below.
const (
	MetricNodeStatusCondition = "kube_node_status_condition"
	MetricNodeUnschedulable   = "kube_node_spec_unschedulable"
	MetricPDBCurrentHealthy   = "kube_poddisruptionbudget_status_current_healthy"
	MetricPDBDesiredHealthy   = "kube_poddisruptionbudget_status_desired_healthy"
	MetricPDBExpectedPods     = "kube_poddisruptionbudget_status_expected_pods"
	pdbNamespaceEtcd          = "openshift-etcd"
	pdbNamespaceIngress       = "openshift-ingress"
	pdbNameEtcd               = "etcd-guard-pdb"
	pdbNameDefaultRouter      = "router-default"
	pdbNameCustomRouterPrefix = "router-"
	labelNode                 = "node"
	labelCondition            = "condition"
	labelStatus               = "status"
	labelNamespace            = "namespace"
	labelPodDisruptionBudget  = "poddisruptionbudget"
	conditionStatusTrueLabel  = "true"
	conditionStatusFalseLabel = "false"
	conditionStatusUnknownLbl = "unknown"
	metricsHelpNodeCondition  = "The condition of a cluster node (simulated, as kube-state-metrics reports it)."
	metricsHelpUnschedulable  = "Whether a node can schedule new pods (simulated, as kube-state-metrics reports it)."
	metricsHelpCurrentHealthy = "Current number of healthy pods (simulated, as kube-state-metrics reports it)."
	metricsHelpDesiredHealthy = "Minimum desired number of healthy pods (simulated, as kube-state-metrics reports it)."
	metricsHelpExpectedPods   = "Total number of pods counted by this disruption budget (simulated, as kube-state-metrics reports it)."
)

// Sample is one series of the simulator's metrics.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Metrics returns the simulator's metrics as they are now, nodes first (in
// the simulator's order), then the PodDisruptionBudgets pool by pool. Before
// Create it returns nothing.
func (s *Simulator) Metrics() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Sample
	for _, n := range s.nodes {
		ready := conditionStatusUnknownLbl
		if c := ocp.FindNodeCondition(n.obj.Status.Conditions, corev1.NodeReady); c != nil {
			switch c.Status {
			case corev1.ConditionTrue:
				ready = conditionStatusTrueLabel
			case corev1.ConditionFalse:
				ready = conditionStatusFalseLabel
			}
		}
		for _, st := range []string{conditionStatusTrueLabel, conditionStatusFalseLabel, conditionStatusUnknownLbl} {
			out = append(out, Sample{Name: MetricNodeStatusCondition, Value: boolValue(st == ready),
				Labels: map[string]string{labelNode: n.obj.Name, labelCondition: string(corev1.NodeReady), labelStatus: st}})
		}
		out = append(out, Sample{Name: MetricNodeUnschedulable, Value: boolValue(n.obj.Spec.Unschedulable),
			Labels: map[string]string{labelNode: n.obj.Name}})
	}
	for _, p := range s.pools {
		if len(p.nodes) == 0 {
			continue
		}
		ns, name := pdbOf(p.name)
		disrupted := 0
		for _, n := range p.nodes {
			if nodeDisrupted(n) {
				disrupted++
			}
		}
		expected := len(p.nodes)
		desired := max(expected-1, 0)
		labels := func() map[string]string {
			return map[string]string{labelNamespace: ns, labelPodDisruptionBudget: name}
		}
		out = append(out,
			Sample{Name: MetricPDBCurrentHealthy, Labels: labels(), Value: float64(expected - disrupted)},
			Sample{Name: MetricPDBDesiredHealthy, Labels: labels(), Value: float64(desired)},
			Sample{Name: MetricPDBExpectedPods, Labels: labels(), Value: float64(expected)},
		)
	}
	return out
}

// pdbOf names the PodDisruptionBudget of a pool's workload.
func pdbOf(pool string) (namespace, name string) {
	switch pool {
	case "master":
		return pdbNamespaceEtcd, pdbNameEtcd
	case "worker":
		return pdbNamespaceIngress, pdbNameDefaultRouter
	default:
		return pdbNamespaceIngress, pdbNameCustomRouterPrefix + pool
	}
}

// nodeDisrupted reports whether the node's pod of its pool's workload is not
// healthy: evicted by a drain, not running again yet, or on a node that is
// not Ready.
func nodeDisrupted(n *nodeState) bool {
	switch n.stage {
	case stageDraining, stageApplying, stageRebooting, stageDown, stageBooting:
		return true
	}
	c := ocp.FindNodeCondition(n.obj.Status.Conditions, corev1.NodeReady)
	return c == nil || c.Status != corev1.ConditionTrue
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// MetricsHandler serves Metrics in the Prometheus text format, for a
// Prometheus to scrape (internal/localstack, `make run`).
func (s *Simulator) MetricsHandler() http.Handler {
	reg := metrics.NewKubeRegistry()
	reg.CustomMustRegister(newMetricsCollector(s))
	return metrics.HandlerFor(reg, metrics.HandlerOpts{ErrorHandling: metrics.ContinueOnError})
}

// metricsCollector turns Metrics into component-base metrics at scrape time.
type metricsCollector struct {
	metrics.BaseStableCollector
	sim   *Simulator
	descs map[string]*metrics.Desc
	order []string
}

func newMetricsCollector(s *Simulator) *metricsCollector {
	c := &metricsCollector{sim: s, descs: map[string]*metrics.Desc{}}
	add := func(name, help string, labels ...string) {
		c.descs[name] = metrics.NewDesc(name, help, labels, nil, metrics.ALPHA, "")
		c.order = append(c.order, name)
	}
	add(MetricNodeStatusCondition, metricsHelpNodeCondition, labelNode, labelCondition, labelStatus)
	add(MetricNodeUnschedulable, metricsHelpUnschedulable, labelNode)
	add(MetricPDBCurrentHealthy, metricsHelpCurrentHealthy, labelNamespace, labelPodDisruptionBudget)
	add(MetricPDBDesiredHealthy, metricsHelpDesiredHealthy, labelNamespace, labelPodDisruptionBudget)
	add(MetricPDBExpectedPods, metricsHelpExpectedPods, labelNamespace, labelPodDisruptionBudget)
	return c
}

func (c *metricsCollector) DescribeWithStability(ch chan<- *metrics.Desc) {
	for _, name := range c.order {
		ch <- c.descs[name]
	}
}

func (c *metricsCollector) CollectWithStability(ch chan<- metrics.Metric) {
	for _, smp := range c.sim.Metrics() {
		var values []string
		switch smp.Name {
		case MetricNodeStatusCondition:
			values = []string{smp.Labels[labelNode], smp.Labels[labelCondition], smp.Labels[labelStatus]}
		case MetricNodeUnschedulable:
			values = []string{smp.Labels[labelNode]}
		default:
			values = []string{smp.Labels[labelNamespace], smp.Labels[labelPodDisruptionBudget]}
		}
		ch <- metrics.NewLazyConstMetric(c.descs[smp.Name], metrics.GaugeValue, smp.Value, values...)
	}
}

// SampleValue returns the value of the series name with exactly labels, and
// whether there is one.
func SampleValue(samples []Sample, name string, labels map[string]string) (float64, bool) {
	for _, smp := range samples {
		if smp.Name == name && maps.Equal(smp.Labels, labels) {
			return smp.Value, true
		}
	}
	return 0, false
}

// PodDisruptionBudgets lists the namespace/name of every PodDisruptionBudget
// the metrics describe, sorted.
func (s *Simulator) PodDisruptionBudgets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.pools {
		if len(p.nodes) > 0 {
			ns, name := pdbOf(p.name)
			out = append(out, ns+"/"+name)
		}
	}
	sort.Strings(out)
	return out
}
