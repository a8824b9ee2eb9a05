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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                "now",
		time.Second:      "1s",
		90 * time.Second: "1m30s",
		5 * time.Minute:  "5m",
		2 * time.Hour:    "2h",
		time.Hour + 4*time.Minute + 41*time.Second:             "1h4m41s",
		time.Hour + 59*time.Minute:                             "1h59m",
		24*time.Hour + 8*time.Minute + 54*time.Second + 368975: "24h8m54s",
		45*time.Second + 368975:                                "45s",
		-34*time.Minute - 20*time.Second:                       "-34m20s",
		10 * time.Minute:                                       "10m",
	} {
		if got := ShortDuration(d); got != want {
			t.Errorf("ShortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestNodeStateOf(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus, reason, message string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message}
	}
	updating := func(status metav1.ConditionStatus, reason string) metav1.Condition {
		return cond("Updating", status, reason, "")
	}
	const long = "ip-10-0-1-2.ec2.internal"
	for _, tc := range []struct {
		name  string
		node  string
		conds []metav1.Condition
		est   *metav1.Duration
		want  NodeState
	}{
		{name: "no conditions", node: "n", want: NodeState{Est: "?", AssessmentRank: 6, PhaseRank: 6}},
		{name: "unknown reason", node: "n", conds: []metav1.Condition{updating(metav1.ConditionTrue, "Whatever")},
			want: NodeState{Est: "?", AssessmentRank: 6, PhaseRank: 6, Updating: true}},
		{name: "draining", node: "n", conds: []metav1.Condition{updating(metav1.ConditionTrue, "Draining")}, est: &metav1.Duration{Duration: 10 * time.Minute},
			want: NodeState{Assessment: "Progressing", Phase: "Draining", Est: "+10m", AssessmentRank: 2, PhaseRank: 0, Updating: true}},
		{name: "updating", node: "n", conds: []metav1.Condition{updating(metav1.ConditionTrue, "Updating")}, est: &metav1.Duration{Duration: 90 * time.Second},
			want: NodeState{Assessment: "Progressing", Phase: "Updating", Est: "+1m30s", AssessmentRank: 2, PhaseRank: 1, Updating: true}},
		{name: "rebooting, unavailable while updating", node: "n",
			conds: []metav1.Condition{updating(metav1.ConditionTrue, "Rebooting"), cond("Available", metav1.ConditionFalse, "Unavailable", "Node n is rebooting")},
			want:  NodeState{Assessment: "Progressing", Phase: "Rebooting", Est: "?", AssessmentRank: 2, PhaseRank: 2, Updating: true, Unavailable: true}},
		{name: "paused", node: "n", conds: []metav1.Condition{updating(metav1.ConditionFalse, "Paused")},
			want: NodeState{Assessment: "Excluded", Phase: "Paused", Est: "?", AssessmentRank: 3, PhaseRank: 3}},
		{name: "pending", node: "n", conds: []metav1.Condition{updating(metav1.ConditionFalse, "Pending")},
			want: NodeState{Assessment: "Outdated", Phase: "Pending", Est: "?", AssessmentRank: 4, PhaseRank: 4}},
		{name: "completed", node: "n", conds: []metav1.Condition{updating(metav1.ConditionFalse, "Completed")}, est: &metav1.Duration{},
			want: NodeState{Assessment: "Completed", Phase: "Updated", Est: "-", AssessmentRank: 5, PhaseRank: 5, Updated: true}},
		{name: "completed but still updating", node: "n", conds: []metav1.Condition{updating(metav1.ConditionTrue, "Completed")},
			want: NodeState{Assessment: "Completed", Phase: "Updated", Est: "?", AssessmentRank: 5, PhaseRank: 5, Updating: true}},
		{name: "unavailable, long name shortened", node: long,
			conds: []metav1.Condition{updating(metav1.ConditionFalse, "Completed"), cond("Available", metav1.ConditionFalse, "Unavailable", "Node "+long+" is not ready")},
			want:  NodeState{Assessment: "Unavailable", Phase: "Updated", Est: "?", Message: "Node <node> is not ready", AssessmentRank: 1, PhaseRank: 5, Updated: true, Unavailable: true}},
		{name: "unavailable, short name kept", node: "node-1",
			conds: []metav1.Condition{cond("Available", metav1.ConditionFalse, "Unavailable", "Node node-1 is not ready")},
			want:  NodeState{Assessment: "Unavailable", Est: "?", Message: "Node node-1 is not ready", AssessmentRank: 1, PhaseRank: 6, Unavailable: true}},
		{name: "degraded wins over unavailable", node: long,
			conds: []metav1.Condition{
				updating(metav1.ConditionTrue, "Draining"),
				cond("Available", metav1.ConditionFalse, "Unavailable", "not ready"),
				cond("Degraded", metav1.ConditionTrue, "Degraded", "failed to drain "+long),
			},
			want: NodeState{Assessment: "Degraded", Phase: "Draining", Est: "?", Message: "failed to drain <node>", AssessmentRank: 0, PhaseRank: 0,
				Updating: true, Unavailable: true, Degraded: true}},
		{name: "available and not degraded", node: "n",
			conds: []metav1.Condition{updating(metav1.ConditionFalse, "Pending"), cond("Available", metav1.ConditionTrue, "", "fine"), cond("Degraded", metav1.ConditionFalse, "", "fine")},
			want:  NodeState{Assessment: "Outdated", Phase: "Pending", Est: "?", AssessmentRank: 4, PhaseRank: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NodeStateOf(tc.node, tc.conds, tc.est); got != tc.want {
				t.Errorf("NodeStateOf() =\n%+v, want\n%+v", got, tc.want)
			}
		})
	}
}
