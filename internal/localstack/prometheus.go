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

package localstack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/pkg/monitoring"
)

// EnvPrometheus optionally names the prometheus binary
// (`PROMETHEUS=$(hack/ensure-prometheus.sh)`); without it prometheus is
// looked up on PATH.
const EnvPrometheus = "PROMETHEUS"

// RulesFile is the alerting rules of the local Prometheus, relative to the
// repository root.
const RulesFile = "artifacts/local/prometheus/rules.yaml"

// ScrapeJob is the job label of the scraped targets: the simulator plays
// kube-state-metrics, whose job OpenShift's rules select.
const ScrapeJob = "kube-state-metrics"

// PrometheusBinary returns $PROMETHEUS, or prometheus from PATH, or an error
// saying how to get it.
func PrometheusBinary() (string, error) {
	return ToolBinary(EnvPrometheus, "prometheus")
}

// PrometheusOptions configure a local Prometheus.
type PrometheusOptions struct {
	// Targets are the host:port addresses scraped at /metrics, as job
	// ScrapeJob (for example a simulator's MetricsHandler on loopback).
	Targets []string
	// RulesFile is the alerting rules file; RulesFile under the repository
	// root when empty.
	RulesFile string
	// Interval is the scrape and rule evaluation interval; 1s when zero.
	Interval time.Duration
	// MoreRules are further rules files, for example the update-status
	// rules of LocalUpdateRules.
	MoreRules []string
	// Server, when set, is an update-status-apiserver scraped as job
	// monitoring.DefaultJob, the job its alerting rules select.
	Server *ScrapedServer
}

// ScrapedServer is an update-status-apiserver's /metrics, scraped over TLS
// with a bearer token.
type ScrapedServer struct {
	// Addresses are the host:port of each replica, one job.
	Addresses []string
	// CAFile verifies the server's certificate.
	CAFile string
	// TokenFile holds the token of a user allowed to get /metrics.
	TokenFile string
}

// Prometheus is a prometheus process on loopback, its configuration and
// storage in Dir.
type Prometheus struct {
	// URL is http://127.0.0.1:<port>.
	URL     string
	Dir     string
	Process *Process

	bin  string
	args []string
}

// StartPrometheus writes a configuration to dir/prometheus.yml, starts
// prometheus on a free loopback port with its storage in dir/data, and waits
// up to a minute for /-/ready. The caller stops it (Stop).
func StartPrometheus(ctx context.Context, dir string, opts PrometheusOptions) (*Prometheus, error) {
	bin, err := PrometheusBinary()
	if err != nil {
		return nil, err
	}
	rules := opts.RulesFile
	if rules == "" {
		root, err := RepoRoot()
		if err != nil {
			return nil, err
		}
		rules = filepath.Join(root, RulesFile)
	}
	if rules, err = filepath.Abs(rules); err != nil {
		return nil, err
	}
	ruleFiles := []string{rules}
	for _, f := range opts.MoreRules {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		ruleFiles = append(ruleFiles, abs)
	}
	for _, f := range ruleFiles {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("alerting rules: %w", err)
		}
	}
	interval := opts.Interval
	if interval <= 0 {
		interval = time.Second
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
		return nil, err
	}
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte(prometheusConfig(interval, ruleFiles, opts.Targets, opts.Server)), 0o600); err != nil {
		return nil, err
	}
	ports, err := FreePorts(1)
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(ports[0])
	p := &Prometheus{
		URL: "http://" + addr,
		Dir: dir,
		bin: bin,
		args: []string{
			"--config.file=" + config,
			"--storage.tsdb.path=" + filepath.Join(dir, "data"),
			"--storage.tsdb.retention.time=1d",
			"--web.listen-address=" + addr,
			"--log.level=info",
		},
	}
	if err := p.start(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// prometheusConfig is the configuration file: the targets in one job, the
// server in another, the rules, nothing else (no Alertmanager: the API's
// /api/v1/alerts is what the server reads).
func prometheusConfig(interval time.Duration, rules, targets []string, server *ScrapedServer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "global:\n  scrape_interval: %s\n  scrape_timeout: %s\n  evaluation_interval: %s\n", interval, interval, interval)
	b.WriteString("rule_files:\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "  - %q\n", r)
	}
	fmt.Fprintf(&b, "scrape_configs:\n  - job_name: %s\n    static_configs:\n      - targets: [%s]\n", ScrapeJob, quotedList(targets))
	if server != nil {
		fmt.Fprintf(&b, "  - job_name: %s\n    scheme: https\n", monitoring.DefaultJob)
		fmt.Fprintf(&b, "    authorization:\n      credentials_file: %q\n", server.TokenFile)
		fmt.Fprintf(&b, "    tls_config:\n      ca_file: %q\n", server.CAFile)
		fmt.Fprintf(&b, "    static_configs:\n      - targets: [%s]\n", quotedList(server.Addresses))
	}
	return b.String()
}

