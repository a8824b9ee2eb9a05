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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
)

// The API serializes instants with whole seconds, so every instant the
// engine writes is truncated to the second first: an object then equals its
// own JSON round trip, and recomputation from the same sources is
// byte-identical.

// wire returns t at second precision, or conventions.UnknownTime when t is zero.
func wire(t time.Time) metav1.Time {
	if t.IsZero() || conventions.IsUnknownTime(t) {
		return metav1.Time{Time: conventions.UnknownTime}
	}
	return metav1.Time{Time: t.UTC().Truncate(time.Second)}
}

// wireCeil is wire rounding up to the next whole second, for instants with a
// fraction (alert activeAt): a "since" computed from it never overstates.
func wireCeil(t time.Time) metav1.Time {
	if t.IsZero() || conventions.IsUnknownTime(t) {
		return metav1.Time{Time: conventions.UnknownTime}
	}
	s := t.UTC().Truncate(time.Second)
	if s.Before(t) {
		s = s.Add(time.Second)
	}
	return metav1.Time{Time: s}
}

// latest returns the latest of the instants.
func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

// firstSet returns the first non-zero instant, or zero.
func firstSet(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// metaChangeTime is the latest change an object's metadata records: its
// creation and the times of the managedFields entries of the main resource.
// Entries of subresources (status) are ignored: a kubelet heartbeat would
// otherwise move it every few seconds.
func metaChangeTime(m *metav1.ObjectMeta) time.Time {
	t := m.CreationTimestamp.Time
	for i := range m.ManagedFields {
		f := &m.ManagedFields[i]
		if f.Subresource == "" && f.Time != nil && f.Time.After(t) {
			t = f.Time.Time
		}
	}
	return t
}

// condition builds a metav1.Condition at wire precision.
func condition(typ string, status metav1.ConditionStatus, reason, message string, at time.Time) metav1.Condition {
	return metav1.Condition{
		Type:               typ,
		Status:             status,
		Reason:             reason,
		Message:            conventions.Truncate(message, maxConditionMessage),
		LastTransitionTime: wire(at),
	}
}
