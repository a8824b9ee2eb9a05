//go:build soak

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

// Package soak runs update-status-apiserver as production does, on the
// local stack: two replicas behind the APIService, a simulated cluster of
// thousands of nodes in the middle of an update, watchers of every kind
// (raw watches and client-go informers with WatchList, JSON and protobuf,
// of nodeprogressinsights per pool, healthinsights and the UpdateStatus)
// and a steady rate of GETs and LISTs, all through the kube-apiserver;
// replicas are killed with SIGKILL and started again, and the
// kube-apiserver is restarted once. At the end every watcher's cache is
// compared with a fresh LIST. `make soak` runs it; the SOAK_* variables
// (settingsFromEnv) tune it, and it ends with one line of key=value
// fields.
package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	informers "github.com/update-status/apiserver/pkg/generated/informers/externalversions"
	"github.com/update-status/apiserver/pkg/monitoring"
	"github.com/update-status/apiserver/pkg/simulator"
)

// settings of a run. The defaults fit a machine of two cores: the
// kube-apiserver proxies every request and watch, so GETs are mostly of
// single per-insight objects (about 1 KiB) and one in a hundred of the
// UpdateStatus (about 1 MiB at 5,000 nodes).
type settings struct {
	duration   time.Duration // SOAK_DURATION, 10m
	nodes      int           // SOAK_NODES, 5000
	watchers   int           // SOAK_WATCHERS, 1000 in all
	usWatchers int           // SOAK_US_WATCHERS, 30 of them watch the UpdateStatus
	informers  int           // SOAK_INFORMER_PERCENT, 10: the share of the others that are informers
	getRate    int           // SOAK_GET_RATE, 200 GETs per second
	listEvery  time.Duration // SOAK_LIST_EVERY, 10s: a LIST of each of the six resources
	killEvery  time.Duration // SOAK_KILL_EVERY, duration/3: a replica killed and started again
	speed      float64       // SOAK_SPEED, 30: the simulator's speed factor
	profiles   string        // SOAK_PROFILE_DIR: where to write a replica's heap profile each time its RSS passes a new peak (none when empty)
}

