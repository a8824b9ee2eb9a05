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
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/update-status/apiserver/cmd/update-status/app"
	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/web"
)

// webArtifacts is where the browser test writes its screenshots, from the
// repository root.
var webArtifacts = filepath.Join("..", "..", "_output", "web")

// webCommand is one `update-status web` run in this process.
type webCommand struct {
	url    string
	cancel context.CancelFunc
	done   chan int
	out    *testio.SyncBuffer
}

var servingLine = regexp.MustCompile(`Serving the update status on (http://\S+/)`)

// startWeb runs `update-status web --kubeconfig kubeconfig --listen listen`
// and returns once it serves.
func startWeb(ctx context.Context, t *testing.T, kubeconfig, listen string) *webCommand {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	w := &webCommand{cancel: cancel, done: make(chan int, 1), out: &testio.SyncBuffer{}}
	go func() {
		w.done <- app.Run(ctx, app.Deps{Out: w.out, ErrOut: w.out}, []string{"web", "--kubeconfig", kubeconfig, "--listen", listen})
	}()
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		if m := servingLine.FindStringSubmatch(w.out.String()); m != nil {
			w.url = m[1]
			return true, nil
		}
		select {
		case code := <-w.done:
			return false, fmt.Errorf("update-status web exited with %d: %s", code, w.out.String())
		default:
			return false, nil
		}
	}); wait.Interrupted(err) {
		t.Fatalf("update-status web does not serve after 20s: %s", w.out.String())
	} else if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.stop(t) })
	return w
}

// stop interrupts the command as Ctrl-C would, and checks it ends cleanly.
func (w *webCommand) stop(t *testing.T) {
	if w.cancel == nil {
		return
	}
	w.cancel()
	w.cancel = nil
	select {
	case code := <-w.done:
		if code != 0 {
			t.Errorf("update-status web exited with %d: %s", code, w.out.String())
		}
	case <-time.After(10 * time.Second):
		t.Errorf("update-status web did not stop within 10s of its interruption")
	}
}

// pagePool is what the rendered DOM says of one pool.
type pagePool struct {
	Nodes, Total, Completion int
	Scope                    string
	Counts                   map[string]int
}

// pageView is what the rendered DOM says.
type pageView struct {
	Stream       string
	Errors       int
	ErrorText    string
	Assessment   string
	Completion   int
	Pools        map[string]pagePool
	HealthCount  int
	HealthLevels []string
}

