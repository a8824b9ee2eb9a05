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

// Package soak runs update-status-apiserver under load on the local stack:
// many watchers, a steady rate of GETs, a cluster that keeps changing and one
// deliberately slow watcher. `make soak` runs it; SOAK_DURATION,
// SOAK_WATCHERS and SOAK_GET_RATE tune it. The figures are printed at the end
// for docs/reliability.md.
package soak

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/test/examplecluster"
)

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

// rssKiB reads VmRSS of pid from /proc.
func rssKiB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
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
	return -1
}

// ownTransport gives cfg a dialer of its own, so that client-go does not
// share one HTTP/2 connection (250 streams at most) between all watchers.
func ownTransport(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	d := &net.Dialer{Timeout: 10 * time.Second}
	c.Dial = d.DialContext
	return c
}

func TestSoak(t *testing.T) {
	duration := envDuration("SOAK_DURATION", 5*time.Minute)
	watchers := envInt("SOAK_WATCHERS", 1000)
	getRate := envInt("SOAK_GET_RATE", 200)
	getWorkers := envInt("SOAK_GET_WORKERS", 64)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	cp, err := localstack.Start(ctx, localstack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	cluster, err := examplecluster.New(cp)
	if err != nil {
		t.Fatal(err)
	}
	if err := cluster.Create(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cp.StartServer(ctx); err != nil {
		t.Fatal(err)
	}
	pid := cp.Server.Pid()
	admin := cp.DirectConfig(cp.ServerURL, &cp.Users.Admin)
	adminHTTP, err := rest.HTTPClientFor(admin)
	if err != nil {
		t.Fatal(err)
	}
	srv := server{hc: adminHTTP, url: cp.ServerURL}
	klog.InfoS("Soak starting", "duration", duration, "watchers", watchers, "getRate", getRate, "server", cp.ServerURL)

	var (
		watchEvents, watchReconnects, watchErrors atomic.Int64
		getOK, getErrors, getDropped              atomic.Int64
		latMu                                     sync.Mutex
		latencies                                 []time.Duration
		firstErrs                                 []string
	)
	noteErr := func(s string) {
		latMu.Lock()
		if len(firstErrs) < 10 {
			firstErrs = append(firstErrs, s)
		}
		latMu.Unlock()
	}
	runCtx, stop := context.WithTimeout(ctx, duration)
	defer stop()
	var wg sync.WaitGroup

	// Watchers, 100 per connection.
	var client versioned.Interface
	for i := range watchers {
		if i%100 == 0 {
			if client, err = versioned.NewForConfig(ownTransport(admin)); err != nil {
				t.Fatal(err)
			}
		}
		c := client
		wg.Add(1)
		go func() {
			defer wg.Done()
			rv := ""
			for runCtx.Err() == nil {
				w, err := c.UpdateV1alpha1().UpdateStatuses().Watch(runCtx, metav1.ListOptions{ResourceVersion: rv})
				if err != nil {
					if runCtx.Err() == nil {
						watchErrors.Add(1)
						noteErr("watch: " + err.Error())
						time.Sleep(time.Second) // simulates time passing: a client's pause before it watches again
					}
					continue
				}
				for ev := range w.ResultChan() {
					if ev.Type == watch.Error {
						watchErrors.Add(1)
						noteErr(fmt.Sprintf("watch event error: %v", ev.Object))
						rv = ""
						break
					}
					if m, err := metaRV(ev.Object); err == nil {
						rv = m
					}
					watchEvents.Add(1)
				}
				w.Stop()
				if runCtx.Err() == nil {
					watchReconnects.Add(1)
				}
			}
		}()
	}

	// The slow watcher: opens a watch straight to the server over HTTP/2 with
	// a 16 KiB receive window and never reads it, so the server's writes to
	// it block at once. The server must close it (--watch-stall-timeout,
	// default 30 s) while everyone else is served.
	slowClosed := make(chan time.Duration, 1)
	go func() {
		tlsConfig, err := rest.TLSConfigFor(admin)
		if err != nil {
			noteErr("slow watcher: " + err.Error())
			return
		}
		hc := &http.Client{Transport: &http.Transport{
			TLSClientConfig:   tlsConfig,
			ForceAttemptHTTP2: true,
			HTTP2:             &http.HTTP2Config{MaxReceiveBufferPerStream: 16 << 10, MaxReceiveBufferPerConnection: 16 << 10},
		}}
		req, _ := http.NewRequestWithContext(runCtx, http.MethodGet, admin.Host+"/apis/update.openshift.io/v1alpha1/updatestatuses?watch=true", nil)
		req.Header.Set("Authorization", "Bearer "+admin.BearerToken)
		resp, err := hc.Do(req)
		if err != nil {
			noteErr("slow watcher: " + err.Error())
			return
		}
		defer func() { _ = resp.Body.Close() }()
		begin := time.Now()
		// Not reading is the point. Once the server reports a stalled
		// watcher closed, drain: the stream must end with an error.
		for runCtx.Err() == nil && srv.stalledClosed(runCtx) == 0 {
			select {
			case <-runCtx.Done():
			case <-time.After(time.Second):
			}
		}
		if runCtx.Err() != nil {
			return
		}
		if _, err := io.Copy(io.Discard, resp.Body); err == nil {
			noteErr("slow watcher: the stream ended cleanly, want a reset")
			return
		}
		slowClosed <- time.Since(begin)
	}()

	// GETs at getRate per second, from getWorkers workers.
	// The ticker sets the pace: no client-side rate limiter on top.
	getConfig := ownTransport(admin)
	getConfig.QPS, getConfig.Burst = -1, 0
	getClient, err := versioned.NewForConfig(getConfig)
	if err != nil {
		t.Fatal(err)
	}
	tick := time.NewTicker(time.Second / time.Duration(getRate))
	jobs := make(chan struct{}, getRate)
	for range getWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				begin := time.Now()
				_, err := getClient.UpdateV1alpha1().UpdateStatuses().Get(runCtx, "cluster", metav1.GetOptions{})
				d := time.Since(begin)
				if err != nil {
					if runCtx.Err() == nil {
						getErrors.Add(1)
						noteErr("get: " + err.Error())
					}
					continue
				}
				getOK.Add(1)
				latMu.Lock()
				latencies = append(latencies, d)
				latMu.Unlock()
			}
		}()
	}
	go func() {
		defer close(jobs)
		defer tick.Stop()
		// A ticker drops ticks when its reader is late, so each tick
		// dispatches every GET due by now: the rate holds on average.
		start, sent := time.Now(), 0
		for {
			select {
			case <-runCtx.Done():
				return
			case <-tick.C:
			}
			due := int(time.Since(start).Seconds() * float64(getRate))
			for ; sent < due; sent++ {
				select {
				case jobs <- struct{}{}:
				default: // every worker busy: a slot the harness could not send
					getDropped.Add(1)
				}
			}
		}
	}()

	// A changing cluster: the update advances, and the dns operator flips
	// between degraded and healthy.
	changes := 0
	go func() {
		flip := false
		for runCtx.Err() == nil {
			time.Sleep(time.Second) // simulates time passing: the cluster changes once a second
			flip = !flip
			status, reason := configv1.ConditionFalse, "AsExpected"
			if flip {
				status, reason = configv1.ConditionTrue, "SoakDegraded"
			}
			_ = examplecluster.Mutate(runCtx, cluster.Dynamic, examplecluster.ClusterOperators, "dns", true, func(co *configv1.ClusterOperator) bool {
				for i := range co.Status.Conditions {
					if c := &co.Status.Conditions[i]; c.Type == configv1.OperatorDegraded {
						c.Status, c.Reason, c.Message = status, reason, "soak change "+strconv.Itoa(changes)
						c.LastTransitionTime = metav1.NewTime(time.Now().Add(-10 * time.Minute))
					}
				}
				return true
			})
			if changes%5 == 0 {
				if p, err := cluster.Step(runCtx); err == nil && p.Done {
					cv, _ := examplecluster.Get[configv1.ClusterVersion](runCtx, cluster.Dynamic, examplecluster.ClusterVersions, "version")
					if next, err := examplecluster.NextVersion(cv.Status.Desired.Version); cv != nil && err == nil {
						_ = cluster.StartUpdate(runCtx, next)
					}
				}
			}
			changes++
		}
	}()

	// RSS samples, and the Go heap after a forced GC one minute in (the
	// watchers connected, the caches warm) and at the end.
	heapMinute := make(chan float64, 1)
	go func() {
		select {
		case <-runCtx.Done():
			heapMinute <- -1
		case <-time.After(min(time.Minute, duration/2)):
			heapMinute <- srv.heapAfterGC(runCtx)
		}
	}()
	var rss []string
	maxRSS := 0
	sample := time.NewTicker(15 * time.Second)
	begin := time.Now()
	rss = append(rss, fmt.Sprintf("%s=%dKiB", "0s", rssKiB(pid)))
