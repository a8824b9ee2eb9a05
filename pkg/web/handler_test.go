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

package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	clienttesting "k8s.io/client-go/testing"

	"github.com/update-status/apiserver/internal/fixtures"
	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/install"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sourcefiles"
	"github.com/update-status/apiserver/pkg/view"
)

// scenario is a fixture of oc adm upgrade status with several worker pools
// mid-update.
const scenario = "4.14.1-workers-started-updating-multiple-pools"

// computed returns the UpdateStatus of the scenario and its per-insight
// objects (v1alpha1), computed as the server computes them.
func computed(t *testing.T) (*v1alpha1.UpdateStatus, []runtime.Object) {
	t.Helper()
	return computedWith(t, nil)
}

// computedWith is computed with the scenario's sources edited first.
func computedWith(t *testing.T, edit func(src *insights.Sources, now time.Time)) (*v1alpha1.UpdateStatus, []runtime.Object) {
	t.Helper()
	src, err := sourcefiles.LoadScenario(fixtures.Dir(t), scenario)
	if err != nil {
		t.Fatal(err)
	}
	now := sourcefiles.MockNow(src)
	if edit != nil {
		edit(src, now)
	}
	res := insights.Compute(src, now)
	us := &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: "1"}, Status: res.Status}
	scheme := runtime.NewScheme()
	install.Install(scheme)
	var objs []runtime.Object
	byKind, err := view.Objects(&res, view.ObjectMeta(src.ClusterVersion))
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range byKind {
		for _, o := range list {
			out, err := scheme.ConvertToVersion(o, v1alpha1.SchemeGroupVersion)
			if err != nil {
				t.Fatal(err)
			}
			objs = append(objs, out)
		}
	}
	return us, objs
}

// newFake returns a fake cluster serving objs, whose discovery lists the
// per-insight resources when insights is true.
func newFake(insights bool, objs ...runtime.Object) *fake.Clientset {
	c := fake.NewSimpleClientset(objs...)
	served := []metav1.APIResource{{Name: resources.UpdateStatus.Resource, Kind: resources.UpdateStatus.Kind}}
	if insights {
		for k := resources.InsightKind(0); k < resources.NumInsightKinds; k++ {
			served = append(served, metav1.APIResource{Name: k.Resource(), Kind: k.Kind()})
		}
	}
	c.Resources = []*metav1.APIResourceList{{GroupVersion: v1alpha1.SchemeGroupVersion.String(), APIResources: served}}
	return c
}

// started runs a handler on client with short intervals and serves it.
func started(t *testing.T, opts Options) (*Handler, *httptest.Server) {
	t.Helper()
	if opts.FlushInterval == 0 {
		opts.FlushInterval = 20 * time.Millisecond
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = time.Hour
	}
	if opts.ProbeInterval == 0 {
		opts.ProbeInterval = 50 * time.Millisecond
	}
	h := NewHandler(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = h.Run(ctx)
	}()
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		cancel()
		<-done
	})
	return h, srv
}

// state polls /state.json every 20 ms until pred holds.
func state(t *testing.T, srv *httptest.Server, what string, pred func(*Snapshot) bool) *Snapshot {
	t.Helper()
	return stateAt(t, srv.URL+"/state.json", what, pred)
}

