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

// Package report prints the human-readable update report of
// `oc adm upgrade status` from an UpdateStatus object and a clock reading.
//
// It reads nothing but the object: every line is derived from the insights,
// following the conventions of package conventions. That the fixtures of oc
// come out byte for byte identical is the proof that the API carries
// everything the report needs.
package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Details selects the optional sections of the report.
type Details string

// The values of --details.
const (
	DetailsNone      Details = "none"
	DetailsAll       Details = "all"
	DetailsNodes     Details = "nodes"
	DetailsHealth    Details = "health"
	DetailsOperators Details = "operators"
)

// AllDetails lists the accepted values, in oc's order.
var AllDetails = []Details{DetailsNone, DetailsAll, DetailsNodes, DetailsHealth, DetailsOperators}

// ParseDetails checks a --details value.
func ParseDetails(s string) (Details, error) {
	for _, d := range AllDetails {
		if string(d) == s {
			return d, nil
		}
	}
	names := make([]string, len(AllDetails))
	for i, d := range AllDetails {
		names[i] = string(d)
	}
	return "", fmt.Errorf("invalid value for --details: %s (must be one of %s)", s, strings.Join(names, ", "))
}

func (d Details) enabled(what Details) bool { return d == DetailsAll || d == what }

// Render writes the report for obj as seen at now, with the pools in the
// order in which an API server lists them, by name, as oc does.
func Render(w io.Writer, obj *v1alpha1.UpdateStatus, now time.Time, details Details) error {
	return RenderInPoolOrder(w, obj, now, details, nil)
}

// RenderInPoolOrder is Render with the pools in the order of pools (then the
// others by name): the order of the MachineConfigPools the status was
// computed from, as oc keeps the file order of object dumps.
func RenderInPoolOrder(w io.Writer, obj *v1alpha1.UpdateStatus, now time.Time, details Details, pools []string) error {
	if obj == nil {
		return fmt.Errorf("no UpdateStatus to report on")
	}
	return renderWith(w, &obj.Status, now, details, pools, &standaloneWords)
}

// RenderHosted writes the report for a hosted cluster's obj as seen at now:
// the layout of Render, with the words of a hosted cluster (its control
// plane's components, its NodePools in the worker pools' place).
func RenderHosted(w io.Writer, obj *v1alpha1.HostedClusterUpdateStatus, now time.Time, details Details) error {
	if obj == nil {
		return fmt.Errorf("no HostedClusterUpdateStatus to report on")
	}
	return renderWith(w, &obj.Status, now, details, nil, &hostedWords)
}

func renderWith(w io.Writer, st *v1alpha1.UpdateStatusStatus, now time.Time, details Details, pools []string, words *wording) error {
	bw := bufio.NewWriter(w)
	r := &renderer{w: bw, now: now, details: details, v: newView(st, pools), words: words}
	r.render()
	return bw.Flush()
}

// wording is what the report calls the parts of a cluster.
type wording struct {
	// notUpdating is the whole report of a cluster that is not updating.
	notUpdating string
	// fieldWidth is the width of the control plane's field names, colon
	// and padding included.
	fieldWidth int
	// operators is what the completion counts ("%d operators updated");
	// operatorHealth names the health field; updatingOperators heads the
	// table of updating ones.
	operators, operatorHealth, updatingOperators string
	// workerUpgrade heads the pools' section, poolColumn names the pool
	// table's first column, poolNodes heads a pool's node table.
	workerUpgrade, poolColumn, poolNodes string
}

// standaloneWords are oc's.
var standaloneWords = wording{
	notUpdating:       "The cluster is not updating.",
	fieldWidth:        len("Operator Health: "),
	operators:         "operators",
	operatorHealth:    "Operator Health",
	updatingOperators: "Updating Cluster Operators",
	workerUpgrade:     "Worker Upgrade",
	poolColumn:        "WORKER POOL",
	poolNodes:         "Worker Pool Nodes",
}

// hostedWords name a hosted cluster's parts as HyperShift does: the control
// plane's ControlPlaneComponents, the NodePools.
var hostedWords = wording{
	notUpdating:       "The hosted cluster is not updating.",
	fieldWidth:        len("Component Health: "),
	operators:         "components",
	operatorHealth:    "Component Health",
	updatingOperators: "Updating Control Plane Components",
	workerUpgrade:     "Node Pool Upgrade",
	poolColumn:        "NODE POOL",
	poolNodes:         "Node Pool Nodes",
}

type renderer struct {
	w       io.Writer
	now     time.Time
	details Details
	v       *view
	words   *wording
}