loop:
	for {
		select {
		case <-runCtx.Done():
			break loop
		case <-sample.C:
			r := rssKiB(pid)
			maxRSS = max(maxRSS, r)
			rss = append(rss, fmt.Sprintf("%v=%dKiB", time.Since(begin).Round(time.Second), r))
		}
	}
	sample.Stop()
	heapAtEnd := srv.heapAfterGC(ctx)
	var memBreakdown []string
	if page, err := srv.metrics(ctx); err == nil {
		for _, m := range []string{"go_memstats_heap_sys_bytes", "go_memstats_heap_idle_bytes", "go_memstats_heap_released_bytes", "go_memstats_stack_inuse_bytes", "go_goroutines"} {
			memBreakdown = append(memBreakdown, fmt.Sprintf("%s=%.0f", strings.TrimPrefix(m, "go_memstats_"), metricValue(page, m)))
		}
	}
	heapAtMinute := <-heapMinute
	wg.Wait()

	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[int(float64(len(latencies)-1)*p)]
	}
	slow := "not closed by the server during the run"
	select {
	case d := <-slowClosed:
		slow = fmt.Sprintf("closed by the server within %v", d.Round(time.Second))
		slowClosed <- d
	default:
	}
	exited, _ := cp.Server.Exited()
	fmt.Printf("SOAK RESULT duration=%v watchers=%d getRate=%d/s\n", duration, watchers, getRate)
	fmt.Printf("  GETs ok=%d (%.1f/s) errors=%d slots dropped (workers busy)=%d p50=%v p99=%v max=%v\n",
		getOK.Load(), float64(getOK.Load())/duration.Seconds(), getErrors.Load(), getDropped.Load(), pct(0.5), pct(0.99), pct(1))
	fmt.Printf("  watch events=%d reconnects=%d errors=%d\n", watchEvents.Load(), watchReconnects.Load(), watchErrors.Load())
	fmt.Printf("  source changes=%d slow watcher: %s\n", changes, slow)
	fmt.Printf("  server RSS: %s (max %d KiB), server exited=%v\n", strings.Join(rss, " "), maxRSS, exited)
	fmt.Printf("  server Go heap in use after GC: %.1f MiB at 1 min, %.1f MiB at the end; at the end %s\n", heapAtMinute/(1<<20), heapAtEnd/(1<<20), strings.Join(memBreakdown, " "))
	for _, e := range firstErrs {
		fmt.Printf("  error: %s\n", e)
	}
	if b, err := os.ReadFile(cp.Server.LogPath); err == nil && strings.Contains(strings.ToLower(string(b)), "panic") {
		t.Errorf("the server log mentions a panic")
	}
	if exited {
		t.Errorf("the server exited during the soak")
	}
	if heapAtMinute > 0 && heapAtEnd > 2*heapAtMinute+32<<20 {
		t.Errorf("the server heap grew from %.1f MiB to %.1f MiB", heapAtMinute/(1<<20), heapAtEnd/(1<<20))
	}
	select {
	case <-slowClosed:
	default:
		t.Errorf("the slow watcher was not closed")
	}
	if got, want := float64(getOK.Load()), 0.95*float64(getRate)*duration.Seconds(); got < want {
		t.Errorf("%.0f GETs answered, want at least 95%% of %d/s (%.0f)", got, getRate, want)
	}
	if getErrors.Load() > 0 || watchErrors.Load() > 0 {
		t.Errorf("errors during the soak: %d GET, %d watch", getErrors.Load(), watchErrors.Load())
	}
}