// stateAt polls the state at url every 20 ms until pred holds.
func stateAt(t *testing.T, url, what string, pred func(*Snapshot) bool) *Snapshot {
	t.Helper()
	var last Snapshot
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		resp, err := http.Get(url)
		if err != nil {
			return false, err
		}
		last = Snapshot{}
		err = json.NewDecoder(resp.Body).Decode(&last)
		_ = resp.Body.Close()
		if err != nil {
			return false, err
		}
		return pred(&last), nil
	})
	if wait.Interrupted(err) {
		b, _ := json.MarshalIndent(last, "", " ")
		t.Fatalf("the state never showed %s; last:\n%s", what, b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &last
}

// settled waits until the handler is synced and has flushed everything:
// its sequence number stays the same over several flush intervals.
func settled(t *testing.T, srv *httptest.Server) {
	t.Helper()
	var seq uint64
	stable := 0
	state(t, srv, "settled", func(s *Snapshot) bool {
		if !s.Synced || s.Seq == 0 || s.Seq != seq {
			seq, stable = s.Seq, 0
			return false
		}
		stable++
		return stable >= 5
	})
}

// sse is one parsed server-sent event.
type sse struct {
	name, id string
	data     []byte
}

// stream reads the events of /events.
type stream struct {
	resp   *http.Response
	events chan sse
}

func openStream(t *testing.T, srv *httptest.Server, lastID string) *stream {
	t.Helper()
	return openStreamAt(t, srv.URL+"/events", lastID)
}

// openStreamAt reads the events of the stream at url.
func openStreamAt(t *testing.T, url, lastID string) *stream {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	s := &stream{resp: resp, events: make(chan sse, 1024)}
	go func() {
		defer close(s.events)
		r := bufio.NewReaderSize(resp.Body, 1<<20)
		var ev sse
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "":
				if ev.name != "" || ev.data != nil {
					s.events <- ev
				}
				ev = sse{}
			case strings.HasPrefix(line, "event: "):
				ev.name = line[len("event: "):]
			case strings.HasPrefix(line, "id: "):
				ev.id = line[len("id: "):]
			case strings.HasPrefix(line, "data: "):
				ev.data = []byte(line[len("data: "):])
			}
		}
	}()
	t.Cleanup(func() { _ = resp.Body.Close() })
	return s
}

// next returns the next event named one of names, skipping others.
func (s *stream) next(t *testing.T, names ...string) sse {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("the stream ended while waiting for %v", names)
			}
			for _, n := range names {
				if ev.name == n {
					return ev
				}
			}
		case <-timeout:
			t.Fatalf("no %v event within 10s", names)
		}
	}
}

func decode[T any](t *testing.T, ev sse) *T {
	t.Helper()
	var v T
	if err := json.Unmarshal(ev.data, &v); err != nil {
		t.Fatalf("%s event: %v: %s", ev.name, err, ev.data)
	}
	return &v
}

// expectedPools counts the nodes of each pool of us by cell state.
func expectedPools(us *v1alpha1.UpdateStatus) map[string]map[string]int {
	out := map[string]map[string]int{}
	add := func(n *v1alpha1.NodeStatusInsight) {
		if n == nil {
			return
		}
		p := out[n.PoolResource.Name]
		if p == nil {
			p = map[string]int{}
			out[n.PoolResource.Name] = p
		}
		p[nodeOf(n).State]++
	}
	for _, inf := range us.Status.ControlPlane.Informers {
		for _, in := range inf.Insights {
			add(in.Insight.NodeStatusInsight)
		}
	}
	for _, wp := range us.Status.WorkerPools {
		for _, inf := range wp.Informers {
			for _, in := range inf.Insights {
				add(in.Insight.NodeStatusInsight)
			}
		}
	}
	return out
}

func poolCounts(s *Snapshot) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, p := range s.Pools {
		if p.Nodes > 0 {
			out[p.Name] = p.Counts
		}
	}
	return out
}

