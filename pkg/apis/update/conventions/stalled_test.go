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

package conventions

import (
	"testing"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

func TestStallsUpdate(t *testing.T) {
	for _, tc := range []struct {
		level v1alpha1.InsightImpactLevel
		typ   v1alpha1.InsightImpactType
		want  bool
	}{
		{v1alpha1.ErrorImpactLevel, v1alpha1.UpdateStalledImpactType, true},
		{v1alpha1.CriticalInfoLevel, v1alpha1.UpdateStalledImpactType, true},
		{v1alpha1.WarningImpactLevel, v1alpha1.UpdateStalledImpactType, false},
		{v1alpha1.UnknownImpactLevel, v1alpha1.UpdateStalledImpactType, false},
		{v1alpha1.ErrorImpactLevel, v1alpha1.UpdateSpeedImpactType, false},
		{v1alpha1.CriticalInfoLevel, v1alpha1.ApplicationOutageImpactType, false},
	} {
		if got := StallsUpdate(tc.level, tc.typ); got != tc.want {
			t.Errorf("StallsUpdate(%s, %s) = %v, want %v", tc.level, tc.typ, got, tc.want)
		}
	}
}
