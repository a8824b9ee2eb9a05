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
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/internal/informertest"
	"github.com/update-status/apiserver/internal/testio"
	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// drainInformer is informertest.Contribution with, about pool worker, a copy of
// the server's insight about a node (which must not add a node row).
func drainInformer(t *testing.T, src *insights.Sources, now time.Time) *informersv1alpha1.UpdateInformer {
	t.Helper()
	st := insights.Compute(src, now).Status
	node := testio.WorkerNodeInsight(t, &st, "worker")
	o := informertest.Contribution("openshift-drain", "drain", now)
	o.Spec.WorkerPools[0].Insights = append(o.Spec.WorkerPools[0].Insights, *node)
	return o
}

// TestExternalInformer: an external informer's Health insights are shown,
// named in --details=health; its other insights change nothing of oc's
// layout, and neither do the server's own insights about it.
func TestExternalInformer(t *testing.T) {
	src, now := scenario(t, "4.15.0-ec2-early")
	o := drainInformer(t, src, now)
	with := *src
	with.UpdateInformers = []*informersv1alpha1.UpdateInformer{o}
	if res := insights.Compute(&with, now); len(res.Verdicts) != 1 || !res.Verdicts[0].Accepted {
		t.Fatalf("verdicts %+v", res.Verdicts)
	}
	progress := func(out string) string { return out[:strings.Index(out, "= Update Health =")] }

	for _, d := range AllDetails {
		plain, merged := render(t, src, now, d), render(t, &with, now, d)
		if progress(merged) != progress(plain) {
			t.Errorf("--details=%s: an external informer changed the progress sections:\n%s\nwant\n%s", d, progress(merged), progress(plain))
		}
		for _, summary := range []string{informertest.ContributionControlPlaneSummary, informertest.ContributionPoolSummary} {
			if !strings.Contains(merged, summary) {
				t.Errorf("--details=%s: %q is not shown:\n%s", d, summary, merged)
			}
		}
		if strings.Contains(plain, "Informer:") {
			t.Errorf("--details=%s: an Informer line without external informers:\n%s", d, plain)
		}
		named := strings.Count(merged, "\n  Informer:    drain.openshift-drain\n")
		if want := map[bool]int{true: 2, false: 0}[d == DetailsHealth || d == DetailsAll]; named != want {
			t.Errorf("--details=%s: the informer is named %d times, want %d:\n%s", d, named, want, merged)
		}
	}
	detailed := render(t, &with, now, DetailsHealth)
	block := detailed[strings.Index(detailed, "Message: "+informertest.ContributionPoolSummary):]
	block = block[:strings.Index(block, "Description:")]
	if !strings.Contains(block, "Reference:   https://example.com/pdb\n  Informer:    drain.openshift-drain\n") {
		t.Errorf("the Informer line is not below the reference:\n%s", block)
	}

	// The lease lapses: the server's own insight says so, and names no
	// informer line of its own.
	lapsed := render(t, &with, now.Add(2*time.Minute), DetailsHealth)
	if !strings.Contains(lapsed, "Message: Informer drain.openshift-drain stopped reporting at") || strings.Contains(lapsed, "Informer:") ||
		strings.Contains(lapsed, informertest.ContributionPoolSummary) {
		t.Errorf("after the lease:\n%s", lapsed)
	}
}

