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

package sources

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	mcfgfake "github.com/openshift/client-go/machineconfiguration/clientset/versioned/fake"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/fixtures"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sourcefiles"
)

// alertJSON is one alert of a Prometheus answer.
func alertJSON(name, severity, state string, activeAt time.Time, annotations string) string {
	return fmt.Sprintf(`{"labels":{"alertname":%q,"severity":%q,"namespace":"openshift-monitoring"},"annotations":{%s},"state":%q,"activeAt":%q,"value":"1e+00"}`,
		name, severity, annotations, state, activeAt.UTC().Format(time.RFC3339Nano))
}

// answer is a Prometheus /api/v1/alerts answer listing alerts.
func answer(alerts ...string) string {
	return `{"status":"success","data":{"alerts":[` + strings.Join(alerts, ",") + `]}}`
}

// endpoint is an alerts endpoint on loopback whose answer tests change.
type endpoint struct {
	srv *httptest.Server
	mu  sync.Mutex
	// handle answers the next requests.
	handle http.HandlerFunc
	// auth lists the Authorization headers received.
	auth []string
}

func newEndpoint(t *testing.T, tls bool) *endpoint {
	e := &endpoint{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.auth = append(e.auth, r.Header.Get("Authorization"))
		handle := e.handle
		e.mu.Unlock()
		handle(w, r)
	})
	if tls {
		e.srv = httptest.NewTLSServer(h)
	} else {
		e.srv = httptest.NewServer(h)
	}
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) set(h http.HandlerFunc) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.handle = h
}

func (e *endpoint) url() string { return e.srv.URL + "/api/v1/alerts" }

