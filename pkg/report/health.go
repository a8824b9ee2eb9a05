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
	"cmp"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// healthRow is one Health insight as the report shows it.
type healthRow struct {
	since, level, impact, message, description, reference string
	resources                                             []v1alpha1.ResourceRef
	// informer names the external informer of the insight; empty for the
	// server's own.
	informer string
}

// collectionKey orders Health insights the way oc collects them (nodes and
// pools per pool, alerts, the ClusterVersion, the ClusterOperators, the
// previous-update insight), which decides the order of insights that tie on
// start time and level. The kind comes from the uid (v1alpha1.HealthKind).
type collectionKey struct {
	rank     int
	pool     int
	poolName string
	name     string
	sub      int
	summary  string
	uid      string
}

// less compares the fields in their order of declaration.
func (a collectionKey) less(b collectionKey) bool {
	return cmp.Or(
		cmp.Compare(a.rank, b.rank),
		cmp.Compare(a.pool, b.pool),
		strings.Compare(a.poolName, b.poolName),
		strings.Compare(a.name, b.name),
		cmp.Compare(a.sub, b.sub),
		strings.Compare(a.summary, b.summary),
		strings.Compare(a.uid, b.uid),
	) < 0
}

func (r *renderer) collectionKey(e healthEntry) collectionKey {
	k := collectionKey{rank: 5, uid: e.uid}
	if e.external != "" {
		// Its uid is the informer's choice and says nothing of its kind.
		k.name = e.external
		return k
	}
	subject := ""
	if rs := e.insight.Scope.Resources; len(rs) > 0 {
		subject = rs[0].Name
	}
	switch conventions.KindOf(e.uid) {
	case v1alpha1.HealthNodeUnavailable, v1alpha1.HealthNodeDegraded:
		pool := r.v.nodePool[subject]
		k.rank, k.pool, k.poolName, k.name = 0, r.v.poolRank[pool], pool, subject
		if conventions.KindOf(e.uid) == v1alpha1.HealthNodeDegraded {
			k.sub = 1
		}
	case v1alpha1.HealthPoolPaused:
		k.rank, k.pool, k.poolName, k.name, k.sub = 0, r.v.poolRank[subject], subject, "\xff", 2
	case v1alpha1.HealthAlert:
		k.rank, k.summary = 1, e.insight.Impact.Summary
	case v1alpha1.HealthCVNoFailing, v1alpha1.HealthCVFailing:
		k.rank = 2
	case v1alpha1.HealthCOUnavailable:
		k.rank, k.name = 3, subject
	case v1alpha1.HealthCODegraded:
		k.rank, k.name, k.sub = 3, subject, 1
	case v1alpha1.HealthPreviousPartial:
		k.rank = 4
	}
	return k
}

// complete tells whether the report shows a Health insight. oc leaves out
// an insight that lacks a summary, a description or a reference
// (assessUpdateInsights); the API requires the summary and the reference,
// so in practice this drops the insights that carry no description. When no
// insight is left, the section reads "Update is proceeding well".
func complete(h *v1alpha1.HealthStatusInsight) bool {
	return h.Impact.Summary != "" && h.Impact.Description != "" && h.Remediation.Reference != ""
}

// sortedHealth returns the Health insights the report shows (see complete),
// ordered as oc does: newest first, then by level, ties in collection order.
func (r *renderer) sortedHealth() []healthEntry {
	entries := make([]healthEntry, 0, len(r.v.health))
	for _, e := range r.v.health {
		if complete(e.insight) {
			entries = append(entries, e)
		}
	}
	keys := make(map[string]collectionKey, len(entries))
	for _, e := range entries {
		keys[e.uid] = r.collectionKey(e)
	}
	sort.SliceStable(entries, func(i, j int) bool { return keys[entries[i].uid].less(keys[entries[j].uid]) })
	started := func(e healthEntry) time.Time {
		if t := e.insight.StartedAt.Time; !conventions.IsUnknownTime(t) {
			return t
		}
		return time.Time{}
	}
	sort.SliceStable(entries, func(i, j int) bool { return started(entries[i]).After(started(entries[j])) })
	sort.SliceStable(entries, func(i, j int) bool {
		return conventions.LevelRank(entries[i].insight.Impact.Level) > conventions.LevelRank(entries[j].insight.Impact.Level)
	})
	return entries
}

func (r *renderer) since(t metav1.Time) string {
	if conventions.IsUnknownTime(t.Time) {
		return "-"
	}
	return conventions.ShortDuration(r.now.Sub(t.Time).Truncate(time.Second))
}

