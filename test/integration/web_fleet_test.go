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
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// fleetCell is what the fleet page's DOM says of one hosted cluster.
type fleetCell struct {
	Key        string `json:"key"`
	Class      string `json:"class"`
	Stalled    string `json:"stalled"`
	Completion string `json:"completion"`
	Title      string `json:"title"`
	Href       string `json:"href"`
}

// fleetPage is what the page says: its view, and the fleet's cells in the
// grid's order.
type fleetPage struct {
	View  string      `json:"view"`
	Cells []fleetCell `json:"cells"`
}

const readFleet = `({view: document.body.getAttribute("data-view"),
  cells: Array.from(document.querySelectorAll("#fleet a.hc")).map(a => ({key: a.dataset.key, class: a.dataset.class,
    stalled: a.dataset.stalled, completion: a.dataset.completion, title: a.title, href: a.getAttribute("href")}))})`

// readPage evaluates expr, a JSON-able expression, in the page.
func readPage[T any](ctx context.Context, p *page, expr string) (T, error) {
	var v T
	var raw json.RawMessage
	if err := p.eval(ctx, expr, &raw); err != nil {
		return v, err
	}
	err := json.Unmarshal(raw, &v)
	return v, err
}

// scaleHostedStatus returns hosted cluster i's HostedClusterUpdateStatus:
// its control plane Progressing at completion, stalled by an Error Health
// insight of impact Update Stalled when stalled is true.
func scaleHostedStatus(i int, completion int32, stalled bool) *v1alpha1.HostedClusterUpdateStatus {
	cv := &v1alpha1.ClusterVersionStatusInsight{Assessment: v1alpha1.ControlPlaneAssessmentProgressing, Completion: completion}
	cv.Versions.Previous.Version, cv.Versions.Target.Version = simulator.DefaultFromVersion, simulator.DefaultToVersion
	insights := []v1alpha1.ControlPlaneInsight{{UID: "cv", Insight: v1alpha1.ControlPlaneInsightUnion{ClusterVersionStatusInsight: cv}}}
	if stalled {
		insights = append(insights, v1alpha1.ControlPlaneInsight{UID: "stuck", Insight: v1alpha1.ControlPlaneInsightUnion{
			HealthInsight: &v1alpha1.HealthStatusInsight{Impact: v1alpha1.InsightImpact{Level: v1alpha1.ErrorImpactLevel,
				Type: v1alpha1.UpdateStalledImpactType, Summary: "a component is stuck"}}}})
	}
	o := &v1alpha1.HostedClusterUpdateStatus{ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("clusters-%d", i%10), Name: fmt.Sprintf("hc-%03d", i)}}
	o.Status.ControlPlane = &v1alpha1.ControlPlane{
		Conditions: []metav1.Condition{{Type: string(v1alpha1.ControlPlaneUpdating), Status: metav1.ConditionTrue, Reason: "ClusterVersionProgressing"}},
		Informers:  []v1alpha1.ControlPlaneInformer{{Name: "hosted", Insights: insights}},
	}
	return o
}