// quotedList is a YAML flow sequence's items: "a", "b".
func quotedList(items []string) string {
	q := make([]string, len(items))
	for i, it := range items {
		q[i] = strconv.Quote(it)
	}
	return strings.Join(q, ", ")
}

func (p *Prometheus) start(ctx context.Context) error {
	proc, err := StartProcess("prometheus", filepath.Join(p.Dir, "prometheus.log"), p.bin, p.args...)
	if err != nil {
		return err
	}
	p.Process = proc
	err = pollUntil(ctx, time.Minute, proc, func() (bool, error) {
		resp, err := http.Get(p.URL + "/-/ready") //nolint:noctx // bounded by pollUntil's timeout and the client's defaults
		if err != nil {
			return false, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		exited, _ := proc.Exited()
		proc.Stop(5 * time.Second)
		if exited {
			return fmt.Errorf("prometheus /-/ready: %w", err) // err carries the log
		}
		return fmt.Errorf("prometheus /-/ready: %w; last lines of %s:\n%s", err, proc.LogPath, proc.LogTail(30))
	}
	klog.InfoS("Prometheus is ready", "url", p.URL, "dir", p.Dir)
	return nil
}

// AlertsURL is the Prometheus API's list of alerts, what the server's
// --alerts-url takes.
func (p *Prometheus) AlertsURL() string { return p.URL + "/api/v1/alerts" }

// Stop stops prometheus. It is safe to call more than once, and on a nil
// Prometheus.
func (p *Prometheus) Stop() {
	if p != nil && p.Process != nil {
		p.Process.Stop(10 * time.Second)
	}
}

// Running reports whether the prometheus process is running.
func (p *Prometheus) Running() bool {
	if p == nil || p.Process == nil {
		return false
	}
	exited, _ := p.Process.Exited()
	return !exited
}

// Restart stops prometheus if it runs and starts it again on the same port
// with the same configuration and storage (alert states that had fired are
// restored from it, as after any Prometheus restart).
func (p *Prometheus) Restart(ctx context.Context) error {
	p.Stop()
	return p.start(ctx)
}

// Alert is one entry of Prometheus's /api/v1/alerts.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	// State is "pending" or "firing".
	State    string    `json:"state"`
	ActiveAt time.Time `json:"activeAt"`
	Value    string    `json:"value"`
}

// Alerts returns the alerts Prometheus reports now, pending and firing.
func (p *Prometheus) Alerts(ctx context.Context) ([]Alert, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.AlertsURL(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", p.AlertsURL(), resp.Status)
	}
	var body struct {
		Status string `json:"status"`
		Data   struct {
			Alerts []Alert `json:"alerts"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", p.AlertsURL(), err)
	}
	if body.Status != "success" {
		return nil, fmt.Errorf("GET %s: status %q", p.AlertsURL(), body.Status)
	}
	return body.Data.Alerts, nil
}

// Query evaluates the PromQL expression expr now and returns the value of
// the first sample of its result; an error when the result is empty.
func (p *Prometheus) Query(ctx context.Context, expr string) (float64, error) {
	u := p.URL + "/api/v1/query?query=" + url.QueryEscape(expr)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				// Value is [time, "value"].
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, fmt.Errorf("query %q: %s: %w", expr, resp.Status, err)
	}
	if body.Status != "success" {
		return 0, fmt.Errorf("query %q: %s: %s", expr, resp.Status, body.Error)
	}
	if len(body.Data.Result) == 0 {
		return 0, fmt.Errorf("query %q: no sample", expr)
	}
	v, _ := body.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(v, 64)
}

// FindAlert returns the first alert named name whose labels include labels.
func FindAlert(alerts []Alert, name string, labels map[string]string) *Alert {
	for i := range alerts {
		a := &alerts[i]
		if a.Labels["alertname"] != name {
			continue
		}
		match := true
		for k, v := range labels {
			if a.Labels[k] != v {
				match = false
				break
			}
		}
		if match {
			return a
		}
	}
	return nil
}
