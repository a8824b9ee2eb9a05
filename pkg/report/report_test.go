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
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/internal/fixtures"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sourcefiles"
)

func TestRoundedDuration(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{
		10 * time.Minute:                         10 * time.Minute,
		10*time.Minute + 29*time.Second:          10 * time.Minute,
		10*time.Minute + 30*time.Second:          11 * time.Minute,
		time.Minute + 29*time.Second + 500000000: time.Minute + 30*time.Second,
	} {
		if got := roundedDuration(d); got != want {
			t.Errorf("roundedDuration(%v) = %v, want %v", d, got, want)
		}
	}
}

func TestEllipsis(t *testing.T) {
	for in, want := range map[string]string{
		"NodeInstaller":          "NodeInstaller",
		"12345678901234567890":   "12345678901234567890",
		"123456789012345678901":  "12345678901234567...",
		"ÄÖÜäöüßÄÖÜäöüßÄÖÜäöüßÄ": "ÄÖÜäöüßÄÖÜäöüßÄÖÜ...",
	} {
		if got := ellipsis(in, 20); got != want {
			t.Errorf("ellipsis(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseDetails(t *testing.T) {
	for _, d := range AllDetails {
		if got, err := ParseDetails(string(d)); err != nil || got != d {
			t.Errorf("ParseDetails(%q) = %q, %v", d, got, err)
		}
	}
	if _, err := ParseDetails("everything"); err == nil || !strings.Contains(err.Error(), "none, all, nodes, health, operators") {
		t.Errorf("error %v", err)
	}
}

// scenario loads a fixture scenario for tests that edit it.
func scenario(t *testing.T, name string) (*insights.Sources, time.Time) {
	t.Helper()
	src, err := sourcefiles.LoadScenario(fixtures.Dir(t), name)
	if err != nil {
		t.Fatal(err)
	}
	return src, sourcefiles.MockNow(src)
}

func render(t *testing.T, src *insights.Sources, now time.Time, d Details) string {
	t.Helper()
	res := insights.Compute(src, now)
	var b bytes.Buffer
	if err := Render(&b, &v1alpha1.UpdateStatus{Status: res.Status}, now, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// addWorkers adds to src twelve copies of its last node, extra-00 to
// extra-11, the last one Degraded: more rows than a node table shows.
func addWorkers(src *insights.Sources) {
	worker := src.Nodes[len(src.Nodes)-1]
	for i := 0; i < 12; i++ {
		n := worker.DeepCopy()
		n.Name = fmt.Sprintf("extra-%02d.us-east-2.compute.internal", i)
		n.UID = types.UID(fmt.Sprintf("extra-%d", i))
		if i == 11 {
			n.Annotations["machineconfiguration.openshift.io/state"] = "Degraded"
			n.Annotations["machineconfiguration.openshift.io/reason"] = "disk full on " + n.Name
		}
		src.Nodes = append(src.Nodes, n)
	}
}

func TestNodeTableShowsTenRows(t *testing.T) {
	src, now := scenario(t, "4.15.0-ec2-early")
	addWorkers(src)
	out := render(t, src, now, DetailsNone)
	if !strings.Contains(out, "extra-11.us-east-2.compute.internal   Degraded") ||
		!strings.Contains(out, "disk full on <node>") {
		t.Errorf("a degraded node must always be shown, with its name shortened in its message:\n%s", out)
	}
	want := "...\nOmitted additional 5 Total, 0 Completed, 5 Available, 0 Progressing, 5 Outdated, 0 Draining, 0 Excluded, and 0 Degraded nodes.\n" +
		"Pass along --details=nodes to see all information.\n"
	if !strings.Contains(out, want) {
		t.Errorf("missing the omitted-nodes summary:\n%s", out)
	}
	if full := render(t, src, now, DetailsNodes); strings.Contains(full, "Omitted additional") || strings.Count(full, "\nextra-") != 12 {
		t.Errorf("--details=nodes must show every node:\n%s", full)
	}
}

func TestControlPlaneCompleted(t *testing.T) {
	src, now := scenario(t, "4.15.0-ec2-early")
	for _, co := range src.ClusterOperators {
		for i := range co.Status.Versions {
			if co.Status.Versions[i].Name == "operator" {
				co.Status.Versions[i].Version = src.ClusterVersion.Status.Desired.Version
			}
		}
	}
	out := render(t, src, now, DetailsNone)
	want := fmt.Sprintf("= Control Plane =\nUpdate to 4.15.0-ec.2 successfully completed at %s (duration: 1m29s)\n", now.UTC().Format(time.RFC3339))
	if !strings.HasPrefix(out, want) {
		t.Errorf("got\n%s\nwant prefix\n%s", out, want)
	}
	// With a completion time in the history, that time is shown.
	h := &src.ClusterVersion.Status.History[0]
	done := metav1.NewTime(h.StartedTime.Add(45 * time.Minute))
	h.State, h.CompletionTime = configv1.CompletedUpdate, &done
	out = render(t, src, now, DetailsNone)
	want = fmt.Sprintf("Update to 4.15.0-ec.2 successfully completed at %s (duration: 45m)\n", done.UTC().Format(time.RFC3339))
	if !strings.Contains(out, want) {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestAllControlPlaneNodesUpdated(t *testing.T) {
	src, now := scenario(t, "4.15.0-ec2-early")
	for k := range src.MachineConfigVersions {
		src.MachineConfigVersions[k] = "4.15.0-ec.2"
	}
	out := render(t, src, now, DetailsNone)
	if !strings.Contains(out, "\nAll control plane nodes successfully updated to 4.15.0-ec.2\n\n= Worker Upgrade =\n") ||
		strings.Contains(out, "Control Plane Nodes") {
		t.Errorf("got\n%s", out)
	}
}

func TestNotUpdating(t *testing.T) {
	src, now := scenario(t, "4.15.0-ec2-early")
	p := findCond(src.ClusterVersion.Status.Conditions, configv1.OperatorProgressing)
	p.Status = configv1.ConditionFalse
	// Worker nodes are outdated, so the cluster is still updating.
	if out := render(t, src, now, DetailsNone); !strings.Contains(out, "= Worker Upgrade =") {
		t.Errorf("outdated workers keep the cluster updating:\n%s", out)
	}
	// Only the control-plane pool outdated: not updating.
	for k, v := range src.MachineConfigVersions {
		if strings.Contains(k, "worker") {
			src.MachineConfigVersions[k] = "4.15.0-ec.2"
		}
		_ = v
	}
	if out := render(t, src, now, DetailsNone); out != "The cluster is not updating.\n" {
		t.Errorf("got\n%s", out)
	}
}

func findCond(conds []configv1.ClusterOperatorStatusCondition, typ configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// TestHealthTies: insights that start at the same instant with the same
// level are listed in oc's collection order (by operator, unavailable
// before degraded).
func TestHealthTies(t *testing.T) {
	src, now := scenario(t, "4.15.0-ec2-early")
	at := metav1.NewTime(now.Add(-time.Hour).Truncate(time.Second))
	for _, co := range src.ClusterOperators {
		switch co.Name {
		case "dns", "console":
			setDown(co, configv1.OperatorDegraded, configv1.ConditionTrue, at)
			setDown(co, configv1.OperatorAvailable, configv1.ConditionFalse, at)
		}
	}
	out := render(t, src, now, DetailsNone)
	want := []string{"console is unavailable", "console is degraded", "dns is unavailable", "dns is degraded"}
	last := -1
	for _, w := range want {
		i := strings.Index(out, w)
		if i < last {
			t.Fatalf("%q is out of order:\n%s", w, out)
		}
		last = i
	}
}

func setDown(co *configv1.ClusterOperator, typ configv1.ClusterStatusConditionType, status configv1.ConditionStatus, at metav1.Time) {
	c := findCond(co.Status.Conditions, typ)
	c.Status, c.Reason, c.Message, c.LastTransitionTime = status, "Broken", "broken", at
}

// TestLongDescriptionComesFromTheStatusInsight: the Health insight carries
// at most 4096 characters; the report prints the full text, which the
// ClusterOperator insight's Healthy condition carries.
func TestLongDescriptionComesFromTheStatusInsight(t *testing.T) {
	src, now := scenario(t, "ocpbugs-60768")
	res := insights.Compute(src, now)
	var desc string
	for _, inf := range res.Status.ControlPlane.Informers {
		for _, in := range inf.Insights {
			if conventions.KindOf(in.UID) == v1alpha1.HealthCODegraded {
				desc = in.Insight.HealthInsight.Impact.Description
			}
		}
	}
	if len(desc) > 4096 || !conventions.IsTruncated(desc) {
		t.Fatalf("the description (%d bytes) should be cut at the API's limit", len(desc))
	}
	var b bytes.Buffer
	if err := Render(&b, &v1alpha1.UpdateStatus{Status: res.Status}, now, DetailsHealth); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), conventions.TruncationMarker) {
		t.Error("the report printed the shortened description")
	}
}

func TestUnifiedDiff(t *testing.T) {
	d := unifiedDiff("a\nb\nc\n", "a\nx\nc\n")
	if !strings.Contains(d, "-b\n") || !strings.Contains(d, "+x\n") || !strings.Contains(d, " a\n") {
		t.Errorf("diff:\n%s", d)
	}
}

func TestRenderWithoutClusterVersion(t *testing.T) {
	res := insights.Compute(&insights.Sources{}, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	var b bytes.Buffer
	if err := Render(&b, &v1alpha1.UpdateStatus{Status: res.Status}, time.Now(), DetailsAll); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "Assessment:      Unknown") || !strings.Contains(out, "no cluster version information available") {
		t.Errorf("got\n%s", out)
	}
	if err := Render(&b, nil, time.Now(), DetailsNone); err == nil {
		t.Error("rendering nothing must be an error")
	}
}

// TestHealthLeavesOutIncompleteInsights: like oc, the report shows no Health
// insight without a description; one that is complete is shown. The
// scenario itself has no Health insight, so its report reads "Update is
// proceeding well" unless an added insight is shown.
func TestHealthLeavesOutIncompleteInsights(t *testing.T) {
	const proceeding = "Update is proceeding well"
	src, now := scenario(t, "4.16.0-compact")
	base := insights.Compute(src, now).Status
	if len(base.ControlPlane.Informers) == 0 {
		t.Fatal("the scenario has no control plane informer")
	}
	if out := renderStatus(t, &base, now, DetailsNone); !strings.Contains(out, proceeding) {
		t.Fatalf("the scenario must start without Health insights:\n%s", out)
	}

	type insight struct{ name, description, reference string }
	const ref = "https://example.com/runbook"
	complete := insight{"complete", "complete description", ref}
	noDescription := insight{"no-description", "", ref}
	noReference := insight{"no-reference", "no-reference description", ""}
	for _, tc := range []struct {
		name   string
		add    []insight
		shown  []insight
		hidden []insight
	}{
		{name: "a complete insight is shown", add: []insight{complete}, shown: []insight{complete}},
		{name: "an insight without description is left out", add: []insight{noDescription}, hidden: []insight{noDescription}},
		{name: "of two, only the one without description is left out", add: []insight{noDescription, complete},
			shown: []insight{complete}, hidden: []insight{noDescription}},
		{name: "an insight without reference is left out", add: []insight{noReference, complete},
			shown: []insight{complete}, hidden: []insight{noReference}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := *base.DeepCopy()
			inf := &st.ControlPlane.Informers[0]
			for i, in := range tc.add {
				inf.Insights = append(inf.Insights, v1alpha1.ControlPlaneInsight{
					UID:        "test-" + in.name,
					AcquiredAt: metav1.NewTime(now),
					Insight: v1alpha1.ControlPlaneInsightUnion{
						Type: v1alpha1.HealthInsightType,
						HealthInsight: &v1alpha1.HealthStatusInsight{
							StartedAt: metav1.NewTime(now.Add(-time.Duration(i+1) * time.Minute)),
							Scope:     v1alpha1.InsightScope{Type: v1alpha1.ControlPlaneScope},
							Impact: v1alpha1.InsightImpact{
								Level:       v1alpha1.WarningImpactLevel,
								Type:        v1alpha1.UpdateSpeedImpactType,
								Summary:     in.name + " summary",
								Description: in.description,
							},
							Remediation: v1alpha1.InsightRemediation{Reference: in.reference},
						},
					},
				})
			}
			for _, d := range []Details{DetailsNone, DetailsHealth} {
				out := renderStatus(t, &st, now, d)
				for _, in := range tc.shown {
					if !strings.Contains(out, in.name+" summary") {
						t.Errorf("--details=%s: %q is missing:\n%s", d, in.name, out)
					}
					if d == DetailsHealth && !strings.Contains(out, "Description: "+in.description+"\n") {
						t.Errorf("--details=%s: the description of %q is missing:\n%s", d, in.name, out)
					}
				}
				for _, in := range tc.hidden {
					if strings.Contains(out, in.name+" summary") {
						t.Errorf("--details=%s: %q is shown:\n%s", d, in.name, out)
					}
				}
				if got, want := strings.Contains(out, proceeding), len(tc.shown) == 0; got != want {
					t.Errorf("--details=%s: %q shown %v, want %v:\n%s", d, proceeding, got, want, out)
				}
			}
		})
	}
}

func renderStatus(t *testing.T, st *v1alpha1.UpdateStatusStatus, now time.Time, d Details) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, &v1alpha1.UpdateStatus{Status: *st}, now, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
