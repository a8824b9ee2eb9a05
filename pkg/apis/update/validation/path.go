package validation

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// path is a field path that is only turned into a *field.Path when an error
// is reported. Each segment lives on the stack of the function that validates
// that part of the object, so walking a valid object allocates nothing for
// paths.
type path struct {
	parent *path
	name   string // field name; empty for a list index
	index  int
}

// child returns the path of the field name below p.
func (p *path) child(name string) path { return path{parent: p, name: name} }

// at returns the path of element i of the list at p.
func (p *path) at(i int) path { return path{parent: p, index: i} }

// build materialises p as a *field.Path. The names are cloned so that, to
// the compiler's escape analysis, nothing reachable from p flows into the
// returned path; otherwise every path segment would be moved to the heap.
func (p *path) build() *field.Path {
	if p.parent == nil {
		return field.NewPath(strings.Clone(p.name))
	}
	parent := p.parent.build()
	if p.name == "" {
		return parent.Index(p.index)
	}
	return parent.Child(strings.Clone(p.name))
}