func settingsFromEnv() settings {
	s := settings{
		duration: envDuration("SOAK_DURATION", 10*time.Minute), nodes: envInt("SOAK_NODES", 5000),
		watchers: envInt("SOAK_WATCHERS", 1000), usWatchers: envInt("SOAK_US_WATCHERS", 30),
		informers: envInt("SOAK_INFORMER_PERCENT", 10), getRate: envInt("SOAK_GET_RATE", 200),
		listEvery: envDuration("SOAK_LIST_EVERY", 10*time.Second), speed: float64(envInt("SOAK_SPEED", 30)),
	}
	s.killEvery = envDuration("SOAK_KILL_EVERY", s.duration/3)
	s.profiles = os.Getenv("SOAK_PROFILE_DIR")
	return s
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// kind is one watched resource, through the generated clientset.
type kind struct {
	name  string
	list  func(context.Context, versioned.Interface, metav1.ListOptions) (string, map[string]string, error)
	watch func(context.Context, versioned.Interface, metav1.ListOptions) (watch.Interface, error)
}

// content is what is compared of an object: its status.
func content(obj runtime.Object) string {
	var status any
	switch o := obj.(type) {
	case *v1alpha1.UpdateStatus:
		status = o.Status
	case *v1alpha1.NodeProgressInsight:
		status = o.Status
	case *v1alpha1.HealthInsight:
		status = o.Status
	}
	b, _ := json.Marshal(status)
	return string(b)
}

// listWatcher is a typed client of one resource.
type listWatcher[L runtime.Object] interface {
	List(context.Context, metav1.ListOptions) (L, error)
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}

// kindOf is the kind of the typed client that client returns.
func kindOf[L runtime.Object](name string, client func(versioned.Interface) listWatcher[L]) kind {
	return kind{
		name: name,
		list: func(ctx context.Context, c versioned.Interface, o metav1.ListOptions) (string, map[string]string, error) {
			l, err := client(c).List(ctx, o)
			if err != nil {
				return "", nil, err
			}
			items, err := meta.ExtractList(l)
			if err != nil {
				return "", nil, err
			}
			out := map[string]string{}
			for _, it := range items {
				m, _ := meta.Accessor(it)
				out[m.GetName()] = content(it)
			}
			lm, _ := meta.ListAccessor(l)
			return lm.GetResourceVersion(), out, nil
		},
		watch: func(ctx context.Context, c versioned.Interface, o metav1.ListOptions) (watch.Interface, error) {
			return client(c).Watch(ctx, o)
		},
	}
}

var kinds = map[string]kind{
	"us": kindOf("updatestatuses", func(c versioned.Interface) listWatcher[*v1alpha1.UpdateStatusList] {
		return c.UpdateV1alpha1().UpdateStatuses()
	}),
	"npi": kindOf("nodeprogressinsights", func(c versioned.Interface) listWatcher[*v1alpha1.NodeProgressInsightList] {
		return c.UpdateV1alpha1().NodeProgressInsights()
	}),
	"hi": kindOf("healthinsights", func(c versioned.Interface) listWatcher[*v1alpha1.HealthInsightList] {
		return c.UpdateV1alpha1().HealthInsights()
	}),
}

// counters are what every client counts.
type counters struct {
	errors, failoverErrors, reconnects, resyncs, events atomic.Int64
	mu                                                  sync.Mutex
	firstErrors                                         []string
	// failoverUntil is the end of the current failover window: an error of
	// a connection to a replica or kube-apiserver that was just killed
	// (EOF, reset, refused, the aggregator's 503) is counted apart there.
	failoverUntil atomic.Int64
	// authzUntil is the end of the window after a kube-apiserver restart
	// in which it answers 403 to requests its RBAC informers have not
	// caught up with yet (kubernetes/kubernetes#121635); a 403 there is
	// counted apart too.
	authzUntil atomic.Int64
}

func (c *counters) fail(what string, err error) {
	now := time.Now().UnixNano()
	if now < c.failoverUntil.Load() && transient(err) || now < c.authzUntil.Load() && apierrors.IsForbidden(err) {
		c.failoverErrors.Add(1)
		return
	}
	c.errors.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.firstErrors) < 10 {
		c.firstErrors = append(c.firstErrors, what+": "+err.Error())
	}
}

// transient tells whether err is how a request meets a server that went
// away under it.
func transient(err error) bool {
	var ne net.Error
	return apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) || strings.Contains(err.Error(), "connection refused") ||
		strings.Contains(err.Error(), "connection reset")
}

// streamEnd tells whether err is the end of a watch stream that broke
// under the client: the kube-apiserver resets the streams it proxied to a
// replica that went away, and client-go reports the reset as an error
// decoding the next event. Like a stream that ends, the client watches
// again from the last resourceVersion it received.
func streamEnd(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "unable to decode an event from the watch stream") &&
		(strings.Contains(msg, "INTERNAL_ERROR") || strings.Contains(msg, "unexpected EOF") || strings.Contains(msg, "connection reset"))
}

// follower is one watcher: its cache of the objects it follows, as content
// by name.
type follower struct {
	kind     string
	selector string
	protobuf bool
	informer cache.SharedIndexInformer // nil for a raw watch
	mu       sync.Mutex
	objs     map[string]string
	// seen is when the follower last received a state (a LIST or an
	// event); maxGap the longest time between two, counted until the run
	// ends (until).
	seen   time.Time
	maxGap time.Duration
	until  time.Time
}

// saw notes that the follower received a state now. Call it with f.mu held.
func (f *follower) saw() {
	now := time.Now()
	if now.After(f.until) {
		return
	}
	if !f.seen.IsZero() {
		f.maxGap = max(f.maxGap, now.Sub(f.seen))
	}
	f.seen = now
}