// health writes the "Update Health" section.
func (r *renderer) health() {
	r.printf("= Update Health =\n")
	entries := r.sortedHealth()
	if len(entries) == 0 {
		started := time.Time{}
		if cv := r.v.cv; cv != nil {
			started = cv.StartedAt.Time
		} else if c := r.v.cpUpdating; c != nil {
			started = c.LastTransitionTime.Time
		}
		r.table([]healthRow{{
			since:   conventions.ShortDuration(r.now.Sub(started).Round(time.Second)),
			level:   string(v1alpha1.InfoImpactLevel),
			impact:  string(v1alpha1.NoneImpactType),
			message: "Update is proceeding well",
		}})
		return
	}
	rows := make([]healthRow, len(entries))
	for i, e := range entries {
		h := e.insight
		rows[i] = healthRow{
			since:       r.since(h.StartedAt),
			level:       string(h.Impact.Level),
			impact:      string(h.Impact.Type),
			message:     h.Impact.Summary,
			description: r.fullDescription(e),
			reference:   conventions.ReferenceText(h.Remediation.Reference),
			resources:   h.Scope.Resources,
			informer:    e.external,
		}
	}
	if r.details.enabled(DetailsHealth) {
		r.detailed(rows)
		return
	}
	r.table(rows)
}

func (r *renderer) table(rows []healthRow) {
	tw := tabwriter.NewWriter(r.w, 0, 0, 3, ' ', 0)
	_, _ = io.WriteString(tw, "SINCE\tLEVEL\tIMPACT\tMESSAGE\n")
	for _, row := range rows {
		_, _ = io.WriteString(tw, row.since+"\t"+row.level+"\t"+row.impact+"\t"+row.message+"\n")
	}
	_ = tw.Flush()
	if len(rows) > 1 || rows[0].level != string(v1alpha1.InfoImpactLevel) {
		r.printf("\nRun with --details=health for additional description and links to related online documentation\n")
	}
}

func (r *renderer) detailed(rows []healthRow) {
	const pad = len("Description: ")
	for i, row := range rows {
		r.printf("Message: %s\n", row.message)
		r.printf("  %-*s%s\n", pad, "Since:", row.since)
		r.printf("  %-*s%s\n", pad, "Level:", row.level)
		r.printf("  %-*s%s\n", pad, "Impact:", row.impact)
		r.printf("  %-*s%s\n", pad, "Reference:", row.reference)
		if row.informer != "" {
			r.printf("  %-*s%s\n", pad, "Informer:", row.informer)
		}
		if len(row.resources) > 0 {
			byKind := map[string][]string{}
			var kinds []string
			width := 0
			for _, res := range row.resources {
				kind := res.Resource
				if res.Group != "" {
					kind += "." + res.Group
				}
				kind += ": "
				if _, ok := byKind[kind]; !ok {
					kinds = append(kinds, kind)
				}
				name := res.Name
				if res.Resource == "alerts" {
					name = conventions.DecodeAlertName(name)
				}
				if res.Namespace != "" {
					name = res.Namespace + "/" + name
				}
				byKind[kind] = append(byKind[kind], name)
				width = max(width, len(kind))
			}
			sort.Strings(kinds)
			r.printf("  Resources:\n")
			for _, kind := range kinds {
				names := byKind[kind]
				sort.Strings(names)
				r.printf("    %-*s%s\n", width, kind, strings.Join(names, ", "))
			}
		}
		desc := strings.ReplaceAll(row.description, "\n", fmt.Sprintf("\n%s, ", strings.Repeat(" ", pad+2)))
		r.printf("  %-*s%s\n", pad, "Description:", desc)
		if i+1 < len(rows) {
			r.printf("\n")
		}
	}
}

// fullDescription returns an insight's description; when the engine had to
// shorten it (conventions.TruncationMarker), the full text is taken from the
// status insight condition that carries it, if the object has one.
func (r *renderer) fullDescription(e healthEntry) string {
	d := e.insight.Impact.Description
	if !conventions.IsTruncated(d) || len(e.insight.Scope.Resources) == 0 || e.external != "" {
		return d
	}
	prefix := conventions.TruncatedPrefix(d)
	subject := e.insight.Scope.Resources[0].Name
	var full string
	switch conventions.KindOf(e.uid) {
	case v1alpha1.HealthCOUnavailable, v1alpha1.HealthCODegraded:
		for _, co := range r.v.operators {
			if co.Name == subject {
				if c := findCondition(co.Conditions, string(v1alpha1.ClusterOperatorStatusInsightHealthy)); c != nil {
					full = c.Message
				}
			}
		}
	case v1alpha1.HealthNodeDegraded, v1alpha1.HealthNodeUnavailable:
		for _, p := range append([]*poolView{r.v.master}, r.v.workers...) {
			if p == nil {
				continue
			}
			for _, n := range p.nodes {
				if n.Name == subject {
					if c := findCondition(n.Conditions, string(v1alpha1.NodeStatusInsightDegraded)); c != nil && c.Status == metav1.ConditionTrue {
						full = c.Message
					}
				}
			}
		}
	}
	if full != "" && !conventions.IsTruncated(full) && strings.HasPrefix(full, prefix) {
		return full
	}
	return d
}
