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
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// contribHealth is a valid Health insight of an external informer; scope
// WorkerPool names the node, ControlPlane none.
func contribHealth(scope v1alpha1.ScopeType, node, summary string) *v1alpha1.HealthStatusInsight {
	h := &v1alpha1.HealthStatusInsight{
		StartedAt: mt(t0.Add(5 * time.Minute)),
		Scope:     v1alpha1.InsightScope{Type: scope},
		Impact: v1alpha1.InsightImpact{Level: v1alpha1.WarningImpactLevel, Type: v1alpha1.NoneImpactType,
			Summary: summary, Description: "Described by the test."},
		Remediation: v1alpha1.InsightRemediation{Reference: "https://example.com/runbook"},
	}
	if node != "" {
		h.Scope.Resources = []v1alpha1.ResourceRef{nodeRef(node)}
	}
	return h
}

func cpHealthIn(uid string) v1alpha1.ControlPlaneInsight {
	return v1alpha1.ControlPlaneInsight{UID: uid, AcquiredAt: mt(t0.Add(6 * time.Minute)), Insight: v1alpha1.ControlPlaneInsightUnion{
		Type: v1alpha1.HealthInsightType, HealthInsight: contribHealth(v1alpha1.ControlPlaneScope, "", "Control plane "+uid)}}
}

func poolHealthIn(uid, node string) v1alpha1.WorkerPoolInsight {
	return v1alpha1.WorkerPoolInsight{UID: uid, AcquiredAt: mt(t0.Add(7 * time.Minute)), Insight: v1alpha1.WorkerPoolInsightUnion{
		Type: v1alpha1.HealthInsightType, HealthInsight: contribHealth(v1alpha1.WorkerPoolScope, node, "Pool "+uid)}}
}

// poolNodeIn is a node insight about a worker node of cluster(), as the
// nodes informer would list it.
func poolNodeIn(t testing.TB, uid, node string) v1alpha1.WorkerPoolInsight {
	t.Helper()
	in := nodeOf(Compute(cluster(), now), "worker-0")
	if in == nil {
		t.Fatal("cluster() has no insight for worker-0")
	}
	in = in.DeepCopy()
	in.Name, in.Resource.Name = node, node
	return v1alpha1.WorkerPoolInsight{UID: uid, AcquiredAt: mt(t0.Add(8 * time.Minute)), Insight: v1alpha1.WorkerPoolInsightUnion{
		Type: v1alpha1.NodeStatusInsightType, NodeStatusInsight: in}}
}

// contrib is an UpdateInformer created at created, renewed at now, with
// the default lease and no insights.
func contrib(ns, name string, created time.Time) *informersv1alpha1.UpdateInformer {
	renewed := metav1.NewMicroTime(now)
	return &informersv1alpha1.UpdateInformer{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("ui-" + ns + "-" + name), Generation: 3,
			ResourceVersion: "1", CreationTimestamp: mt(created)},
		Spec: informersv1alpha1.UpdateInformerSpec{RenewTime: &renewed},
	}
}

func withCP(o *informersv1alpha1.UpdateInformer, ins ...v1alpha1.ControlPlaneInsight) *informersv1alpha1.UpdateInformer {
	o.Spec.ControlPlane = &informersv1alpha1.ControlPlaneContribution{Insights: ins}
	return o
}

func withPool(o *informersv1alpha1.UpdateInformer, pool string, ins ...v1alpha1.WorkerPoolInsight) *informersv1alpha1.UpdateInformer {
	o.Spec.WorkerPools = append(o.Spec.WorkerPools, informersv1alpha1.WorkerPoolContribution{Name: pool, Insights: ins})
	return o
}

// drain is the usual contribution: two control-plane insights and two
// about pool worker, listed out of order.
func drain(t testing.TB) *informersv1alpha1.UpdateInformer {
	o := withCP(contrib("openshift-drain", "drain", t0), cpHealthIn("zz-cp"), cpHealthIn("aa-cp"))
	return withPool(o, "worker", poolHealthIn("stuck-pdb", "worker-1"), poolNodeIn(t, "node-worker-1", "worker-1"))
}

func withInformers(src *Sources, objs ...*informersv1alpha1.UpdateInformer) *Sources {
	out := *src
	out.UpdateInformers = objs
	return &out
}

