package report

import (
	"io"
	"sort"
	"text/tabwriter"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// nodeRow is one row of a node table, derived from a Node insight.
type nodeRow struct {
	name, assessment, phase, version, est, message string
	// rawVersion is the node's version, empty when unknown.
	rawVersion                               string
	assessmentRank, phaseRank                int
	updated, unavailable, updating, degraded bool
}

var phaseByReason = map[string]struct {
	text string
	rank int
}{
	string(v1alpha1.NodeDraining):      {"Draining", 0},
	string(v1alpha1.NodeUpdating):      {"Updating", 1},
	string(v1alpha1.NodeRebooting):     {"Rebooting", 2},
	string(v1alpha1.NodePaused):        {"Paused", 3},
	string(v1alpha1.NodeUpdatePending): {"Pending", 4},
	string(v1alpha1.NodeCompleted):     {"Updated", 5},
}

var assessmentRank = map[string]int{
	"Degraded": 0, "Unavailable": 1, "Progressing": 2, "Excluded": 3, "Outdated": 4, "Completed": 5,
}

// newNodeRow reads a node's assessment, phase, estimate and message from
// its conditions: Updating carries the phase (status True while the node
// updates), Available the MCO's notion of availability with oc's reason
// list as message, Degraded the daemon's full reason.
func newNodeRow(n *v1alpha1.NodeStatusInsight) nodeRow {
	row := nodeRow{name: n.Name, version: n.Version, rawVersion: n.Version, phaseRank: 6}
	if row.version == "" {
		row.version = "?"
	}
	upd := findCondition(n.Conditions, string(v1alpha1.NodeStatusInsightUpdating))
	avail := findCondition(n.Conditions, string(v1alpha1.NodeStatusInsightAvailable))
	deg := findCondition(n.Conditions, string(v1alpha1.NodeStatusInsightDegraded))
	if upd != nil {
		row.updating = upd.Status == metav1.ConditionTrue
		if p, ok := phaseByReason[upd.Reason]; ok {
			row.phase, row.phaseRank = p.text, p.rank
		}
	}
	row.updated = row.phase == "Updated" && !row.updating
	row.unavailable = avail != nil && avail.Status == metav1.ConditionFalse
	row.degraded = deg != nil && deg.Status == metav1.ConditionTrue
	switch row.phase {
	case "Draining", "Updating", "Rebooting":
		row.assessment = "Progressing"
	case "Paused":
		row.assessment = "Excluded"
	case "Pending":
		row.assessment = "Outdated"
	case "Updated":
		row.assessment = "Completed"
	}
	switch {
	case row.degraded:
		row.assessment, row.message = "Degraded", deg.Message
	case row.unavailable && !row.updating:
		row.assessment, row.message = "Unavailable", avail.Message
	}
	if rank, ok := assessmentRank[row.assessment]; ok {
		row.assessmentRank = rank
	} else {
		row.assessmentRank = len(assessmentRank)
	}
	row.message = ellipsizeNames(row.message, n.Name)
	switch {
	case n.EstimatedToComplete == nil:
		row.est = "?"
	case n.EstimatedToComplete.Duration == 0:
		row.est = "-"
	default:
		row.est = "+" + shortDuration(n.EstimatedToComplete.Duration)
	}
	return row
}

// nodes writes a pool's node table (oc's WriteNodes).
func (r *renderer) nodes(p *poolView, controlPlane bool) {
	if len(p.nodes) == 0 {
		return
	}
	rows := make([]nodeRow, len(p.nodes))
	allUpdated := true
	for i, n := range p.nodes {
		rows[i] = newNodeRow(n)
		allUpdated = allUpdated && rows[i].phase == "Updated"
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := &rows[i], &rows[j]
		if a.assessmentRank != b.assessmentRank {
			return a.assessmentRank < b.assessmentRank
		}
		if a.phaseRank != b.phaseRank {
			return a.phaseRank < b.phaseRank
		}
		return a.name < b.name
	})
	if controlPlane {
		if allUpdated {
			r.printf("\nAll control plane nodes successfully updated to %s\n", rows[0].rawVersion)
			return
		}
		r.printf("\nControl Plane Nodes")
	} else {
		r.printf("\nWorker Pool Nodes: %s", p.name)
	}
	detailed := r.details.enabled(DetailsNodes)
	tw := tabwriter.NewWriter(r.w, 0, 0, 3, ' ', 0)
	_, _ = io.WriteString(tw, "\nNAME\tASSESSMENT\tPHASE\tVERSION\tEST\tMESSAGE\n")
	var total, completed, available, progressing, outdated, draining, excluded int
	for i, row := range rows {
		if !detailed && i >= 10 && !row.degraded && (!row.unavailable || row.updating) {
			total++
			if row.updated {
				completed++
			} else {
				outdated++
			}
			if !row.unavailable {
				available++
			}
			if row.phase == "Draining" {
				draining++
			}
			if row.phase == "Paused" {
				excluded++
			}
			if row.assessment == "Progressing" {
				progressing++
			}
			continue
		}
		_, _ = io.WriteString(tw, row.name+"\t"+row.assessment+"\t"+row.phase+"\t"+row.version+"\t"+row.est+"\t"+row.message+"\n")
	}
	_ = tw.Flush()
	if total > 0 {
		r.printf("...\nOmitted additional %d Total, %d Completed, %d Available, %d Progressing, %d Outdated, %d Draining, %d Excluded, and 0 Degraded nodes.\nPass along --details=nodes to see all information.\n",
			total, completed, available, progressing, outdated, draining, excluded)
	}
}
