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

func TestIsExternalInformer(t *testing.T) {
	tests := []struct {
		informer string
		want     bool
	}{
		{informer: v1alpha1.InformerControlPlane},
		{informer: v1alpha1.InformerNodes},
		{informer: v1alpha1.InformerAlerts},
		{informer: v1alpha1.InformerServer},
		{informer: ""},
		{informer: "drain.update-status-drain", want: true},
		{informer: "demo.my-namespace", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.informer, func(t *testing.T) {
			if got := IsExternalInformer(tt.informer); got != tt.want {
				t.Errorf("IsExternalInformer(%q) = %v, want %v", tt.informer, got, tt.want)
			}
		})
	}
}

func TestTypeOrderAndLevelRank(t *testing.T) {
	// In TypeOrder's order; Health and unknown types share the last place.
	for i, typ := range []v1alpha1.InsightType{v1alpha1.ClusterVersionStatusInsightType, v1alpha1.ClusterOperatorStatusInsightType,
		v1alpha1.MachineConfigPoolStatusInsightType, v1alpha1.NodeStatusInsightType, v1alpha1.HealthInsightType, "Unknown"} {
		if got := TypeOrder(typ); got != min(i, 4) {
			t.Errorf("TypeOrder(%s) = %d, want %d", typ, got, min(i, 4))
		}
	}
	// Least severe first; an empty and the Unknown level both rank 0.
	for i, level := range []v1alpha1.InsightImpactLevel{"", v1alpha1.UnknownImpactLevel, v1alpha1.InfoImpactLevel,
		v1alpha1.WarningImpactLevel, v1alpha1.ErrorImpactLevel, v1alpha1.CriticalInfoLevel} {
		if got := LevelRank(level); got != max(i-1, 0) {
			t.Errorf("LevelRank(%q) = %d, want %d", level, got, max(i-1, 0))
		}
	}
}
