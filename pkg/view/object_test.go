package view

import (
	"errors"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

func TestAvailableCondition(t *testing.T) {
	now := time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)
	earlier := metav1.NewTime(now.Add(-time.Hour))
	tests := []struct {
		name       string
		snap       Snapshot
		computeErr error
		prev       *metav1.Condition
		wantStatus metav1.ConditionStatus
		wantReason string
		wantInMsg  []string
		wantLTT    metav1.Time
	}{
		{
			name:       "all synced",
			wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.AvailableReasonAsExpected,
			wantLTT: metav1.NewTime(now),
		},
		{
			name:       "caches not synced names them",
			snap:       Snapshot{Unsynced: []string{"nodes", "clusteroperators.config.openshift.io"}},
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AvailableReasonCachesNotSynced,
			wantInMsg: []string{"nodes", "clusteroperators.config.openshift.io"},
			wantLTT:   metav1.NewTime(now),
		},
		{
			name:       "source unavailable names it",
			snap:       Snapshot{Unavailable: []string{"machineconfigpools.machineconfiguration.openshift.io"}},
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AvailableReasonSourceUnavailable,
			wantInMsg: []string{"machineconfigpools.machineconfiguration.openshift.io"},
			wantLTT:   metav1.NewTime(now),
		},
		{
			name:       "unsynced wins over unavailable and mentions both",
			snap:       Snapshot{Unsynced: []string{"nodes"}, Unavailable: []string{"machineconfigs.machineconfiguration.openshift.io"}},
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AvailableReasonCachesNotSynced,
			wantInMsg: []string{"nodes", "machineconfigs.machineconfiguration.openshift.io"},
			wantLTT:   metav1.NewTime(now),
		},
		{
			name:       "engine failure",
			snap:       Snapshot{Unsynced: []string{"nodes"}},
			computeErr: errors.New("boom"),
			wantStatus: metav1.ConditionUnknown, wantReason: v1alpha1.AvailableReasonCannotDetermine,
			wantInMsg: []string{"boom"},
			wantLTT:   metav1.NewTime(now),
		},
		{
			name:       "same status keeps the transition time",
			snap:       Snapshot{Unavailable: []string{"x"}},
			prev:       &metav1.Condition{Type: "Available", Status: metav1.ConditionFalse, Reason: "CachesNotSynced", LastTransitionTime: earlier},
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AvailableReasonSourceUnavailable,
			wantLTT: earlier,
		},
		{
			name:       "a new status moves the transition time",
			prev:       &metav1.Condition{Type: "Available", Status: metav1.ConditionFalse, Reason: "CachesNotSynced", LastTransitionTime: earlier},
			wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.AvailableReasonAsExpected,
			wantLTT: metav1.NewTime(now),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := availableCondition(tt.snap, tt.computeErr, tt.prev, now.Add(300*time.Millisecond))
			if got.Type != v1alpha1.UpdateStatusAvailable || got.Status != tt.wantStatus || got.Reason != tt.wantReason {
				t.Fatalf("got %s=%s/%s, want Available=%s/%s", got.Type, got.Status, got.Reason, tt.wantStatus, tt.wantReason)
			}
			for _, s := range tt.wantInMsg {
				if !strings.Contains(got.Message, s) {
					t.Errorf("message %q does not mention %q", got.Message, s)
				}
			}
			if !got.LastTransitionTime.Equal(&tt.wantLTT) {
				t.Errorf("lastTransitionTime = %v, want %v", got.LastTransitionTime, tt.wantLTT)
			}
		})
	}
}

func TestObjectMeta(t *testing.T) {
	created := metav1.NewTime(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	cv := func(uid string) *configv1.ClusterVersion {
		return &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version", UID: types.UID(uid), CreationTimestamp: created}}
	}
	tests := []struct {
		name        string
		cv          *configv1.ClusterVersion
		wantUID     bool
		wantCreated metav1.Time
	}{
		{name: "no ClusterVersion", cv: nil},
		{name: "ClusterVersion without uid", cv: cv("")},
		{name: "ClusterVersion", cv: cv("8a0c4a4e-1111-2222-3333-444455556666"), wantUID: true, wantCreated: created},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := objectMeta(tt.cv)
			if m.Name != ObjectName {
				t.Errorf("name = %q", m.Name)
			}
			if (m.UID != "") != tt.wantUID {
				t.Errorf("uid = %q, want set: %v", m.UID, tt.wantUID)
			}
			if !m.CreationTimestamp.Equal(&tt.wantCreated) {
				t.Errorf("creationTimestamp = %v, want %v", m.CreationTimestamp, tt.wantCreated)
			}
		})
	}
	// Every replica derives the same uid, distinct from the ClusterVersion's.
	a, b := objectMeta(cv("u-1")), objectMeta(cv("u-1"))
	if a.UID != b.UID || a.UID == "u-1" || a.UID == objectMeta(cv("u-2")).UID {
		t.Errorf("uids: %q %q %q", a.UID, b.UID, objectMeta(cv("u-2")).UID)
	}
}
