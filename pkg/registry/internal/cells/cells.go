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

// Package cells holds the cell texts that the registry's kubectl tables
// share: the unknown marker, the unwrapping of the watch cache's objects,
// and how versions, ages and estimates read.
package cells

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Unknown is the text of a cell whose value is missing.
const Unknown = "<unknown>"

// OrUnknown returns s, or Unknown when s is empty.
func OrUnknown(s string) string {
	if s == "" {
		return Unknown
	}
	return s
}

// Unwrap returns the object inside a cacheable wrapper (the watch cache's
// events), or obj itself.
func Unwrap(obj runtime.Object) runtime.Object {
	if c, ok := obj.(runtime.CacheableObject); ok {
		return c.GetObject()
	}
	return obj
}

// Previous is the text of the version an update started from, marked
// "(partial)" when the update to it never completed; Unknown when empty.
func Previous(v *update.Version) string {
	if v.Version == "" {
		return Unknown
	}
	for _, m := range v.Metadata {
		if string(m.Key) == string(v1alpha1.PartialMetadata) {
			return v.Version + " (partial)"
		}
	}
	return v.Version
}

// Age is the time since t, in kubectl's short form; Unknown for a zero t.
func Age(t time.Time, now time.Time) string {
	if t.IsZero() {
		return Unknown
	}
	return duration.HumanDuration(now.Sub(t))
}

// Remaining is the estimated time until an update completes: "0s" once it
// completed, "overdue" past the estimate, "~<duration>" before it, and
// Unknown without an estimate.
func Remaining(completedAt, estimatedAt *metav1.Time, now time.Time) string {
	switch {
	case completedAt != nil:
		return "0s"
	case estimatedAt == nil:
		return Unknown
	case !estimatedAt.After(now):
		return "overdue"
	default:
		return "~" + duration.HumanDuration(estimatedAt.Sub(now))
	}
}