// builtIns encodes the informers of a status whose names are among names.
func builtIns(t testing.TB, st *v1alpha1.UpdateStatusStatus, names ...string) string {
	t.Helper()
	keep := func(n string) bool { return slices.Contains(names, n) }
	var cp []v1alpha1.ControlPlaneInformer
	if st.ControlPlane != nil {
		for _, inf := range st.ControlPlane.Informers {
			if keep(inf.Name) {
				cp = append(cp, inf)
			}
		}
	}
	pools := map[string][]v1alpha1.WorkerPoolInformer{}
	for _, p := range st.WorkerPools {
		for _, inf := range p.Informers {
			if keep(inf.Name) {
				pools[p.Name] = append(pools[p.Name], inf)
			}
		}
	}
	return mustJSON(t, []any{cp, pools})
}

var builtInNames = []string{v1alpha1.InformerAlerts, v1alpha1.InformerControlPlane, v1alpha1.InformerNodes}

func informerNames[T any](infs []T, name func(T) string) []string {
	var out []string
	for _, inf := range infs {
		out = append(out, name(inf))
	}
	return out
}

func cpInformer(st *v1alpha1.UpdateStatusStatus, name string) *v1alpha1.ControlPlaneInformer {
	for i := range st.ControlPlane.Informers {
		if st.ControlPlane.Informers[i].Name == name {
			return &st.ControlPlane.Informers[i]
		}
	}
	return nil
}

func poolInformer(st *v1alpha1.UpdateStatusStatus, pool, name string) *v1alpha1.WorkerPoolInformer {
	for i := range st.WorkerPools {
		if st.WorkerPools[i].Name != pool {
			continue
		}
		for j := range st.WorkerPools[i].Informers {
			if st.WorkerPools[i].Informers[j].Name == name {
				return &st.WorkerPools[i].Informers[j]
			}
		}
	}
	return nil
}

func externalInsights(res Result) []*Insight {
	var out []*Insight
	for _, in := range res.Insights {
		if in.External {
			out = append(out, in)
		}
	}
	return out
}

// serverHealth returns the health insights of informer update-status.
func serverHealth(res Result) []v1alpha1.ControlPlaneInsight {
	if inf := cpInformer(&res.Status, v1alpha1.InformerServer); inf != nil {
		return inf.Insights
	}
	return nil
}

func TestContributionsMerged(t *testing.T) {
	base := Compute(cluster(), now)
	// Created later, but first by name.
	early := withPool(contrib("x", "aaa", t0.Add(time.Minute)), "worker", poolHealthIn("one", ""))
	early.Spec.WorkerPools[0].Insights[0].Insight.HealthInsight.Scope.Resources = nil
	src := withInformers(cluster(), drain(t), early)
	res := Compute(src, now)
	mustValid(t, res)

	if got, want := informerNames(res.Status.ControlPlane.Informers, func(i v1alpha1.ControlPlaneInformer) string { return i.Name }),
		[]string{"cpi", "drain.openshift-drain", "nodes"}; !slices.Equal(got, want) {
		t.Errorf("control-plane informers %v, want %v", got, want)
	}
	if got, want := informerNames(res.Status.WorkerPools[0].Informers, func(i v1alpha1.WorkerPoolInformer) string { return i.Name }),
		[]string{"aaa.x", "drain.openshift-drain", "nodes"}; !slices.Equal(got, want) {
		t.Errorf("worker pool informers %v, want %v", got, want)
	}
	cp := cpInformer(&res.Status, "drain.openshift-drain")
	if got := []string{cp.Insights[0].UID, cp.Insights[1].UID}; !slices.Equal(got, []string{"aa-cp", "zz-cp"}) {
		t.Errorf("control-plane insights in order %v, want by uid", got)
	}
	wp := poolInformer(&res.Status, "worker", "drain.openshift-drain")
	if len(wp.Insights) != 2 || wp.Insights[0].Insight.Type != v1alpha1.NodeStatusInsightType || wp.Insights[1].UID != "stuck-pdb" {
		t.Errorf("pool insights %s, want the node insight before the health insight", mustJSON(t, wp.Insights))
	}
	if got, want := builtIns(t, &res.Status, builtInNames...), builtIns(t, &base.Status, builtInNames...); got != want {
		t.Errorf("the built-in informers changed:\n%s\nwant\n%s", got, want)
	}
	if cpInformer(&res.Status, v1alpha1.InformerServer) != nil {
		t.Error("informer update-status reports on accepted, current contributions")
	}

	type flat struct {
		UID, Informer, Pool string
		Scope               v1alpha1.ScopeType
	}
	var got []flat
	for _, in := range externalInsights(res) {
		got = append(got, flat{in.UID, in.Informer, in.Pool, in.Scope})
	}
	want := []flat{
		{"one", "aaa.x", "worker", v1alpha1.WorkerPoolScope},
		{"aa-cp", "drain.openshift-drain", "", v1alpha1.ControlPlaneScope},
		{"zz-cp", "drain.openshift-drain", "", v1alpha1.ControlPlaneScope},
		{"node-worker-1", "drain.openshift-drain", "worker", v1alpha1.WorkerPoolScope},
		{"stuck-pdb", "drain.openshift-drain", "worker", v1alpha1.WorkerPoolScope},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("external entries of Result.Insights:\n%+v\nwant\n%+v", got, want)
	}
	if n := len(res.Insights) - len(base.Insights); n != len(want) {
		t.Errorf("Result.Insights grew by %d, want %d", n, len(want))
	}

	wantVerdicts := []Verdict{
		{Namespace: "openshift-drain", Name: "drain", Generation: 3, Informer: "drain.openshift-drain", Accepted: true,
			ExpiresAt: now.Add(time.Minute), Insights: 4},
		{Namespace: "x", Name: "aaa", Generation: 3, Informer: "aaa.x", Accepted: true, ExpiresAt: now.Add(time.Minute), Insights: 1},
	}
	if !reflect.DeepEqual(res.Verdicts, wantVerdicts) {
		t.Errorf("verdicts\n%+v\nwant\n%+v", res.Verdicts, wantVerdicts)
	}
}

