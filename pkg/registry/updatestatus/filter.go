package updatestatus

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/registry/generic"

	"github.com/update-status/apiserver/pkg/apis/update"
)

// selectableSets holds the label and field sets of one object, computed once
// per revision so that matching it against every watcher's selectors
// allocates nothing.
type selectableSets struct {
	labels labels.Set
	fields fields.Set
}

// setsOf returns the selectable sets of obj: its labels, and metadata.name
// as the only field (the object is cluster-scoped).
func setsOf(obj *update.UpdateStatus) selectableSets {
	return selectableSets{
		labels: labels.Set(obj.Labels),
		fields: generic.AddObjectMetaFieldsSet(fields.Set{}, &obj.ObjectMeta, false),
	}
}

// filter is the label and field selection of one request. A nil selector
// selects everything.
type filter struct {
	label labels.Selector
	field fields.Selector
}

// matches reports whether s is selected.
func (f filter) matches(s selectableSets) bool {
	if f.label != nil && !f.label.Empty() && !f.label.Matches(s.labels) {
		return false
	}
	if f.field != nil && !f.field.Empty() && !f.field.Matches(s.fields) {
		return false
	}
	return true
}
