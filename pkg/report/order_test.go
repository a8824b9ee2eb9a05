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
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sourcefiles"
)

// threePools is the multi-pool fixture with a third worker pool, gpu, that
// takes over one of infra's nodes; its pools are in name order, as an API
// server lists them.
func threePools(t *testing.T) (*insights.Sources, time.Time) {
	t.Helper()
	src, now := scenario(t, "4.14.1-workers-started-updating-multiple-pools")
	var infra *mcfgv1.MachineConfigPool
	for _, p := range src.MachineConfigPools {
		if p.Name == "infra" {
			infra = p
		}
	}
	if infra == nil {
		t.Fatal("the fixture has no infra pool")
	}
	gpu := infra.DeepCopy()
	gpu.Name, gpu.UID = "gpu", "gpu"
	gpu.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/gpu": ""}}
	src.MachineConfigPools = append(src.MachineConfigPools, gpu)
	slices.SortFunc(src.MachineConfigPools, func(a, b *mcfgv1.MachineConfigPool) int { return strings.Compare(a.Name, b.Name) })
	moved := false
	for _, n := range src.Nodes {
		if n.Labels.Has("node-role.kubernetes.io/infra") && !n.Labels.Has("node-role.kubernetes.io/worker") {
			labels := map[string]string{"node-role.kubernetes.io/gpu": ""}
			for _, l := range n.Labels {
				if l.Key != "node-role.kubernetes.io/infra" {
					labels[l.Key] = l.Value
				}
			}
			n.Labels = insights.NodeLabelsOf(labels, nil)
			moved = true
			break
		}
	}
	if !moved {
		t.Fatal("the fixture has no infra-only node")
	}
	return src, now
}

// poolOrder reads the order of the worker pools from a report: the rows of
// the pool table and the node sections.
func poolOrder(report string) (table, sections []string) {
	inTable := false
	sc := bufio.NewScanner(strings.NewReader(report))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "WORKER POOL"):
			inTable = true
		case inTable && line == "":
			inTable = false
		case inTable:
			table = append(table, strings.Fields(line)[0])
		case strings.HasPrefix(line, "Worker Pool Nodes: "):
			sections = append(sections, strings.TrimPrefix(line, "Worker Pool Nodes: "))
		}
	}
	return table, sections
}

// TestWorkerPoolOrder checks that worker pools come in the order of their
// source, as oc lists them: name order from an API server, file order from
// object dumps.
func TestWorkerPoolOrder(t *testing.T) {
	src, now := threePools(t)
	obj := &v1alpha1.UpdateStatus{Status: insights.Compute(src, now).Status}
	for _, tc := range []struct {
		name  string
		files []string // nil: from the API
		want  []string
	}{
		{"from the API", nil, []string{"gpu", "infra", "worker"}},
		{"from files in name order", sourcefiles.PoolOrder(src), []string{"gpu", "infra", "worker"}},
		{"from files in another order", []string{"master", "worker", "infra", "gpu"}, []string{"worker", "infra", "gpu"}},
		{"from files that leave pools out", []string{"worker"}, []string{"worker", "gpu", "infra"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			var err error
			if tc.files == nil {
				err = Render(&b, obj, now, DetailsNone)
			} else {
				err = RenderInPoolOrder(&b, obj, now, DetailsNone, tc.files)
			}
			if err != nil {
				t.Fatal(err)
			}
			table, sections := poolOrder(b.String())
			if !slices.Equal(table, tc.want) || !slices.Equal(sections, tc.want) {
				t.Errorf("pool table %v, node sections %v, want %v in both\n%s", table, sections, tc.want, b.String())
			}
		})
	}
}

// ocTimewise and ocEstimate are oc's estimator (estimateTimeToComplete),
// written out from its source: the remaining seconds of the estimated total
// duration, padded by 1.2 (or shrunk by it when negative), converted to
// whole seconds, rounded to the minute above ten minutes.
func ocTimewise(x float64) float64 {
	switch {
	case x < 0.25:
		return -0.03078788 + 2.62886*x - 3.823954*x*x
	case x < 0.9:
		return 0.1851215 + 1.64994*x - 4.676898*x*x + 5.451824*x*x*x - 2.125286*x*x*x*x
	}
	return 25053.32 - 107394.3*x + 172527.2*x*x - 123107*x*x*x + 32921.81*x*x*x*x
}

func ocRemainingSeconds(baseline, toLastProgress, updatingFor time.Duration, x float64) int64 {
	total := baseline.Seconds()
	if tw := ocTimewise(x); x > 0 && tw > 0 && toLastProgress > 5*time.Minute {
		total = toLastProgress.Seconds() / tw
	}
	rem := total - updatingFor.Seconds()
	over := 1.2
	if rem < 0 {
		over = 1 / over
	}
	return int64(time.Duration(rem*over) * time.Second / time.Second)
}

func ocEstimate(baseline, toLastProgress, updatingFor time.Duration, x float64) time.Duration {
	e := time.Duration(ocRemainingSeconds(baseline, toLastProgress, updatingFor, x)) * time.Second
	if e > 10*time.Minute {
		return e.Round(time.Minute)
	}
	return e
}

