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
// the table of an object or a list, and how versions, ages and estimates
// read.
package cells

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
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

// Table returns the kubectl table of object (unwrapped) with columns,
// unless tableOptions asks for no headers. An object gets one row, a list a
// row an item; cellsOf gives an object's cells, false for an object of
// another kind, which gets no row. The table carries a list's metadata, or
// the resourceVersion of an object with a row.
func Table(object, tableOptions runtime.Object, columns []metav1.TableColumnDefinition, cellsOf func(runtime.Object) ([]interface{}, bool)) *metav1.Table {
	t := &metav1.Table{}
	if opts, ok := tableOptions.(*metav1.TableOptions); !ok || !opts.NoHeaders {
		t.ColumnDefinitions = columns
	}
	add := func(item runtime.Object) bool {
		row, ok := cellsOf(item)
		if ok {
			t.Rows = append(t.Rows, metav1.TableRow{Cells: row, Object: runtime.RawExtension{Object: item}})
		}
		return ok
	}
	obj := Unwrap(object)
	if !meta.IsListType(obj) {
		if m, err := meta.Accessor(obj); add(obj) && err == nil {
			t.ResourceVersion = m.GetResourceVersion()
		}
		return t
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return t
	}
	if l, err := meta.ListAccessor(obj); err == nil {
		t.ResourceVersion, t.Continue, t.RemainingItemCount = l.GetResourceVersion(), l.GetContinue(), l.GetRemainingItemCount()
	}
	t.Rows = make([]metav1.TableRow, 0, len(items))
	for _, item := range items {
		add(Unwrap(item))
	}
	return t
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
