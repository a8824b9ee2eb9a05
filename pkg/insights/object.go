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

package insights

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
)

// Object returns the result as the object a client of the offline engine
// reads: the UpdateStatus cluster, with its kind, validated. It shares the
// result's status. An error means that the engine computed something the
// API refuses: a bug.
func (r *Result) Object() (*v1alpha1.UpdateStatus, error) {
	obj := &v1alpha1.UpdateStatus{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: resources.UpdateStatus.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: resources.UpdateStatusName},
		Status:     r.Status,
	}
	if errs := validation.ValidateUpdateStatus(obj); len(errs) > 0 {
		return nil, fmt.Errorf("the computed UpdateStatus is invalid (a bug): %w", errs.ToAggregate())
	}
	return obj, nil
}
