package updatestatus

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/update-status/apiserver/pkg/apis/update"
)

func TestFilter(t *testing.T) {
	obj := &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", Labels: map[string]string{"tier": "platform"}}}
	sets := setsOf(obj)
	parse := func(s string) labels.Selector {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}
	tests := []struct {
		name string
		f    filter
		want bool
	}{
		{name: "no selectors", f: filter{}, want: true},
		{name: "empty selectors", f: filter{label: labels.Everything(), field: fields.Everything()}, want: true},
		{name: "label match", f: filter{label: parse("tier=platform")}, want: true},
		{name: "label mismatch", f: filter{label: parse("tier=apps")}, want: false},
		{name: "label absent", f: filter{label: parse("!tier")}, want: false},
		{name: "name match", f: filter{field: fields.OneTermEqualSelector("metadata.name", "cluster")}, want: true},
		{name: "name mismatch", f: filter{field: fields.OneTermEqualSelector("metadata.name", "other")}, want: false},
		{name: "name excluded", f: filter{field: fields.OneTermNotEqualSelector("metadata.name", "cluster")}, want: false},
		{name: "both match", f: filter{label: parse("tier"), field: fields.OneTermEqualSelector("metadata.name", "cluster")}, want: true},
		{name: "one of two mismatches", f: filter{label: parse("tier=apps"), field: fields.OneTermEqualSelector("metadata.name", "cluster")}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.matches(sets); got != tt.want {
				t.Errorf("matches = %v, want %v", got, tt.want)
			}
		})
	}
	f := filter{label: parse("tier=platform"), field: fields.OneTermEqualSelector("metadata.name", "cluster")}
	if allocs := testing.AllocsPerRun(100, func() { f.matches(sets) }); allocs != 0 {
		t.Errorf("matching allocates %v times", allocs)
	}
}
