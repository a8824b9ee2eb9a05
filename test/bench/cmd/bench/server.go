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

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/update-status/apiserver/internal/localstack"
)

// httpClient talks to the kube-apiserver or the server with a bearer token,
// over HTTP/2 like client-go. Bodies are read but not decoded, so that the
// client costs as little as possible.
type httpClient struct {
	c      *http.Client
	token  string
	accept string
}

// Media types a client asks for.
const (
	acceptJSON     = "application/json"
	acceptProtobuf = "application/vnd.kubernetes.protobuf"
)

// as returns a client on the same connections that asks for accept.
func (h *httpClient) as(accept string) *httpClient {
	c := *h
	c.accept = accept
	return &c
}

func newHTTPClient(caPEM []byte, token string) *httpClient {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 128,
	}
	return &httpClient{c: &http.Client{Transport: tr}, token: token, accept: acceptJSON}
}

func (h *httpClient) do(ctx context.Context, rawURL string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("Accept", h.accept)
	return h.c.Do(req)
}

// get returns the body of a GET, or an error for any status but 200.
func (h *httpClient) get(ctx context.Context, rawURL string) ([]byte, error) {
	return localstack.OKBody(h.do(ctx, rawURL))
}

// discard sends a GET and reads the body into io.Discard (no buffer that
// grows with the body: the load generator's own garbage collection must not
// weigh on what it measures); any status but 200 is an error.
func (h *httpClient) discard(ctx context.Context, rawURL string) error {
	resp, err := h.do(ctx, rawURL)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", rawURL, resp.Status)
	}
	return nil
}

// window waits d, a measurement window (not a poll), or until ctx ends
// and returns its error.
func window(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// startServer starts update-status-apiserver on the control plane's server
// port with the control plane's server flags (and extra), and returns the process and
// the time from its start to the first 200 from /readyz.
func startServer(ctx context.Context, cp *localstack.ControlPlane, bin string, h *httpClient, extra ...string) (*localstack.Process, time.Duration, error) {
	args := append(cp.ServerFlags(), extra...)
	logPath := filepath.Join(cp.Dir, fmt.Sprintf("update-status-apiserver-%d.log", time.Now().UnixNano()))
	begin := time.Now()
	p, err := localstack.StartProcess("update-status-apiserver", logPath, bin, args...)
	if err != nil {
		return nil, 0, err
	}
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if exited, werr := p.Exited(); exited {
			return nil, 0, fmt.Errorf("server exited (%v):\n%s", werr, p.LogTail(30))
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, gerr := h.get(cctx, cp.ServerURL+"/readyz")
		cancel()
		if gerr == nil {
			return p, time.Since(begin), nil
		}
		select {
		case <-ctx.Done():
			p.Stop(5 * time.Second)
			return nil, 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	p.Stop(5 * time.Second)
	return nil, 0, fmt.Errorf("server not ready after 3m:\n%s", p.LogTail(30))
}

// cpuSeconds reads the user+system CPU time of pid from /proc/<pid>/stat.
func cpuSeconds(pid int) (float64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces; fields start after the last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	// After ')': state(0) ... utime(11) stime(12), in clock ticks (USER_HZ=100).
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return (ut + st) / 100, nil
}

// cpuSecondsOf reads the CPU time of each of pids (cpuSeconds).
func cpuSecondsOf(pids []int) ([]float64, error) {
	out := make([]float64, len(pids))
	for i, pid := range pids {
		var err error
		if out[i], err = cpuSeconds(pid); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// cpuSample is the CPU time of some processes (cpuSecondsOf) and of the
// machine (machineCPU) at one instant.
type cpuSample struct {
	procs       []float64
	busy, total float64
}

// sampleCPU reads the CPU time of pids and of the machine.
func sampleCPU(pids []int) (cpuSample, error) {
	procs, err := cpuSecondsOf(pids)
	if err != nil {
		return cpuSample{}, err
	}
	busy, total, err := machineCPU()
	return cpuSample{procs: procs, busy: busy, total: total}, err
}

// cpuThenMetrics reads the CPU time of pids, then, d later, the server's
// metrics.
func cpuThenMetrics(ctx context.Context, pids []int, d time.Duration, h *httpClient, serverURL string) ([]float64, map[string]float64, error) {
	cpu, err := cpuSecondsOf(pids)
	if err != nil {
		return nil, nil, err
	}
	if err := window(ctx, d); err != nil {
		return nil, nil, err
	}
	m, err := metrics(ctx, h, serverURL)
	return cpu, m, err
}

// machineCPU reads the busy and total CPU time of the machine, in clock
// ticks, from the first line of /proc/stat.
func machineCPU() (busy, total float64, err error) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("malformed /proc/stat")
	}
	for i, v := range f[1:] {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("malformed /proc/stat")
		}
		total += n
		if i != 3 && i != 4 { // idle and iowait
			busy += n
		}
	}
	return busy, total, nil
}

// rssBytes reads VmRSS of pid from /proc/<pid>/status.
func rssBytes(pid int) (float64, error) { return statusBytes(pid, "VmRSS:") }

// statusBytes reads a "<field> <n> kB" line of /proc/<pid>/status.
func statusBytes(pid int, field string) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), field); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// metrics fetches the server's /metrics and returns every sample, keyed by
// its series (name and labels, as exposed).
func metrics(ctx context.Context, h *httpClient, serverURL string) (map[string]float64, error) {
	body, err := h.get(ctx, serverURL+"/metrics")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for line := range strings.SplitSeq(string(body), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out, nil
}

// sumSeries adds the samples of metric name whose labels contain match.
func sumSeries(m map[string]float64, name, match string) float64 {
	sum := 0.0
	for k, v := range m {
		if labels, ok := strings.CutPrefix(k, name+"{"); ok && strings.Contains(labels, match) {
			sum += v
		}
	}
	return sum
}

// memory is the server's memory after a forced garbage collection.
type memory struct {
	// HeapInuse counts the heap's spans in use, HeapAlloc the live objects
	// in them: the difference is fragmentation.
	RSS, HeapInuse, HeapAlloc float64
}

// measureMemory forces two GCs through /debug/pprof/heap?gc=1 (the second
// frees what sync.Pools kept through the first, such as idle gzip writers)
// and reads the heap in use from /metrics and RSS from /proc.
func measureMemory(ctx context.Context, h *httpClient, serverURL string, pid int) (memory, error) {
	for range 2 {
		if _, err := h.get(ctx, serverURL+"/debug/pprof/heap?gc=1"); err != nil {
			return memory{}, fmt.Errorf("forcing a GC: %w", err)
		}
	}
	m, err := metrics(ctx, h, serverURL)
	if err != nil {
		return memory{}, err
	}
	rss, err := rssBytes(pid)
	if err != nil {
		return memory{}, err
	}
	return memory{RSS: rss, HeapInuse: m["go_memstats_heap_inuse_bytes"], HeapAlloc: m["go_memstats_heap_alloc_bytes"]}, nil
}

// saveProfile writes a pprof profile of the server to path.
func saveProfile(ctx context.Context, h *httpClient, serverURL, profile, path string) error {
	body, err := h.get(ctx, serverURL+"/debug/pprof/"+profile)
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}