// TestContributionRefusals: what the schema lets through but is still wrong
// is refused with its reason and reported by the server's own informer; the
// built-in informers never notice.
func TestContributionRefusals(t *testing.T) {
	base := Compute(cluster(), now)
	cases := []struct {
		name   string
		obj    func(t testing.TB) *informersv1alpha1.UpdateInformer
		reason string
		// message is a part of the verdict's message.
		message string
	}{
		{"informer name too long", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			return withCP(contrib("ns", strings.Repeat("n", 61), t0), cpHealthIn("a"))
		}, informersv1alpha1.ReasonInformerNameTooLong, "at most 63"},
		{"renewTime beyond the clock skew", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			o := drain(t)
			future := metav1.NewMicroTime(now.Add(MaxClockSkew + time.Second))
			o.Spec.RenewTime = &future
			return o
		}, informersv1alpha1.ReasonRenewTimeInFuture, "ahead of the server's clock"},
		{"unknown pool", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			return withPool(contrib("ns", "a", t0), "infra", poolHealthIn("h", ""))
		}, informersv1alpha1.ReasonUnknownPool, `"infra" does not exist`},
		{"the master pool", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			o := withPool(contrib("ns", "a", t0), "master", poolHealthIn("h", ""))
			o.Spec.WorkerPools[0].Insights[0].Insight.HealthInsight.Scope.Resources = nil
			return o
		}, informersv1alpha1.ReasonUnknownPool, "control plane's pool"},
		{"unknown pool in a pool insight", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			st := Compute(cluster(), now).Status
			var mcp *v1alpha1.MachineConfigPoolStatusInsight
			for _, in := range poolInformer(&st, "worker", v1alpha1.InformerNodes).Insights {
				if in.Insight.MachineConfigPoolStatusInsight != nil {
					mcp = in.Insight.MachineConfigPoolStatusInsight.DeepCopy()
				}
			}
			if mcp == nil {
				t.Fatal("cluster() has no insight for the worker pool")
			}
			mcp.Name, mcp.Resource.Name, mcp.Scope = "infra", "infra", v1alpha1.ControlPlaneScope
			return withCP(contrib("ns", "a", t0), v1alpha1.ControlPlaneInsight{UID: "pool-ghost", AcquiredAt: mt(t0),
				Insight: v1alpha1.ControlPlaneInsightUnion{Type: v1alpha1.MachineConfigPoolStatusInsightType, MachineConfigPoolStatusInsight: mcp}})
		}, informersv1alpha1.ReasonUnknownPool, `MachineConfigPool "infra"`},
		{"unknown node in a node insight", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			return withPool(contrib("ns", "a", t0), "worker", poolNodeIn(t, "node-ghost", "ghost"))
		}, informersv1alpha1.ReasonUnknownNode, `Node "ghost"`},
		{"unknown node in a health scope", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			return withPool(contrib("ns", "a", t0), "worker", poolHealthIn("h", "ghost"))
		}, informersv1alpha1.ReasonUnknownNode, `Node "ghost"`},
		{"union type names another member", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			in := cpHealthIn("a")
			in.Insight.Type = v1alpha1.NodeStatusInsightType
			return withCP(contrib("ns", "a", t0), in)
		}, informersv1alpha1.ReasonInvalidInsight, "controlPlane.insights[0]"},
		{"union member nil", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			in := poolHealthIn("h", "")
			in.Insight.HealthInsight = nil
			return withPool(contrib("ns", "a", t0), "worker", in)
		}, informersv1alpha1.ReasonInvalidInsight, "workerPools[0].insights[0]"},
		{"two union members", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			in := poolNodeIn(t, "n", "worker-0")
			in.Insight.HealthInsight = contribHealth(v1alpha1.WorkerPoolScope, "", "x")
			return withPool(contrib("ns", "a", t0), "worker", in)
		}, informersv1alpha1.ReasonInvalidInsight, "one member"},
		{"bad uid", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			return withCP(contrib("ns", "a", t0), cpHealthIn("Not_A_Label"))
		}, informersv1alpha1.ReasonInvalidInsight, "Not_A_Label"},
		{"duplicate pool", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			o := withPool(contrib("ns", "a", t0), "worker", poolHealthIn("h", ""))
			return withPool(o, "worker", poolHealthIn("i", ""))
		}, informersv1alpha1.ReasonInvalidInsight, "listed twice"},
		{"duplicate uid in a list", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			return withCP(contrib("ns", "a", t0), cpHealthIn("a"), cpHealthIn("a"))
		}, informersv1alpha1.ReasonInvalidInsight, "controlPlane.insights[1]"},
		{"too many control-plane insights", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			ins := make([]v1alpha1.ControlPlaneInsight, informersv1alpha1.MaxControlPlaneInsights+1)
			for i := range ins {
				ins[i] = cpHealthIn(fmt.Sprintf("h%d", i))
			}
			return withCP(contrib("ns", "a", t0), ins...)
		}, informersv1alpha1.ReasonInvalidInsight, "more than 128"},
		{"too many pools", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			o := contrib("ns", "a", t0)
			for i := range informersv1alpha1.MaxWorkerPools + 1 {
				withPool(o, fmt.Sprintf("p%d", i))
			}
			return o
		}, informersv1alpha1.ReasonInvalidInsight, "more than 16"},
		{"too many insights in a pool", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			ins := make([]v1alpha1.WorkerPoolInsight, informersv1alpha1.MaxWorkerPoolInsights+1)
			for i := range ins {
				ins[i] = poolHealthIn(fmt.Sprintf("h%d", i), "")
			}
			return withPool(contrib("ns", "a", t0), "worker", ins...)
		}, informersv1alpha1.ReasonInvalidInsight, "more than 1024"},
		{"control-plane scope under a pool", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			in := poolHealthIn("h", "")
			in.Insight.HealthInsight.Scope.Type = v1alpha1.ControlPlaneScope
			return withPool(contrib("ns", "a", t0), "worker", in)
		}, informersv1alpha1.ReasonInvalidInsight, "workerPools[0].insights[0].insight.health.scope.type"},
		{"impact level out of the enum", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			in := cpHealthIn("a")
			in.Insight.HealthInsight.Impact.Level = "Apocalyptic"
			return withCP(contrib("ns", "a", t0), cpHealthIn("b"), in)
		}, informersv1alpha1.ReasonInvalidInsight, "controlPlane.insights[1].insight.health.impact.level"},
		{"no acquiredAt", func(t testing.TB) *informersv1alpha1.UpdateInformer {
			in := cpHealthIn("a")
			in.AcquiredAt = metav1.Time{}
			return withCP(contrib("ns", "a", t0), in)
		}, informersv1alpha1.ReasonInvalidInsight, "acquiredAt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.obj(t)
			res := Compute(withInformers(cluster(), o), now)
			mustValid(t, res)
			if len(res.Verdicts) != 1 {
				t.Fatalf("%d verdicts, want 1", len(res.Verdicts))
			}
			v := res.Verdicts[0]
			if v.Accepted || v.Reason != tc.reason || !strings.Contains(v.Message, tc.message) || v.Insights != 0 || v.Expired {
				t.Errorf("verdict %+v, want refused for %s with %q in the message", v, tc.reason, tc.message)
			}
			if n := len(externalInsights(res)); n != 0 {
				t.Errorf("%d external insights listed", n)
			}
			if got, want := builtIns(t, &res.Status, builtInNames...), builtIns(t, &base.Status, builtInNames...); got != want {
				t.Error("the built-in informers changed")
			}
			hs := serverHealth(res)
			if len(hs) != 1 {
				t.Fatalf("informer update-status lists %d insights, want 1", len(hs))
			}
			h := hs[0].Insight.HealthInsight
			want := []v1alpha1.ResourceRef{{Group: informersv1alpha1.GroupName, Resource: informersv1alpha1.ResourceUpdateInformers,
				Namespace: o.Namespace, Name: o.Name}}
			if conventions.KindOf(hs[0].UID) != v1alpha1.HealthInformerRefused || !reflect.DeepEqual(h.Scope.Resources, want) ||
				!strings.Contains(h.Impact.Summary, tc.reason) || !strings.Contains(h.Impact.Description, o.Namespace+"/"+o.Name) {
				t.Errorf("server health insight %s does not name the object and the reason", mustJSON(t, hs[0]))
			}
			var flat *Insight
			for _, in := range res.Insights {
				if in.Informer == v1alpha1.InformerServer {
					flat = in
				}
			}
			if flat == nil || flat.External || flat.UID != hs[0].UID || flat.Health != h {
				t.Errorf("Result.Insights lists the server's insight as %+v", flat)
			}
		})
	}
}