// TestDrainBlockedNode: a node that an external informer's Health insight
// names with a PodDisruptionBudget says "blocked by <budget>" in the
// MESSAGE column, and is shown even past the tenth row; without such an
// insight the node tables are unchanged.
func TestDrainBlockedNode(t *testing.T) {
	src, now := scenario(t, "4.15.0-ec2-early")
	addWorkers(src)
	base := insights.Compute(src, now).Status
	var cpNode string
	for _, inf := range base.ControlPlane.Informers {
		for _, in := range inf.Insights {
			if n := in.Insight.NodeStatusInsight; n != nil && cpNode == "" {
				cpNode = n.Name
			}
		}
	}
	if cpNode == "" {
		t.Fatal("the scenario has no control plane node")
	}
	const (
		drainInformer = "drain.update-status-drain"
		omitted       = "extra-10.us-east-2.compute.internal"
		degraded      = "extra-11.us-east-2.compute.internal"
	)
	node := func(name string) v1alpha1.ResourceRef { return v1alpha1.ResourceRef{Resource: "nodes", Name: name} }
	pod := func(ns, name string) v1alpha1.ResourceRef {
		return v1alpha1.ResourceRef{Resource: "pods", Namespace: ns, Name: name}
	}
	pdb := func(ns, name string) v1alpha1.ResourceRef {
		return v1alpha1.ResourceRef{Group: "policy", Resource: "poddisruptionbudgets", Namespace: ns, Name: name}
	}
	health := func(scope v1alpha1.ScopeType, refs ...v1alpha1.ResourceRef) *v1alpha1.HealthStatusInsight {
		return &v1alpha1.HealthStatusInsight{StartedAt: metav1.NewTime(now.Add(-time.Minute)),
			Scope: v1alpha1.InsightScope{Type: scope, Resources: refs},
			Impact: v1alpha1.InsightImpact{Level: v1alpha1.WarningImpactLevel, Type: v1alpha1.UpdateStalledImpactType,
				Summary: "Drain is blocked", Description: "A PodDisruptionBudget allows no disruption."},
			Remediation: v1alpha1.InsightRemediation{Reference: "https://example.com/drain"}}
	}
	type contribution struct {
		informer     string
		controlPlane bool
		refs         []v1alpha1.ResourceRef
	}
	// line is the node's row in out, "" when it is not shown.
	line := func(out, name string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, name+" ") {
				return l
			}
		}
		return ""
	}
	plain := map[Details]string{}
	for _, d := range []Details{DetailsNone, DetailsNodes} {
		plain[d] = renderStatus(t, &base, now, d)
		if strings.Contains(plain[d], "blocked by") {
			t.Fatalf("--details=%s: blocked without an informer:\n%s", d, plain[d])
		}
	}
	if line(plain[DetailsNone], omitted) != "" {
		t.Fatalf("%s is shown without --details=nodes; the test needs it omitted:\n%s", omitted, plain[DetailsNone])
	}

	for _, tc := range []struct {
		name string
		add  []contribution
		// want are the MESSAGE texts of the blocked nodes; nil: the
		// output is the one without the contributions.
		want map[string]string
	}{
		{name: "the drain informer's insight", add: []contribution{{informer: drainInformer,
			refs: []v1alpha1.ResourceRef{node(omitted), pod("shop", "db-0"), pdb("shop", "db")}}},
			want: map[string]string{omitted: "blocked by shop/db"}},
		{name: "any external informer, budgets of two insights merged and sorted", add: []contribution{
			{informer: "ns.other", refs: []v1alpha1.ResourceRef{node(omitted), pdb("shop", "db")}},
			{informer: drainInformer, refs: []v1alpha1.ResourceRef{node(omitted), pdb("auth", "sso"), pdb("shop", "db")}}},
			want: map[string]string{omitted: "blocked by auth/sso, shop/db"}},
		{name: "appended to oc's message", add: []contribution{{informer: drainInformer,
			refs: []v1alpha1.ResourceRef{node(degraded), pdb("shop", "db")}}},
			want: map[string]string{degraded: "disk full on <node>; blocked by shop/db"}},
		{name: "a control plane node", add: []contribution{{informer: drainInformer, controlPlane: true,
			refs: []v1alpha1.ResourceRef{node(cpNode), pod("etcd", "guard"), pdb("etcd", "guard")}}},
			want: map[string]string{cpNode: "blocked by etcd/guard"}},
		{name: "a node without a budget", add: []contribution{{informer: drainInformer,
			refs: []v1alpha1.ResourceRef{node(omitted), pod("shop", "db-0")}}}},
		{name: "a budget without a node", add: []contribution{{informer: drainInformer,
			refs: []v1alpha1.ResourceRef{pod("shop", "db-0"), pdb("shop", "db")}}}},
		{name: "the server's own informer", add: []contribution{{informer: v1alpha1.InformerNodes,
			refs: []v1alpha1.ResourceRef{node(omitted), pdb("shop", "db")}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := base.DeepCopy()
			for i, c := range tc.add {
				uid := fmt.Sprintf("drain-%d", i)
				if c.controlPlane {
					st.ControlPlane.Informers = append(st.ControlPlane.Informers, v1alpha1.ControlPlaneInformer{Name: c.informer,
						Insights: []v1alpha1.ControlPlaneInsight{{UID: uid, AcquiredAt: metav1.NewTime(now),
							Insight: v1alpha1.ControlPlaneInsightUnion{Type: v1alpha1.HealthInsightType,
								HealthInsight: health(v1alpha1.ControlPlaneScope, c.refs...)}}}})
					continue
				}
				wp := &st.WorkerPools[0]
				wp.Informers = append(wp.Informers, v1alpha1.WorkerPoolInformer{Name: c.informer,
					Insights: []v1alpha1.WorkerPoolInsight{{UID: uid, AcquiredAt: metav1.NewTime(now),
						Insight: v1alpha1.WorkerPoolInsightUnion{Type: v1alpha1.HealthInsightType,
							HealthInsight: health(v1alpha1.WorkerPoolScope, c.refs...)}}}})
			}
			for _, d := range []Details{DetailsNone, DetailsNodes} {
				out := renderStatus(t, st, now, d)
				if tc.want == nil {
					if nodes(out) != nodes(plain[d]) {
						t.Errorf("--details=%s: the node tables changed:\n%s\nwant\n%s", d, nodes(out), nodes(plain[d]))
					}
					continue
				}
				if got := strings.Count(out, "blocked by"); got != len(tc.want) {
					t.Errorf("--details=%s: %d lines say blocked, want %d:\n%s", d, got, len(tc.want), out)
				}
				for name, msg := range tc.want {
					if l := line(out, name); !strings.HasSuffix(l, "   "+msg) {
						t.Errorf("--details=%s: the line of %s is %q, want it to end in %q:\n%s", d, name, l, msg, out)
					}
				}
				if _, shown := tc.want[omitted]; shown && d == DetailsNone &&
					!strings.Contains(out, "\nOmitted additional 4 Total, 0 Completed, 4 Available, 0 Progressing, 4 Outdated,") {
					t.Errorf("--details=%s: the omitted nodes still count %s:\n%s", d, omitted, out)
				}
				// Everything else is oc's: the other rows, the other
				// columns of the blocked one.
				for _, l := range strings.Split(nodes(plain[d]), "\n") {
					name, _, _ := strings.Cut(l, " ")
					if tc.want[name] == "" && name != "Omitted" && !strings.Contains(out, l+"\n") {
						t.Errorf("--details=%s: the line %q is gone:\n%s", d, l, out)
					}
				}
			}
		})
	}
}

// nodes is the part of a report with the node tables.
func nodes(out string) string {
	start := strings.Index(out, "\nControl Plane Nodes")
	end := strings.Index(out, "= Update Health =")
	if start < 0 || end < start {
		return out
	}
	return out[start:end]
}