func TestSnapshotOnConnect(t *testing.T) {
	us, objs := computed(t)
	want := expectedPools(us)
	if len(want) < 3 {
		t.Fatalf("the scenario has %d pools with nodes, want several", len(want))
	}
	for _, tc := range []struct {
		name     string
		insights bool
		objs     []runtime.Object
	}{
		{SourceInsights, true, objs},
		{SourceUpdateStatus, false, []runtime.Object{us}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := started(t, Options{Client: newFake(tc.insights, tc.objs...)})
			state(t, srv, "synced", func(s *Snapshot) bool { return s.Synced && len(s.Nodes) > 0 })
			st := openStream(t, srv, "")
			snap := decode[Snapshot](t, st.next(t, "snapshot"))
			if snap.Source != tc.name {
				t.Errorf("source %q, want %q", snap.Source, tc.name)
			}
			if got := poolCounts(snap); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("pools by state:\n got %v\nwant %v", got, want)
			}
			var nodes int
			for _, p := range want {
				for _, c := range p {
					nodes += c
				}
			}
			if len(snap.Nodes) != nodes {
				t.Errorf("%d nodes in the snapshot, want %d", len(snap.Nodes), nodes)
			}
			if !sort.SliceIsSorted(snap.Nodes, func(i, j int) bool { return snap.Nodes[i].Name < snap.Nodes[j].Name }) {
				t.Error("snapshot nodes are not sorted by name")
			}
			cp := snap.ControlPlane
			if cp == nil || cp.Target != "4.14.1" || cp.Assessment == "" || cp.StartedAt == nil || cp.Operators.Total == 0 {
				t.Errorf("control plane: %+v", cp)
			}
			if !snap.Pools[0].ControlPlane || snap.Pools[0].Name != "master" || snap.Pools[1].Name != "worker" {
				t.Errorf("pool order: %+v", snap.Pools)
			}
			if len(snap.Errors) != 0 {
				t.Errorf("errors: %+v", snap.Errors)
			}
		})
	}
}

// nodeObject returns the NodeProgressInsight named name among objs.
func nodeObject(t *testing.T, objs []runtime.Object, pool string) *v1alpha1.NodeProgressInsight {
	t.Helper()
	for _, o := range objs {
		if n, ok := o.(*v1alpha1.NodeProgressInsight); ok && n.Status.PoolResource.Name == pool {
			return n.DeepCopy()
		}
	}
	t.Fatalf("no node in pool %s", pool)
	return nil
}

var npiGVR = v1alpha1.SchemeGroupVersion.WithResource("nodeprogressinsights")

func setNodeDegraded(n *v1alpha1.NodeProgressInsight, msg string) {
	conds := []metav1.Condition{}
	for _, c := range n.Status.Conditions {
		if c.Type != string(v1alpha1.NodeStatusInsightDegraded) {
			conds = append(conds, c)
		}
	}
	n.Status.Conditions = append(conds, metav1.Condition{Type: string(v1alpha1.NodeStatusInsightDegraded),
		Status: metav1.ConditionTrue, Reason: "Broken", Message: msg})
}

// streamingComputed serves the computed cluster's objects, objs, from the
// fake client, settled, and opens a browser's stream, st, whose snapshot
// it returns.
func streamingComputed(t *testing.T) (client *fake.Clientset, objs []runtime.Object, h *Handler, srv *httptest.Server, st *stream, snapshot sse) {
	t.Helper()
	_, objs = computed(t)
	client = newFake(true, objs...)
	h, srv = started(t, Options{Client: client})
	settled(t, srv)
	st = openStream(t, srv, "")
	return client, objs, h, srv, st, st.next(t, "snapshot")
}

