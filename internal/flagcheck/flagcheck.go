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

// Package flagcheck words the problems with the values of the project's
// flags one way. Each check appends its problem, if any, to a list of them,
// so that a command reports every problem at once.
package flagcheck

import "fmt"

// number is the type of a numeric flag; time.Duration is one.
type number interface {
	~int | ~int64
}

// Positive appends to errs that --name must be positive, unless v is.
func Positive[T number](errs []error, name string, v T) []error {
	if v <= 0 {
		errs = append(errs, fmt.Errorf("--%s must be positive, got %v", name, v))
	}
	return errs
}

// NotNegative appends to errs that --name must not be negative, unless v is
// not.
func NotNegative[T number](errs []error, name string, v T) []error {
	if v < 0 {
		errs = append(errs, fmt.Errorf("--%s must not be negative, got %v", name, v))
	}
	return errs
}