func (f *follower) cache() map[string]string {
	if f.informer != nil {
		out := map[string]string{}
		for _, obj := range f.informer.GetStore().List() {
			o := obj.(runtime.Object)
			m, _ := meta.Accessor(o)
			out[m.GetName()] = content(o)
		}
		return out
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.objs)
}

// run follows with a raw watch, as kubectl and hand-written clients do:
// a LIST, then a watch from its resourceVersion, resumed from the last
// resourceVersion received when the stream ends, and a LIST again on 410.
func (f *follower) run(ctx context.Context, c versioned.Interface, n *counters) {
	k := kinds[f.kind]
	rv := ""
	for ctx.Err() == nil {
		if rv == "" {
			var objs map[string]string
			var err error
			rv, objs, err = k.list(ctx, c, metav1.ListOptions{LabelSelector: f.selector})
			if err != nil {
				if ctx.Err() == nil {
					n.fail("list "+k.name, err)
					pause(ctx)
				}
				continue
			}
			f.mu.Lock()
			f.objs = objs
			f.saw()
			f.mu.Unlock()
		}
		w, err := k.watch(ctx, c, metav1.ListOptions{LabelSelector: f.selector, ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			if ctx.Err() == nil {
				if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
					n.resyncs.Add(1)
					rv = ""
					continue
				}
				n.fail("watch "+k.name, err)
				pause(ctx)
			}
			continue
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				switch err := apierrors.FromObject(ev.Object); {
				case ctx.Err() != nil:
				case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
					n.resyncs.Add(1)
					rv = ""
				case streamEnd(err):
					// The stream broke (its replica went away): it ends,
					// and the follower watches again from rv.
				default:
					n.fail("watch event "+k.name, err)
				}
				break
			}
			m, err := meta.Accessor(ev.Object)
			if err != nil {
				continue
			}
			rv = m.GetResourceVersion()
			if ev.Type == watch.Bookmark {
				continue
			}
			n.events.Add(1)
			f.mu.Lock()
			f.saw()
			if ev.Type == watch.Deleted {
				delete(f.objs, m.GetName())
			} else {
				f.objs[m.GetName()] = content(ev.Object)
			}
			f.mu.Unlock()
		}
		w.Stop()
		if ctx.Err() == nil {
			n.reconnects.Add(1)
		}
	}
}

// pause is a client's wait before it tries again.
func pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
}

// replica is one server process behind the balancer, started again on its
// port after it is killed.
type replica struct {
	name string
	port int
	mu   sync.Mutex
	in   *localstack.Instance
}

func (r *replica) pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.in == nil {
		return 0
	}
	return r.in.Process.Pid()
}

