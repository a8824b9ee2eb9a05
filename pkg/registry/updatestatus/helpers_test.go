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

package updatestatus

import (
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// t0 is "now" in the tests of this package.
var t0 = time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)

const (
	rv1 = 1000001
	rv2 = 2000001
)

// objectOf returns the served UpdateStatus with the given resourceVersion
// and status.
func objectOf(rv uint64, status v1alpha1.UpdateStatusStatus) *update.UpdateStatus {
	obj := &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: strconv.FormatUint(rv, 10)}}
	if err := v1alpha1.Convert_v1alpha1_UpdateStatusStatus_To_update_UpdateStatusStatus(&status, &obj.Status, nil); err != nil {
		panic(err)
	}
	obj.Status.Conditions = []metav1.Condition{{Type: "Available", Status: metav1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: metav1.NewTime(t0)}}
	return obj
}
