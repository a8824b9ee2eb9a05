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
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/internal/flagcheck"
	"github.com/update-status/apiserver/pkg/insights"
)

// Defaults of the alert source.
const (
	DefaultAlertsInterval = 30 * time.Second
	DefaultAlertsTimeout  = 10 * time.Second
	DefaultAlertsMaxBytes = 8 << 20
	DefaultAlertsKeep     = 5 * time.Minute
)

// AlertsOffMessage is the snapshot's AlertsUnavailable when no alert source
// is configured.
const AlertsOffMessage = "Alerts are not read: no --alerts-url was given."

// maxFailureLength bounds the error text of a failed read that reaches the
// Available condition (a Prometheus error text comes from the payload).
const maxFailureLength = 512

// AlertsOptions configure the alert source.
type AlertsOptions struct {
	// URL is a Prometheus-compatible /api/v1/alerts endpoint, http or https.
	URL string
	// CAFile holds the PEM certificates that verify an https URL; the
	// system roots when empty. client-go reads it again every five minutes.
	CAFile string
	// TokenFile holds a bearer token; no Authorization header when empty.
	// client-go reads it again every minute and after a 401, so that a
	// rotated token is used.
	TokenFile string
	// Interval is the time between two reads that succeed.
	Interval time.Duration
	// Timeout bounds one read, the body included.
	Timeout time.Duration
	// MaxBytes bounds the body of an answer.
	MaxBytes int64
	// Keep is how long after the first failed read the alerts of the last
	// good read are still used; they are dropped then.
	Keep time.Duration
	// Clock paces the reads and the keeping. Required.
	Clock clock.WithTicker
}

// Validate returns every problem with the options, worded for the flags.
func (o *AlertsOptions) Validate() []error {
	var errs []error
	if o.URL != "" {
		u, err := url.Parse(o.URL)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("--alerts-url: %w", err))
		case u.Scheme != "http" && u.Scheme != "https":
			errs = append(errs, fmt.Errorf("--alerts-url must be an http or https URL, got %q", u.Redacted()))
		case u.Host == "":
			errs = append(errs, fmt.Errorf("--alerts-url has no host: %q", u.Redacted()))
		}
	}
	errs = flagcheck.Positive(errs, "alerts-interval", o.Interval)
	errs = flagcheck.Positive(errs, "alerts-timeout", o.Timeout)
	errs = flagcheck.Positive(errs, "alerts-max-bytes", o.MaxBytes)
	errs = flagcheck.NotNegative(errs, "alerts-keep", o.Keep)
	if o.URL == "" && (o.CAFile != "" || o.TokenFile != "") {
		errs = append(errs, errors.New("--alerts-ca-file and --alerts-token-file need --alerts-url"))
	}
	return errs
}

// Alerts polls a Prometheus-compatible alerts endpoint (the Thanos querier on
// OpenShift) and holds the alerts of the last good read. Every failure is
// kept as a sentence for the Available condition. A change of what a
// snapshot would see (the alerts, compared by content, or the sentence)
// calls the listener, like a source event.
type Alerts struct {
	opts AlertsOptions
	// url is opts.URL for messages, without credentials.
	url string

	// client is used by the Run goroutine only; nil until built.
	client *http.Client

	mu sync.Mutex
	// read is true once a read finished.
	read bool
	// alerts are those of the last good read, sorted; nil when none.
	alerts []insights.Alert
	// failure is the error of the last read; "" when it succeeded.
	failure string
	// failingSince is when the reads started failing; zero when the last
	// read succeeded.
	failingSince time.Time
}

// NewAlerts returns the alert source of valid options. Nothing runs until
// Run.
func NewAlerts(opts AlertsOptions) (*Alerts, error) {
	if opts.Clock == nil {
		return nil, errors.New("alerts: AlertsOptions.Clock is required")
	}
	if opts.URL == "" {
		return nil, errors.New("alerts: AlertsOptions.URL is required")
	}
	if err := errors.Join(opts.Validate()...); err != nil {
		return nil, err
	}
	u, _ := url.Parse(opts.URL)
	// The CA file is read by the first poll: a missing one degrades the
	// alerts, not the server.
	return &Alerts{opts: opts, url: u.Redacted()}, nil
}