func TestSoak(t *testing.T) {
	s := settingsFromEnv()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	begin := time.Now()

	cp, err := localstack.Start(ctx, localstack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	admin := cp.RESTConfig(&cp.Users.Admin)
	admin.WarningHandler = rest.NoWarnings{}
	// The followers, GETs and LISTs are a reader's, as dashboards and
	// tools are: not system:masters, whose requests the server's
	// max-in-flight limit lets through unbounded.
	viewer := cp.RESTConfig(&cp.Users.Viewer)
	viewer.WarningHandler = rest.NoWarnings{}
	sink, err := simulator.NewAPISink(admin, simulator.APISinkOptions{QPS: -1, Workers: 32})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := simulator.New(simulator.Options{Nodes: s.nodes, Speed: s.speed, Seed: 1, Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Create(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sim.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	// StartServer registers the APIService; the two replicas then take
	// over behind a balancer, as a Service's endpoints.
	if err := cp.StartServer(ctx); err != nil {
		t.Fatal(err)
	}
	replicas := []*replica{{name: "soak-a"}, {name: "soak-b"}}
	var backends []string
	for _, r := range replicas {
		in, err := cp.StartInstance(ctx, localstack.InstanceOptions{Name: r.name})
		if err != nil {
			t.Fatal(err)
		}
		r.in, r.port = in, portOf(in.URL)
		backends = append(backends, localstack.HostPort(in.URL))
		defer func() { r.mu.Lock(); r.in.Process.Stop(10 * time.Second); r.mu.Unlock() }()
	}
	lb, err := localstack.StartBalancer(backends...)
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	if err := cp.PointAPIService(ctx, lb.Port()); err != nil {
		t.Fatal(err)
	}
	cp.Server.Stop(10 * time.Second)
	prom, err := scrapeReplicas(ctx, cp, backends)
	if err != nil {
		t.Fatal(err)
	}
	defer prom.Stop()
	klog.InfoS("Soak starting", "setup", time.Since(begin).Round(time.Second), "settings", fmt.Sprintf("%+v", s))

	runEnd := time.Now().Add(s.duration)
	runCtx, stopRun := context.WithDeadline(ctx, runEnd)
	defer stopRun()
	// The followers go on after the run, until they are judged.
	followCtx, stopFollowers := context.WithCancel(ctx)
	defer stopFollowers()
	var wg sync.WaitGroup
	var n counters

	// The simulated update, one after another.
	simCtx, stopSim := context.WithCancel(ctx)
	defer stopSim()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for simCtx.Err() == nil {
			if err := sim.Run(simCtx); err != nil {
				return
			}
			next := sim.Options().ToVersion
			i := strings.LastIndexByte(next, '.')
			patch, _ := strconv.Atoi(next[i+1:])
			if err := sim.StartNextUpdate(simCtx, next[:i+1]+strconv.Itoa(patch+1)); err != nil {
				klog.ErrorS(err, "Cannot start the next update")
				return
			}
		}
	}()

	// The followers: the UpdateStatus, then per-pool nodeprogressinsights
	// and healthinsights in turn; every second one protobuf; a share of
	// the others client-go informers (WatchList).
	pools := []string{"master", "worker"}
	var followers []*follower
	var client, pbClient versioned.Interface
	newClients := func() {
		c := ownTransport(viewer)
		client, err = versioned.NewForConfig(c)
		if err != nil {
			t.Fatal(err)
		}
		pb := rest.CopyConfig(c)
		pb.ContentType, pb.AcceptContentTypes = runtime.ContentTypeProtobuf, runtime.ContentTypeProtobuf
		if pbClient, err = versioned.NewForConfig(pb); err != nil {
			t.Fatal(err)
		}
	}
	var factories []informers.SharedInformerFactory
	for i := range s.watchers {
		if i%100 == 0 {
			newClients()
		}
		f := &follower{kind: "us", protobuf: i%2 == 1, objs: map[string]string{}, until: runEnd}
		switch {
		case i < s.usWatchers:
		case (i-s.usWatchers)%3 == 2:
			f.kind = "hi"
		default:
			f.kind = "npi"
			f.selector = v1alpha1.LabelPool + "=" + pools[i%len(pools)]
		}
		c := client
		if f.protobuf {
			c = pbClient
		}
		if i >= s.usWatchers && (i-s.usWatchers)%100 < s.informers {
			sel := f.selector
			factory := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel }))
			if f.kind == "hi" {
				f.informer = factory.Update().V1alpha1().HealthInsights().Informer()
			} else {
				f.informer = factory.Update().V1alpha1().NodeProgressInsights().Informer()
			}
			_ = f.informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
				switch {
				case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
					n.resyncs.Add(1)
				case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || streamEnd(err):
					n.reconnects.Add(1)
				default:
					n.fail("informer "+f.kind, err)
				}
			})
			factory.Start(followCtx.Done())
			factories = append(factories, factory)
		} else {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f.run(followCtx, c, &n)
			}()
		}
		followers = append(followers, f)
	}

	// GETs at getRate per second and a LIST of each resource every
	// listEvery, paced by elapsed time.
	getConfig := ownTransport(viewer)
	getConfig.QPS, getConfig.Burst = -1, 0
	getClient, err := versioned.NewForConfig(getConfig)
	if err != nil {
		t.Fatal(err)
	}
	nodeNames := func() []string {
		_, objs, err := kinds["npi"].list(ctx, getClient, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return slices.Collect(maps.Keys(objs))
	}()
	var latMu sync.Mutex
	var latencies []time.Duration
	var gets atomic.Int64
	jobs := make(chan int, s.getRate)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				t0 := time.Now()
				var err error
				u := getClient.UpdateV1alpha1()
				if j%100 == 0 {
					_, err = u.UpdateStatuses().Get(runCtx, "cluster", metav1.GetOptions{})
				} else {
					_, err = u.NodeProgressInsights().Get(runCtx, nodeNames[rand.IntN(len(nodeNames))], metav1.GetOptions{})
				}
				if err != nil {
					if runCtx.Err() == nil {
						n.fail("get", err)
					}
					continue
				}
				gets.Add(1)
				latMu.Lock()
				latencies = append(latencies, time.Since(t0))
				latMu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		start, sent := time.Now(), 0
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		lists := time.NewTicker(s.listEvery)
		defer lists.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-lists.C:
				for _, k := range kinds {
					if _, _, err := k.list(runCtx, getClient, metav1.ListOptions{}); err != nil && runCtx.Err() == nil {
						n.fail("list "+k.name, err)
					}
				}
				for _, res := range []string{"clusterversionprogressinsights", "clusteroperatorprogressinsights", "machineconfigpoolprogressinsights"} {
					if err := getClient.UpdateV1alpha1().RESTClient().Get().Resource(res).Do(runCtx).Error(); err != nil && runCtx.Err() == nil {
						n.fail("list "+res, err)
					}
				}
			case <-tick.C:
			}
			for due := int(time.Since(start).Seconds() * float64(s.getRate)); sent < due; sent++ {
				select {
				case jobs <- sent:
				default: // every worker busy: the slot is skipped
				}
			}
		}
	}()

	// Chaos: a replica killed every killEvery (the one the aggregator's
	// connection goes to) and started again on its port; the kube-apiserver
	// restarted once, half-way.
	var kills, kasRestarts atomic.Int64
	failover := func() { n.failoverUntil.Store(time.Now().Add(15 * time.Second).UnixNano()) }
	wg.Add(1)
	go func() {
		defer wg.Done()
		killTick := time.NewTicker(s.killEvery)
		defer killTick.Stop()
		kas := time.After(s.duration / 2)
		for {
			select {
			case <-runCtx.Done():
				return
			case <-kas:
				failover()
				n.authzUntil.Store(time.Now().Add(time.Minute).UnixNano())
				if err := cp.KubeAPIServer.Restart(runCtx, 2*time.Second); err != nil {
					n.fail("kube-apiserver restart", err)
					continue
				}
				kasRestarts.Add(1)
				failover()
				n.authzUntil.Store(time.Now().Add(15 * time.Second).UnixNano())
			case <-killTick.C:
				active := lb.Active()
				r := slices.MaxFunc(replicas, func(a, b *replica) int {
					return active[net.JoinHostPort("127.0.0.1", strconv.Itoa(a.port))] - active[net.JoinHostPort("127.0.0.1", strconv.Itoa(b.port))]
				})
				failover()
				r.mu.Lock()
				r.in.Process.Kill()
				r.mu.Unlock()
				kills.Add(1)
				klog.InfoS("Killed a replica", "replica", r.name, "connections", active)
				in, err := cp.StartInstance(runCtx, localstack.InstanceOptions{Name: r.name + "-" + strconv.Itoa(int(kills.Load())), Port: r.port})
				if err != nil {
					if runCtx.Err() == nil {
						n.fail("restart "+r.name, err)
					}
					continue
				}
				r.mu.Lock()
				r.in = in
				r.mu.Unlock()
			}
		}
	}()

	// Resident memory of the replicas, sampled.
	maxRSS := 0
	sample := time.NewTicker(5 * time.Second)