// TestContributionRefusedBesideAccepted: a refusal affects only its object.
func TestContributionRefusedBesideAccepted(t *testing.T) {
	bad := withPool(contrib("ns", "bad", t0), "infra", poolHealthIn("h", ""))
	res := Compute(withInformers(cluster(), bad, drain(t)), now)
	mustValid(t, res)
	if len(res.Verdicts) != 2 || res.Verdicts[0].Accepted || !res.Verdicts[1].Accepted {
		t.Fatalf("verdicts %+v, want drain accepted and bad refused", res.Verdicts)
	}
	if cpInformer(&res.Status, "drain.openshift-drain") == nil || len(serverHealth(res)) != 1 || len(externalInsights(res)) != 4 {
		t.Error("a refused object affected an accepted one")
	}
}

func TestContributionRenewTimeSkew(t *testing.T) {
	base := Compute(cluster(), now)
	for _, tc := range []struct {
		name     string
		ahead    time.Duration
		accepted bool
	}{
		{"within the skew", MaxClockSkew, true},
		{"beyond the skew", MaxClockSkew + 10*time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := drain(t)
			at := metav1.NewMicroTime(now.Add(tc.ahead))
			o.Spec.RenewTime = &at
			res := Compute(withInformers(cluster(), o), now)
			if res.Verdicts[0].Accepted != tc.accepted {
				t.Fatalf("verdict %+v", res.Verdicts[0])
			}
			if tc.accepted {
				return
			}
			// The clock catches up with the renewal: accepted from then.
			catchUp := at.Add(-MaxClockSkew)
			if !base.NextChange.IsZero() && !base.NextChange.After(catchUp) {
				t.Skip("the cluster changes first")
			}
			if !res.NextChange.Equal(catchUp) {
				t.Errorf("NextChange %v, want %v", res.NextChange, catchUp)
			}
			if r := Compute(withInformers(cluster(), o), catchUp); !r.Verdicts[0].Accepted {
				t.Errorf("at NextChange the verdict is still %+v", r.Verdicts[0])
			}
		})
	}
}