// httpClient returns the client of the endpoint, built by client-go at the
// first read that can: a CA file that cannot be read fails that read, and the
// next one tries again. client-go reads the CA file again every five minutes
// and uses it when its certificates changed (its ClientsAllowCARotation
// feature, on by default); it reads the token file again every minute, and
// at the next request after the endpoint refused a token with 401.
func (a *Alerts) httpClient() (*http.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	cfg := &rest.Config{
		TLSClientConfig: rest.TLSClientConfig{CAFile: a.opts.CAFile},
		// The endpoint is in the cluster: no proxy of the environment.
		Proxy: func(*http.Request) (*url.URL, error) { return nil, nil },
	}
	if a.opts.TokenFile != "" {
		cfg.Wrap(transport.ResettableTokenSourceWrapTransport(transport.NewCachedFileTokenSource(a.opts.TokenFile)))
	}
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("the CA file %s: %w", a.opts.CAFile, err)
	}
	a.client = c
	return c, nil
}

// fetch reads and parses the alerts once.
func (a *Alerts) fetch(ctx context.Context) ([]insights.Alert, error) {
	client, err := a.httpClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.opts.URL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, a.requestError(ctx, err)
	}
	defer func() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", a.url, resp.Status)
	}
	if resp.ContentLength > a.opts.MaxBytes {
		return nil, fmt.Errorf("GET %s: the answer is too large: %d bytes, more than the %d allowed", a.url, resp.ContentLength, a.opts.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, a.opts.MaxBytes+1))
	if err != nil {
		return nil, a.requestError(ctx, err)
	}
	if int64(len(body)) > a.opts.MaxBytes {
		return nil, fmt.Errorf("GET %s: the answer is too large: more than the %d bytes allowed", a.url, a.opts.MaxBytes)
	}
	alerts, err := insights.ParseAlerts(body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: malformed answer: %w", a.url, err)
	}
	return alerts, nil
}

// requestError words a transport or body error without repeating the URL
// and with a plain timeout.
func (a *Alerts) requestError(ctx context.Context, err error) error {
	if ctx.Err() == context.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("GET %s: no answer within %v", a.url, a.opts.Timeout)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return fmt.Errorf("GET %s: %w", a.url, err)
}

// poll reads the alerts once, records the outcome and reports whether what a
// snapshot sees changed.
func (a *Alerts) poll(ctx context.Context) (ok, changed bool) {
	alerts, err := a.fetch(ctx)
	if ctx.Err() != nil && err != nil {
		return false, false // shutting down
	}
	now := a.opts.Clock.Now()
	before, beforeWhy := a.State()
	a.mu.Lock()
	wasFailure := a.failure
	a.read = true
	if err == nil {
		sortAlerts(alerts)
		a.alerts, a.failure, a.failingSince = alerts, "", time.Time{}
	} else {
		a.failure = err.Error()
		if len(a.failure) > maxFailureLength {
			a.failure = a.failure[:maxFailureLength] + "…"
		}
		if a.failingSince.IsZero() {
			a.failingSince = now
		}
	}
	failure := a.failure
	a.mu.Unlock()
	if err == nil {
		alertReads.WithLabelValues("success").Inc()
		alertsLastSuccess.Set(float64(now.Unix()))
	} else {
		alertReads.WithLabelValues("failure").Inc()
	}
	switch {
	case err != nil && failure != wasFailure:
		klog.InfoS("Cannot read the alerts", "err", failure)
	case err == nil && wasFailure != "":
		klog.InfoS("Reading the alerts again", "alerts", len(alerts))
	}
	after, afterWhy := a.State()
	return err == nil, beforeWhy != afterWhy || (before == nil) != (after == nil) || !alertsEqual(before, after)
}

