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
	"fmt"
	"strings"

	"github.com/google/uuid"
	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// uidNamespace is the namespace of the name-based (version 5) UUIDs this
// server derives from the ClusterVersion's uid.
var uidNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://update.openshift.io/v1alpha1/updatestatuses/cluster"))

// objectMeta returns the metadata every replica computes alike for the
// ClusterVersion cv (nil when unknown): the name, a name-based UUID of the
// ClusterVersion's uid and its creationTimestamp. The resourceVersion is set
// later.
func objectMeta(cv *configv1.ClusterVersion) metav1.ObjectMeta {
	meta := metav1.ObjectMeta{Name: resources.UpdateStatusName}
	if cv != nil && cv.UID != "" {
		meta.UID = types.UID(uuid.NewSHA1(uidNamespace, []byte(cv.UID)).String())
		meta.CreationTimestamp = cv.CreationTimestamp
	}
	return meta
}

// ObjectMeta returns the metadata of the UpdateStatus every replica serves
// for the ClusterVersion cv (nil when unknown), without a resourceVersion:
// what Objects needs to give the per-insight objects offline the uids the
// server gives them.
func ObjectMeta(cv *configv1.ClusterVersion) metav1.ObjectMeta { return objectMeta(cv) }

// epoch stands in for a time no source provides.
var epoch = metav1.Unix(0, 0)

// AvailableCondition is availableCondition for another server's object
// computed from snap (a hosted cluster's, which the hosted publisher
// builds): the same outer Available condition for the same state of its
// sources.
func AvailableCondition(snap Snapshot, computeErr error, truncations []insights.Truncation, since metav1.Time) metav1.Condition {
	return availableCondition(snap, computeErr, truncations, since)
}

// availableCondition returns the outer Available condition
// (docs/api.md#untyped-constants) for
// a computation over snap that failed with computeErr (nil on success) and
// left out the insights listed in truncations. The message ends with why the
// alerts are unavailable, when they are.
//
// Replicas must serve identical content, so the condition holds nothing a
// single replica observed: its lastTransitionTime is since, the object's
// creationTimestamp (the epoch when unknown), not the moment one replica saw
// the status change.
func availableCondition(snap Snapshot, computeErr error, truncations []insights.Truncation, since metav1.Time) metav1.Condition {
	cond := metav1.Condition{Type: v1alpha1.UpdateStatusAvailable, LastTransitionTime: since}
	if since.IsZero() {
		cond.LastTransitionTime = epoch
	}
	switch {
	case computeErr != nil:
		cond.Status = metav1.ConditionUnknown
		cond.Reason = v1alpha1.AvailableReasonCannotDetermine
		cond.Message = fmt.Sprintf("The status could not be computed: %v. The insights shown are from the last successful computation.", computeErr)
	case len(snap.Unsynced) > 0:
		cond.Status = metav1.ConditionFalse
		cond.Reason = v1alpha1.AvailableReasonCachesNotSynced
		cond.Message = fmt.Sprintf("Caches not synced yet: %s. The content may be partial or missing.", strings.Join(snap.Unsynced, ", "))
		if len(snap.Unavailable) > 0 {
			cond.Message += fmt.Sprintf(" Source APIs not served: %s.", strings.Join(snap.Unavailable, ", "))
		}
	case len(snap.Unavailable) > 0:
		cond.Status = metav1.ConditionFalse
		cond.Reason = v1alpha1.AvailableReasonSourceUnavailable
		cond.Message = fmt.Sprintf("Source APIs not served: %s. The insights that depend on them are omitted.", strings.Join(snap.Unavailable, ", "))
	default:
		cond.Status = metav1.ConditionTrue
		cond.Reason = v1alpha1.AvailableReasonAsExpected
		cond.Message = "All source caches are synced and the last computation succeeded."
	}
	// Alerts that cannot be read do not change the status or the reason
	// (docs/api-decisions.md#alerts-in-the-available-condition): the message
	// says so, and the insights from alerts are simply absent.
	if snap.AlertsUnavailable != "" {
		cond.Message += " " + snap.AlertsUnavailable
	}
	if len(truncations) > 0 && computeErr == nil {
		parts := make([]string, 0, len(truncations))
		for _, t := range truncations {
			parts = append(parts, fmt.Sprintf("%s (%d)", t.Where, t.Omitted))
		}
		cond.Message += fmt.Sprintf(" Insights left out to stay within the API's limits: %s.", strings.Join(parts, ", "))
	}
	return cond
}

// buildObject assembles the served object from the engine's status. status
// is converted without copying (the caller passes a private copy).
func buildObject(meta metav1.ObjectMeta, status *v1alpha1.UpdateStatusStatus, available metav1.Condition) (*update.UpdateStatus, error) {
	obj := &update.UpdateStatus{ObjectMeta: meta}
	if err := v1alpha1.Convert_v1alpha1_UpdateStatusStatus_To_update_UpdateStatusStatus(status, &obj.Status, nil); err != nil {
		return nil, err
	}
	// The engine does not set outer conditions; replace any it might have set.
	obj.Status.Conditions = []metav1.Condition{available}
	return obj, nil
}
