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

package integration

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
	"github.com/update-status/apiserver/pkg/web"
)

// scaleNode returns the NodeProgressInsight of node i of pool, in phase
// reason (Pending, Updating, Completed...).
func scaleNode(pool string, i int, reason v1alpha1.NodeUpdatingReason) *v1alpha1.NodeProgressInsight {
	name := fmt.Sprintf("%s-%05d", pool, i)
	n := &v1alpha1.NodeProgressInsight{ObjectMeta: metav1.ObjectMeta{Name: name}}
	n.Status.Name = name
	n.Status.PoolResource.Name = pool
	n.Status.Scope = v1alpha1.WorkerPoolScope
	if pool == "master" {
		n.Status.Scope = v1alpha1.ControlPlaneScope
	}
	status := metav1.ConditionFalse
	if reason == v1alpha1.NodeUpdating || reason == v1alpha1.NodeDraining || reason == v1alpha1.NodeRebooting {
		status = metav1.ConditionTrue
	}
	n.Status.Conditions = []metav1.Condition{{Type: string(v1alpha1.NodeStatusInsightUpdating), Status: status, Reason: string(reason)}}
	return n
}

// TestWebPageTenThousandNodes serves a fake cluster of 10,000 nodes to the
// page in a headless Chromium: it must draw them all, then follow 3,000
// node changes sent as one small watch event each, while staying
// responsive. It needs no control plane; the numbers are logged.
func TestWebPageTenThousandNodes(t *testing.T) {
	ctx := chromiumContext(t, 3*time.Minute)
	pools := []struct {
		name  string
		nodes int
	}{{"master", 3}, {"worker", 7000}, {"infra", 2997}}
	var objs []runtime.Object
	for _, p := range pools {
		for i := 0; i < p.nodes; i++ {
			objs = append(objs, scaleNode(p.name, i, v1alpha1.NodeUpdatePending))
		}
	}
	client := fake.NewSimpleClientset(objs...)
	var served []metav1.APIResource
	for k := resources.InsightKind(0); k < resources.NumInsightKinds; k++ {
		served = append(served, metav1.APIResource{Name: k.Resource(), Kind: k.Kind()})
	}
	client.Resources = []*metav1.APIResourceList{{GroupVersion: v1alpha1.SchemeGroupVersion.String(), APIResources: served}}
	// The events of the latest watch of NodeProgressInsights, which the
	// writer below must not overfill.
	var nodeEvents atomic.Value
	testio.OnWatch(client, "nodeprogressinsights", func(w watch.Interface) { nodeEvents.Store(w.ResultChan()) })
	pg, begin := openWebOf(ctx, t, client)
	count := func(state string) func(string) error {
		return func(dom string) error {
			v, err := parsePage(dom)
			if err != nil {
				return err
			}
			total, in := 0, 0
			for _, p := range v.Pools {
				total += p.Nodes
				in += p.Counts[state]
			}
			if total != 10000 || (state == web.StateUpdated && in != 3000) || (state == web.StateOutdated && in != 10000) {
				return fmt.Errorf("%d nodes, %d %s", total, in, state)
			}
			return nil
		}
	}
	pg.waitFor(ctx, t, time.Minute, "10,000 outdated nodes", count(web.StateOutdated))
	// The canvases are drawn in the next animation frame.
	var drawn bool
	if err := pg.eval(ctx, `new Promise(r => requestAnimationFrame(() => r(true)))`, &drawn); err != nil {
		t.Fatal(err)
	}
	loaded := time.Since(begin)

	// 3,000 nodes complete, one watch event each.
	gvr := v1alpha1.SchemeGroupVersion.WithResource("nodeprogressinsights")
	begin = time.Now()
	done := streamChanges(ctx, &nodeEvents, "NodeProgressInsights", 3000, func(i int) error {
		return client.Tracker().Update(gvr, scaleNode("worker", i, v1alpha1.NodeCompleted), "")
	})
	// The page stays responsive while the changes stream in.
	slowest, err := slowestAnswer(ctx, pg, done, "document.querySelectorAll('[data-pool]').length > 0")
	if err != nil {
		t.Fatal(err)
	}
	sentIn := time.Since(begin)
	pg.waitFor(ctx, t, time.Minute, "3,000 updated nodes", count(web.StateUpdated))
	followed := time.Since(begin)
	if slowest > 2*time.Second {
		t.Errorf("the page did not answer for %v while the changes streamed in", slowest)
	}
	if err := pg.screenshot(ctx, filepath.Join(webArtifacts, "web-10000.png")); err != nil {
		t.Error(err)
	}
	t.Logf("10,000 nodes drawn %v after loading the page; 3,000 changes sent in %v and shown after %v; slowest page answer meanwhile %v",
		loaded.Round(time.Millisecond), sentIn.Round(time.Millisecond), followed.Round(time.Millisecond), slowest.Round(time.Millisecond))
}

// serveWeb serves update-status web over client until the test ends.
func serveWeb(ctx context.Context, t *testing.T, client versioned.Interface) *httptest.Server {
	t.Helper()
	h := web.NewHandler(web.Options{Client: client})
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		_ = h.Run(runCtx)
	}()
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		stop()
		<-ran
	})
	return srv
}

// openWebOf serves update-status web over client to a new headless
// Chromium and opens its page; begin is when the page was asked for.
func openWebOf(ctx context.Context, t *testing.T, client versioned.Interface) (pg *page, begin time.Time) {
	t.Helper()
	srv := serveWeb(ctx, t, client)
	br := startBrowser(t)
	begin = time.Now()
	pg, err := br.open(ctx, srv.URL+"/", 1400, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return pg, begin
}

// streamChanges makes n changes, change(0) to change(n-1), one watch event
// each, on another goroutine; it says on the channel it returns when they
// are all made, or the first error. The fake watch holds 100 events: before
// every 50 changes it waits for the informer to have read all but 50 of the
// latest watch's, which events holds (a <-chan watch.Event); what names the
// watched resource in its error.
func streamChanges(ctx context.Context, events *atomic.Value, what string, n int, change func(int) error) <-chan error {
	done := make(chan error, 1)
	go func() {
		for i := range n {
			if i%50 == 0 {
				if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
					ch, _ := events.Load().(<-chan watch.Event)
					return len(ch) <= 50, nil
				}); err != nil {
					done <- fmt.Errorf("the informer does not read the watch of %s: %w", what, err)
					return
				}
			}
			if err := change(i); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	return done
}

// slowestAnswer asks the page probe, a boolean expression, every 20 ms until
// done says the changes are all made, and returns its slowest answer.
func slowestAnswer(ctx context.Context, pg *page, done <-chan error, probe string) (time.Duration, error) {
	var slowest time.Duration
	err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(context.Context) (bool, error) {
		sent := false
		select {
		case err := <-done:
			if err != nil {
				return false, err
			}
			sent = true
		default:
		}
		t0 := time.Now()
		var ok bool
		if err := pg.eval(ctx, probe, &ok); err != nil {
			return false, err
		}
		slowest = max(slowest, time.Since(t0))
		return sent, nil
	})
	return slowest, err
}