func metaRV(obj any) (string, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return "", fmt.Errorf("%T has no metadata", obj)
	}
	return m.GetResourceVersion(), nil
}

// server reads the server's diagnostics as cluster-admin.
type server struct {
	hc  *http.Client
	url string
}

// metrics returns the server's /metrics page.
func (s server) metrics(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// metricValue returns the unlabelled sample name of a /metrics page, or -1.
func metricValue(page, name string) float64 {
	for _, line := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				return f
			}
		}
	}
	return -1
}

// stalledClosed returns how many watch streams the server closed for
// stalling.
func (s server) stalledClosed(ctx context.Context) float64 {
	page, err := s.metrics(ctx)
	if err != nil {
		return 0
	}
	return max(metricValue(page, "update_status_stalled_watchers_closed_total"), 0)
}

// heapAfterGC forces two garbage collections in the server (through its
// pprof endpoint) and returns its Go heap in use, or -1.
func (s server) heapAfterGC(ctx context.Context) float64 {
	for range 2 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/debug/pprof/heap?gc=1", nil)
		if err != nil {
			return -1
		}
		resp, err := s.hc.Do(req)
		if err != nil {
			return -1
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	page, err := s.metrics(ctx)
	if err != nil {
		return -1
	}
	return metricValue(page, "go_memstats_heap_inuse_bytes")
}
