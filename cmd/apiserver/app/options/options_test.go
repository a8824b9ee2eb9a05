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

package options

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// kubeconfig writes a kubeconfig for a server that is never dialled.
func kubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	content := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// parse returns options after parsing args like the command does.
func parse(t *testing.T, args ...string) *Options {
	t.Helper()
	o := NewOptions()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	for _, f := range o.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestFlagsTheHarnessUses(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	for _, f := range NewOptions().Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	for _, name := range []string{
		"secure-port", "bind-address", "tls-cert-file", "tls-private-key-file", "cert-dir",
		"kubeconfig", "authentication-kubeconfig", "authorization-kubeconfig", "authentication-skip-lookup",
		"audit-log-path", "audit-policy-file", "v", "logging-format", "feature-gates",
		"fold-delay", "fold-quiet-gap", "source-discovery-interval", "watch-stall-timeout", "max-watches", "max-requests-inflight",
		"encoding-cache-revisions",
		"alerts-url", "alerts-ca-file", "alerts-token-file", "alerts-interval", "alerts-timeout", "alerts-max-bytes", "alerts-keep",
	} {
		if fs.Lookup(name) == nil {
			t.Errorf("no --%s flag", name)
		}
	}
	for _, name := range []string{"etcd-servers", "admission-control-config-file", "enable-admission-plugins",
		"watch-history", "watch-history-bytes", "watch-bookmark-interval"} {
		if fs.Lookup(name) != nil {
			t.Errorf("unexpected --%s flag: the server has no etcd, no admission and the library's watch cache", name)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr []string
	}{
		{name: "defaults"},
		{name: "fold delay too long", args: []string{"--fold-delay=1s"}, wantErr: []string{"--fold-delay"}},
		{name: "quiet gap too long", args: []string{"--fold-quiet-gap=1s"}, wantErr: []string{"--fold-quiet-gap"}},
		{name: "negative quiet gap", args: []string{"--fold-quiet-gap=-1ms"}, wantErr: []string{"--fold-quiet-gap"}},
		{name: "encoding cache off", args: []string{"--encoding-cache-revisions=0"}},
		{name: "priority and fairness", args: []string{"--enable-priority-and-fairness=true"}, wantErr: []string{"priority-and-fairness"}},
		{name: "alerts", args: []string{"--alerts-url=https://thanos-querier.openshift-monitoring.svc:9091/api/v1/alerts",
			"--alerts-ca-file=/ca", "--alerts-token-file=/token", "--alerts-interval=1m", "--alerts-timeout=5s", "--alerts-max-bytes=1024", "--alerts-keep=0"}},
		{name: "alerts URL not http", args: []string{"--alerts-url=thanos:9091"}, wantErr: []string{"--alerts-url must be an http or https URL"}},
		{name: "alerts durations and size", args: []string{"--alerts-url=http://127.0.0.1:9090/api/v1/alerts", "--alerts-interval=0", "--alerts-timeout=-1s", "--alerts-keep=-1s", "--alerts-max-bytes=0"},
			wantErr: []string{"--alerts-interval must be positive", "--alerts-timeout must be positive", "--alerts-keep must not be negative", "--alerts-max-bytes must be positive"}},
		{name: "alerts token without URL", args: []string{"--alerts-token-file=/token"}, wantErr: []string{"need --alerts-url"}},
		{name: "every error at once", args: []string{"--watch-stall-timeout=0", "--source-discovery-interval=0", "--fold-delay=-1s", "--max-watches=-1", "--max-requests-inflight=0", "--encoding-cache-revisions=-2"},
			wantErr: []string{"--watch-stall-timeout", "--source-discovery-interval", "--fold-delay", "--max-watches must be positive", "--max-requests-inflight must be positive", "--encoding-cache-revisions must not be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := parse(t, tt.args...).Validate()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error()+" ", w) {
					t.Errorf("%q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestCompleteGeneratesACertificateOnlyWhenNoneIsGiven also checks that the
// generated certificate stays in memory: with the defaults nothing is written
// to the working directory, so the server runs on a read-only root
// filesystem.
func TestCompleteGeneratesACertificateOnlyWhenNoneIsGiven(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	o := parse(t, "--secure-port=0")
	o.SecureServing.BindPort = 18443 // not listened on; only used for the certificate
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	if o.SecureServing.ServerCert.GeneratedCert == nil {
		t.Error("no self-signed certificate without --tls-cert-file")
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the generated certificate was written to disk: %v %v", entries, err)
	}

	o = parse(t, "--tls-cert-file=/x/tls.crt", "--tls-private-key-file=/x/tls.key")
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	if o.SecureServing.ServerCert.GeneratedCert != nil {
		t.Error("a certificate was generated although files were given")
	}
}

// TestConfigBuildsTheServer runs options -> config -> completed config ->
// server offline: nothing is dialled until the server runs.
func TestConfigBuildsTheServer(t *testing.T) {
	kc := kubeconfig(t)
	o := parse(t, "--bind-address=127.0.0.1", "--secure-port=0", "--kubeconfig="+kc,
		"--authentication-kubeconfig="+kc, "--authorization-kubeconfig="+kc, "--authentication-skip-lookup",
		"--fold-delay=70ms", "--fold-quiet-gap=20ms", "--watch-stall-timeout=7s", "--max-watches=9", "--max-requests-inflight=11", "--encoding-cache-revisions=3", "--alerts-url=http://127.0.0.1:1/api/v1/alerts")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }() // Complete may have closed it already
	o.SecureServing.Listener = ln
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.GenericConfig
	if g.FlowControl != nil || g.AdmissionControl != nil || g.OpenAPIConfig == nil || g.OpenAPIV3Config == nil || g.EffectiveVersion == nil {
		t.Errorf("flow control %v, admission %v, openapi %v/%v, version %v",
			g.FlowControl, g.AdmissionControl, g.OpenAPIConfig != nil, g.OpenAPIV3Config != nil, g.EffectiveVersion)
	}
	if g.Authentication.Authenticator == nil || g.Authorization.Authorizer == nil {
		t.Error("delegated authentication or authorization is missing")
	}
	// The flags reach the server's configuration.
	x := cfg.ExtraConfig
	if x.Sources == nil || x.FoldDelay != 70*time.Millisecond || x.QuietGap != 20*time.Millisecond || x.WatchStallTimeout != 7*time.Second || x.MaxWatches != 9 || x.EncodingRevisions != 3 {
		t.Errorf("extra config = %+v", x)
	}
	if g.MaxRequestsInFlight != 11 {
		t.Errorf("max requests in flight = %d, want 11", g.MaxRequestsInFlight)
	}
	if g.SecureServing == nil || g.LoopbackClientConfig == nil {
		t.Fatal("no secure serving")
	}
	// The aggregator multiplexes watches over few connections.
	if n := g.SecureServing.HTTP2MaxStreamsPerConnection; n != 1000 {
		t.Errorf("HTTP/2 streams per connection = %d, want 1000", n)
	}
	if _, err := cfg.Complete().New(); err != nil {
		t.Fatalf("New: %v", err)
	}
}

func TestConfigNeedsAClusterConfiguration(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	o := parse(t, "--secure-port=0", "--authentication-skip-lookup",
		"--authentication-kubeconfig="+kubeconfig(t), "--authorization-kubeconfig="+kubeconfig(t))
	if _, err := o.Config(); err == nil || !strings.Contains(err.Error(), "sources") {
		t.Fatalf("error = %v", err)
	}
}