func serve(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func testAlertsOptions(url string, clk *clocktesting.FakeClock) AlertsOptions {
	return AlertsOptions{URL: url, Interval: 30 * time.Second, Timeout: 5 * time.Second, MaxBytes: 1 << 20, Keep: 5 * time.Minute, Clock: clk}
}

func newTestAlerts(t *testing.T, opts AlertsOptions) *Alerts {
	t.Helper()
	a, err := NewAlerts(opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var activeAt = time.Date(2024, 6, 1, 10, 0, 0, 0, time.UTC)

func TestAlertsRead(t *testing.T) {
	two := answer(alertJSON("B", "warning", "firing", activeAt, `"summary":"b"`), alertJSON("A", "critical", "firing", activeAt, ""))
	big := answer(alertJSON("A", "warning", "firing", activeAt, `"description":"`+strings.Repeat("x", 2<<10)+`"`))
	for _, tc := range []struct {
		name     string
		handle   http.HandlerFunc
		opts     func(*AlertsOptions)
		want     int    // alerts, when wantWhy is ""
		wantWhy  string // the whole sentence, with URL standing for the endpoint
		wantPart string // a part of the sentence, instead
	}{
		{name: "success", handle: serve(200, two), want: 2},
		{name: "no alerts", handle: serve(200, answer()), want: 0},
		{name: "401", handle: serve(401, "Unauthorized"), wantWhy: "Alerts are unavailable: GET URL: 401 Unauthorized."},
		{name: "403", handle: serve(403, "Forbidden (user=system:serviceaccount:x:y, verb=get, resource=prometheuses, subresource=api)"), wantWhy: "Alerts are unavailable: GET URL: 403 Forbidden."},
		{name: "500", handle: serve(500, "oops"), wantWhy: "Alerts are unavailable: GET URL: 500 Internal Server Error."},
		{name: "malformed JSON", handle: serve(200, `{"status":"success","data":{"alerts":[{`), wantPart: "GET URL: malformed answer: unexpected end of JSON input."},
		{name: "HTML login page", handle: serve(200, `<html>`), wantWhy: "Alerts are unavailable: GET URL: malformed answer: not a JSON object."},
		{name: "Prometheus error", handle: serve(200, `{"status":"error","errorType":"timeout","error":"query timed out"}`), wantWhy: `Alerts are unavailable: GET URL: malformed answer: status "error": query timed out.`},
		{name: "too large, with a Content-Length", opts: func(o *AlertsOptions) { o.MaxBytes = 1 << 10 },
			handle: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", fmt.Sprint(len(big)))
				serve(200, big)(w, r)
			},
			wantPart: fmt.Sprintf("the answer is too large: %d bytes, more than the 1024 allowed.", len(big))},
		{name: "too large, chunked", opts: func(o *AlertsOptions) { o.MaxBytes = 1 << 10 },
			handle: func(w http.ResponseWriter, _ *http.Request) {
				for i := 0; i < 4; i++ {
					_, _ = w.Write([]byte(big[i*len(big)/4 : (i+1)*len(big)/4]))
					w.(http.Flusher).Flush()
				}
			},
			wantWhy: "Alerts are unavailable: GET URL: the answer is too large: more than the 1024 bytes allowed."},
		{name: "timeout", opts: func(o *AlertsOptions) { o.Timeout = 100 * time.Millisecond },
			handle: func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			wantWhy: "Alerts are unavailable: GET URL: no answer within 100ms."},
		{name: "timeout while reading the body", opts: func(o *AlertsOptions) { o.Timeout = 200 * time.Millisecond },
			handle: func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte(`{"status":"success",`))
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
			},
			wantWhy: "Alerts are unavailable: GET URL: no answer within 200ms."},
		{name: "token file missing", handle: serve(200, two), opts: func(o *AlertsOptions) { o.TokenFile = "/nonexistent/token" },
			wantPart: `GET URL: failed to read token file "/nonexistent/token": open /nonexistent/token`},
		{name: "CA file missing", handle: serve(200, two), opts: func(o *AlertsOptions) { o.CAFile = "/nonexistent/ca.crt" },
			wantPart: "the CA file /nonexistent/ca.crt: open /nonexistent/ca.crt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEndpoint(t, false)
			e.set(tc.handle)
			opts := testAlertsOptions(e.url(), clocktesting.NewFakeClock(activeAt))
			if tc.opts != nil {
				tc.opts(&opts)
			}
			a := newTestAlerts(t, opts)
			if alerts, why := a.State(); alerts != nil || why != "Alerts are not read yet." {
				t.Errorf("before the first read: %v %q", alerts, why)
			}
			ok, changed := a.poll(context.Background())
			alerts, why := a.State()
			if !changed {
				t.Error("the first read changes what a snapshot sees")
			}
			wantWhy := strings.ReplaceAll(tc.wantWhy, "URL", e.url())
			switch {
			case tc.wantPart != "":
				if ok || alerts != nil || !strings.HasPrefix(why, "Alerts are unavailable: ") || !strings.Contains(why, strings.ReplaceAll(tc.wantPart, "URL", e.url())) {
					t.Errorf("got ok=%v %d alerts, %q; want a failure with %q", ok, len(alerts), why, tc.wantPart)
				}
			case wantWhy != "":
				if ok || alerts != nil || why != wantWhy {
					t.Errorf("got ok=%v %d alerts,\n%q; want\n%q", ok, len(alerts), why, wantWhy)
				}
			default:
				if !ok || alerts == nil || len(alerts) != tc.want || why != "" {
					t.Errorf("got ok=%v %v %q; want %d alerts", ok, alerts, why, tc.want)
				}
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		e := newEndpoint(t, false)
		url := e.url()
		e.srv.Close()
		a := newTestAlerts(t, testAlertsOptions(url, clocktesting.NewFakeClock(activeAt)))
		a.poll(context.Background())
		if alerts, why := a.State(); alerts != nil || !strings.HasPrefix(why, "Alerts are unavailable: GET "+url+": dial tcp") || !strings.Contains(why, "connection refused") {
			t.Errorf("got %v %q", alerts, why)
		}
	})
	t.Run("the URL's credentials stay out of the message", func(t *testing.T) {
		e := newEndpoint(t, false)
		e.set(serve(403, ""))
		url := strings.Replace(e.url(), "http://", "http://user:secret@", 1)
		a := newTestAlerts(t, testAlertsOptions(url, clocktesting.NewFakeClock(activeAt)))
		a.poll(context.Background())
		if _, why := a.State(); strings.Contains(why, "secret") || !strings.Contains(why, "403 Forbidden") {
			t.Errorf("got %q", why)
		}
	})
}

func TestAlertsChanges(t *testing.T) {
	a1 := alertJSON("A", "warning", "firing", activeAt, `"summary":"a"`)
	b1 := alertJSON("B", "critical", "firing", activeAt, `"summary":"b"`)
	// The same alerts, in another order, with other values and activeAt in
	// another zone: the same content.
	a1Again := strings.Replace(strings.Replace(a1, `"value":"1e+00"`, `"value":"3e+00"`, 1), `"2024-06-01T10:00:00Z"`, `"2024-06-01T12:00:00+02:00"`, 1)
	e := newEndpoint(t, false)
	a := newTestAlerts(t, testAlertsOptions(e.url(), clocktesting.NewFakeClock(activeAt)))
	for i, step := range []struct {
		body        string
		status      int
		wantChanged bool
		wantAlerts  int // -1: nil
	}{
		{body: answer(a1, b1), wantChanged: true, wantAlerts: 2},
		{body: answer(b1, a1Again), wantChanged: false, wantAlerts: 2},
		{body: answer(a1), wantChanged: true, wantAlerts: 1},
		{body: answer(strings.Replace(a1, `"summary":"a"`, `"summary":"a2"`, 1)), wantChanged: true, wantAlerts: 1},
		{body: answer(strings.Replace(a1, `"firing"`, `"pending"`, 1)), wantChanged: true, wantAlerts: 1},
		{body: answer(), wantChanged: true, wantAlerts: 0},
		{body: answer(), wantChanged: false, wantAlerts: 0},
		{status: 500, wantChanged: true, wantAlerts: 0}, // kept: the message changes
		{status: 500, wantChanged: false, wantAlerts: 0},
		{status: 503, wantChanged: true, wantAlerts: 0},
		{body: answer(), wantChanged: true, wantAlerts: 0},
	} {
		status := step.status
		if status == 0 {
			status = 200
		}
		e.set(serve(status, step.body))
		_, changed := a.poll(context.Background())
		alerts, _ := a.State()
		if changed != step.wantChanged || len(alerts) != step.wantAlerts || alerts == nil {
			t.Errorf("step %d: changed %v, %d alerts (nil: %v); want changed %v, %d alerts", i, changed, len(alerts), alerts == nil, step.wantChanged, step.wantAlerts)
		}
	}
}

// writeFile writes a test's file, such as a rotated token.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// certPEM is the PEM of the certificate of a TLS endpoint.
func certPEM(e *endpoint) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: e.srv.Certificate().Raw})
}

