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
	"fmt"
	"testing"

	"github.com/update-status/apiserver/pkg/apis/update/validation"
)

// BenchmarkValidateUpdateStatus validates a full object: a control plane with
// a ClusterVersion, 33 ClusterOperators, the master pool and 3 nodes, plus
// worker pools of 1000 nodes each (the per-informer limit is 1024 insights).
func BenchmarkValidateUpdateStatus(b *testing.B) {
	for _, pools := range []int{1, 10} {
		obj := bigStatus(pools, 1000)
		b.Run(fmt.Sprintf("nodes=%d", pools*1000), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if errs := validation.ValidateUpdateStatus(obj); len(errs) != 0 {
					b.Fatalf("object is invalid: %v", errs[0])
				}
			}
		})
	}
}
