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

package report

import (
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// nodeRow is one row of a node table, derived from a Node insight.
type nodeRow struct {
	name, version string
	// rawVersion is the node's version, empty when unknown.
	rawVersion string
	conventions.NodeState
	// blocked says an external informer's Health insight holds the node's
	// drain; the message then names the budgets.
	blocked bool
}

func newNodeRow(n *v1alpha1.NodeStatusInsight, blockedBy []string) nodeRow {
	row := nodeRow{name: n.Name, version: n.Version, rawVersion: n.Version, NodeState: conventions.NodeStateOf(n.Name, n.Conditions, n.EstimatedToComplete)}
	if row.version == "" {
		row.version = "?"
	}
	if len(blockedBy) > 0 {
		// MESSAGE is the last column: the words fit after oc's message
		// without moving another column.
		row.blocked = true
		blocked := "blocked by " + strings.Join(blockedBy, ", ")
		if row.Message == "" {
			row.Message = blocked
		} else {
			row.Message += "; " + blocked
		}
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
		rows[i] = newNodeRow(n, r.v.blockedBy[n.Name])
		allUpdated = allUpdated && rows[i].Phase == conventions.NodePhaseUpdated
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := &rows[i], &rows[j]
		if a.AssessmentRank != b.AssessmentRank {
			return a.AssessmentRank < b.AssessmentRank
		}
		if a.PhaseRank != b.PhaseRank {
			return a.PhaseRank < b.PhaseRank
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
		r.printf("\n%s: %s", r.words.poolNodes, p.name)
	}
	detailed := r.details.enabled(DetailsNodes)
	tw := tabwriter.NewWriter(r.w, 0, 0, 3, ' ', 0)
	_, _ = io.WriteString(tw, "\nNAME\tASSESSMENT\tPHASE\tVERSION\tEST\tMESSAGE\n")
	var total, completed, available, progressing, outdated, draining, excluded int
	for i, row := range rows {
		// A node whose drain is held is shown, as a degraded one is.
		if !detailed && i >= 10 && !row.Degraded && !row.blocked && (!row.Unavailable || row.Updating) {
			total++
			if row.Updated {
				completed++
			} else {
				outdated++
			}
			if !row.Unavailable {
				available++
			}
			if row.Phase == conventions.NodePhaseDraining {
				draining++
			}
			if row.Phase == conventions.NodePhasePaused {
				excluded++
			}
			if row.Assessment == conventions.NodeAssessmentProgressing {
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