// TestAlertsTokenFileRotation rotates the token file while the source runs,
// over https verified by the CA file: once the endpoint refuses the old token,
// the next read sends the new one from the file.
func TestAlertsTokenFileRotation(t *testing.T) {
	e := newEndpoint(t, true)
	var accepted atomic.Value
	accepted.Store("Bearer first")
	e.set(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != accepted.Load() {
			serve(401, "Unauthorized")(w, r)
			return
		}
		serve(200, answer())(w, r)
	})
	dir := t.TempDir()
	opts := testAlertsOptions(e.url(), clocktesting.NewFakeClock(activeAt))
	opts.CAFile, opts.TokenFile = filepath.Join(dir, "service-ca.crt"), filepath.Join(dir, "token")
	writeFile(t, opts.CAFile, certPEM(e))
	writeFile(t, opts.TokenFile, []byte("first\n"))
	a := newTestAlerts(t, opts)
	if ok, _ := a.poll(context.Background()); !ok {
		t.Fatal(a.State())
	}
	writeFile(t, opts.TokenFile, []byte("second"))
	accepted.Store("Bearer second")
	if ok, _ := a.poll(context.Background()); ok {
		t.Error("the old token was accepted")
	}
	if _, why := a.State(); !strings.Contains(why, "401 Unauthorized") {
		t.Errorf("the old token refused: %q", why)
	}
	if ok, _ := a.poll(context.Background()); !ok {
		t.Error(a.State())
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if got := strings.Join(e.auth, ","); got != "Bearer first,Bearer first,Bearer second" {
		t.Errorf("Authorization headers %q", got)
	}
}