// TestTooManyInformers: room in every list is kept for the built-in
// informers, and given to the UpdateInformers created first.
func TestTooManyInformers(t *testing.T) {
	for _, tc := range []struct {
		name string
		room int
		make func(t testing.TB, i int, created time.Time) *informersv1alpha1.UpdateInformer
	}{
		{"control plane", maxInformersPerList - 4, func(t testing.TB, i int, created time.Time) *informersv1alpha1.UpdateInformer {
			return withCP(contrib(fmt.Sprintf("ns%02d", i), "c", created), cpHealthIn("a"))
		}},
		{"worker pool", maxInformersPerList - 1, func(t testing.TB, i int, created time.Time) *informersv1alpha1.UpdateInformer {
			return withPool(contrib(fmt.Sprintf("ns%02d", i), "c", created), "worker", poolHealthIn("a", "worker-0"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Object i is created at t0-i minutes: the last is the oldest,
			// and the first (latest) is left out, whatever the names say.
			var objs []*informersv1alpha1.UpdateInformer
			for i := range tc.room + 1 {
				objs = append(objs, tc.make(t, i, t0.Add(-time.Duration(i)*time.Minute)))
			}
			// Lists with no insights take no room.
			objs = append(objs, withPool(withCP(contrib("zz", "empty", t0.Add(-time.Hour))), "worker"))
			res := Compute(withInformers(cluster(), objs...), now)
			mustValid(t, res)
			for _, v := range res.Verdicts {
				refused := v.Namespace == "ns00"
				if v.Accepted == refused || refused && v.Reason != informersv1alpha1.ReasonTooManyInformers {
					t.Errorf("verdict %+v", v)
				}
			}
			if len(res.Status.ControlPlane.Informers) > maxInformersPerList || len(res.Status.WorkerPools[0].Informers) > maxInformersPerList {
				t.Error("a list has more informers than the API allows")
			}
			if hs := serverHealth(res); len(hs) != 1 || !strings.Contains(hs[0].Insight.HealthInsight.Impact.Summary, "c.ns00") {
				t.Errorf("server health %s", mustJSON(t, hs))
			}
		})
	}
}

func TestContributionLease(t *testing.T) {
	base := Compute(cluster(), now)
	micro := func(t time.Time) *metav1.MicroTime { m := metav1.NewMicroTime(t); return &m }
	seconds := func(n int32) *int32 { return &n }
	lease := func(name string, renewed time.Time, labelled bool) *coordinationv1.Lease {
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-drain", Name: name},
			Spec: coordinationv1.LeaseSpec{RenewTime: micro(renewed)}}
		if labelled {
			l.Labels = map[string]string{informersv1alpha1.LeaseLabel: name}
		}
		return l
	}
	for _, tc := range []struct {
		name    string
		edit    func(o *informersv1alpha1.UpdateInformer)
		expires time.Time
		lease   *coordinationv1.Lease
	}{
		{"renewed through its Lease", func(o *informersv1alpha1.UpdateInformer) { o.Spec.RenewTime = micro(now.Add(-2 * time.Minute)) },
			now.Add(45 * time.Second), lease("drain", now.Add(-15*time.Second), true)},
		{"renewTime later than the Lease", func(o *informersv1alpha1.UpdateInformer) { o.Spec.RenewTime = micro(now.Add(-10 * time.Second)) },
			now.Add(50 * time.Second), lease("drain", now.Add(-50*time.Second), true)},
		{"a Lease without the label renews nothing", func(o *informersv1alpha1.UpdateInformer) { o.Spec.RenewTime = micro(now.Add(-2 * time.Minute)) },
			now.Add(-time.Minute), lease("drain", now.Add(-15*time.Second), false)},
		{"another object's Lease renews nothing", func(o *informersv1alpha1.UpdateInformer) { o.Spec.RenewTime = micro(now.Add(-2 * time.Minute)) },
			now.Add(-time.Minute), lease("other", now.Add(-15*time.Second), true)},
		{"default lease from renewTime", func(o *informersv1alpha1.UpdateInformer) { o.Spec.RenewTime = micro(now.Add(-30 * time.Second)) },
			now.Add(30 * time.Second), nil},
		{"a lease of its own", func(o *informersv1alpha1.UpdateInformer) {
			o.Spec.RenewTime, o.Spec.LeaseDurationSeconds = micro(now.Add(-time.Hour)), seconds(3601)
		}, now.Add(time.Second), nil},
		{"default lease from creation", func(o *informersv1alpha1.UpdateInformer) {
			o.Spec.RenewTime, o.CreationTimestamp = nil, mt(now.Add(-20*time.Second))
		}, now.Add(40 * time.Second), nil},
		{"a lease of zero is the default", func(o *informersv1alpha1.UpdateInformer) {
			o.Spec.RenewTime, o.Spec.LeaseDurationSeconds = micro(now.Add(-10*time.Second)), seconds(0)
		}, now.Add(50 * time.Second), nil},
		{"expired by renewTime", func(o *informersv1alpha1.UpdateInformer) { o.Spec.RenewTime = micro(now.Add(-61 * time.Second)) },
			now.Add(-time.Second), nil},
		{"expired at the instant", func(o *informersv1alpha1.UpdateInformer) { o.Spec.RenewTime = micro(now.Add(-time.Minute)) },
			now, nil},
		{"expired from creation", func(o *informersv1alpha1.UpdateInformer) {
			o.Spec.RenewTime, o.CreationTimestamp = nil, mt(now.Add(-2*time.Minute))
		}, now.Add(-time.Minute), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := drain(t)
			tc.edit(o)
			src := withInformers(cluster(), o)
			if tc.lease != nil {
				src.ContributionLeases = []*coordinationv1.Lease{tc.lease}
			}
			res := Compute(src, now)
			mustValid(t, res)
			v := res.Verdicts[0]
			if !v.ExpiresAt.Equal(tc.expires) {
				t.Errorf("ExpiresAt %v, want %v", v.ExpiresAt, tc.expires)
			}
			if now.Before(tc.expires) {
				if v.Expired || !v.Accepted || v.Insights != 4 || len(externalInsights(res)) != 4 || serverHealth(res) != nil {
					t.Errorf("current contribution: verdict %+v, %d server insights", v, len(serverHealth(res)))
				}
				if base.NextChange.IsZero() || base.NextChange.After(tc.expires) {
					if !res.NextChange.Equal(tc.expires) {
						t.Errorf("NextChange %v, want the lease's end %v", res.NextChange, tc.expires)
					}
				}
				if later := Compute(src, tc.expires.Add(-time.Nanosecond)); !reflect.DeepEqual(later.Verdicts, res.Verdicts) {
					t.Error("the verdict changed before the lease's end")
				}
				if after := Compute(src, tc.expires); !after.Verdicts[0].Expired {
					t.Error("not expired at the lease's end")
				}
				return
			}
			if !v.Expired || v.Insights != 0 || len(externalInsights(res)) != 0 || cpInformer(&res.Status, "drain.openshift-drain") != nil ||
				poolInformer(&res.Status, "worker", "drain.openshift-drain") != nil {
				t.Fatalf("expired contribution still shown: verdict %+v", v)
			}
			if got, want := builtIns(t, &res.Status, builtInNames...), builtIns(t, &base.Status, builtInNames...); got != want {
				t.Error("the built-in informers changed")
			}
			hs := serverHealth(res)
			if len(hs) != 1 || conventions.KindOf(hs[0].UID) != v1alpha1.HealthInformerExpired {
				t.Fatalf("server health %s, want one %s", mustJSON(t, hs), v1alpha1.HealthInformerExpired)
			}
			h := hs[0]
			at := wire(tc.expires)
			if !h.AcquiredAt.Equal(&at) || !h.Insight.HealthInsight.StartedAt.Equal(&at) ||
				!strings.Contains(h.Insight.HealthInsight.Impact.Summary, "drain.openshift-drain") {
				t.Errorf("expired health %s, want acquiredAt and startedAt %v", mustJSON(t, h), at)
			}
			// Stable: later computations say the same.
			later := Compute(src, now.Add(3*time.Hour))
			if got := serverHealth(later); mustJSON(t, got) != mustJSON(t, hs) {
				t.Errorf("the expired health changed with the clock:\n%s\nwant\n%s", mustJSON(t, got), mustJSON(t, hs))
			}
		})
	}
}