// parsePage reads the page's data attributes from its HTML.
func parsePage(dom string) (*pageView, error) {
	doc, err := html.Parse(strings.NewReader(dom))
	if err != nil {
		return nil, err
	}
	v := &pageView{Pools: map[string]pagePool{}}
	attrs := func(n *html.Node) map[string]string {
		m := map[string]string{}
		for _, a := range n.Attr {
			m[a.Key] = a.Val
		}
		return m
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	var text func(*html.Node) string
	text = func(n *html.Node) string {
		if n.Type == html.TextNode {
			return n.Data
		}
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			b.WriteString(text(c))
		}
		return b.String()
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			a := attrs(n)
			switch {
			case a["id"] == "stream":
				v.Stream = a["data-stream"]
			case a["id"] == "errors":
				v.Errors = atoi(a["data-errors"])
				if _, hidden := a["hidden"]; !hidden {
					v.ErrorText = text(n)
				}
			case a["id"] == "control-plane":
				v.Assessment, v.Completion = a["data-assessment"], atoi(a["data-completion"])
			case a["id"] == "health":
				v.HealthCount = atoi(a["data-count"])
			case n.Data == "div" && a["class"] == "level":
				v.HealthLevels = append(v.HealthLevels, a["data-level"])
			case a["data-pool"] != "":
				p := pagePool{Nodes: atoi(a["data-nodes"]), Total: atoi(a["data-total"]), Completion: atoi(a["data-completion"]),
					Scope: a["data-scope"], Counts: map[string]int{}}
				for _, s := range web.States {
					if c := atoi(a["data-"+s]); c > 0 {
						p.Counts[s] = c
					}
				}
				v.Pools[a["data-pool"]] = p
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return v, nil
}

// servedPicture is what `kubectl get updatestatus -o json` says the page
// must show.
func servedPicture(ctx context.Context, cpW *localstack.ControlPlane) (*v1alpha1.UpdateStatus, map[string]pagePool, error) {
	res := cpW.Kubectl(ctx, localstack.AdminUser, "get", "updatestatus", statusName, "-o", "json")
	if res.Err != nil {
		return nil, nil, res.Err
	}
	var us v1alpha1.UpdateStatus
	if err := json.Unmarshal([]byte(res.Stdout), &us); err != nil {
		return nil, nil, err
	}
	return &us, picturesOf(&us), nil
}

// picturesOf returns, per pool of us, its Total, completion and node count
// by cell state.
func picturesOf(us *v1alpha1.UpdateStatus) map[string]pagePool {
	pools := map[string]pagePool{}
	pool := func(name string) pagePool {
		p, ok := pools[name]
		if !ok {
			p = pagePool{Counts: map[string]int{}}
		}
		return p
	}
	add := func(mcp *v1alpha1.MachineConfigPoolStatusInsight, node *v1alpha1.NodeStatusInsight) {
		switch {
		case mcp != nil:
			p := pool(mcp.Name)
			p.Completion = int(mcp.Completion)
			p.Scope = string(mcp.Scope)
			for _, s := range mcp.Summaries {
				if s.Type == v1alpha1.NodesTotal {
					p.Total = int(s.Count)
				}
			}
			pools[mcp.Name] = p
		case node != nil:
			p := pool(node.PoolResource.Name)
			p.Nodes++
			p.Counts[web.NodeState(node)]++
			pools[node.PoolResource.Name] = p
		}
	}
	for in := range allInsights(us) {
		add(in.mcp, in.node)
	}
	return pools
}

// matchServed compares the page with the served UpdateStatus.
func matchServed(ctx context.Context, cpW *localstack.ControlPlane, dom string) (*pageView, error) {
	v, err := parsePage(dom)
	if err != nil {
		return nil, err
	}
	if v.Stream != "live" {
		return v, fmt.Errorf("stream %q, want live", v.Stream)
	}
	if v.Errors != 0 {
		return v, fmt.Errorf("the page shows %d API errors: %s", v.Errors, v.ErrorText)
	}
	us, want, err := servedPicture(ctx, cpW)
	if err != nil {
		return v, err
	}
	if fmt.Sprint(v.Pools) != fmt.Sprint(want) {
		return v, fmt.Errorf("pools differ:\n page   %v\n served %v", v.Pools, want)
	}
	for name, p := range want {
		if p.Total != p.Nodes {
			return v, fmt.Errorf("pool %s: %d node insights, Total %d (the object is truncated?)", name, p.Nodes, p.Total)
		}
	}
	if cv := cvInsight(us); cv == nil || v.Assessment != string(cv.Assessment) || v.Completion != int(cv.Completion) {
		return v, fmt.Errorf("control plane: page %s %d%%, served %+v", v.Assessment, v.Completion, cv)
	}
	if n := len(healthInsights(us)); v.HealthCount != n {
		return v, fmt.Errorf("the page lists %d health insights, the object %d", v.HealthCount, n)
	}
	return v, nil
}

// picture is the per-pool node count by state, to tell two moments apart.
func picture(v *pageView) string {
	names := make([]string, 0, len(v.Pools))
	for n := range v.Pools {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s%v ", n, v.Pools[n].Counts)
	}
	return fmt.Sprintf("cp %s %d%%; %s", v.Assessment, v.Completion, b.String())
}

// TestWebPage starts a control plane of its own with a simulated cluster
// of several pools, runs `update-status web` as the admin and as the
// nobody user, and loads both pages in a headless Chromium. The admin's
// page must show the pools and node counts (by state) that
// `kubectl get updatestatus -o json` shows, follow the update as the
// simulator advances it (one page load, no reload), say when its stream is
// broken and catch up once the command runs again; the nobody user's page
// must show the API's Forbidden. Screenshots go to _output/web.
func TestWebPage(t *testing.T) {
	ctx := chromiumContext(t, 8*time.Minute)
	begin := time.Now()
	three := intstr.FromInt32(3)
	cpW, sim, clk := ownSimulatedCluster(ctx, t, "web", simulator.Options{Nodes: 60, Seed: 17, WorkerPools: []simulator.PoolOptions{
		{Name: "worker", Nodes: 30, MaxUnavailable: &three}, {Name: "infra", Nodes: 12}, {Name: "gpu"}}})
	startServerOf(ctx, t, cpW, localstack.ServerOptions{})
	t.Logf("control plane, cluster and server ready in %v", time.Since(begin).Round(time.Millisecond))

	admin := startWeb(ctx, t, cpW.KubeconfigPath(localstack.AdminUser), "127.0.0.1:0")
	nobody := startWeb(ctx, t, cpW.KubeconfigPath(localstack.NobodyUser), "127.0.0.1:0")
	br := startBrowser(t)
	pg, err := br.open(ctx, admin.url, 1400, 1000)
	if err != nil {
		t.Fatal(err)
	}
	shot := func(p *page, name string) {
		t.Helper()
		path := filepath.Join(webArtifacts, name)
		if err := p.screenshot(ctx, path); err != nil {
			t.Errorf("screenshot %s: %v", name, err)
		}
	}
	check := func(dom string) error { _, err := matchServed(ctx, cpW, dom); return err }

	// The cluster before its update.
	loaded := time.Now()
	dom := pg.waitFor(ctx, t, time.Minute, "the served pools before the update", check)
	t.Logf("the page shows the served pools %v after loading", time.Since(loaded).Round(time.Millisecond))
	v, _ := parsePage(dom)
	if len(v.Pools) != 4 {
		t.Errorf("the page shows %d pools, want master and three worker pools: %v", len(v.Pools), v.Pools)
	}
	if v.Pools["master"].Scope != "ControlPlane" || v.Pools["worker"].Scope != "WorkerPool" {
		t.Errorf("pool scopes: %v", v.Pools)
	}
	before := picture(v)
	// A mark on the window: if the page reloaded, it would be gone.
	var marked bool
	if err := pg.eval(ctx, "window.__webTest = 1, true", &marked); err != nil {
		t.Fatal(err)
	}

	// Mid-update: workers updating in every pool.
	if err := sim.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	midway := func(us *v1alpha1.UpdateStatus) bool {
		pools := picturesOf(us)
		w := pools["worker"]
		return w.Counts[web.StateUpdated] >= 3 && w.Counts[web.StateOutdated] >= 6 && pools["infra"].Counts[web.StateUpdated] >= 1
	}
	for i := 0; ; i++ {
		if err := sim.RunVirtual(ctx, clk, 5); err != nil && !errors.Is(err, simulator.ErrStepLimit) {
			t.Fatalf("drive the update: %v", err)
		}
		if midway(getStatusOf(ctx, t, cpW)) {
			break
		}
		if i > 400 {
			t.Fatal("the update never reached the middle of the worker pools")
		}
	}
	dom = pg.waitFor(ctx, t, time.Minute, "the served pools mid-update", check)
	v, _ = parsePage(dom)
	mid := picture(v)
	if mid == before {
		t.Errorf("the picture did not change as the update advanced: %s", mid)
	}
	if v.HealthCount > 0 && len(v.HealthLevels) == 0 {
		t.Errorf("%d health insights but no level group on the page", v.HealthCount)
	}
	shot(pg, "web-midway.png")
	t.Logf("mid-update: %s", mid)

	// Faults: a paused pool, a node that is not ready, a degraded
	// operator. The cells and the health insights follow.
	var faults []simulator.FaultID
	for _, inject := range []func() (simulator.FaultID, error){
		func() (simulator.FaultID, error) { return sim.PausePool(ctx, "gpu", 0) },
		func() (simulator.FaultID, error) { return sim.MakeNodeNotReady(ctx, "infra", 0) },
		func() (simulator.FaultID, error) { return sim.DegradeOperator(ctx, "authentication", 0) },
	} {
		id, err := inject()
		if err != nil {
			t.Fatal(err)
		}
		faults = append(faults, id)
	}
	if err := sim.RunVirtual(ctx, clk, 15); err != nil && !errors.Is(err, simulator.ErrStepLimit) && !errors.Is(err, simulator.ErrStalled) {
		t.Fatal(err)
	}
	// The server folds the simulator's writes a moment later: until it
	// has, the page matches a served state without the faults.
	_, waited := waitForStatusOf(ctx, t, cpW, time.Minute, "the faults", func(us *v1alpha1.UpdateStatus) bool {
		pools := picturesOf(us)
		return pools["gpu"].Counts[web.StatePaused] > 0 && pools["infra"].Counts[web.StateUnavailable] > 0 && len(healthInsights(us)) > 0
	})
	t.Logf("the server served the faults %v after the simulated steps returned", waited.Round(time.Millisecond))
	dom = pg.waitFor(ctx, t, time.Minute, "the served pools with faults", check)
	v, _ = parsePage(dom)
	later := picture(v)
	if later == mid {
		t.Errorf("the picture did not change as the update advanced: %s", later)
	}
	if v.Pools["gpu"].Counts[web.StatePaused] == 0 || v.Pools["infra"].Counts[web.StateUnavailable] == 0 {
		t.Errorf("no paused gpu node or no unavailable infra node on the page: %s", later)
	}
	if v.HealthCount == 0 || len(v.HealthLevels) == 0 {
		t.Errorf("no health insight on the page with a degraded operator: %d, levels %v", v.HealthCount, v.HealthLevels)
	}
	shot(pg, "web-faults.png")
	t.Logf("with faults: %s; health levels %v", later, v.HealthLevels)
	for _, id := range faults {
		if err := sim.Clear(ctx, id); err != nil {
			t.Fatal(err)
		}
	}

	// The stream breaks: the page says so; the command runs again on the
	// same address and the page catches up, with the update completed
	// in between.
	port := strings.TrimSuffix(admin.url[strings.LastIndex(admin.url, ":")+1:], "/")
	admin.stop(t)
	pg.waitFor(ctx, t, 30*time.Second, "a broken stream", func(dom string) error {
		v, err := parsePage(dom)
		if err != nil {
			return err
		}
		if v.Stream != "broken" {
			return fmt.Errorf("stream %q, want broken", v.Stream)
		}
		return nil
	})
	shot(pg, "web-broken.png")
	if err := sim.RunVirtual(ctx, clk, 0); err != nil {
		t.Fatalf("drive the update to its end: %v", err)
	}
	startWeb(ctx, t, cpW.KubeconfigPath(localstack.AdminUser), "127.0.0.1:"+port)
	pg.waitFor(ctx, t, time.Minute, "the completed update after reconnecting", func(dom string) error {
		v, err := matchServed(ctx, cpW, dom)
		if err != nil {
			return err
		}
		if v.Assessment != string(v1alpha1.ControlPlaneAssessmentCompleted) {
			return fmt.Errorf("control plane %s", v.Assessment)
		}
		for name, p := range v.Pools {
			if p.Counts[web.StateUpdated] != p.Nodes {
				return fmt.Errorf("pool %s: %v", name, p.Counts)
			}
		}
		return nil
	})
	shot(pg, "web-completed.png")
	if err := pg.eval(ctx, "window.__webTest === 1", &marked); err != nil || !marked {
		t.Errorf("the page reloaded (mark %v, %v): it must follow the stream", marked, err)
	}

	// The nobody user: the API's refusal, on the page.
	pn, err := br.open(ctx, nobody.url, 1400, 1000)
	if err != nil {
		t.Fatal(err)
	}
	pn.waitFor(ctx, t, time.Minute, "the API's refusal", func(dom string) error {
		v, err := parsePage(dom)
		if err != nil {
			return err
		}
		if v.Errors == 0 || !strings.Contains(v.ErrorText, "Forbidden") || !strings.Contains(v.ErrorText, `User "nobody" cannot list`) {
			return fmt.Errorf("errors %d: %q", v.Errors, v.ErrorText)
		}
		return nil
	})
	shot(pn, "web-nobody.png")
	t.Logf("browser test done in %v", time.Since(begin).Round(time.Millisecond))
}

// getStatusOf reads the singleton of cpW as the admin user.
func getStatusOf(ctx context.Context, t *testing.T, cpW *localstack.ControlPlane) *v1alpha1.UpdateStatus {
	t.Helper()
	res := cpW.Kubectl(ctx, localstack.AdminUser, "get", "updatestatus", statusName, "-o", "json")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var us v1alpha1.UpdateStatus
	if err := json.Unmarshal([]byte(res.Stdout), &us); err != nil {
		t.Fatal(err)
	}
	return &us
}