// TestWebFleetFiveHundred serves a fake management cluster of 500 hosted
// clusters to the fleet page in a headless Chromium: it must show them all,
// then follow 1,000 changes (one watch event each) while staying
// responsive, changing the cells in place: no cell element is replaced.
func TestWebFleetFiveHundred(t *testing.T) {
	ctx := chromiumContext(t, 3*time.Minute)
	const size = 500
	var objs []runtime.Object
	for i := range size {
		objs = append(objs, scaleHostedStatus(i, 0, false))
	}
	client := fake.NewSimpleClientset(objs...)
	client.Resources = []*metav1.APIResourceList{{GroupVersion: v1alpha1.SchemeGroupVersion.String(), APIResources: []metav1.APIResource{
		{Name: resources.HostedClusterUpdateStatus.Resource, Kind: resources.HostedClusterUpdateStatus.Kind, Namespaced: true}}}}
	var events atomic.Value
	testio.OnWatch(client, resources.HostedClusterUpdateStatus.Resource, func(w watch.Interface) { events.Store(w.ResultChan()) })
	pg, begin := openWebOf(ctx, t, client)
	// (A cold Chromium on a busy machine takes seconds to answer first.)
	var one int
	if err := pg.eval(ctx, "1", &one); err != nil {
		t.Fatal(err)
	}
	answered := time.Since(begin)
	var last fleetPage
	shows := func(completion string, stalled int) func() bool {
		return func() bool {
			var err error
			if last, err = readPage[fleetPage](ctx, pg, readFleet); err != nil || last.View != "fleet" || len(last.Cells) != size {
				return false
			}
			n := 0
			for i, c := range last.Cells {
				if c.Completion != completion || (c.Stalled == "true") != (i < stalled) {
					return false
				}
				n++
			}
			return n == size
		}
	}
	waitFor(ctx, t, "500 cells at 0%", time.Minute, shows("0", 0))
	loaded := time.Since(begin)
	// Each cell element is marked: a page that re-created the cells would
	// lose the marks.
	var marked int
	if err := pg.eval(ctx, `Array.from(document.querySelectorAll("#fleet a.hc")).map(a => { a.dataset.mark = "1"; return 1; }).length`, &marked); err != nil || marked != size {
		t.Fatalf("marked %d cells: %v", marked, err)
	}

	// 1,000 changes: every hosted cluster at 25%, then at 50%, three of
	// them stalled.
	gvr := v1alpha1.SchemeGroupVersion.WithResource(resources.HostedClusterUpdateStatus.Resource)
	begin = time.Now()
	done := streamChanges(ctx, &events, resources.HostedClusterUpdateStatus.Kind, 2*size, func(k int) error {
		i, completion := k%size, int32(25*(1+k/size))
		o := scaleHostedStatus(i, completion, completion == 50 && i%200 == 7)
		return client.Tracker().Update(gvr, o, o.Namespace)
	})
	slowest, err := slowestAnswer(ctx, pg, done, `document.querySelectorAll("#fleet a.hc").length > 0`)
	if err != nil {
		t.Fatal(err)
	}
	sentIn := time.Since(begin)
	waitFor(ctx, t, "500 cells at 50%, three stalled first", time.Minute, shows("50", 3))
	followed := time.Since(begin)
	if err := pg.eval(ctx, `document.querySelectorAll('#fleet a.hc[data-mark="1"]').length`, &marked); err != nil || marked != size {
		t.Errorf("%d of %d cells kept their element: %v", marked, size, err)
	}
	// The summary counts them.
	var counts string
	if err := pg.eval(ctx, `(() => { const s = document.getElementById("fleet-summary").dataset;
		const u = document.querySelector('#fleet-legend li[data-class="updating"]');
		return [s.total, s.updating, s.stalled, u && u.dataset.count].join(" "); })()`, &counts); err != nil || counts != "500 500 3 500" {
		t.Errorf("summary: total, updating, stalled, class updating: %q, want \"500 500 3 500\" (%v)", counts, err)
	}
	if slowest > 2*time.Second {
		t.Errorf("the page did not answer for %v while the changes streamed in", slowest)
	}
	if err := pg.screenshot(ctx, filepath.Join(webArtifacts, "web-fleet-500.png")); err != nil {
		t.Error(err)
	}
	t.Logf("500 hosted clusters shown %v after opening the page (its first answer after %v); 1,000 changes sent in %v and shown after %v; slowest page answer meanwhile %v",
		loaded.Round(time.Millisecond), answered.Round(time.Millisecond), sentIn.Round(time.Millisecond), followed.Round(time.Millisecond), slowest.Round(time.Millisecond))
}

