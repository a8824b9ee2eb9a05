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
	"github.com/update-status/apiserver/internal/synth"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// PoolSize is the most nodes a synthetic worker pool holds, below the limit
// of 1024 insights per pool informer.
const PoolSize = 1000

// Synthetic returns the status the engine computes for a cluster in the
// middle of synth.From → synth.To (synth.Cluster at synth.DefaultNow) with 3
// control-plane nodes and workers worker nodes spread over as few pools as
// keep each at most PoolSize ("worker" always exists). The node states come
// from a generator seeded with seed, so equal arguments give equal statuses.
func Synthetic(workers int, seed int64) v1alpha1.UpdateStatusStatus {
	pools := max(1, (workers+PoolSize-1)/PoolSize)
	src, now := synth.Cluster(synth.Options{Nodes: 3 + workers, ExtraPools: pools - 1, Seed: seed})
	return insights.NewEngine().Compute(src, now).Status
}
