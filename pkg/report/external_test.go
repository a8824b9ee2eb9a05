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
	"strings"
	"testing"
	"time"

	"github.com/update-status/apiserver/internal/synth"
	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// drainInformer is synth.Contribution with, about pool worker, a copy of
// the server's insight about a node (which must not add a node row).
func drainInformer(t *testing.T, src *insights.Sources, now time.Time) *informersv1alpha1.UpdateInformer {
	t.Helper()
	var node *v1alpha1.WorkerPoolInsight
	for _, p := range insights.Compute(src, now).Status.WorkerPools {
		for _, inf := range p.Informers {
			for i := range inf.Insights {
				if p.Name == "worker" && node == nil && inf.Insights[i].Insight.NodeStatusInsight != nil {
					node = inf.Insights[i].DeepCopy()
				}
			}
		}
	}
	if node == nil {
		t.Fatal("the scenario has no node in pool worker")
	}
	o := synth.Contribution("openshift-drain", "drain", now)
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
		for _, summary := range []string{synth.ContributionControlPlaneSummary, synth.ContributionPoolSummary} {
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
	block := detailed[strings.Index(detailed, "Message: "+synth.ContributionPoolSummary):]
	block = block[:strings.Index(block, "Description:")]
	if !strings.Contains(block, "Reference:   https://example.com/pdb\n  Informer:    drain.openshift-drain\n") {
		t.Errorf("the Informer line is not below the reference:\n%s", block)
	}

	// The lease lapses: the server's own insight says so, and names no
	// informer line of its own.
	lapsed := render(t, &with, now.Add(2*time.Minute), DetailsHealth)
	if !strings.Contains(lapsed, "Message: Informer drain.openshift-drain stopped reporting at") || strings.Contains(lapsed, "Informer:") ||
		strings.Contains(lapsed, synth.ContributionPoolSummary) {
		t.Errorf("after the lease:\n%s", lapsed)
	}
}
