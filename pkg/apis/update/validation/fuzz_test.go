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

package validation_test

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
)

// FuzzValidateUpdateStatus decodes arbitrary JSON into an UpdateStatus and
// validates it: validation must not panic, must be deterministic, and every
// error must name a field.
func FuzzValidateUpdateStatus(f *testing.F) {
	obj, err := decodeExample()
	if err != nil {
		f.Fatal(err)
	}
	seed, err := json.Marshal(obj)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"metadata":{"name":"cluster"},"status":{"controlPlane":{"informers":[{"name":"x","insights":[{"uid":"a","insight":{"type":"Node"}}]}]}}}`))
	f.Add([]byte(`{"status":{"workerPools":[{"name":"w","resource":{"resource":"r","name":"w"},"informers":[{"insights":[{"insight":{"type":"Health","health":{}}}]}]}]}}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		var obj v1alpha1.UpdateStatus
		if err := json.Unmarshal(data, &obj); err != nil {
			return
		}
		before := obj.DeepCopy()

		errs := validation.ValidateUpdateStatus(&obj)

		if !equality.Semantic.DeepEqual(before, &obj) {
			t.Fatal("validation modified the object")
		}
		again := validation.ValidateUpdateStatus(&obj)
		checkRuns(t, errs, again)
	})
}

// FuzzValidateInsightObjects decodes arbitrary JSON into an object of the
// per-insight kind that kind selects, of v1alpha1 or of the internal version,
// and validates it with Validate, under the same demands as
// FuzzValidateUpdateStatus.
func FuzzValidateInsightObjects(f *testing.F) {
	seeds := []runtime.Object{cvObject(f), coObject(f), mcpObject(f), nodeObject(f), healthObject(f)}
	for i, obj := range seeds {
		data, err := json.Marshal(obj)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
		f.Add(uint8(i+len(seeds)), data)
	}
	f.Add(uint8(4), []byte(`{"metadata":{"labels":{"update.openshift.io/scope":"","update.openshift.io/pool":""}},"status":{"scope":{"resources":[{}]}}}`))
	f.Add(uint8(3), []byte(`{}`))

	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		// The v1alpha1 kinds, then the internal ones, which Validate
		// converts first.
		objects := []func() runtime.Object{
			func() runtime.Object { return &v1alpha1.ClusterVersionProgressInsight{} },
			func() runtime.Object { return &v1alpha1.ClusterOperatorProgressInsight{} },
			func() runtime.Object { return &v1alpha1.MachineConfigPoolProgressInsight{} },
			func() runtime.Object { return &v1alpha1.NodeProgressInsight{} },
			func() runtime.Object { return &v1alpha1.HealthInsight{} },
			func() runtime.Object { return &update.ClusterVersionProgressInsight{} },
			func() runtime.Object { return &update.ClusterOperatorProgressInsight{} },
			func() runtime.Object { return &update.MachineConfigPoolProgressInsight{} },
			func() runtime.Object { return &update.NodeProgressInsight{} },
			func() runtime.Object { return &update.HealthInsight{} },
		}
		obj := objects[int(kind)%len(objects)]()
		if err := json.Unmarshal(data, obj); err != nil {
			return
		}
		before := obj.DeepCopyObject()

		errs := validation.Validate(obj)

		if !equality.Semantic.DeepEqual(before, obj) {
			t.Fatal("validation modified the object")
		}
		again := validation.Validate(obj)
		checkRuns(t, errs, again)
	})
}

// checkRuns demands that two validations of one object found the same
// errors and that every error names a field.
func checkRuns(t *testing.T, errs, again field.ErrorList) {
	t.Helper()
	if len(again) != len(errs) {
		t.Fatalf("second run found %d errors, first %d", len(again), len(errs))
	}
	for i, e := range errs {
		if e.Field == "" {
			t.Errorf("error without a field path: %v", e)
		}
		if again[i].Field != e.Field || again[i].Type != e.Type {
			t.Errorf("run 2 error %d = %v, run 1 = %v", i, again[i], e)
		}
	}
}