// TestRenewalChangesNothing: a renewal that changes no insight leaves the
// status and the insights as they were, down to the entries of
// Result.Insights.
func TestRenewalChangesNothing(t *testing.T) {
	o := drain(t)
	e := NewEngine()
	first := e.Compute(withInformers(cluster(), o), now)
	renewed := o.DeepCopy()
	later := metav1.NewMicroTime(now.Add(20 * time.Second))
	renewed.Spec.RenewTime, renewed.Generation = &later, o.Generation+1
	at := now.Add(30 * time.Second)
	again := e.Compute(withInformers(cluster(), renewed), at)
	fresh := Compute(withInformers(cluster(), renewed), at)
	for _, r := range []Result{again, fresh} {
		if mustJSON(t, r.Status) != mustJSON(t, first.Status) {
			t.Error("a renewal changed the status")
		}
		if !reflect.DeepEqual(externalInsights(r), externalInsights(first)) {
			t.Error("a renewal changed the insights")
		}
		if !r.Verdicts[0].ExpiresAt.Equal(later.Add(time.Minute)) {
			t.Errorf("ExpiresAt %v after the renewal", r.Verdicts[0].ExpiresAt)
		}
	}
	// The Engine keeps the very entries: the view knows them by pointer.
	for i, in := range externalInsights(again) {
		if in != externalInsights(first)[i] {
			t.Errorf("entry %s is a new one after a renewal", in.UID)
		}
	}
	// A change of an insight is not a renewal.
	changed := renewed.DeepCopy()
	changed.Spec.ControlPlane.Insights[0].Insight.HealthInsight.Impact.Summary = "Changed"
	if r := e.Compute(withInformers(cluster(), changed), at); mustJSON(t, r.Status) == mustJSON(t, first.Status) {
		t.Error("a changed insight did not change the status")
	}
}

