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

package web

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/internal/informertest"
	"github.com/update-status/apiserver/internal/testio"
	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

const drainInformer = "drain.openshift-drain"

// contribute adds two UpdateInformers: one the server refuses (its pool
// does not exist), so that the server reports it with a Health insight of
// its own, and informertest.Contribution with its control-plane insight under the
// uid of the server's (*cpUID) and, about pool worker, a copy of the
// server's insight about a node, marked Degraded (it must not change the
// node on the page).
func contribute(t *testing.T, cpUID *string) func(src *insights.Sources, now time.Time) {
	return func(src *insights.Sources, now time.Time) {
		renewed := metav1.NewMicroTime(now)
		src.UpdateInformers = append(src.UpdateInformers, &informersv1alpha1.UpdateInformer{
			ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-drain", Name: "refused", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
			Spec: informersv1alpha1.UpdateInformerSpec{RenewTime: &renewed,
				WorkerPools: []informersv1alpha1.WorkerPoolContribution{{Name: "no-such-pool"}}},
		})
		st := insights.Compute(src, now).Status
		for _, inf := range st.ControlPlane.Informers {
			if inf.Name == v1alpha1.InformerServer && len(inf.Insights) == 1 {
				*cpUID = inf.Insights[0].UID
			}
		}
		if !strings.HasPrefix(*cpUID, string(v1alpha1.HealthInformerRefused)) {
			t.Fatalf("the server does not report the refused UpdateInformer (uid %q)", *cpUID)
		}
		node := testio.WorkerNodeInsight(t, &st, "worker")
		for i := range node.Insight.NodeStatusInsight.Conditions {
			c := &node.Insight.NodeStatusInsight.Conditions[i]
			if c.Type == string(v1alpha1.NodeStatusInsightDegraded) {
				c.Status, c.Reason, c.Message = metav1.ConditionTrue, "DrainBlocked", "a PodDisruptionBudget"
			}
		}
		o := informertest.Contribution("openshift-drain", "drain", now)
		o.Spec.ControlPlane.Insights[0].UID = *cpUID
		o.Spec.WorkerPools[0].Insights = append(o.Spec.WorkerPools[0].Insights, *node)
		src.UpdateInformers = append(src.UpdateInformers, o)
	}
}

// TestExternalInformerShown: from either source, the page lists an external
// informer's Health insights with the informer named, and its other insights
// change no node, pool or control-plane entry.
func TestExternalInformerShown(t *testing.T) {
	plainUS, plainObjs := computed(t)
	var cpUID string
	us, objs := computedWith(t, contribute(t, &cpUID))
	for _, tc := range []struct {
		name        string
		insights    bool
		plain, with []runtime.Object
	}{
		{SourceInsights, true, plainObjs, objs},
		{SourceUpdateStatus, false, []runtime.Object{plainUS}, []runtime.Object{us}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snapshot := func(objs []runtime.Object) *Snapshot {
				_, srv := started(t, Options{Client: newFake(tc.insights, objs...)})
				settled(t, srv)
				return state(t, srv, "the snapshot", func(*Snapshot) bool { return true })
			}
			plain, with := snapshot(tc.plain), snapshot(tc.with)
			progress := func(s *Snapshot) string {
				b, err := json.Marshal([]any{s.ControlPlane, s.Pools, s.Nodes})
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			if progress(with) != progress(plain) {
				t.Errorf("an external informer changed the progress:\n%s\nwant\n%s", progress(with), progress(plain))
			}
			external := map[string]string{}
			for _, h := range with.Health {
				if h.Informer != "" {
					external[h.UID] = h.Summary
				}
			}
			// The server's insight of the same uid stays beside it.
			want := map[string]string{cpUID: informertest.ContributionControlPlaneSummary, "pdb": informertest.ContributionPoolSummary}
			if len(external) != len(want) || external[cpUID] != want[cpUID] || external["pdb"] != want["pdb"] {
				t.Errorf("external health %v, want %v", external, want)
			}
			for _, h := range with.Health {
				if h.Informer != "" && h.Informer != drainInformer {
					t.Errorf("health %s names informer %q", h.UID, h.Informer)
				}
			}
			server := 0
			for _, h := range with.Health {
				if h.UID == cpUID && h.Informer == "" {
					server++
				}
			}
			if server != 1 || len(with.Health) != len(plain.Health)+len(want)+1 {
				t.Errorf("%d health insights (%d the server's about the refused UpdateInformer), want the %d of the cluster, 1 about the refused UpdateInformer and %d external",
					len(with.Health), server, len(plain.Health), len(want))
			}
			for _, h := range plain.Health {
				if h.Informer != "" {
					t.Errorf("the server's health %s names informer %q", h.UID, h.Informer)
				}
			}
		})
	}
}
