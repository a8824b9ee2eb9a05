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

package localstack

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// WaitForCondition waits until the object has the condition type with status
// "True" in status.conditions.
func (a *Applier) WaitForCondition(ctx context.Context, gvk schema.GroupVersionKind, namespace, name, condType string, timeout time.Duration) error {
	ri, err := a.Resource(gvk, namespace)
	if err != nil {
		return err
	}
	var last string
	err = pollUntil(ctx, timeout, nil, func() (bool, error) {
		obj, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		for _, c := range conds {
			m, ok := c.(map[string]any)
			if !ok || m["type"] != condType {
				continue
			}
			last = fmt.Sprintf("%v: %v", m["reason"], m["message"])
			return m["status"] == "True", nil
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("%s %s did not become %s (last: %s): %w", gvk.Kind, name, condType, last, err)
	}
	return nil
}