func TestAlertsCAFile(t *testing.T) {
	e := newEndpoint(t, true)
	e.set(serve(200, answer(alertJSON("A", "warning", "firing", activeAt, ""))))
	otherCA, _, err := certutil.GenerateSelfSignedCertKey("other", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "service-ca.crt")
	for _, tc := range []struct {
		name   string
		caFile []byte // nil: no --alerts-ca-file
		want   string // a part of the failure; "" for a good read
	}{
		{name: "the system roots do not trust the endpoint", want: "x509: certificate signed by unknown authority"},
		{name: "another CA does not trust the endpoint", caFile: otherCA, want: "x509: certificate signed by unknown authority"},
		{name: "not PEM", caFile: []byte("not PEM"), want: "the CA file " + ca + ": "},
		{name: "the endpoint's CA", caFile: certPEM(e)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := testAlertsOptions(e.url(), clocktesting.NewFakeClock(activeAt))
			if tc.caFile != nil {
				opts.CAFile = ca
				writeFile(t, ca, tc.caFile)
			}
			a := newTestAlerts(t, opts)
			ok, _ := a.poll(context.Background())
			alerts, why := a.State()
			switch {
			case tc.want == "" && (!ok || len(alerts) != 1):
				t.Errorf("got %v %q, want one alert", alerts, why)
			case tc.want != "" && (ok || alerts != nil || !strings.Contains(why, tc.want)):
				t.Errorf("got %v %q, want a failure with %q", alerts, why, tc.want)
			}
		})
	}
	t.Run("a CA file mended after a failed read", func(t *testing.T) {
		writeFile(t, ca, []byte("not PEM"))
		opts := testAlertsOptions(e.url(), clocktesting.NewFakeClock(activeAt))
		opts.CAFile = ca
		a := newTestAlerts(t, opts)
		if ok, _ := a.poll(context.Background()); ok {
			t.Fatal("read with a CA file without a certificate")
		}
		writeFile(t, ca, certPEM(e))
		if ok, _ := a.poll(context.Background()); !ok {
			_, why := a.State()
			t.Errorf("after the CA file was mended: %q", why)
		}
	})
}

func TestAlertsKeptThenDropped(t *testing.T) {
	e := newEndpoint(t, false)
	clk := clocktesting.NewFakeClock(activeAt)
	a := newTestAlerts(t, testAlertsOptions(e.url(), clk))
	e.set(serve(200, answer(alertJSON("A", "warning", "firing", activeAt, ""))))
	a.poll(context.Background())
	e.set(serve(403, ""))
	clk.Step(30 * time.Second)
	if _, changed := a.poll(context.Background()); !changed {
		t.Error("a failure changes the message")
	}
	want := "Alerts are unavailable: GET " + e.url() + ": 403 Forbidden. The alerts shown are those of the last successful read, kept for 5m0s."
	if alerts, why := a.State(); len(alerts) != 1 || why != want {
		t.Errorf("after the first failure: %d alerts\n%q, want\n%q", len(alerts), why, want)
	}
	clk.Step(4 * time.Minute)
	if _, changed := a.poll(context.Background()); changed {
		t.Error("the same failure again changes nothing")
	}
	if alerts, _ := a.State(); len(alerts) != 1 {
		t.Errorf("kept for 5m from the first failure, dropped after %v", 4*time.Minute)
	}
	clk.Step(time.Minute)
	if alerts, why := a.State(); alerts != nil || why != "Alerts are unavailable: GET "+e.url()+": 403 Forbidden." {
		t.Errorf("after --alerts-keep: %v %q", alerts, why)
	}
	e.set(serve(200, answer()))
	if ok, changed := a.poll(context.Background()); !ok || !changed {
		t.Error("a good read after the drop")
	}
	if alerts, why := a.State(); alerts == nil || why != "" {
		t.Errorf("after a good read: %v %q", alerts, why)
	}
}

