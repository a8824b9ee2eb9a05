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

package insights_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/internal/informertest"
	"github.com/update-status/apiserver/internal/viewtest"
	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
	"github.com/update-status/apiserver/pkg/insights"
)

// builtInLists encodes the lists of the built-in informers.
func builtInLists(t *testing.T, st *v1alpha1.UpdateStatusStatus) string {
	t.Helper()
	builtIn := map[string]bool{v1alpha1.InformerAlerts: true, v1alpha1.InformerControlPlane: true, v1alpha1.InformerNodes: true}
	var lists []any
	if st.ControlPlane != nil {
		for _, inf := range st.ControlPlane.Informers {
			if builtIn[inf.Name] {
				lists = append(lists, inf)
			}
		}
	}
	for _, p := range st.WorkerPools {
		for _, inf := range p.Informers {
			if builtIn[inf.Name] {
				lists = append(lists, p.Name, inf)
			}
		}
	}
	b, err := json.Marshal(lists)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mutateContribution applies fuzzer-chosen edits to o: names, pools, node
// references, uids, lease and times, from ops and the strings a and b.
func mutateContribution(o *informersv1alpha1.UpdateInformer, ops []byte, a, b string, src *insights.Sources, now time.Time) {
	next := func() int {
		if len(ops) == 0 {
			return 0
		}
		v := int(ops[0])
		ops = ops[1:]
		return v
	}
	str := func() string {
		if next()%2 == 0 {
			return a
		}
		return b
	}
	for steps := 0; len(ops) > 0 && steps < 32; steps++ {
		op, i := next(), next()
		var pool *informersv1alpha1.WorkerPoolContribution
		if n := len(o.Spec.WorkerPools); n > 0 {
			pool = &o.Spec.WorkerPools[i%n]
		}
		switch op % 10 {
		case 0:
			o.Namespace = str()
		case 1:
			o.Name = str()
		case 2:
			if pool != nil {
				pool.Name = str()
				if len(src.MachineConfigPools) > 0 && i%3 > 0 {
					pool.Name = src.MachineConfigPools[i%len(src.MachineConfigPools)].Name
				}
			}
		case 3:
			if pool != nil && len(pool.Insights) > 0 {
				pool.Insights[i%len(pool.Insights)].UID = str()
			} else if cp := o.Spec.ControlPlane; cp != nil && len(cp.Insights) > 0 {
				cp.Insights[i%len(cp.Insights)].UID = str()
			}
		case 4:
			if pool != nil {
				o.Spec.WorkerPools = append(o.Spec.WorkerPools, *pool.DeepCopy())
			}
		case 5:
			lease := int32(next()) - 8
			o.Spec.LeaseDurationSeconds = &lease
		case 6:
			at := metav1.NewMicroTime(now.Add(time.Duration(int8(next())) * time.Second))
			o.Spec.RenewTime = &at
		case 7:
			// A node reference: an existing node or a fuzzer string.
			name := str()
			if len(src.Nodes) > 0 && i%3 > 0 && src.Nodes[i%len(src.Nodes)] != nil {
				name = src.Nodes[i%len(src.Nodes)].Name
			}
			if pool != nil && len(pool.Insights) > 0 {
				u := &pool.Insights[i%len(pool.Insights)].Insight
				if u.HealthInsight != nil {
					u.HealthInsight.Scope.Resources = append(u.HealthInsight.Scope.Resources, v1alpha1.ResourceRef{Resource: "nodes", Name: name})
				}
				if u.NodeStatusInsight != nil {
					u.NodeStatusInsight.Name, u.NodeStatusInsight.Resource.Name = name, name
				}
			}
		case 8:
			o.CreationTimestamp = metav1.NewTime(now.Add(-time.Duration(next()) * time.Minute))
		case 9:
			if pool != nil && len(pool.Insights) > 0 {
				u := &pool.Insights[i%len(pool.Insights)].Insight
				u.Type = v1alpha1.InsightType(str())
			}
		}
	}
}

// FuzzContributions merges an arbitrary UpdateInformer (decoded from the
// fuzzer's JSON, then edited) with a small cluster and a valid contribution:
// the engine never panics, serves a valid object, leaves the built-in
// informers' lists byte-identical and the valid contribution accepted, gives
// a reason for every refusal, and an Engine with memory agrees with a fresh
// computation.
// fuzzLeases returns companion Leases of o that ops shape: none, one
// without a renewTime, or one renewed ops[0] minutes (signed) from now; a
// second, unlabelled one with the same name when ops[1] is odd.
func fuzzLeases(o *informersv1alpha1.UpdateInformer, ops []byte, now time.Time) []*coordinationv1.Lease {
	if len(ops) == 0 {
		return nil
	}
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name,
		Labels: map[string]string{informersv1alpha1.LeaseLabel: o.Name}}}
	if ops[0] != 0 {
		at := metav1.NewMicroTime(now.Add(time.Duration(int8(ops[0])) * time.Minute))
		l.Spec.RenewTime = &at
	}
	leases := []*coordinationv1.Lease{l}
	if len(ops) > 1 && ops[1]%2 == 1 {
		other := l.DeepCopy()
		other.Labels = nil
		leases = append(leases, other, nil)
	}
	return leases
}

