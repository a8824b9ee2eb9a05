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

package virtualstore

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Types are the constructors of the empty objects of one served kind.
type Types struct {
	// New returns an empty object of the kind.
	New func() runtime.Object
	// NewList returns an empty list of the kind.
	NewList func() runtime.Object
}

// TypesOf returns the constructors of kind and of its list, kind+"List",
// as scheme registers them for gv, or an error when it registers either
// not at all or not as an object.
func TypesOf(scheme *runtime.Scheme, gv schema.GroupVersion, kind string) (Types, error) {
	known := scheme.KnownTypes(gv)
	newOf := func(kind string) (func() runtime.Object, error) {
		t, ok := known[kind]
		if !ok {
			return nil, fmt.Errorf("virtualstore: %s is not registered in %s", kind, gv)
		}
		if _, ok := reflect.New(t).Interface().(runtime.Object); !ok {
			return nil, fmt.Errorf("virtualstore: %s of %s is not a runtime.Object", kind, gv)
		}
		return func() runtime.Object { return reflect.New(t).Interface().(runtime.Object) }, nil
	}
	obj, err := newOf(kind)
	if err != nil {
		return Types{}, err
	}
	list, err := newOf(kind + "List")
	if err != nil {
		return Types{}, err
	}
	return Types{New: obj, NewList: list}, nil
}
