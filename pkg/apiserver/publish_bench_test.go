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

package apiserver_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/cputime"
	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/registry/insightobjects"
	"github.com/update-status/apiserver/pkg/registry/updatestatus"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
	"github.com/update-status/apiserver/pkg/view"
)

// BenchmarkNodeChangeToWatchCache measures the server's whole work for the
// common event at 5,000 nodes, in process CPU time: one Node changes state,
// the engine recomputes, the view builds the revision, the six stores
// publish it and the six watch caches take it in. The goal of #13 is at most
// 2 ms of CPU per change (metric cpu-us/change).
//
//	go test -run XXX -bench BenchmarkNodeChangeToWatchCache -benchtime 400x ./pkg/apiserver/
func BenchmarkNodeChangeToWatchCache(b *testing.B) {
	src, now := viewtest.Cluster(4997, 2, 7)
	clk := clocktesting.NewFakeClock(now)
	codec := apiserver.Codecs.LegacyCodec(v1alpha1.SchemeGroupVersion)
	usStore, err := updatestatus.NewStore(apiserver.Scheme)
	if err != nil {
		b.Fatal(err)
	}
	stores, err := insightobjects.NewStores(apiserver.Scheme)
	if err != nil {
		b.Fatal(err)
	}
	usREST, _, err := updatestatus.NewREST(usStore, apiserver.Scheme, codec, apiserver.Codecs, clk, apiserver.DefaultEncodingRevisions)
	if err != nil {
		b.Fatal(err)
	}
	rests, err := insightobjects.NewREST(stores, apiserver.Scheme, codec, clk)
	if err != nil {
		b.Fatal(err)
	}
	all := append([]*virtualstore.REST{usREST.REST}, rests[:]...)
	b.Cleanup(func() {
		for _, r := range all {
			r.Destroy()
		}
	})

	source := viewtest.NewSnapshotter(1000)
	maxRV := uint64(1000)
	source.Set(view.Snapshot{Inputs: src, MaxResourceVersion: maxRV, InitialSyncDone: true})
	var last uint64
	published := make(chan struct{}, 1)
	v, err := view.New(view.Config{Snapshots: source, Computer: insights.NewEngine(), Clock: clk, Publish: func(r *view.Revision) {
		if err := usStore.Publish(r.ResourceVersion, []runtime.Object{r.Object}, r.Synced); err != nil {
			b.Error(err)
		}
		if err := stores.Publish(r.ResourceVersion, &r.Insights, r.Synced); err != nil {
			b.Error(err)
		}
		last = r.ResourceVersion
		published <- struct{}{}
	}})
	if err != nil {
		b.Fatal(err)
	}
	source.AddListener(v.Trigger)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go v.Run(ctx)
	<-published
	waitForCaches(b, all, last)

	nodes := make([]int, 0, 64)
	for i := 3; i < len(src.Nodes) && len(nodes) < 64; i += 71 {
		nodes = append(nodes, i)
	}
	// The informers' side (the new Node objects) is prepared first: the
	// benchmark measures the server's work on each event. The view is done
	// with a snapshot once it has published, so the next snapshot may reuse
	// its node slice.
	changed := make([]*insights.Node, b.N)
	latest := map[int]*insights.Node{}
	for i := range changed {
		k := nodes[i%len(nodes)]
		prev, ok := latest[k]
		if !ok {
			prev = src.Nodes[k]
		}
		changed[i] = viewtest.Changed(prev, 2000000+i)
		latest[k] = changed[i]
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := cputime.Now()
	for i := 0; i < b.N; i++ {
		maxRV++
		src.Nodes[nodes[i%len(nodes)]] = changed[i]
		next := *src
		source.Set(view.Snapshot{Inputs: &next, MaxResourceVersion: maxRV, InitialSyncDone: true})
		// A few changes leave the node's insight as it was and publish
		// nothing.
		select {
		case <-published:
		case <-time.After(100 * time.Millisecond):
		}
	}
	waitForCaches(b, all, last)
	used := cputime.Now() - start
	b.StopTimer()
	b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-us/change")
}

// waitForCaches waits until every watch cache has taken in revision rv.
func waitForCaches(b *testing.B, rests []*virtualstore.REST, rv uint64) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, r := range rests {
		var err error
		if wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			_, err = r.List(ctx, &metainternalversion.ListOptions{ResourceVersion: strconv.FormatUint(rv, 10),
				ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
			return err == nil, nil
		}) != nil {
			b.Fatalf("the watch cache did not reach revision %d: %v", rv, err)
		}
	}
}
