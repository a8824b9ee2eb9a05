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

package conventions

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// NodeState is how `oc adm upgrade status` shows one node, derived from its
// Node insight alone. The report's node tables (pkg/report) and the table of
// the nodeprogressinsights resource (pkg/registry) both show it.
type NodeState struct {
	// Assessment is Degraded, Unavailable, Progressing, Excluded, Outdated
	// or Completed; empty when the conditions tell none of them.
	Assessment string
	// Phase is Draining, Updating, Rebooting, Paused, Pending or Updated;
	// empty when the Updating condition tells none of them.
	Phase string
	// Est is oc's EST column: "?" when unknown, "-" when done, else
	// "+<duration>" in ShortDuration's form.
	Est string
	// Message explains a Degraded or Unavailable assessment, with a long
	// node name shortened to <node> as oc does.
	Message string

	// AssessmentRank orders node rows as oc does, most urgent first:
	// Degraded 0, Unavailable 1, Progressing 2, Excluded 3, Outdated 4,
	// Completed 5, none 6.
	AssessmentRank int
	// PhaseRank orders node rows of one assessment: Draining 0, Updating 1,
	// Rebooting 2, Paused 3, Pending 4, Updated 5, none 6.
	PhaseRank int

	// Updating is the Updating condition's status being True.
	Updating bool
	// Updated is the phase being Updated while the node no longer updates.
	Updated bool
	// Unavailable is the Available condition's status being False.
	Unavailable bool
	// Degraded is the Degraded condition's status being True.
	Degraded bool
}

// oc's node assessments and phases, the values of NodeState.Assessment and
// NodeState.Phase.
const (
	NodeAssessmentDegraded    = "Degraded"
	NodeAssessmentUnavailable = "Unavailable"
	NodeAssessmentProgressing = "Progressing"
	NodeAssessmentExcluded    = "Excluded"
	NodeAssessmentOutdated    = "Outdated"
	NodeAssessmentCompleted   = "Completed"

	NodePhaseDraining  = "Draining"
	NodePhaseUpdating  = "Updating"
	NodePhaseRebooting = "Rebooting"
	NodePhasePaused    = "Paused"
	NodePhasePending   = "Pending"
	NodePhaseUpdated   = "Updated"
)

// nodePhases maps the Updating condition's reason to oc's phase and its rank.
var nodePhases = map[string]struct {
	text string
	rank int
}{
	string(v1alpha1.NodeDraining):      {NodePhaseDraining, 0},
	string(v1alpha1.NodeUpdating):      {NodePhaseUpdating, 1},
	string(v1alpha1.NodeRebooting):     {NodePhaseRebooting, 2},
	string(v1alpha1.NodePaused):        {NodePhasePaused, 3},
	string(v1alpha1.NodeUpdatePending): {NodePhasePending, 4},
	string(v1alpha1.NodeCompleted):     {NodePhaseUpdated, 5},
}

var nodeAssessmentRanks = map[string]int{
	NodeAssessmentDegraded: 0, NodeAssessmentUnavailable: 1, NodeAssessmentProgressing: 2,
	NodeAssessmentExcluded: 3, NodeAssessmentOutdated: 4, NodeAssessmentCompleted: 5,
}

// NodeStateOf reads the state of the node named name from its Node
// insight's conditions and estimate: Updating carries the phase (status
// True while the node updates), Available the MCO's notion of availability
// with oc's reason list as message, Degraded the daemon's full reason.
func NodeStateOf(name string, conds []metav1.Condition, est *metav1.Duration) NodeState {
	st := NodeState{PhaseRank: len(nodePhases)}
	upd := meta.FindStatusCondition(conds, string(v1alpha1.NodeStatusInsightUpdating))
	avail := meta.FindStatusCondition(conds, string(v1alpha1.NodeStatusInsightAvailable))
	deg := meta.FindStatusCondition(conds, string(v1alpha1.NodeStatusInsightDegraded))
	if upd != nil {
		st.Updating = upd.Status == metav1.ConditionTrue
		if p, ok := nodePhases[upd.Reason]; ok {
			st.Phase, st.PhaseRank = p.text, p.rank
		}
	}
	st.Updated = st.Phase == NodePhaseUpdated && !st.Updating
	st.Unavailable = avail != nil && avail.Status == metav1.ConditionFalse
	st.Degraded = deg != nil && deg.Status == metav1.ConditionTrue
	switch st.Phase {
	case NodePhaseDraining, NodePhaseUpdating, NodePhaseRebooting:
		st.Assessment = NodeAssessmentProgressing
	case NodePhasePaused:
		st.Assessment = NodeAssessmentExcluded
	case NodePhasePending:
		st.Assessment = NodeAssessmentOutdated
	case NodePhaseUpdated:
		st.Assessment = NodeAssessmentCompleted
	}
	switch {
	case st.Degraded:
		st.Assessment, st.Message = NodeAssessmentDegraded, deg.Message
	case st.Unavailable && !st.Updating:
		st.Assessment, st.Message = NodeAssessmentUnavailable, avail.Message
	}
	if rank, ok := nodeAssessmentRanks[st.Assessment]; ok {
		st.AssessmentRank = rank
	} else {
		st.AssessmentRank = len(nodeAssessmentRanks)
	}
	st.Message = ellipsizeNodeName(st.Message, name)
	switch {
	case est == nil:
		st.Est = "?"
	case est.Duration == 0:
		st.Est = "-"
	default:
		st.Est = "+" + ShortDuration(est.Duration)
	}
	return st
}

// ellipsizeNodeName replaces a long node name inside its own message, as
// oc's node table does.
func ellipsizeNodeName(message, name string) string {
	if len(name) < 8 {
		return message
	}
	return strings.ReplaceAll(message, name, "<node>")
}

// ShortDuration formats d as oc does: Go's duration text without trailing
// zero units and without a fraction of a second; zero is "now".
func ShortDuration(d time.Duration) string {
	s := d.String()
	switch {
	case s == "0s":
		return "now"
	case strings.HasSuffix(s, "h0m0s"):
		return s[:len(s)-4]
	case strings.HasSuffix(s, "m0s"):
		return s[:len(s)-2]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		whole, err := time.ParseDuration(s[:i] + "s")
		if err != nil {
			return s
		}
		return ShortDuration(whole)
	}
	return s
}