// field writes one field of the control plane's section: its name padded
// to the section's width, then the value as format and args give it.
func (r *renderer) field(name, format string, args ...any) {
	r.printf("%-*s"+format, append([]any{r.words.fieldWidth, name + ":"}, args...)...)
}

func (r *renderer) printf(format string, args ...any) { _, _ = fmt.Fprintf(r.w, format, args...) }

func (r *renderer) render() {
	if !r.v.updating() {
		r.printf("%s\n", r.words.notUpdating)
		return
	}
	r.controlPlane()
	if m := r.v.master; m != nil {
		r.nodes(m, true)
	}
	workerUpgrade := false
	for _, p := range r.v.workers {
		if len(p.nodes) > 0 {
			workerUpgrade = true
			break
		}
	}
	if workerUpgrade {
		r.printf("\n= %s =\n", r.words.workerUpgrade)
		r.pools()
		for _, p := range r.v.workers {
			r.nodes(p, false)
		}
	}
	r.printf("\n")
	r.health()
}

// operatorState is the control plane's operator counts.
type operatorState struct {
	total, updated, waiting, unavailable, degraded int
	updating                                       []*v1alpha1.ClusterOperatorStatusInsight
}

func (r *renderer) operatorState() operatorState {
	var s operatorState
	for _, co := range r.v.operators {
		s.total++
		if u := findCondition(co.Conditions, string(v1alpha1.ClusterOperatorStatusInsightUpdating)); u != nil {
			switch {
			case u.Status == metav1.ConditionTrue:
				s.updating = append(s.updating, co)
			case u.Reason == string(v1alpha1.ClusterOperatorUpdatingReasonUpdated):
				s.updated++
			case u.Reason == string(v1alpha1.ClusterOperatorUpdatingReasonPending):
				s.waiting++
			}
		}
		h := findCondition(co.Conditions, string(v1alpha1.ClusterOperatorStatusInsightHealthy))
		switch {
		case h != nil && h.Status == metav1.ConditionTrue:
		case h != nil && h.Status == metav1.ConditionFalse && h.Reason == string(v1alpha1.ClusterOperatorHealthyReasonDegraded):
			s.degraded++
		default:
			// Unavailable, and oc counts Available=Unknown (and a missing
			// Available condition) as unavailable too.
			s.unavailable++
		}
	}
	return s
}

// reference is the instant the control plane's duration and estimate are
// measured to: its completion, or now while it runs.
func (r *renderer) reference() time.Time {
	if cv := r.v.cv; cv != nil && cv.CompletedAt != nil {
		return cv.CompletedAt.Time
	}
	return r.now
}

func (r *renderer) controlPlane() {
	cv := r.v.cv
	ops := r.operatorState()
	if cv != nil && cv.Assessment == v1alpha1.ControlPlaneAssessmentCompleted {
		ref := r.reference()
		r.printf("= Control Plane =\nUpdate to %s successfully completed at %s (duration: %s)\n",
			cv.Versions.Target.Version, ref.UTC().Format(time.RFC3339), conventions.ShortDuration(roundedDuration(ref.Sub(cv.StartedAt.Time))))
		return
	}
	assessment, target := "Unknown", "unknown (from unknown)"
	var duration, estimate time.Duration
	multiArch := false
	if cv != nil {
		target = conventions.VersionText(&cv.Versions)
		multiArch = conventions.HasMetadata(cv.Versions.Target.Metadata, v1alpha1.ArchitectureMetadata)
		duration = r.reference().Sub(cv.StartedAt.Time)
		estimate, _ = conventions.InsightRemaining(cv, r.reference())
		assessment = assessmentText(cv, estimate)
	}
	r.printf("= Control Plane =\n")
	r.field("Assessment", "%s\n", assessment)
	r.field("Target Version", "%s\n", target)
	if len(ops.updating) > 0 {
		names := make([]string, len(ops.updating))
		for i, co := range ops.updating {
			names[i] = co.Name
		}
		r.field("Updating", "%s\n", strings.Join(names, ", "))
	}
	r.field("Completion", "%d%% (%d %s updated, %d updating, %d waiting)\n", r.completion(ops), ops.updated, r.words.operators, len(ops.updating), ops.waiting)
	r.field("Duration", "%s", conventions.ShortDuration(roundedDuration(duration)))
	if estimate != 0 {
		text := "N/A for Multi-Architecture Migration"
		if !multiArch {
			text = remainingText(estimate, duration)
		}
		r.printf(" (Est. Time Remaining: %s)", text)
	}
	health := []string{fmt.Sprintf("%d Healthy", ops.total-ops.unavailable-ops.degraded)}
	if ops.unavailable > 0 {
		health = append(health, fmt.Sprintf("%d Unavailable", ops.unavailable))
	}
	if ops.degraded > 0 {
		health = append(health, fmt.Sprintf("%d Available but degraded", ops.degraded))
	}
	r.printf("\n")
	r.field(r.words.operatorHealth, "%s\n", strings.Join(health, ", "))

	if r.details.enabled(DetailsOperators) && len(ops.updating) > 0 {
		r.printf("\n%s", r.words.updatingOperators)
		tw := tabwriter.NewWriter(r.w, 0, 0, 3, ' ', 0)
		_, _ = io.WriteString(tw, "\nNAME\tSINCE\tREASON\tMESSAGE\n")
		for _, co := range ops.updating {
			u := findCondition(co.Conditions, string(v1alpha1.ClusterOperatorStatusInsightUpdating))
			reason, message := conventions.DecodeReasonMessage(u.Message)
			if reason == "" {
				reason = "-"
			}
			_, _ = io.WriteString(tw, co.Name+"\t"+conventions.ShortDuration(r.now.Sub(u.LastTransitionTime.Time))+"\t"+ellipsis(reason, 20)+"\t")
			for i, line := range strings.Split(message, "\n") {
				if i > 0 {
					_, _ = io.WriteString(tw, "\t\t\t")
				}
				_, _ = io.WriteString(tw, line+"\n")
			}
		}
		_ = tw.Flush()
	}
}