// TestAlertsRun runs the poll loop on a fake clock: it reads at once, notifies
// of changes only, backs off after failures and drops the kept alerts after
// --alerts-keep, notifying then too.
func TestAlertsRun(t *testing.T) {
	e := newEndpoint(t, false)
	var requests atomic.Int32
	var fail atomic.Bool
	e.set(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if fail.Load() {
			serve(500, "")(w, r)
			return
		}
		serve(200, answer(alertJSON("A", "warning", "firing", activeAt, "")))(w, r)
	})
	clk := clocktesting.NewFakeClock(activeAt)
	opts := testAlertsOptions(e.url(), clk)
	opts.Keep = 2 * time.Minute
	a := newTestAlerts(t, opts)
	notified := make(chan struct{}, 16)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx, func() { notified <- struct{}{} }); close(done) }()
	defer func() { cancel(); <-done }()

	waitNotified := func(what string) {
		t.Helper()
		select {
		case <-notified:
		case <-time.After(10 * time.Second):
			t.Fatalf("no notification: %s", what)
		}
	}
	waitSleeping := func() {
		t.Helper()
		if err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			return clk.HasWaiters(), nil
		}); err != nil {
			t.Fatal("the loop does not sleep")
		}
	}
	waitNotified("first read")
	waitSleeping()
	// Unchanged reads do not notify.
	clk.Step(30 * time.Second)
	waitSleeping()
	clk.Step(30 * time.Second)
	waitSleeping()
	if n := requests.Load(); n != 3 {
		t.Errorf("%d requests after a minute, want 3", n)
	}
	select {
	case <-notified:
		t.Error("an unchanged read notified")
	default:
	}
	// The reads fail: the message changes, the alerts are kept, then dropped.
	fail.Store(true)
	clk.Step(30 * time.Second)
	waitNotified("first failure")
	if alerts, why := a.State(); len(alerts) != 1 || !strings.Contains(why, "500 Internal Server Error") {
		t.Errorf("after the first failure: %v %q", alerts, why)
	}
	failedAt := clk.Now()
	for clk.Since(failedAt) < opts.Keep {
		waitSleeping()
		clk.Step(time.Second)
	}
	waitNotified("drop")
	if alerts, _ := a.State(); alerts != nil {
		t.Errorf("kept after --alerts-keep: %v", alerts)
	}
	// Backing off: fewer reads than one per interval.
	if n := requests.Load(); n > 3+1+int32(opts.Keep/opts.Interval) {
		t.Errorf("%d requests: no backoff", n)
	}
	// Recovery.
	fail.Store(false)
	for i := 0; i < 400; i++ {
		if alerts, _ := a.State(); alerts != nil {
			break
		}
		waitSleeping()
		clk.Step(time.Second)
	}
	waitNotified("recovery")
	if alerts, why := a.State(); len(alerts) != 1 || why != "" {
		t.Errorf("after recovery: %v %q", alerts, why)
	}
}