loop:
	for {
		select {
		case <-runCtx.Done():
			break loop
		case <-sample.C:
			for _, r := range replicas {
				rss := rssKiB(r.pid())
				if s.profiles != "" && rss > max(maxRSS*5/4, 256<<10) {
					go saveHeapProfile(ctx, cp, r, s.profiles, rss)
				}
				maxRSS = max(maxRSS, rss)
			}
		}
	}
	sample.Stop()
	stopSim()

	// The end: with the cluster at rest, every follower's cache must come
	// to hold what a fresh LIST returns.
	judge, err := versioned.NewForConfig(ownTransport(admin))
	if err != nil {
		t.Fatal(err)
	}
	lost := len(followers)
	_ = wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(context.Context) (bool, error) {
		fresh := map[string]map[string]string{}
		lost = 0
		for _, f := range followers {
			key := f.kind + "/" + f.selector
			if fresh[key] == nil {
				_, objs, err := kinds[f.kind].list(ctx, judge, metav1.ListOptions{LabelSelector: f.selector})
				if err != nil {
					return false, nil
				}
				fresh[key] = objs
			}
			if !maps.Equal(f.cache(), fresh[key]) {
				lost++
			}
		}
		return lost == 0, nil
	})
	stopFollowers()
	for _, f := range factories {
		f.Shutdown()
	}
	wg.Wait()

	// What Prometheus saw of the replicas all through the run.
	window := strconv.Itoa(int(time.Since(begin).Seconds())) + "s"
	scrapes, err := prom.Query(ctx, "sum(count_over_time(up{job=\""+monitoring.DefaultJob+"\"}["+window+"]))")
	if err != nil {
		t.Errorf("Prometheus: %v", err)
	}
	promRSS, err := prom.Query(ctx, "max(max_over_time(process_resident_memory_bytes{job=\""+monitoring.DefaultJob+"\"}["+window+"]))")
	if err != nil {
		t.Errorf("Prometheus: %v", err)
	}
	// The peak is the larger of the two samplings.
	maxRSS = max(maxRSS, int(promRSS)>>10)

	// The UpdateStatus changes with every node the simulator moves, so the
	// longest time a watcher of it went without a new state is how long a
	// client was behind: a failover's, a restart's or a slow stream's.
	var usMaxGap time.Duration
	for _, f := range followers {
		if f.kind == "us" {
			f.mu.Lock()
			usMaxGap = max(usMaxGap, f.maxGap)
			f.mu.Unlock()
		}
	}

	slices.Sort(latencies)
	p99 := time.Duration(0)
	if len(latencies) > 0 {
		p99 = latencies[(len(latencies)-1)*99/100]
	}
	count := func(pred func(*follower) bool) int {
		c := 0
		for _, f := range followers {
			if pred(f) {
				c++
			}
		}
		return c
	}
	fields := []string{
		"duration=" + s.duration.String(),
		"nodes=" + strconv.Itoa(s.nodes),
		"watchers_us=" + strconv.Itoa(count(func(f *follower) bool { return f.kind == "us" })),
		"watchers_npi=" + strconv.Itoa(count(func(f *follower) bool { return f.kind == "npi" })),
		"watchers_hi=" + strconv.Itoa(count(func(f *follower) bool { return f.kind == "hi" })),
		"protobuf=" + strconv.Itoa(count(func(f *follower) bool { return f.protobuf })),
		"watchlist=" + strconv.Itoa(len(factories)),
		fmt.Sprintf("gets_per_s=%.1f", float64(gets.Load())/s.duration.Seconds()),
		"replica_kills=" + strconv.FormatInt(kills.Load(), 10),
		"kas_restarts=" + strconv.FormatInt(kasRestarts.Load(), 10),
		"errors=" + strconv.FormatInt(n.errors.Load(), 10),
		"failover_errors=" + strconv.FormatInt(n.failoverErrors.Load(), 10),
		"lost=" + strconv.Itoa(lost),
		"reconnects=" + strconv.FormatInt(n.reconnects.Load(), 10),
		"resyncs=" + strconv.FormatInt(n.resyncs.Load(), 10),
		"events=" + strconv.FormatInt(n.events.Load(), 10),
		"p99_ms=" + strconv.FormatInt(p99.Milliseconds(), 10),
		"us_max_gap_ms=" + strconv.FormatInt(usMaxGap.Milliseconds(), 10),
		"rss_max_mib=" + strconv.Itoa(maxRSS/1024),
		"prom_scrapes=" + strconv.Itoa(int(scrapes)),
		"prom_rss_max_mib=" + strconv.Itoa(int(promRSS)>>20),
	}
	pass := n.errors.Load() == 0 && lost == 0 && kills.Load() >= 2 && maxRSS/1024 <= 1024
	result := map[bool]string{true: "PASS", false: "FAIL"}[pass]
	for _, e := range n.firstErrors {
		fmt.Printf("error: %s\n", e)
	}
	fmt.Printf("SOAK %s result=%s\n", strings.Join(fields, " "), result)
	if !pass {
		t.Errorf("soak %s", result)
	}
}

