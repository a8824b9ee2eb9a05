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
	// root, on a path without a parent, is the caller's path of the
	// part validated (rootedAt); nil for the root of a whole object.
	root *field.Path
}

// rootedAt returns the path of a part of an object that the caller placed
// at fld.
func rootedAt(fld *field.Path) path { return path{root: fld} }

// child returns the path of the field name below p.
func (p *path) child(name string) path { return path{parent: p, name: name} }

// at returns the path of element i of the list at p.
func (p *path) at(i int) path { return path{parent: p, index: i} }

// build materialises p as a *field.Path. The names are cloned so that, to
// the compiler's escape analysis, nothing reachable from p flows into the
// returned path; otherwise every path segment would be moved to the heap.
func (p *path) build() *field.Path {
	if p.root != nil {
		return p.root
	}
	if p.parent == nil {
		return field.NewPath(strings.Clone(p.name))
	}
	parent := p.parent.build()
	if p.name == "" {
		return parent.Index(p.index)
	}
	return parent.Child(strings.Clone(p.name))
}
