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

import "github.com/update-status/apiserver/pkg/apis/update/v1alpha1"

// StallsUpdate tells whether a Health insight of that impact level and
// type says the update does not proceed: impact type Update Stalled at level
// Error or Critical (a drain held past its timeout, a degraded node, a
// blocked or failing control plane). An update with such an insight is
// stalled; the fleet view of the report and the fleet metrics count it so
// (docs/hosted.md, docs/monitoring.md). A Warning of that type (a component
// slow to roll out) is not a stall.
func StallsUpdate(level v1alpha1.InsightImpactLevel, typ v1alpha1.InsightImpactType) bool {
	return typ == v1alpha1.UpdateStalledImpactType && LevelRank(level) >= LevelRank(v1alpha1.ErrorImpactLevel)
}
