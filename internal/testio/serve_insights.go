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

package testio

import (
	"testing"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// WorkerNodeInsight returns a copy of the first Node insight that st lists,
// under any informer, in worker pool pool; without one it fails t.
func WorkerNodeInsight(t testing.TB, st *v1alpha1.UpdateStatusStatus, pool string) *v1alpha1.WorkerPoolInsight {
	t.Helper()
	for _, p := range st.WorkerPools {
		if p.Name != pool {
			continue
		}
		for _, inf := range p.Informers {
			for i := range inf.Insights {
				if inf.Insights[i].Insight.NodeStatusInsight != nil {
					return inf.Insights[i].DeepCopy()
				}
			}
		}
	}
	t.Fatalf("no node in pool %s", pool)
	return nil
}