// scrapeReplicas starts a Prometheus that scrapes the replicas' /metrics
// every 5 s, as the ServiceMonitor of artifacts/deploy does in a cluster,
// with the local stack's rules.
func scrapeReplicas(ctx context.Context, cp *localstack.ControlPlane, backends []string) (*localstack.Prometheus, error) {
	dir := filepath.Join(cp.Dir, "soak-prometheus")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(cp.Users.Admin.Token), 0o600); err != nil {
		return nil, err
	}
	return localstack.StartPrometheus(ctx, dir, localstack.PrometheusOptions{
		Interval: 5 * time.Second,
		Server:   &localstack.ScrapedServer{Addresses: backends, CAFile: cp.PKI.CACert, TokenFile: token},
	})
}

// saveHeapProfile writes r's heap profile (its /debug/pprof/heap, as the
// admin) to dir, named after the replica and the RSS that triggered it.
func saveHeapProfile(ctx context.Context, cp *localstack.ControlPlane, r *replica, dir string, rssKiB int) {
	r.mu.Lock()
	url := r.in.URL
	r.mu.Unlock()
	c, err := versioned.NewForConfig(cp.DirectConfig(url, &cp.Users.Admin))
	if err != nil {
		klog.ErrorS(err, "Cannot profile", "replica", r.name)
		return
	}
	body, err := c.UpdateV1alpha1().RESTClient().Get().AbsPath("/debug/pprof/heap").DoRaw(ctx)
	if err != nil {
		klog.ErrorS(err, "Cannot profile", "replica", r.name)
		return
	}
	name := filepath.Join(dir, fmt.Sprintf("heap-%s-%dMiB-%s.pprof", r.name, rssKiB>>10, time.Now().Format("150405")))
	if err := os.WriteFile(name, body, 0o644); err != nil {
		klog.ErrorS(err, "Cannot save the profile", "replica", r.name)
		return
	}
	klog.InfoS("Heap profile", "replica", r.name, "rssMiB", rssKiB>>10, "file", name)
}

// portOf is the port of an https://127.0.0.1:<port> URL.
func portOf(url string) int {
	_, port, _ := net.SplitHostPort(localstack.HostPort(url))
	p, _ := strconv.Atoi(port)
	return p
}

// rssKiB reads VmRSS of pid from /proc; 0 when it cannot.
func rssKiB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return 0
}

// ownTransport gives cfg a dialer of its own, so that client-go does not
// put every follower on one HTTP/2 connection (the kube-apiserver allows
// 250 streams on one).
func ownTransport(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	d := &net.Dialer{Timeout: 10 * time.Second}
	c.Dial = d.DialContext
	return c
}
