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

package viewtest

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
)

func TestSyntheticIsValid(t *testing.T) {
	tests := []struct {
		name      string
		workers   int
		wantPools int
	}{
		{name: "no workers: an empty worker pool", workers: 0, wantPools: 1},
		{name: "one pool", workers: 3, wantPools: 1},
		{name: "5000 nodes", workers: 5000, wantPools: 5},
		{name: "partial last pool", workers: 2500, wantPools: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := Synthetic(tt.workers, 1)
			obj := &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: status}
			obj.Status.Conditions = []metav1.Condition{{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: metav1.Now()}}
			if errs := validation.ValidateUpdateStatus(obj); len(errs) > 0 {
				t.Fatalf("synthetic status is invalid: %v", errs.ToAggregate())
			}
			if got := len(status.WorkerPools); got != tt.wantPools {
				t.Errorf("pools = %d, want %d", got, tt.wantPools)
			}
			nodes := 0
			for _, p := range status.WorkerPools {
				for _, in := range p.Informers[0].Insights {
					if in.Insight.Type == v1alpha1.NodeStatusInsightType {
						nodes++
					}
				}
			}
			if nodes != tt.workers {
				t.Errorf("worker node insights = %d, want %d", nodes, tt.workers)
			}
		})
	}
}

func TestSyntheticIsDeterministic(t *testing.T) {
	if a, b := Synthetic(100, 7), Synthetic(100, 7); !reflect.DeepEqual(a, b) {
		t.Error("equal arguments gave different statuses")
	}
	if a, b := Synthetic(100, 7), Synthetic(100, 8); reflect.DeepEqual(a, b) {
		t.Error("different seeds gave equal statuses")
	}
}