// TestContributionListedTwice: the same object listed twice is one
// informer with one verdict.
func TestContributionListedTwice(t *testing.T) {
	o := drain(t)
	res := Compute(withInformers(cluster(), o, o.DeepCopy()), now)
	mustValid(t, res)
	if len(res.Verdicts) != 1 || len(externalInsights(res)) != 4 {
		t.Errorf("%d verdicts and %d external insights, want 1 and 4", len(res.Verdicts), len(externalInsights(res)))
	}
}

// TestContributionsIncremental runs contributions through one Engine and
// checks every result against a fresh computation.
func TestContributionsIncremental(t *testing.T) {
	src := cluster()
	e := NewEngine()
	micro := func(t time.Time) *metav1.MicroTime { m := metav1.NewMicroTime(t); return &m }
	steps := []struct {
		name string
		at   time.Time
		edit func(s *Sources)
	}{
		{"none", now, func(*Sources) {}},
		{"one contributes", now, func(s *Sources) { s.UpdateInformers = []*informersv1alpha1.UpdateInformer{drain(t)} }},
		{"another is refused", now, func(s *Sources) {
			s.UpdateInformers = append(s.UpdateInformers, withPool(contrib("ns", "b", t0), "infra", poolHealthIn("h", "")))
		}},
		{"the pool appears", now, func(s *Sources) { s.MachineConfigPools = append(s.MachineConfigPools, newPool("infra")) }},
		{"a renewal", now.Add(10 * time.Second), func(s *Sources) {
			o := s.UpdateInformers[0].DeepCopy()
			o.Spec.RenewTime = micro(now.Add(10 * time.Second))
			s.UpdateInformers[0] = o
		}},
		{"an insight changes", now.Add(20 * time.Second), func(s *Sources) {
			o := s.UpdateInformers[0].DeepCopy()
			o.Spec.WorkerPools[0].Insights = o.Spec.WorkerPools[0].Insights[:1]
			s.UpdateInformers[0] = o
		}},
		{"a lease lapses", now.Add(65 * time.Second), func(*Sources) {}},
		{"still lapsed", now.Add(time.Hour), func(*Sources) {}},
		{"renewed again", now.Add(time.Hour), func(s *Sources) {
			for i, o := range s.UpdateInformers {
				o = o.DeepCopy()
				o.Spec.RenewTime = micro(now.Add(time.Hour))
				s.UpdateInformers[i] = o
			}
		}},
		{"the pool goes", now.Add(time.Hour), func(s *Sources) { s.MachineConfigPools = s.MachineConfigPools[:2] }},
		{"deleted", now.Add(time.Hour), func(s *Sources) { s.UpdateInformers = s.UpdateInformers[1:] }},
		{"all deleted", now.Add(time.Hour), func(s *Sources) { s.UpdateInformers = nil }},
	}
	for _, step := range steps {
		step.edit(src)
		got := e.Compute(src, step.at)
		want := Compute(src, step.at)
		mustValid(t, got)
		if mustJSON(t, got.Status) != mustJSON(t, want.Status) || !got.NextChange.Equal(want.NextChange) ||
			!reflect.DeepEqual(got.Verdicts, want.Verdicts) || mustJSON(t, got.Insights) != mustJSON(t, want.Insights) {
			t.Fatalf("after %q the engine's result differs from a fresh computation", step.name)
		}
	}
	if len(e.contribs) != 0 {
		t.Errorf("the engine remembers %d UpdateInformers, want none", len(e.contribs))
	}
}