// assessmentText is oc's Assessment of a control plane that is not done,
// from its remaining estimate: Stalled more than ten minutes past it,
// Progressing - Slow past it, Progressing otherwise; Unknown without a
// ClusterVersion insight or when the insight says so.
func assessmentText(cv *v1alpha1.ClusterVersionStatusInsight, estimate time.Duration) string {
	switch {
	case cv == nil || cv.Assessment == v1alpha1.ControlPlaneAssessmentUnknown:
		return "Unknown"
	case estimate < -10*time.Minute:
		return "Stalled"
	case estimate < 0:
		return "Progressing - Slow"
	}
	return "Progressing"
}

// remainingText is oc's "Est. Time Remaining" of a non-zero estimate, the
// update having run for duration.
func remainingText(estimate, duration time.Duration) string {
	switch {
	case estimate < -10*time.Minute:
		return "N/A; estimate duration was " + conventions.ShortDuration((duration + estimate).Truncate(time.Minute))
	case estimate < 10*time.Minute:
		return "<10m"
	}
	return conventions.ShortDuration(estimate)
}

// completion is the control plane's completion: its ClusterVersion
// insight's, or without one the share of operators updated.
func (r *renderer) completion(ops operatorState) int32 {
	switch {
	case r.v.cv != nil:
		return r.v.cv.Completion
	case ops.total > 0:
		return int32(math.RoundToEven(float64(ops.updated) / float64(ops.total) * 100))
	}
	return 0
}

// ellipsis cuts s to maxLen runes, the last three being "...".
func ellipsis(s string, maxLen int) string {
	runes := []rune(s)
	if len(runes) <= maxLen {
		return s
	}
	return string(runes[:maxLen-3]) + "..."
}

// pools writes the worker pool table.
func (r *renderer) pools() {
	tw := tabwriter.NewWriter(r.w, 0, 0, 3, ' ', 0)
	_, _ = io.WriteString(tw, "\n"+r.words.poolColumn+"\tASSESSMENT\tCOMPLETION\tSTATUS\n")
	for _, p := range r.v.workers {
		if p.mcp == nil {
			continue
		}
		total := p.total()
		if total == 0 {
			_, _ = fmt.Fprintf(tw, "%s\tEmpty\t\t%d Total\n", p.name, total)
			continue
		}
		status := fmt.Sprintf("%d Available, %d Progressing, %d Draining", p.summary(v1alpha1.NodesAvailable),
			p.summary(v1alpha1.NodesProgressing), p.summary(v1alpha1.NodesDraining))
		if n := p.summary(v1alpha1.NodesExcluded); n > 0 {
			status += fmt.Sprintf(", %d Excluded", n)
		}
		if n := p.summary(v1alpha1.NodesDegraded); n > 0 {
			status += fmt.Sprintf(", %d Degraded", n)
		}
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%d%% (%d/%d)\t%s\n", p.name, p.mcp.Assessment, p.mcp.Completion,
			total-p.summary(v1alpha1.NodesOutdated), total, status)
	}
	_ = tw.Flush()
}