func TestAlertsOptionsValidate(t *testing.T) {
	good := AlertsOptions{URL: "https://thanos-querier.openshift-monitoring.svc:9091/api/v1/alerts", Interval: time.Second, Timeout: time.Second, MaxBytes: 1, Keep: 0}
	for _, tc := range []struct {
		name string
		edit func(*AlertsOptions)
		want string // "" for valid
	}{
		{name: "valid", edit: func(*AlertsOptions) {}},
		{name: "off", edit: func(o *AlertsOptions) { o.URL = "" }},
		{name: "not a URL", edit: func(o *AlertsOptions) { o.URL = "http://a b:x/" }, want: "--alerts-url: "},
		{name: "other scheme", edit: func(o *AlertsOptions) { o.URL = "ftp://x/" }, want: `--alerts-url must be an http or https URL, got "ftp://x/"`},
		{name: "relative", edit: func(o *AlertsOptions) { o.URL = "thanos:9091/api/v1/alerts" }, want: "--alerts-url must be an http or https URL"},
		{name: "no host", edit: func(o *AlertsOptions) { o.URL = "http:///api/v1/alerts" }, want: "--alerts-url has no host"},
		{name: "negative interval", edit: func(o *AlertsOptions) { o.Interval = -time.Second }, want: "--alerts-interval must be positive, got -1s"},
		{name: "zero timeout", edit: func(o *AlertsOptions) { o.Timeout = 0 }, want: "--alerts-timeout must be positive, got 0s"},
		{name: "zero max bytes", edit: func(o *AlertsOptions) { o.MaxBytes = 0 }, want: "--alerts-max-bytes must be positive, got 0"},
		{name: "negative keep", edit: func(o *AlertsOptions) { o.Keep = -time.Minute }, want: "--alerts-keep must not be negative, got -1m0s"},
		{name: "token without URL", edit: func(o *AlertsOptions) { o.URL, o.TokenFile = "", "/t" }, want: "need --alerts-url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := good
			tc.edit(&o)
			errs := o.Validate()
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("unexpected %v", errs)
			case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want)):
				t.Errorf("got %v, want one error with %q", errs, tc.want)
			}
		})
	}
	if _, err := NewAlerts(AlertsOptions{URL: "ftp://x", Interval: time.Second, Timeout: time.Second, MaxBytes: 1, Clock: clocktesting.NewFakeClock(activeAt)}); err == nil {
		t.Error("NewAlerts accepted invalid options")
	}
}

// TestAlertRulesThroughTheLiveSource reads every branch of oc's alert rules
// (docs/insights.md#alerts) from an endpoint and runs the engine on an
// oc-status fixture with those alerts: the live source and the rules agree.
func TestAlertRulesThroughTheLiveSource(t *testing.T) {
	src, err := sourcefiles.LoadScenario(fixtures.Dir(t), "4.15.0-ec2-unavailable-mco-20m")
	if err != nil {
		t.Fatal(err)
	}
	start := src.ClusterVersion.Status.History[0].StartedTime.Time
	during, before := start.Add(5*time.Minute), start.Add(-time.Hour)
	payload := answer(
		alertJSON("PodDisruptionBudgetAtLimit", "critical", "firing", before, `"summary":"PDB at limit","description":"d","runbook_url":"https://runbooks/pdb.md"`),
		alertJSON("PodDisruptionBudgetLimit", "warning", "firing", during, `"message":"m"`),
		alertJSON("KubePodNotReady", "warning", "firing", during, `"summary":"pod not ready","description":"d","message":"m"`),
		alertJSON("KubeNodeNotReady", "critical", "firing", during, ``),
		alertJSON("OldAlert", "critical", "firing", before, `"summary":"old"`),
		alertJSON("PendingAlert", "critical", "pending", during, `"summary":"pending"`),
		alertJSON("InfoAlert", "info", "firing", during, `"summary":"info"`),
		alertJSON("NoSeverity", "", "firing", during, `"summary":"none"`),
	)
	e := newEndpoint(t, false)
	e.set(serve(200, payload))
	a := newTestAlerts(t, testAlertsOptions(e.url(), clocktesting.NewFakeClock(activeAt)))
	if ok, _ := a.poll(context.Background()); !ok {
		t.Fatal(a.State())
	}
	src.Alerts, _ = a.State()
	res := insights.Compute(src, sourcefiles.MockNow(src))
	type got struct {
		level       v1alpha1.InsightImpactLevel
		description string
		reference   string
	}
	found := map[string]got{}
	for _, in := range res.Insights {
		if in.Health == nil || in.Informer != v1alpha1.InformerAlerts {
			continue
		}
		h := in.Health
		found[h.Impact.Summary] = got{h.Impact.Level, h.Impact.Description, h.Remediation.Reference}
	}
	want := map[string]got{
		"Alert is firing: PDB at limit": {v1alpha1.CriticalInfoLevel,
			"Alert known to affect updates has been firing since before the update started. The alert description is: d", "https://runbooks/pdb.md"},
		"Alert is firing: PodDisruptionBudgetLimit": {v1alpha1.WarningImpactLevel,
			"Alert known to affect updates started firing during the update. The alert description is: m", conventions.NoRunbookReference},
		"Alert is firing: pod not ready": {v1alpha1.WarningImpactLevel,
			"Alert started firing during the update. The alert description is: d | m", conventions.NoRunbookReference},
		"Alert is firing: KubeNodeNotReady": {v1alpha1.CriticalInfoLevel,
			"Alert started firing during the update. The alert has no description.", conventions.NoRunbookReference},
	}
	if len(found) != len(want) {
		t.Errorf("got %d alert insights, want %d: %+v", len(found), len(want), found)
	}
	for summary, w := range want {
		if g, ok := found[summary]; !ok || g != w {
			t.Errorf("%s: got %+v (found %v), want %+v", summary, g, ok, w)
		}
	}
}