func TestDeltaAfterChange(t *testing.T) {
	client, objs, h, _, st, first := streamingComputed(t)
	snap := decode[Snapshot](t, first)

	n := nodeObject(t, objs, "worker")
	setNodeDegraded(n, "disk on fire")
	if err := client.Tracker().Update(npiGVR, n, ""); err != nil {
		t.Fatal(err)
	}
	ev := st.next(t, "delta")
	d := decode[Delta](t, ev)
	if d.Seq <= snap.Seq || ev.id != fmt.Sprint(d.Seq) {
		t.Errorf("delta seq %d (id %s) after snapshot %d", d.Seq, ev.id, snap.Seq)
	}
	if len(d.Nodes) != 1 || d.Nodes[0].Name != n.Name || d.Nodes[0].State != StateDegraded || d.Nodes[0].Message != "disk on fire" {
		t.Errorf("delta nodes: %+v", d.Nodes)
	}
	if len(d.Pools) != 1 || d.Pools[0].Name != "worker" || d.Pools[0].Counts[StateDegraded] == 0 {
		t.Errorf("delta pools: %+v", d.Pools)
	}
	if d.ControlPlane != nil || d.HealthChanged {
		t.Errorf("the delta carries what did not change: %+v", d)
	}

	// A node removed.
	if err := client.Tracker().Delete(npiGVR, "", n.Name); err != nil {
		t.Fatal(err)
	}
	d = decode[Delta](t, st.next(t, "delta"))
	if len(d.Removed) != 1 || d.Removed[0] != n.Name || len(d.Nodes) != 0 {
		t.Errorf("delta after delete: %+v", d)
	}

	// A health insight.
	hi := &v1alpha1.HealthInsight{ObjectMeta: metav1.ObjectMeta{Name: "hi-1"}}
	hi.Status.InsightUID = "hi-1"
	hi.Status.Impact = v1alpha1.InsightImpact{Level: v1alpha1.ErrorImpactLevel, Type: v1alpha1.UpdateStalledImpactType, Summary: "stuck"}
	hi.Status.Remediation.Reference = "https://docs.example/runbook"
	hi.Status.Scope.Type = v1alpha1.WorkerPoolScope
	if err := client.Tracker().Create(v1alpha1.SchemeGroupVersion.WithResource("healthinsights"), hi, ""); err != nil {
		t.Fatal(err)
	}
	d = decode[Delta](t, st.next(t, "delta"))
	if !d.HealthChanged || len(d.Health) != 1 || d.Health[0].Summary != "stuck" || !d.Health[0].Link || d.Health[0].Level != "Error" {
		t.Errorf("delta after a health insight: %+v", d)
	}

	// A burst of changes is coalesced into few events. (The fake watch
	// holds 100 events: every 50 the burst waits for the informer to have
	// taken in the node before.)
	var names []string
	for i := 0; i < 300; i++ {
		if i%50 == 49 {
			testio.Eventually(t, "the informer to take in "+names[i-1], func() bool {
				h.model.mu.Lock()
				defer h.model.mu.Unlock()
				_, ok := h.model.nodes[names[i-1]]
				return ok
			})
		}
		name := fmt.Sprintf("burst-%03d", i)
		names = append(names, name)
		obj := &v1alpha1.NodeProgressInsight{ObjectMeta: metav1.ObjectMeta{Name: name}}
		obj.Status.Name = name
		obj.Status.PoolResource.Name = "burst"
		obj.Status.Scope = v1alpha1.WorkerPoolScope
		if err := client.Tracker().Create(npiGVR, obj, ""); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	events := 0
	for len(seen) < len(names) {
		d := decode[Delta](t, st.next(t, "delta"))
		events++
		for _, n := range d.Nodes {
			seen[n.Name] = true
		}
	}
	if events > 60 {
		t.Errorf("300 node changes took %d delta events; want them coalesced", events)
	}
	t.Logf("300 node changes in %d delta events", events)
}

func TestReconnectGetsSnapshot(t *testing.T) {
	client, objs, _, srv, st, first := streamingComputed(t)
	n := nodeObject(t, objs, "worker")
	setNodeDegraded(n, "while away")
	_ = st.resp.Body.Close()
	if err := client.Tracker().Update(npiGVR, n, ""); err != nil {
		t.Fatal(err)
	}
	state(t, srv, "the change", func(s *Snapshot) bool { return s.Seq > decode[Snapshot](t, first).Seq })

	st = openStream(t, srv, first.id)
	ev := st.next(t, "snapshot", "delta")
	if ev.name != "snapshot" {
		t.Fatalf("a reconnected browser first got %q, want a snapshot", ev.name)
	}
	snap := decode[Snapshot](t, ev)
	for _, node := range snap.Nodes {
		if node.Name == n.Name && node.Message != "while away" {
			t.Errorf("the snapshot after reconnecting misses the change: %+v", node)
		}
	}
}

func TestForbiddenShowsError(t *testing.T) {
	_, objs := computed(t)
	client := newFake(true, objs...)
	var forbid atomic.Bool
	forbid.Store(true)
	client.PrependReactor("list", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if !forbid.Load() {
			return false, nil, nil
		}
		gr := schema.GroupResource{Group: v1alpha1.GroupName, Resource: a.GetResource().Resource}
		return true, nil, apierrors.NewForbidden(gr, "", fmt.Errorf("User \"nobody\" cannot list resource %q", gr.Resource))
	})
	_, srv := started(t, Options{Client: client})
	st := openStream(t, srv, "")
	var errs []APIError
	for len(errs) < int(resources.NumInsightKinds) {
		ev := st.next(t, "snapshot", "apierror")
		errs = decode[Snapshot](t, ev).Errors
	}
	for _, e := range errs {
		if e.Reason != "Forbidden" || !strings.Contains(e.Message, "forbidden") || !strings.Contains(e.Message, `User "nobody" cannot list`) {
			t.Errorf("error shown: %+v", e)
		}
	}
	// Allowed again: the errors clear and the data arrive.
	forbid.Store(false)
	for len(errs) > 0 {
		errs = decode[Snapshot](t, st.next(t, "apierror")).Errors
	}
	state(t, srv, "synced after the refusal", func(s *Snapshot) bool { return s.Synced && len(s.Nodes) > 0 && len(s.Errors) == 0 })
}

