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

package insights

import (
	"time"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Signal is a health signal an adapter reads from its objects where the
// model has no rule that would derive it: a condition of the cluster's own
// kind that stalls its update (docs/insights.md#adapter-signals). The
// engine turns each into a Health insight, showing it once After has passed
// since Since, and files it under its pool or the control plane.
type Signal struct {
	// Kind is the insight's kind, the prefix of its uid.
	Kind v1alpha1.HealthKind
	// Resource is the object the signal is about, which the uid names;
	// nil names Subject instead.
	Resource *v1alpha1.ResourceRef
	Subject  string
	// Pool is the name of the pool the signal belongs to; "" is the control
	// plane.
	Pool string
	// Since is when the condition began; After how long it must last
	// before it is shown (0: at once), ErrorAfter how long before its level
	// becomes Error (0: never).
	Since             time.Time
	After, ErrorAfter time.Duration
	// Level, Impact, Summary, Description and Reference are the insight's.
	Level                           v1alpha1.InsightImpactLevel
	Impact                          v1alpha1.InsightImpactType
	Summary, Description, Reference string
	// Changed is the latest change of the objects the signal was read from.
	Changed time.Time
}

// signals turns the adapter's signals into health insights: those of the
// control plane and those of pools, and the next instant at which one
// appears by time alone. An unchanged insight is the one of the last
// evaluation, so that it is not seen as a change.
func (e *Engine) signals(list []Signal, now time.Time) (cp, pools []*healthItem, next time.Time) {
	if len(list) == 0 && len(e.signalMemo) == 0 {
		return nil, nil, time.Time{}
	}
	memo := make(map[string]*healthItem, len(list))
	for i := range list {
		s := &list[i]
		if s.After > 0 {
			if at := s.Since.Add(s.After); !now.After(at) {
				next = earliest(next, at.Add(time.Nanosecond))
				continue
			}
		}
		scope := v1alpha1.ControlPlaneScope
		if s.Pool != "" {
			scope = v1alpha1.WorkerPoolScope
		}
		level := s.Level
		if s.ErrorAfter > 0 {
			if at := s.Since.Add(s.ErrorAfter); now.After(at) {
				level = v1alpha1.ErrorImpactLevel
			} else {
				next = earliest(next, at.Add(time.Nanosecond))
			}
		}
		h := newHealth(s.Kind, s.Subject, s.Resource, scope, s.Since, level, s.Impact, s.Summary, s.Description, s.Reference)
		if h == nil {
			continue
		}
		h.acquired, h.pool = s.Changed, s.Pool
		if _, dup := memo[h.uid]; dup {
			continue
		}
		if old := e.signalMemo[h.uid]; old != nil && old.pool == h.pool && old.acquired.Equal(h.acquired) &&
			equality.Semantic.DeepEqual(old.insight, h.insight) {
			h = old
		}
		memo[h.uid] = h
		if s.Pool != "" {
			pools = append(pools, h)
		} else {
			cp = append(cp, h)
		}
	}
	e.signalMemo = memo
	return cp, pools, next
}
