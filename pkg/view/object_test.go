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

package view

import (
	"errors"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

func TestAvailableCondition(t *testing.T) {
	created := metav1.NewTime(time.Date(2024, 3, 12, 10, 0, 0, 0, time.UTC))
	type testCase struct {
		name        string
		snap        Snapshot
		computeErr  error
		truncations []insights.Truncation
		since       metav1.Time
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantInMsg   []string
		wantMsg     string // the whole message, when set
		wantLTT     metav1.Time
	}
	// alertsOnly is a case whose only problem is the alerts: Available
	// stays True as expected and its message ends with why.
	alertsOnly := func(name, alerts string) testCase {
		return testCase{name: name, snap: Snapshot{AlertsUnavailable: alerts}, since: created,
			wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.AvailableReasonAsExpected,
			wantMsg: "All source caches are synced and the last computation succeeded. " + alerts, wantLTT: created}
	}
	tests := []testCase{
		{
			name: "all synced", since: created,
			wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.AvailableReasonAsExpected,
			wantLTT: created,
		},
		{
			name:        "truncations are named",
			since:       created,
			truncations: []insights.Truncation{{Where: "workerPools/worker/nodes", Omitted: 12}, {Where: "workerPools", Omitted: 3}},
			wantStatus:  metav1.ConditionTrue, wantReason: v1alpha1.AvailableReasonAsExpected,
			wantInMsg: []string{"workerPools/worker/nodes (12)", "workerPools (3)"},
			wantLTT:   created,
		},
		{
			name:       "caches not synced names them",
			snap:       Snapshot{Unsynced: []string{"nodes", "clusteroperators.config.openshift.io"}},
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AvailableReasonCachesNotSynced,
			wantInMsg: []string{"nodes", "clusteroperators.config.openshift.io"},
			wantLTT:   epoch,
		},
		{
			name:       "source unavailable names it",
			snap:       Snapshot{Unavailable: []string{"machineconfigpools.machineconfiguration.openshift.io"}},
			since:      created,
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AvailableReasonSourceUnavailable,
			wantInMsg: []string{"machineconfigpools.machineconfiguration.openshift.io"},
			wantLTT:   created,
		},
		{
			name:       "unsynced wins over unavailable and mentions both",
			snap:       Snapshot{Unsynced: []string{"nodes"}, Unavailable: []string{"machineconfigs.machineconfiguration.openshift.io"}},
			wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AvailableReasonCachesNotSynced,
			wantInMsg: []string{"nodes", "machineconfigs.machineconfiguration.openshift.io"},
			wantLTT:   epoch,
		},
		alertsOnly("alerts unavailable: status and reason unchanged, the message says why",
			"Alerts are unavailable: GET https://thanos/api/v1/alerts: 403 Forbidden."),
		alertsOnly("alerts not configured", "Alerts are not read: no --alerts-url was given."),
		{
			name:        "alerts unavailable along an unserved source and truncations",
			snap:        Snapshot{Unavailable: []string{"machineconfigpools.machineconfiguration.openshift.io"}, AlertsUnavailable: "Alerts are unavailable: x."},
			truncations: []insights.Truncation{{Where: "workerPools", Omitted: 3}},
			wantStatus:  metav1.ConditionFalse, wantReason: v1alpha1.AvailableReasonSourceUnavailable,
			wantMsg: "Source APIs not served: machineconfigpools.machineconfiguration.openshift.io. The insights that depend on them are omitted. Alerts are unavailable: x. Insights left out to stay within the API's limits: workerPools (3).",
			wantLTT: epoch,
		},
		{
			name:       "engine failure",
			snap:       Snapshot{Unsynced: []string{"nodes"}},
			computeErr: errors.New("boom"),
			wantStatus: metav1.ConditionUnknown, wantReason: v1alpha1.AvailableReasonCannotDetermine,
			wantInMsg: []string{"boom"},
			wantLTT:   epoch,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := availableCondition(tt.snap, tt.computeErr, tt.truncations, tt.since)
			if got.Type != v1alpha1.UpdateStatusAvailable || got.Status != tt.wantStatus || got.Reason != tt.wantReason {
				t.Fatalf("got %s=%s/%s, want Available=%s/%s", got.Type, got.Status, got.Reason, tt.wantStatus, tt.wantReason)
			}
			for _, s := range tt.wantInMsg {
				if !strings.Contains(got.Message, s) {
					t.Errorf("message %q does not mention %q", got.Message, s)
				}
			}
			if tt.wantMsg != "" && got.Message != tt.wantMsg {
				t.Errorf("message\n%q, want\n%q", got.Message, tt.wantMsg)
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
			if m.Name != resources.UpdateStatusName {
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
