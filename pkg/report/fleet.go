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
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// The severity classes of the fleet view, worst first: the first order key
// of its rows (docs/hosted.md#the-fleet-from-the-command-line).
const (
	// fleetStalled: a Health insight says the update does not proceed
	// (conventions.StallsUpdate), or the control plane is more than ten
	// minutes past its estimate (Stalled).
	fleetStalled = iota
	// fleetSlow: the control plane is past its estimate (Progressing - Slow).
	fleetSlow
	// fleetUnknown: the control plane's progress cannot be established.
	fleetUnknown
	// fleetProgressing: the rest, the control plane progressing or done
	// while NodePools update.
	fleetProgressing
)

// fleetRow is one hosted cluster of the fleet view.
type fleetRow struct {
	key                                              string
	update, controlPlane, pools, nodes, health, left string
	class                                            int
	// level is the LevelRank of the worst Health insight.
	level int
}

// RenderFleet writes the fleet view of the hosted clusters objs as seen at
// now: a table of one row per hosted cluster that is updating (the same
// test as the one-cluster report's), worst first, then one line counting
// the hosted clusters that are not updating (naming them when they are at
// most five). The rows are ordered by
// severity class (stalled, then slow, then unknown, then progressing), then
// by the level of the worst Health insight (Critical first), then by
// namespace/name.
func RenderFleet(w io.Writer, objs []v1alpha1.HostedClusterUpdateStatus, now time.Time) error {
	bw := bufio.NewWriter(w)
	if len(objs) == 0 {
		_, _ = io.WriteString(bw, "No hosted clusters found.\n")
		return bw.Flush()
	}
	var rows []fleetRow
	var idle []string
	for i := range objs {
		row, updating := newFleetRow(&objs[i], now)
		if !updating {
			idle = append(idle, objs[i].Namespace+"/"+objs[i].Name)
			continue
		}
		rows = append(rows, row)
	}
	slices.SortFunc(rows, func(a, b fleetRow) int {
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(b.level, a.level), cmp.Compare(a.key, b.key))
	})
	if len(rows) > 0 {
		tw := tabwriter.NewWriter(bw, 0, 0, 3, ' ', 0)
		_, _ = io.WriteString(tw, "HOSTED CLUSTER\tUPDATE\tCONTROL PLANE\tNODE POOLS\tNODES\tWORST HEALTH\tEST. REMAINING\n")
		for _, r := range rows {
			_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.key, r.update, r.controlPlane, r.pools, r.nodes, r.health, r.left)
		}
		_ = tw.Flush()
	}
	if len(idle) > 0 {
		if len(rows) > 0 {
			_, _ = io.WriteString(bw, "\n")
		}
		_, _ = io.WriteString(bw, idleLine(idle))
	}
	return bw.Flush()
}

// fleetNamedIdle is how many hosted clusters not updating the fleet view
// names; past it, it only counts them.
const fleetNamedIdle = 5

// idleLine is the fleet view's last line: the count of the hosted clusters
// not updating, keys, and their names (sorted) when there are at most
// fleetNamedIdle.
func idleLine(keys []string) string {
	noun := "hosted clusters"
	if len(keys) == 1 {
		noun = "hosted cluster"
	}
	line := fmt.Sprintf("%d %s not updating", len(keys), noun)
	if len(keys) <= fleetNamedIdle {
		slices.Sort(keys)
		line += ": " + strings.Join(keys, ", ")
	}
	return line + "\n"
}

// newFleetRow summarizes obj at now; updating is false when the hosted
// cluster is not updating.
func newFleetRow(obj *v1alpha1.HostedClusterUpdateStatus, now time.Time) (row fleetRow, updating bool) {
	v := newView(&obj.Status, nil)
	if !v.updating() {
		return row, false
	}
	r := &renderer{now: now, v: v}
	row = fleetRow{key: obj.Namespace + "/" + obj.Name, update: "unknown", left: "-", class: fleetProgressing}
	assessment := "Unknown"
	if cv := v.cv; cv != nil {
		row.update = cv.Versions.Previous.Version + " -> " + cv.Versions.Target.Version
		if cv.Assessment == v1alpha1.ControlPlaneAssessmentCompleted {
			assessment = string(cv.Assessment)
		} else {
			estimate, _ := conventions.InsightRemaining(cv, now)
			assessment = assessmentText(cv, estimate)
			switch {
			case estimate == 0:
			case estimate < -10*time.Minute || conventions.HasMetadata(cv.Versions.Target.Metadata, v1alpha1.ArchitectureMetadata):
				row.left = "N/A"
			default:
				row.left = remainingText(estimate, now.Sub(cv.StartedAt.Time))
			}
		}
	}
	switch assessment {
	case "Stalled":
		row.class = fleetStalled
	case "Progressing - Slow":
		row.class = fleetSlow
	case "Unknown":
		row.class = fleetUnknown
	}
	row.controlPlane = assessment
	if ops := r.operatorState(); v.cv != nil || ops.total > 0 {
		row.controlPlane = fmt.Sprintf("%s %d%%", assessment, r.completion(ops))
	}
	var poolsDone, nodes, outdated int
	for _, p := range v.workers {
		if p.mcp == nil {
			continue
		}
		if p.mcp.Assessment == v1alpha1.PoolCompleted {
			poolsDone++
		}
		nodes += p.total()
		outdated += p.summary(v1alpha1.NodesOutdated)
	}
	row.pools = fmt.Sprintf("%d/%d", poolsDone, len(v.workers))
	row.nodes = fmt.Sprintf("%d/%d", nodes-outdated, nodes)
	row.health = "None"
	var worst *v1alpha1.HealthStatusInsight
	for _, e := range v.health {
		h := e.insight
		stalls := conventions.StallsUpdate(h.Impact.Level, h.Impact.Type)
		if stalls {
			row.class = fleetStalled
		}
		rank := conventions.LevelRank(h.Impact.Level)
		if worst == nil || rank > row.level || rank == row.level && stalls {
			worst, row.level = h, rank
		}
	}
	if worst != nil {
		row.health = fmt.Sprintf("%s (%s)", worst.Impact.Level, worst.Impact.Type)
	}
	return row, true
}