func TestDiscoveryErrorShown(t *testing.T) {
	client := fake.NewSimpleClientset()
	_, srv := started(t, Options{Client: client})
	s := state(t, srv, "a discovery error", func(s *Snapshot) bool { return len(s.Errors) > 0 })
	if s.Errors[0].Resource != discoveryResource || s.Errors[0].Reason != "NotFound" {
		t.Errorf("errors: %+v", s.Errors)
	}
}

// gatedWriter is a ResponseWriter whose writes wait for a gate: a browser
// that does not read.
type gatedWriter struct {
	hdr  http.Header
	gate chan struct{}
	mu   sync.Mutex
	out  strings.Builder
}

func (w *gatedWriter) Header() http.Header { return w.hdr }
func (w *gatedWriter) WriteHeader(int)     {}
func (w *gatedWriter) Flush()              {}
func (w *gatedWriter) Write(b []byte) (int, error) {
	<-w.gate
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(b)
}

func TestSlowClientBounded(t *testing.T) {
	h := NewHandler(Options{Client: newFake(true), ClientBuffer: 4, Heartbeat: time.Hour})
	w := &gatedWriter{hdr: http.Header{}, gate: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest(http.MethodGet, "/events", nil).WithContext(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(w, req)
	}()
	testio.Eventually(t, "the subscriber", func() bool { return h.Subscribers() > 0 })
	// The writer is stuck on its first write; 100 changes go out.
	for i := 0; i < 100; i++ {
		h.model.setNode(&v1alpha1.NodeStatusInsight{Name: fmt.Sprintf("n%03d", i), PoolResource: v1alpha1.PoolResourceRef{ResourceRef: v1alpha1.ResourceRef{Name: "worker"}}})
		h.flush()
	}
	h.mu.Lock()
	for s := range h.subs {
		if len(s.ch) > cap(s.ch) || cap(s.ch) != 4 {
			t.Errorf("queue %d of %d", len(s.ch), cap(s.ch))
		}
	}
	h.mu.Unlock()
	close(w.gate)
	// Once it reads again it gets a fresh snapshot with every node, not
	// the 100 deltas.
	var out string
	if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		w.mu.Lock()
		out = w.out.String()
		w.mu.Unlock()
		return strings.Count(out, "event: snapshot") == 2 && strings.Contains(out, `"n":"n099"`), nil
	}); err != nil {
		t.Fatalf("no second snapshot:\n%.2000s", out)
	}
	if deltas := strings.Count(out, "event: delta"); deltas > 4 {
		t.Errorf("%d deltas reached the slow browser", deltas)
	}
	cancel()
	<-done
}

