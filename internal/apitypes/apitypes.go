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

// Package apitypes derives the types of an API version from its scheme, for
// tests that must cover every kind and every struct type of the API without
// keeping their own list of them.
package apitypes

import (
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kinds returns the kinds scheme registers for gv that are declared in the
// API's own package (pkg, the package of obj), lists included, sorted: the
// meta types every version also registers (WatchEvent, ListOptions, ...)
// are left out.
func Kinds(scheme *runtime.Scheme, gv schema.GroupVersion, obj runtime.Object) []string {
	pkg := reflect.TypeOf(obj).Elem().PkgPath()
	var kinds []string
	for kind, t := range scheme.KnownTypes(gv) {
		if t.PkgPath() == pkg {
			kinds = append(kinds, kind)
		}
	}
	sort.Strings(kinds)
	return kinds
}

// Structs returns the struct types of the API's package (the package of
// obj) that the kinds scheme registers for gv contain, directly or through
// pointers, slices, maps and other structs of that package, the kinds
// included, sorted by name.
func Structs(scheme *runtime.Scheme, gv schema.GroupVersion, obj runtime.Object) []reflect.Type {
	pkg := reflect.TypeOf(obj).Elem().PkgPath()
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			if t.PkgPath() != pkg || seen[t] {
				return
			}
			seen[t] = true
			for i := range t.NumField() {
				walk(t.Field(i).Type)
			}
		}
	}
	for _, kind := range Kinds(scheme, gv, obj) {
		walk(scheme.KnownTypes(gv)[kind])
	}
	out := make([]reflect.Type, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}
