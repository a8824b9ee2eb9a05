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
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"sigs.k8s.io/yaml"
)

// Defaults of RuleOptions.
const (
	DefaultStallAfter  = time.Hour
	DefaultFor         = 10 * time.Minute
	DefaultJob         = "update-status-apiserver"
	DefaultRunbookBase = "https://github.com/update-status/apiserver/blob/main/docs/runbooks"
	// DefaultFleetStalledShare is the share of the hosted clusters whose
	// update is stalled at which UpdateStatusHostedFleetStalled fires.
	DefaultFleetStalledShare = 0.1
	// FleetStalledMin is the fewest stalled hosted clusters that make a
	// stalled wave, whatever their share: one is
	// UpdateStatusHostedClusterStalled's.
	FleetStalledMin = 2
	// GroupName is the name of the rule group.
	GroupName = "update-status"
)

// Names of the alerts; each has a runbook docs/runbooks/<name>.md.
const (
	AlertControlPlaneStalled  = "UpdateStatusControlPlaneStalled"
	AlertPoolStalled          = "UpdateStatusPoolStalled"
	AlertControlPlaneDegraded = "UpdateStatusControlPlaneDegraded"
	AlertPoolDegraded         = "UpdateStatusPoolDegraded"
	AlertServerDown           = "UpdateStatusServerDown"
	AlertUnavailable          = "UpdateStatusUnavailable"
	AlertAlertsUnreadable     = "UpdateStatusAlertsUnreadable"
	AlertHostedClusterStalled = "UpdateStatusHostedClusterStalled"
	AlertHostedFleetStalled   = "UpdateStatusHostedFleetStalled"
)

// Alerts lists every alert of the rules, in their order.
func Alerts() []string {
	return []string{AlertControlPlaneStalled, AlertPoolStalled, AlertControlPlaneDegraded, AlertPoolDegraded,
		AlertServerDown, AlertUnavailable, AlertAlertsUnreadable, AlertHostedClusterStalled, AlertHostedFleetStalled}
}

// RuleOptions parameterize the rules.
type RuleOptions struct {
	// StallAfter is how long the control plane or a pool may progress with
	// its completion unchanged before it counts as stalled. DefaultStallAfter
	// when zero.
	StallAfter time.Duration
	// For is how long every condition must hold before its alert fires
	// (Prometheus's `for`). DefaultFor when zero.
	For time.Duration
	// Job is the job label of the server's scrape target. DefaultJob when
	// empty.
	Job string
	// RunbookBase is the URL the runbook_url annotations start with, without
	// the trailing slash. DefaultRunbookBase when empty.
	RunbookBase string
	// Interval, when set, is the group's evaluation interval; otherwise
	// Prometheus's global evaluation_interval applies.
	Interval time.Duration
	// FleetStalledShare is the share of the hosted clusters (0 < share <=
	// 1) whose update must be stalled, FleetStalledMin of them at least,
	// for UpdateStatusHostedFleetStalled. DefaultFleetStalledShare when
	// zero.
	FleetStalledShare float64
}

// RuleGroups is a Prometheus rules file, and the spec of a PrometheusRule.
type RuleGroups struct {
	Groups []RuleGroup `json:"groups"`
}

// RuleGroup is one group of rules.
type RuleGroup struct {
	Name     string `json:"name"`
	Interval string `json:"interval,omitempty"`
	Rules    []Rule `json:"rules"`
}

// Rule is one alerting rule.
type Rule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations"`
}

var jobPattern = regexp.MustCompile(`^[A-Za-z0-9_.:/-]+$`)

func (o RuleOptions) withDefaults() (RuleOptions, error) {
	if o.StallAfter == 0 {
		o.StallAfter = DefaultStallAfter
	}
	if o.For == 0 {
		o.For = DefaultFor
	}
	if o.Job == "" {
		o.Job = DefaultJob
	}
	if o.RunbookBase == "" {
		o.RunbookBase = DefaultRunbookBase
	}
	o.RunbookBase = strings.TrimSuffix(o.RunbookBase, "/")
	if o.FleetStalledShare == 0 {
		o.FleetStalledShare = DefaultFleetStalledShare
	}
	var errs []string
	if share := o.FleetStalledShare; math.IsNaN(share) || share <= 0 || share > 1 {
		errs = append(errs, fmt.Sprintf("fleet-stalled-share %v is not in (0, 1]", o.FleetStalledShare))
	}
	for name, d := range map[string]time.Duration{"stall-after": o.StallAfter, "for": o.For} {
		if d < time.Second || d%time.Second != 0 {
			errs = append(errs, fmt.Sprintf("%s %v is not a whole number of seconds of at least 1s", name, d))
		}
	}
	if o.Interval < 0 || o.Interval%time.Second != 0 {
		errs = append(errs, fmt.Sprintf("interval %v is not a whole number of seconds", o.Interval))
	}
	if !jobPattern.MatchString(o.Job) {
		errs = append(errs, fmt.Sprintf("job %q: only letters, digits and _.:/- are allowed", o.Job))
	}
	if len(errs) > 0 {
		return o, fmt.Errorf("alerting rules: %s", strings.Join(errs, "; "))
	}
	return o, nil
}

