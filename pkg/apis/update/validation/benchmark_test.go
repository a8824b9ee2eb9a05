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