// TestWebFleet simulates a fleet of hosted clusters updating at once on
// the shared management cluster, one of them with a drain held past its
// NodePool's nodeDrainTimeout, and follows it in `update-status web` in a
// headless Chromium: the page opens on the fleet, every hosted cluster of
// the fleet has its cell, the stuck one is marked stalled (first, with its
// health insight in its title), and clicking it opens its own page, served
// by the same process.
func TestWebFleet(t *testing.T) {
	ctx := chromiumContext(t, 6*time.Minute)
	admin := hostedAdmin(ctx, t)
	const ns, size = "fleet-web", 30
	clusters := hosted.NewClusters(size)
	// hosted-1 has a Replace NodePool: its first drain is held far past
	// the NodePool's nodeDrainTimeout.
	clusters[0].Faults = []hosted.Fault{hosted.FaultHeldDrain}
	stuck := ns + "/" + clusters[0].Name
	// Speed 60: a component rolls out in half a second, a drain lasts one,
	// the nodeDrainTimeout is five; the held drain lasts ten hours (ten
	// minutes here), longer than the test.
	sim := newHostedSim(t, admin, 8, hosted.Options{Namespace: ns, Clusters: clusters, Speed: 60, HeldDrain: 10 * time.Hour})
	if clusters[0].UpgradeType != hyperv1.UpgradeTypeReplace {
		t.Fatalf("%s has a %s NodePool; the held drain needs Replace", stuck, clusters[0].UpgradeType)
	}
	begin := time.Now()
	if err := sim.Create(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d hosted clusters created in %v", size, time.Since(begin).Round(time.Millisecond))

	// The server serves them once it has discovered the hosted APIs (it
	// looks every 30 s); then the user opens the page.
	client := updateClient(t, &cp.Users.Admin)
	waitFor(ctx, t, "the server serving the simulated hosted clusters", 2*time.Minute, func() bool {
		list, err := client.UpdateV1alpha1().HostedClusterUpdateStatuses(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) == size
	})
	web := startWeb(ctx, t, cp.KubeconfigPath(localstack.AdminUser), "127.0.0.1:0")
	br := startBrowser(t)
	pg, err := br.open(ctx, web.url, 1400, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var last fleetPage
	var lastErr error
	defer func() {
		if t.Failed() {
			t.Logf("last page: %+v (%v)\n%s", last, lastErr, web.out.String())
			_ = pg.screenshot(ctx, filepath.Join(webArtifacts, "web-fleet-failed.png"))
		}
	}()
	// mine returns the cells of the simulated fleet, by key.
	mine := func() map[string]fleetCell {
		out := map[string]fleetCell{}
		for _, c := range last.Cells {
			if strings.HasPrefix(c.Key, ns+"/") {
				out[c.Key] = c
			}
		}
		return out
	}
	read := func() bool {
		last, lastErr = readPage[fleetPage](ctx, pg, readFleet)
		return lastErr == nil
	}

	// The page opens on the fleet: every hosted cluster has its cell, idle.
	loaded := time.Now()
	waitFor(ctx, t, "the fleet page with a cell per simulated hosted cluster", time.Minute, func() bool {
		return read() && last.View == "fleet" && len(mine()) == size
	})
	t.Logf("the fleet page shows the %d hosted clusters %v after loading", size, time.Since(loaded).Round(time.Millisecond))
	for key, c := range mine() {
		if c.Href != "?hosted="+strings.ReplaceAll(key, "/", "%2F") || c.Stalled != "false" {
			t.Errorf("cell %s: %+v", key, c)
		}
	}

	// The wave: every hosted cluster updates at once.
	if err := sim.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	simCtx, stopSim := context.WithCancel(ctx)
	simDone := make(chan error, 1)
	go func() { simDone <- sim.Run(simCtx) }()
	defer func() {
		stopSim()
		if err := <-simDone; err != nil && ctx.Err() == nil && simCtx.Err() == nil {
			t.Errorf("simulator: %v", err)
		}
	}()
	waitFor(ctx, t, "hosted clusters updating", time.Minute, func() bool {
		if !read() {
			return false
		}
		for _, c := range mine() {
			if c.Class == "updating" || c.Class == "nodes" {
				return true
			}
		}
		return false
	})
	// The held drain: the stuck hosted cluster is marked stalled, first in
	// the grid; its title gives its versions and its worst health insight.
	waitFor(ctx, t, stuck+" marked stalled", 2*time.Minute, func() bool {
		return read() && mine()[stuck].Stalled == "true"
	})
	if err := pg.screenshot(ctx, filepath.Join(webArtifacts, "web-fleet.png")); err != nil {
		t.Error(err)
	}
	cell := mine()[stuck]
	for _, want := range []string{stuck, simulator.DefaultFromVersion + " \u2192 " + simulator.DefaultToVersion, "worst health: Error", "STALLED", "nodeDrainTimeout"} {
		if !strings.Contains(cell.Title, want) {
			t.Errorf("the title of %s lacks %q: %q", stuck, want, cell.Title)
		}
	}
	if len(last.Cells) == 0 || last.Cells[0].Stalled != "true" {
		t.Errorf("the first cell is not a stalled one: %+v", last.Cells[:min(3, len(last.Cells))])
	}
	for key, c := range mine() {
		if key != stuck && c.Stalled == "true" {
			t.Errorf("%s is marked stalled without fault: %q", key, c.Title)
		}
	}

	// A click on the stuck cell opens its page: its control plane, its
	// NodePool and the held drain's Health insight.
	var clicked bool
	if err := pg.eval(ctx, fmt.Sprintf(`(() => { const a = document.querySelector('#fleet a.hc[data-key=%q]'); if (!a) return false; a.click(); return true; })()`, stuck), &clicked); err != nil || !clicked {
		t.Fatalf("click on %s: %v, %v", stuck, clicked, err)
	}
	type hostedPage struct {
		URL, View, Hosted, Title string
		Pools                    []string
		Health                   []string
		Target                   string
	}
	var hp hostedPage
	waitFor(ctx, t, "the page of "+stuck, time.Minute, func() bool {
		hp, lastErr = readPage[hostedPage](ctx, pg, `({URL: location.href, View: document.body.getAttribute("data-view"),
			Hosted: document.body.getAttribute("data-hosted-cluster"), Title: document.querySelector("header h1").textContent,
			Pools: Array.from(document.querySelectorAll("#pools [data-pool]")).map(p => p.dataset.pool),
			Health: Array.from(document.querySelectorAll("#health .insight")).map(i => i.dataset.level + " " + i.querySelector("b").textContent),
			Target: document.getElementById("cp-target").textContent})`)
		if lastErr != nil || hp.Hosted != stuck || hp.View != "cluster" || len(hp.Pools) == 0 {
			return false
		}
		for _, h := range hp.Health {
			if strings.HasPrefix(h, "Error ") && strings.Contains(h, "nodeDrainTimeout") {
				return true
			}
		}
		return false
	})
	if !strings.Contains(hp.URL, "?hosted=") || !strings.Contains(hp.Title, stuck) || !strings.Contains(hp.Target, simulator.DefaultToVersion) {
		t.Errorf("the hosted cluster's page: %+v", hp)
	}
	if err := pg.screenshot(ctx, filepath.Join(webArtifacts, "web-fleet-hosted.png")); err != nil {
		t.Error(err)
	}
	t.Logf("%s: page %q, pools %v, health %v", stuck, hp.Title, hp.Pools, hp.Health)
}
