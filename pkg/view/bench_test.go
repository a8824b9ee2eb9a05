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

package view_test

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
)

// BenchmarkRecompute measures what the view adds to the engine at 5,000
// worker nodes: snapshot, object, fingerprint, and, when the content
// changed, the private copy and the new revision.
//
//	go test -run XXX -bench BenchmarkRecompute -benchtime 20x ./pkg/view/
func BenchmarkRecompute(b *testing.B) {
	statuses := []v1alpha1.UpdateStatusStatus{viewtest.Synthetic(5000, 1), viewtest.Synthetic(5000, 2)}
	for _, tc := range []struct {
		name    string
		changed bool
	}{{"unchanged", false}, {"changed", true}} {
		b.Run(tc.name, func(b *testing.B) {
			i := 0
			var published int
			v, err := view.New(view.Config{
				Snapshots: viewtest.NewSnapshotter(100),
				Clock:     clocktesting.NewFakeClock(time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)),
				Computer: view.ComputerFunc(func(*insights.Sources, time.Time) insights.Result {
					if tc.changed {
						i++
					}
					return insights.Result{Status: statuses[i%2]}
				}),
				Publish: func(*view.Revision) { published++ },
			})
			if err != nil {
				b.Fatal(err)
			}
			v.Recompute()
			published = 0
			b.ReportAllocs()
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				v.Recompute()
			}
			b.StopTimer()
			if want := map[bool]int{false: 0, true: b.N}[tc.changed]; published != want {
				b.Fatalf("%d revisions published, want %d", published, want)
			}
		})
	}
}

// BenchmarkOneNodeChange measures the live path of the common event at 5,000
// nodes: one Node changes state, the engine recomputes and the view builds
// the revision (UpdateStatus fingerprint, the changed insight objects, their
// resourceVersions). Publishing to the stores is measured in pkg/apiserver.
//
//	go test -run XXX -bench BenchmarkOneNodeChange -benchtime 200x ./pkg/view/
func BenchmarkOneNodeChange(b *testing.B) {
	ev := newEngineView(b, 5000)
	ev.view.Recompute()
	nodes := make([]int, 0, 64)
	for i := 3; i < len(ev.src.Nodes) && len(nodes) < 64; i += 71 {
		nodes = append(nodes, i)
	}
	published := ev.rec.count()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := nodes[i%len(nodes)]
		ev.setNode(k, viewtest.Changed(ev.src.Nodes[k], 2000000+i))
		ev.view.Recompute()
	}
	b.StopTimer()
	// A few changes leave a node's insight as it was (a degraded node stays
	// degraded): most must publish.
	if got := ev.rec.count() - published; got < b.N*9/10 {
		b.Fatalf("%d revisions for %d node changes", got, b.N)
	}
}