func TestSnapshotAlerts(t *testing.T) {
	f, err := New(Clients{Kube: kubefake.NewClientset(), Config: configfake.NewClientset(), MachineConfiguration: mcfgfake.NewClientset()},
		Options{Clock: clocktesting.NewFakeClock(activeAt)})
	if err != nil {
		t.Fatal(err)
	}
	if snap := f.Snapshot(); snap.AlertsUnavailable != AlertsOffMessage || snap.Inputs.Alerts != nil {
		t.Errorf("without an alert source: %q %v", snap.AlertsUnavailable, snap.Inputs.Alerts)
	}
	e := newEndpoint(t, false)
	e.set(serve(200, answer(alertJSON("A", "warning", "firing", activeAt, ""))))
	f.opts.Alerts = newTestAlerts(t, testAlertsOptions(e.url(), clocktesting.NewFakeClock(activeAt)))
	if snap := f.Snapshot(); snap.AlertsUnavailable != "Alerts are not read yet." || snap.Inputs.Alerts != nil {
		t.Errorf("before the first read: %q %v", snap.AlertsUnavailable, snap.Inputs.Alerts)
	}
	f.opts.Alerts.poll(context.Background())
	if snap := f.Snapshot(); snap.AlertsUnavailable != "" || len(snap.Inputs.Alerts) != 1 {
		t.Errorf("after a read: %q %v", snap.AlertsUnavailable, snap.Inputs.Alerts)
	}
}

func TestAlertsMetrics(t *testing.T) {
	// Metrics count once registered, as the server registers them.
	if err := RegisterMetrics(metrics.NewKubeRegistry().Register); err != nil {
		t.Fatal(err)
	}
	e := newEndpoint(t, false)
	clk := clocktesting.NewFakeClock(activeAt)
	a := newTestAlerts(t, testAlertsOptions(e.url(), clk))
	value := func(result string) float64 {
		v, err := testutil.GetCounterMetricValue(alertReads.WithLabelValues(result))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ok0, failed0 := value("success"), value("failure")
	e.set(serve(200, answer()))
	a.poll(context.Background())
	clk.Step(time.Minute)
	e.set(serve(403, "forbidden"))
	a.poll(context.Background())
	a.poll(context.Background())
	if got := value("success") - ok0; got != 1 {
		t.Errorf("%v successful reads counted, want 1", got)
	}
	if got := value("failure") - failed0; got != 2 {
		t.Errorf("%v failed reads counted, want 2", got)
	}
	last, err := testutil.GetGaugeMetricValue(alertsLastSuccess)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(activeAt.Unix()); last != want {
		t.Errorf("last success at %v, want %v (the time of the one successful read)", last, want)
	}
}