// PromDuration formats d as Prometheus writes durations (1h, 90s, 1h30m).
func PromDuration(d time.Duration) string { return model.Duration(d).String() }

// Rules returns the alerting rules about the update and about this server.
func Rules(o RuleOptions) (RuleGroups, error) {
	o, err := o.withDefaults()
	if err != nil {
		return RuleGroups{}, err
	}
	job := fmt.Sprintf("job=%q", o.Job)
	stall := PromDuration(o.StallAfter)
	forDur := PromDuration(o.For)
	// Reads of the alerts are judged over a window of several polls.
	readWindow := PromDuration(max(3*o.For, time.Minute))
	// Every alert is a warning: none of them is an outage of the cluster.
	rule := func(alert, holdFor, expr, summary, description string) Rule {
		return Rule{
			Alert:  alert,
			Expr:   strings.TrimSpace(expr) + "\n",
			For:    holdFor,
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"summary":     summary,
				"description": description,
				"runbook_url": o.RunbookBase + "/" + alert + ".md",
			},
		}
	}
	// Replicas report the same values under different instance labels: the
	// expressions aggregate them away. A stall needs an update running for
	// the whole window (assessed Progressing or Degraded throughout: never
	// Completed or Unknown, for a pool never Pending or Excluded), no change
	// of completion in it, and a sample from its start (so that a server that
	// just started does not see a stall in the few minutes it has observed).
	// A server starts or rolls out in well under a minute; it is not down
	// before that, however short For is.
	downFor := PromDuration(max(o.For, time.Minute))
	rules := []Rule{
		rule(AlertControlPlaneStalled, forDur, fmt.Sprintf(`
max(max_over_time(%[1]s{%[2]s,assessment=~"Completed|Unknown"}[%[3]s])) == 0
unless on() max(changes(%[4]s{%[2]s}[%[3]s])) > 0
and on() max(%[4]s{%[2]s} offset %[3]s) >= 0`, MetricAssessment, job, stall, MetricCompletion),
			"The control plane update is not progressing.",
			fmt.Sprintf("The control plane has been updating for more than %s without any change of its completion "+
				"({{ with query \"max(%s)\" }}{{ . | first | value | humanizePercentage }}{{ end }}).", stall, MetricCompletion)),
		rule(AlertPoolStalled, forDur, fmt.Sprintf(`
max by (pool) (max_over_time(%[1]s{%[2]s,assessment=~"Completed|Pending|Excluded"}[%[3]s])) == 0
unless on(pool) max by (pool) (changes(%[4]s{%[2]s}[%[3]s])) > 0
and on(pool) max by (pool) (%[4]s{%[2]s} offset %[3]s) >= 0`, MetricPoolAssessment, job, stall, MetricPoolCompletion),
			"The update of pool {{ $labels.pool }} is not progressing.",
			fmt.Sprintf("Pool {{ $labels.pool }} has been updating for more than %s without a node completing its update.", stall)),
		rule(AlertControlPlaneDegraded, forDur, fmt.Sprintf(`
max(%s{%s,assessment="Degraded"}) == 1`, MetricAssessment, job),
			"The control plane update is behind its estimate.",
			"The control plane update is assessed Degraded: it runs past its estimated completion (oc adm upgrade status says Progressing - Slow, or Stalled ten minutes past it)."),
		rule(AlertPoolDegraded, forDur, fmt.Sprintf(`
max by (pool) (%s{%s,assessment="Degraded"}) == 1`, MetricPoolAssessment, job),
			"The update of pool {{ $labels.pool }} is degraded.",
			"The update of pool {{ $labels.pool }} is assessed Degraded: at least one of its nodes is in a problem state."),
		rule(AlertServerDown, downFor, fmt.Sprintf(`
absent(up{%s} == 1)`, job),
			"No UpdateStatus server can be scraped.",
			fmt.Sprintf("No target of job %s has been up for %s: `kubectl get updatestatus` and the update metrics and alerts are unavailable.", o.Job, downFor)),
		rule(AlertUnavailable, forDur, fmt.Sprintf(`
count by (reason) (%s{%s} == 0) > 0`, MetricAvailable, job),
			"The UpdateStatus server cannot read its sources.",
			"The UpdateStatus's Available condition is not True (reason {{ $labels.reason }}): the status is missing or incomplete."),
		rule(AlertAlertsUnreadable, forDur, fmt.Sprintf(`
max(increase(update_status_alert_reads_total{%[1]s,result="failure"}[%[2]s])) > 0
unless on() max(increase(update_status_alert_reads_total{%[1]s,result="success"}[%[2]s])) > 0`, job, readWindow),
			"The UpdateStatus server cannot read the firing alerts.",
			fmt.Sprintf("Every read of the alerts endpoint (--alerts-url) in the last %s failed: alerts that affect the update are missing from the health insights.", readWindow)),
		// A hosted cluster's update is stalled when a Health insight says
		// it does not proceed (MetricHostedUpdateStalled); the fleet's
		// count of them makes a wave that stalls.
		rule(AlertHostedClusterStalled, forDur, fmt.Sprintf(`
max by (%[1]s, %[2]s) (%[3]s{%[4]s}) == 1`, LabelNamespace, LabelHostedCluster, MetricHostedUpdateStalled, job),
			"The update of hosted cluster {{ $labels."+LabelNamespace+" }}/{{ $labels."+LabelHostedCluster+" }} is stalled.",
			fmt.Sprintf("A Health insight of hosted cluster {{ $labels.%s }}/{{ $labels.%s }} has said for %s that its update does not proceed "+
				"(impact Update Stalled, level Error or Critical).", LabelNamespace, LabelHostedCluster, forDur)),
		rule(AlertHostedFleetStalled, forDur, fmt.Sprintf(`
max(%[1]s{%[2]s}) >= %[3]d
and on() max(%[1]s{%[2]s}) / max(sum without (assessment) (%[4]s{%[2]s})) >= %[5]s`,
			MetricHostedClustersStalled, job, FleetStalledMin, MetricHostedClusters, strconv.FormatFloat(o.FleetStalledShare, 'g', -1, 64)),
			"Updates of many hosted clusters are stalled.",
			fmt.Sprintf("{{ $value }} hosted clusters have a stalled update, at least %s of the fleet: "+
				"a wave of updates stalls on a cause they likely share.", formatShare(o.FleetStalledShare))),
	}
	g := RuleGroup{Name: GroupName, Rules: rules}
	if o.Interval > 0 {
		g.Interval = PromDuration(o.Interval)
	}
	return RuleGroups{Groups: []RuleGroup{g}}, nil
}

