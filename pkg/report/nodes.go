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
	name, version string
	// rawVersion is the node's version, empty when unknown.
	rawVersion string
	NodeState
}

// NodeState is how `oc adm upgrade status` shows one node, derived from its
// Node insight. The report's node tables and the table of the
// nodeprogressinsights resource both show it.
type NodeState struct {
	// Assessment is Degraded, Unavailable, Progressing, Excluded, Outdated
	// or Completed; empty when the conditions tell none of them.
	Assessment string
	// Phase is Draining, Updating, Rebooting, Paused, Pending or Updated;
	// empty when the Updating condition tells none of them.
	Phase string
	// Est is oc's EST column: "?" when unknown, "-" when done, else
	// "+<duration>".
	Est string
	// Message explains a Degraded or Unavailable assessment, with a long
	// node name shortened to <node> as oc does.
	Message string

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

func newNodeRow(n *v1alpha1.NodeStatusInsight) nodeRow {
	row := nodeRow{name: n.Name, version: n.Version, rawVersion: n.Version, NodeState: NodeStateOf(n.Name, n.Conditions, n.EstimatedToComplete)}
	if row.version == "" {
		row.version = "?"
	}
	return row
}

// NodeStateOf reads the state of the node named name from its Node
// insight's conditions and estimate: Updating carries the phase (status
// True while the node updates), Available the MCO's notion of availability
// with oc's reason list as message, Degraded the daemon's full reason.
func NodeStateOf(name string, conds []metav1.Condition, est *metav1.Duration) NodeState {
	st := NodeState{phaseRank: 6}
	upd := findCondition(conds, string(v1alpha1.NodeStatusInsightUpdating))
	avail := findCondition(conds, string(v1alpha1.NodeStatusInsightAvailable))
	deg := findCondition(conds, string(v1alpha1.NodeStatusInsightDegraded))
	if upd != nil {
		st.updating = upd.Status == metav1.ConditionTrue
		if p, ok := phaseByReason[upd.Reason]; ok {
			st.Phase, st.phaseRank = p.text, p.rank
		}
	}
	st.updated = st.Phase == "Updated" && !st.updating
	st.unavailable = avail != nil && avail.Status == metav1.ConditionFalse
	st.degraded = deg != nil && deg.Status == metav1.ConditionTrue
	switch st.Phase {
	case "Draining", "Updating", "Rebooting":
		st.Assessment = "Progressing"
	case "Paused":
		st.Assessment = "Excluded"
	case "Pending":
		st.Assessment = "Outdated"
	case "Updated":
		st.Assessment = "Completed"
	}
	switch {
	case st.degraded:
		st.Assessment, st.Message = "Degraded", deg.Message
	case st.unavailable && !st.updating:
		st.Assessment, st.Message = "Unavailable", avail.Message
	}
	if rank, ok := assessmentRank[st.Assessment]; ok {
		st.assessmentRank = rank
	} else {
		st.assessmentRank = len(assessmentRank)
	}
	st.Message = ellipsizeNames(st.Message, name)
	switch {
	case est == nil:
		st.Est = "?"
	case est.Duration == 0:
		st.Est = "-"
	default:
		st.Est = "+" + shortDuration(est.Duration)
	}
	return st
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
		allUpdated = allUpdated && rows[i].Phase == "Updated"
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
			if row.Phase == "Draining" {
				draining++
			}
			if row.Phase == "Paused" {
				excluded++
			}
			if row.Assessment == "Progressing" {
				progressing++
			}
			continue
		}
		_, _ = io.WriteString(tw, row.name+"\t"+row.Assessment+"\t"+row.Phase+"\t"+row.version+"\t"+row.Est+"\t"+row.Message+"\n")
	}
	_ = tw.Flush()
	if total > 0 {
		r.printf("...\nOmitted additional %d Total, %d Completed, %d Available, %d Progressing, %d Outdated, %d Draining, %d Excluded, and 0 Degraded nodes.\nPass along --details=nodes to see all information.\n",
			total, completed, available, progressing, outdated, draining, excluded)
	}
}