func FuzzContributions(f *testing.F) {
	// The fuzzer's JSON is decoded over a valid contribution (what it sets
	// replaces the valid parts), or over an empty object when it starts
	// with "!": short inputs reach deep into the merge.
	f.Add([]byte(`{}`), []byte{}, "", "")
	f.Add([]byte(`{}`), []byte{2, 1, 7, 2, 0, 3}, "infra", "ghost")
	f.Add([]byte(`{}`), []byte{4, 0, 3, 0, 9, 0, 0}, "Bad_UID", "Node")
	f.Add([]byte(`{}`), []byte{6, 0, 120, 5, 0, 8, 8, 0, 200}, "", "")
	f.Add([]byte(`{"metadata":{"name":"a.b"}}`), []byte{0, 0, 0, 1, 0, 1}, "a.b", "x")
	f.Add([]byte(`{"spec":{"workerPools":[{"name":"master"}],"leaseDurationSeconds":-1}}`), []byte{}, "", "")
	f.Add([]byte(`!{"metadata":{"namespace":"ns","name":"n"},"spec":{"workerPools":[{"name":"worker","insights":[{"uid":"u","insight":{"type":"Health"}}]}]}}`),
		[]byte{}, "", "")
	f.Add([]byte(`!{"spec":{"controlPlane":{"insights":[{"uid":"","insight":{"type":"Node","node":{}}}]}}}`), []byte{1, 1}, "", "x")
	// The engine modifies no object it reads, and the mutations touch only
	// the contribution: one cluster serves every run.
	src, now := viewtest.Cluster(5, 2, 3)
	base := insights.Compute(src, now)
	f.Fuzz(func(t *testing.T, data, ops []byte, a, b string) {
		o := informertest.Contribution("fuzz", "contribution", now)
		if rest, ok := bytes.CutPrefix(data, []byte("!")); ok {
			o, data = &informersv1alpha1.UpdateInformer{}, rest
		}
		_ = json.Unmarshal(data, o) // what decodes, partly or not at all, is the input
		mutateContribution(o, ops, a, b, src, now)
		good := informertest.Contribution("good", "informer", now)
		with := *src
		with.UpdateInformers = []*informersv1alpha1.UpdateInformer{good, o}
		if o.Namespace != good.Namespace || o.Name != good.Name {
			with.ContributionLeases = fuzzLeases(o, ops, now)
		}

		res := insights.Compute(&with, now)
		obj := &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: resources.UpdateStatusName}, Status: res.Status}
		if errs := validation.ValidateUpdateStatus(obj); len(errs) > 0 {
			t.Fatalf("invalid object: %v", errs.ToAggregate())
		}
		if got, want := builtInLists(t, &res.Status), builtInLists(t, &base.Status); got != want {
			t.Fatalf("the built-in informers' lists changed:\n%s\nwant\n%s", got, want)
		}
		if !res.NextChange.IsZero() && !res.NextChange.After(now) {
			t.Fatalf("NextChange %v is not after now %v", res.NextChange, now)
		}
		want := 2
		if o.Namespace == good.Namespace && o.Name == good.Name {
			want = 1
		}
		if len(res.Verdicts) != want {
			t.Fatalf("%d verdicts for %d objects", len(res.Verdicts), want)
		}
		for _, v := range res.Verdicts {
			if !v.Accepted && (v.Reason == "" || v.Message == "") {
				t.Fatalf("a refusal without a reason: %+v", v)
			}
			if v.Namespace == good.Namespace && v.Name == good.Name && (!v.Accepted || v.Expired || v.Insights != 2) {
				t.Fatalf("the valid contribution is affected: %+v", v)
			}
		}
		memo := insights.NewEngine()
		memo.Compute(src, now)
		again := memo.Compute(&with, now)
		if !reflect.DeepEqual(again.Verdicts, res.Verdicts) {
			t.Fatal("an Engine with memory gives other verdicts than a fresh computation")
		}
		fresh, err := json.Marshal(res.Status)
		if err != nil {
			t.Fatal(err)
		}
		memoJSON, err := json.Marshal(again.Status)
		if err != nil {
			t.Fatal(err)
		}
		if string(fresh) != string(memoJSON) {
			t.Fatal("an Engine with memory disagrees with a fresh computation")
		}
	})
}