// etaCluster is a control plane updating since start: total platform
// operators, updated of them at the target version, every operator's
// Progressing condition last changed at lastProgress; the previous update
// took baseline.
func etaCluster(start time.Time, baseline time.Duration, updated, total int, lastProgress time.Time) *insights.Sources {
	mt := metav1.NewTime
	prevStart := start.Add(-48 * time.Hour)
	prevDone, installDone := mt(prevStart.Add(baseline)), mt(prevStart.Add(-time.Hour))
	cv := &configv1.ClusterVersion{
		ObjectMeta: metav1.ObjectMeta{Name: "version", UID: "cv"},
		Status: configv1.ClusterVersionStatus{
			Desired: configv1.Release{Version: "4.15.1"},
			History: []configv1.UpdateHistory{
				{State: configv1.PartialUpdate, Version: "4.15.1", StartedTime: mt(start)},
				{State: configv1.CompletedUpdate, Version: "4.15.0", StartedTime: mt(prevStart), CompletionTime: &prevDone},
				{State: configv1.CompletedUpdate, Version: "4.14.9", StartedTime: mt(prevStart.Add(-2 * time.Hour)), CompletionTime: &installDone},
			},
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.OperatorProgressing, Status: configv1.ConditionTrue, LastTransitionTime: mt(start)},
				{Type: "Failing", Status: configv1.ConditionFalse, LastTransitionTime: mt(start)},
			},
		},
	}
	src := &insights.Sources{ClusterVersion: cv}
	for i := range total {
		version, progressing := "4.15.0", configv1.ConditionTrue
		if i < updated {
			version, progressing = "4.15.1", configv1.ConditionFalse
		}
		name := string(rune('a'+i)) + "-operator"
		src.ClusterOperators = append(src.ClusterOperators, &configv1.ClusterOperator{
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name),
				Annotations: map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"}},
			Status: configv1.ClusterOperatorStatus{
				Versions: []configv1.OperandVersion{{Name: "operator", Version: version}},
				Conditions: []configv1.ClusterOperatorStatusCondition{
					{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, LastTransitionTime: mt(prevStart)},
					{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, LastTransitionTime: mt(prevStart)},
					{Type: configv1.OperatorProgressing, Status: progressing, LastTransitionTime: mt(lastProgress)},
				},
			},
		})
	}
	return src
}

var etaLine = regexp.MustCompile(`\(Est\. Time Remaining: ([^)]*)\)`)

// TestEstimateAtTheRoundingBoundary renders the control plane's estimate at
// instants around the ones where oc's remaining seconds land on N minutes
// 30 seconds, which oc rounds up, with "now" at whole seconds and with
// fractions, and compares it with oc's arithmetic.
func TestEstimateAtTheRoundingBoundary(t *testing.T) {
	start := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name           string
		baseline       time.Duration
		updated, total int
		toLastProgress time.Duration
	}{
		{"baseline (whole seconds)", 97*time.Minute + 13*time.Second, 0, 7, 0},
		{"progress, x=2/7", time.Hour, 2, 7, 17*time.Minute + 41*time.Second},
		{"progress, x=3/11", time.Hour, 3, 11, 23*time.Minute + 7*time.Second},
		{"progress, x=5/9", time.Hour, 5, 9, 41*time.Minute + 19*time.Second},
		{"progress, x=1/6", time.Hour, 1, 6, 9*time.Minute + 5*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := etaCluster(start, tc.baseline, tc.updated, tc.total, start.Add(tc.toLastProgress))
			x := float64(tc.updated) / float64(tc.total)
			boundaries := 0
			for _, frac := range []time.Duration{0, 368975, 999 * time.Millisecond} {
				// Every whole second of a 6-minute stretch after the first
				// quarter hour, at this fraction.
				for s := 15 * 60; s < 21*60; s++ {
					updatingFor := time.Duration(s)*time.Second + frac
					now := start.Add(updatingFor)
					if rem := ocRemainingSeconds(tc.baseline, tc.toLastProgress, updatingFor, x); rem > 600 && rem%60 == 30 {
						boundaries++
					}
					want := ocEstimate(tc.baseline, tc.toLastProgress, updatingFor, x)
					if want < 10*time.Minute {
						t.Fatalf("case gives a short estimate (%v); the test wants estimates above ten minutes", want)
					}
					res := insights.Compute(src, now)
					var b bytes.Buffer
					if err := Render(&b, &v1alpha1.UpdateStatus{Status: res.Status}, now, DetailsNone); err != nil {
						t.Fatal(err)
					}
					m := etaLine.FindStringSubmatch(b.String())
					if m == nil {
						t.Fatalf("at %v: no estimate in\n%s", now, b.String())
					}
					if m[1] != conventions.ShortDuration(want) {
						t.Errorf("updating for %v: Est. Time Remaining %s, oc's arithmetic gives %s", updatingFor, m[1], conventions.ShortDuration(want))
					}
				}
			}
			if boundaries == 0 {
				t.Errorf("no instant landed on N min 30 s: the case does not exercise the boundary")
			}
		})
	}
}