func TestPageAndHosts(t *testing.T) {
	h := NewHandler(Options{Client: newFake(true), AllowedHosts: LoopbackHosts("127.0.0.1:8080")})
	for path, want := range map[string]string{"/": "<canvas", "/app.js": "EventSource", "/app.css": "--updated"} {
		if path == "/" {
			want = `id="pools"`
		}
		req := httptest.NewRequest(http.MethodGet, "http://localhost:8080"+path, nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body, _ := io.ReadAll(rec.Body)
		if rec.Code != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d, body lacks %q", path, rec.Code, want)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "http://evil.example:8080/", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusMisdirectedRequest {
		t.Errorf("a foreign Host header got %d", rec.Code)
	}
	// Nothing on the page comes from elsewhere.
	for _, name := range []string{"index.html", "app.js", "app.css"} {
		b, err := static.ReadFile("static/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "http://") || strings.Contains(string(b), "https://") || strings.Contains(string(b), "//cdn") {
			t.Errorf("%s refers to another site", name)
		}
	}
}

func TestNodeStates(t *testing.T) {
	cond := func(typ, status, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status), Reason: reason}
	}
	for _, tc := range []struct {
		conds []metav1.Condition
		want  string
	}{
		{[]metav1.Condition{cond("Updating", "False", "Completed")}, StateUpdated},
		{[]metav1.Condition{cond("Updating", "True", "Updating")}, StateUpdating},
		{[]metav1.Condition{cond("Updating", "True", "Draining")}, StateDraining},
		{[]metav1.Condition{cond("Updating", "True", "Rebooting")}, StateRebooting},
		{[]metav1.Condition{cond("Updating", "False", "Paused")}, StatePaused},
		{[]metav1.Condition{cond("Updating", "False", "Pending")}, StateOutdated},
		{[]metav1.Condition{cond("Updating", "True", "Draining"), cond("Degraded", "True", "X")}, StateDegraded},
		{[]metav1.Condition{cond("Updating", "False", "Completed"), cond("Available", "False", "X")}, StateUnavailable},
		{nil, StateUnknown},
	} {
		if got := nodeOf(&v1alpha1.NodeStatusInsight{Name: "n", Conditions: tc.conds}).State; got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.conds, got, tc.want)
		}
	}
}

// TestInsightsForbiddenFallsBack: a user who may read updatestatuses but
// not the per-insight resources gets the page from UpdateStatus.
func TestInsightsForbiddenFallsBack(t *testing.T) {
	us, objs := computed(t)
	client := newFake(true, append(objs, us)...)
	client.PrependReactor("list", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetResource().Resource == "updatestatuses" {
			return false, nil, nil
		}
		gr := schema.GroupResource{Group: v1alpha1.GroupName, Resource: a.GetResource().Resource}
		return true, nil, apierrors.NewForbidden(gr, "", fmt.Errorf("User \"reader\" cannot list resource %q", gr.Resource))
	})
	_, srv := started(t, Options{Client: client})
	s := state(t, srv, "synced from updatestatuses", func(s *Snapshot) bool { return s.Synced && len(s.Nodes) > 0 })
	if s.Source != SourceUpdateStatus {
		t.Errorf("source %q, want %q", s.Source, SourceUpdateStatus)
	}
	if len(s.Errors) != 0 {
		t.Errorf("errors shown although updatestatuses is readable: %+v", s.Errors)
	}
	if got, want := poolCounts(s), expectedPools(us); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pools by state:\n got %v\nwant %v", got, want)
	}
}