// State returns the alerts a snapshot uses (nil when unknown) and, when they
// are not those of a current read, a sentence saying why.
func (a *Alerts) State() ([]insights.Alert, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case !a.read:
		return nil, "Alerts are not read yet."
	case a.failure == "":
		return a.alerts, ""
	case a.alerts != nil && a.opts.Clock.Since(a.failingSince) < a.opts.Keep:
		return a.alerts, fmt.Sprintf("Alerts are unavailable: %s. The alerts shown are those of the last successful read, kept for %v.", a.failure, a.opts.Keep)
	default:
		return nil, fmt.Sprintf("Alerts are unavailable: %s.", a.failure)
	}
}

// dropAt is when the kept alerts are dropped; zero when none are kept.
func (a *Alerts) dropAt() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failure == "" || a.alerts == nil {
		return time.Time{}
	}
	return a.failingSince.Add(a.opts.Keep)
}

// Run reads the alerts every Interval until ctx is done, backing off with
// jitter while reads fail, and calls notify whenever what a snapshot sees
// changes, the dropping of kept alerts included.
func (a *Alerts) Run(ctx context.Context, notify func()) {
	klog.InfoS("Starting the alert source", "url", a.url, "interval", a.opts.Interval)
	defer klog.InfoS("Stopped the alert source")
	backoff := a.backoff()
	for {
		ok, changed := a.poll(ctx)
		if ctx.Err() != nil {
			return
		}
		if changed {
			notify()
		}
		next := a.opts.Interval
		if ok {
			backoff = a.backoff()
		} else {
			next = backoff.Step()
		}
		if !a.sleep(ctx, a.opts.Clock.Now().Add(next), notify) {
			return
		}
	}
}

// backoff paces the reads after failures: from half the interval, doubling
// up to five intervals, each wait lengthened by up to half at random.
func (a *Alerts) backoff() wait.Backoff {
	return wait.Backoff{Duration: a.opts.Interval / 2, Factor: 2, Jitter: 0.5, Steps: 1 << 30, Cap: 5 * a.opts.Interval}
}

// sleep waits until deadline, waking at the moment kept alerts are to be
// dropped to drop them and notify. It returns false when ctx is done.
func (a *Alerts) sleep(ctx context.Context, deadline time.Time, notify func()) bool {
	for {
		now := a.opts.Clock.Now()
		drop := a.dropAt()
		if !drop.IsZero() && !now.Before(drop) {
			klog.InfoS("Dropping the alerts of the last successful read", "keep", a.opts.Keep)
			a.mu.Lock()
			a.alerts = nil
			a.mu.Unlock()
			notify()
			continue
		}
		if !now.Before(deadline) {
			return true
		}
		wake := deadline
		if !drop.IsZero() && drop.Before(wake) {
			wake = drop
		}
		t := a.opts.Clock.NewTimer(wake.Sub(now))
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C():
		}
	}
}

// sortAlerts orders alerts by content, so that the same alerts listed in
// another order compare equal.
func sortAlerts(alerts []insights.Alert) {
	keys := make(map[*insights.Alert]string, len(alerts))
	key := func(a *insights.Alert) string {
		if k, ok := keys[a]; ok {
			return k
		}
		var b strings.Builder
		for _, m := range []map[string]string{a.Labels, a.Annotations} {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				b.WriteString(k)
				b.WriteByte(0)
				b.WriteString(m[k])
				b.WriteByte(0)
			}
			b.WriteByte(1)
		}
		b.WriteString(a.State)
		b.WriteByte(0)
		b.WriteString(a.ActiveAt.UTC().Format(time.RFC3339Nano))
		keys[a] = b.String()
		return keys[a]
	}
	// Sort indices, then permute: the keys are cached by address.
	idx := make([]int, len(alerts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return strings.Compare(key(&alerts[i]), key(&alerts[j])) })
	sorted := make([]insights.Alert, len(alerts))
	for n, i := range idx {
		sorted[n] = alerts[i]
	}
	copy(alerts, sorted)
}

// alertsEqual compares two lists of alerts by content, in order.
func alertsEqual(a, b []insights.Alert) bool {
	return slices.EqualFunc(a, b, func(x, y insights.Alert) bool {
		return x.State == y.State && x.ActiveAt.Equal(y.ActiveAt) &&
			maps.Equal(x.Labels, y.Labels) && maps.Equal(x.Annotations, y.Annotations)
	})
}
