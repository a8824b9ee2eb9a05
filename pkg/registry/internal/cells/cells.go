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

// Package cells holds what the registry's kubectl tables share: the
// tables of one kind and their rest.TableConvertor, the name column, the
// unknown marker, the unwrapping of the watch cache's objects, the table of
// an object or a list, and how versions, ages and estimates read.
package cells

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Kind is the kubectl table of one kind: its columns (priority 1 ones show
// only with -o wide) and the cells of an object at now, false when the
// object is not of the kind.
type Kind struct {
	Columns []metav1.TableColumnDefinition
	Cells   func(obj runtime.Object, now time.Time) ([]interface{}, bool)
}

// KindOf returns the table of the objects of type T: columns, and the cells
// row gives of each.
func KindOf[T runtime.Object](columns []metav1.TableColumnDefinition, row func(o T, now time.Time) []interface{}) Kind {
	return Kind{Columns: columns, Cells: func(obj runtime.Object, now time.Time) ([]interface{}, bool) {
		o, ok := obj.(T)
		if !ok {
			return nil, false
		}
		return row(o, now), true
	}}
}

// Convertor renders the objects of a kind for kubectl, at the time Clock
// gives. It implements rest.TableConvertor: it takes an object of the kind
// or a list of them, wrapped or not, and gives no row for anything else.
type Convertor struct {
	Kind
	Clock clock.PassiveClock
}

// ConvertToTable implements rest.TableConvertor.
func (c Convertor) ConvertToTable(_ context.Context, object runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	now := c.Clock.Now()
	return Table(object, tableOptions, c.Columns, func(obj runtime.Object) ([]interface{}, bool) {
		return c.Cells(obj, now)
	}), nil
}

// NameColumn is the first column of most tables: the object's name.
var NameColumn = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: "Name of the object."}

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
