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

package sources

import (
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

func TestContributionMatters(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	obj := func(renewed time.Time, mutate ...func(*informersv1alpha1.UpdateInformer)) *informersv1alpha1.UpdateInformer {
		o := &informersv1alpha1.UpdateInformer{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", UID: "u1", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
			Spec: informersv1alpha1.UpdateInformerSpec{LeaseDurationSeconds: ptr.To(int32(60)), RenewTime: ptr.To(metav1.NewMicroTime(renewed)),
				WorkerPools: []informersv1alpha1.WorkerPoolContribution{{Name: "worker"}}},
		}
		for _, m := range mutate {
			m(o)
		}
		return o
	}
	tests := []struct {
		name     string
		old, new *informersv1alpha1.UpdateInformer
		lease    *coordinationv1.Lease
		want     bool
	}{
		{"a renewal of a current lease", obj(now.Add(-10 * time.Second)), obj(now), nil, false},
		{"a status write", obj(now), obj(now, func(o *informersv1alpha1.UpdateInformer) { o.Status.Informer = "a.ns" }), nil, false},
		{"a renewal of a lapsed lease", obj(now.Add(-2 * time.Minute)), obj(now), nil, true},
		{"a renewal ahead of the clock", obj(now), obj(now.Add(insights.MaxClockSkew + time.Second)), nil, true},
		{"a new lease duration", obj(now), obj(now, func(o *informersv1alpha1.UpdateInformer) { o.Spec.LeaseDurationSeconds = ptr.To(int32(30)) }), nil, true},
		{"other insights", obj(now), obj(now, func(o *informersv1alpha1.UpdateInformer) { o.Spec.WorkerPools[0].Name = "infra" }), nil, true},
		{"recreated", obj(now), obj(now, func(o *informersv1alpha1.UpdateInformer) { o.UID = "u2" }), nil, true},
		{"not an UpdateInformer", obj(now), nil, nil, true},
		{"an old renewTime, a current companion Lease, the insights rewritten", obj(now.Add(-2 * time.Minute)), obj(now.Add(-2*time.Minute), func(o *informersv1alpha1.UpdateInformer) { o.Status.Informer = "a.ns" }),
			contributionLease(now.Add(-5*time.Second), true), false},
		{"an old renewTime, a Lease without the label", obj(now.Add(-2 * time.Minute)), obj(now.Add(-2*time.Minute), func(o *informersv1alpha1.UpdateInformer) { o.Status.Informer = "a.ns" }),
			contributionLease(now.Add(-5*time.Second), false), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var updated interface{} = tt.new
			if tt.new == nil {
				updated = "tombstone"
			}
			if got := contributionMatters(tt.old, updated, tt.lease, now); got != tt.want {
				t.Errorf("contributionMatters = %v, want %v", got, tt.want)
			}
		})
	}
}

// contributionLease is the companion Lease of ns/a renewed at renewed, with
// the label that makes it one when labelled.
func contributionLease(renewed time.Time, labelled bool) *coordinationv1.Lease {
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"},
		Spec:       coordinationv1.LeaseSpec{RenewTime: ptr.To(metav1.NewMicroTime(renewed))},
	}
	if labelled {
		l.Labels = map[string]string{informersv1alpha1.LeaseLabel: "a"}
	}
	return l
}

func TestLeaseMatters(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ui := &informersv1alpha1.UpdateInformer{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		Spec: informersv1alpha1.UpdateInformerSpec{LeaseDurationSeconds: ptr.To(int32(60)),
			RenewTime: ptr.To(metav1.NewMicroTime(now.Add(-time.Hour)))},
	}
	tests := []struct {
		name     string
		old, new *coordinationv1.Lease
		ui       *informersv1alpha1.UpdateInformer
		want     bool
	}{
		{"a renewal of a current lease", contributionLease(now.Add(-20*time.Second), true), contributionLease(now, true), ui, false},
		{"a renewal of a lapsed lease", contributionLease(now.Add(-2*time.Minute), true), contributionLease(now, true), ui, true},
		{"a renewal ahead of the clock", contributionLease(now, true), contributionLease(now.Add(insights.MaxClockSkew+time.Second), true), ui, true},
		{"the label removed", contributionLease(now.Add(-20*time.Second), true), contributionLease(now, false), ui, true},
		{"the label added", contributionLease(now.Add(-20*time.Second), false), contributionLease(now, true), ui, true},
		{"no UpdateInformer", contributionLease(now.Add(-2*time.Minute), true), contributionLease(now, true), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := leaseMatters(tt.old, tt.new, tt.ui, now); got != tt.want {
				t.Errorf("leaseMatters = %v, want %v", got, tt.want)
			}
		})
	}
	if !leaseMatters("tombstone", contributionLease(now, true), ui, now) {
		t.Error("leaseMatters of something else than a Lease = false, want true")
	}
}

func TestStatusOf(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	accepted := insights.Verdict{Namespace: "ns", Name: "a", Generation: 2, Informer: "a.ns", Accepted: true, Insights: 3}
	first := statusOf(&informersv1alpha1.UpdateInformerStatus{}, &accepted, t0)
	if !meta.IsStatusConditionTrue(first.Conditions, informersv1alpha1.ConditionAccepted) ||
		!meta.IsStatusConditionFalse(first.Conditions, informersv1alpha1.ConditionExpired) ||
		first.Informer != "a.ns" || *first.Insights != 3 || first.ObservedGeneration != 2 {
		t.Fatalf("first status: %+v", first)
	}

	// The same verdict for a renewed object (a later generation) later:
	// nothing to write.
	renewed := accepted
	renewed.Generation = 5
	if again := statusOf(first, &renewed, t0.Add(time.Minute)); !equality.Semantic.DeepEqual(first, again) {
		t.Errorf("a renewal changes the status:\n%+v\nto\n%+v", first, again)
	}

	// Expired: the Expired condition moves at the new time, Accepted keeps
	// its transition time, observedGeneration follows.
	expired := renewed
	expired.Expired, expired.Insights, expired.ExpiresAt = true, 0, t0.Add(2*time.Minute)
	later := t0.Add(3 * time.Minute)
	st := statusOf(first, &expired, later)
	exp := meta.FindStatusCondition(st.Conditions, informersv1alpha1.ConditionExpired)
	acc := meta.FindStatusCondition(st.Conditions, informersv1alpha1.ConditionAccepted)
	if exp.Status != metav1.ConditionTrue || exp.Reason != informersv1alpha1.ReasonLeaseExpired || !exp.LastTransitionTime.Time.Equal(later) {
		t.Errorf("Expired condition: %+v", exp)
	}
	if !acc.LastTransitionTime.Time.Equal(t0) || st.ObservedGeneration != 5 || acc.ObservedGeneration != 5 {
		t.Errorf("Accepted condition %+v, observedGeneration %d", acc, st.ObservedGeneration)
	}
}