// formatShare writes a share as a percentage (0.1 -> 10%).
func formatShare(share float64) string {
	return strconv.FormatFloat(share*100, 'g', -1, 64) + "%"
}

// RulesFile renders the rules as a Prometheus rules file, headed by header
// (comment lines, may be empty).
func RulesFile(o RuleOptions, header string) ([]byte, error) {
	groups, err := Rules(o)
	if err != nil {
		return nil, err
	}
	return render(header, groups)
}

// PrometheusRule renders the rules as a monitoring.coreos.com/v1
// PrometheusRule named name in namespace, headed by header.
func PrometheusRule(o RuleOptions, name, namespace, header string) ([]byte, error) {
	groups, err := Rules(o)
	if err != nil {
		return nil, err
	}
	obj := struct {
		APIVersion string     `json:"apiVersion"`
		Kind       string     `json:"kind"`
		Metadata   any        `json:"metadata"`
		Spec       RuleGroups `json:"spec"`
	}{
		APIVersion: "monitoring.coreos.com/v1",
		Kind:       "PrometheusRule",
		Metadata: map[string]any{
			"name":      name,
			"namespace": namespace,
			"labels":    map[string]string{"app.kubernetes.io/name": "update-status-apiserver"},
		},
		Spec: groups,
	}
	return render(header, obj)
}

func render(header string, v any) ([]byte, error) {
	body, err := yaml.Marshal(v)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		if header == "" {
			break
		}
		b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
	}
	b.Write(body)
	return []byte(b.String()), nil
}
