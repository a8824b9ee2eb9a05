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
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/update-status/apiserver/internal/localstack"
)

// collectionPath is the URL path of the collection.
const collectionPath = "/apis/update.openshift.io/v1alpha1/updatestatuses"

// call sends one request with cfg's transport (TLS, client certificate,
// token, extra headers) and returns the status code and the body.
func call(t *testing.T, cfg *rest.Config, method, path, contentType, body string) (int, string) {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatalf("HTTP client: %v", err)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, cfg.Host+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s%s: %v", method, cfg.Host, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// TestAuthentication checks who the server trusts when it is called
// directly, bypassing the aggregator, and that the aggregator path also
// refuses requests without credentials: only a valid token, or the
// front-proxy identity (a client certificate of the request-header CA with
// an allowed common name) passing the user in X-Remote-* headers, is
// trusted. Everything else is 401, never the forged user and never
// system:anonymous.
func TestAuthentication(t *testing.T) {
	dir := t.TempDir()
	wrongCN, wrongCNKey, err := cp.PKI.FrontProxyClient(dir, "not-the-front-proxy")
	if err != nil {
		t.Fatal(err)
	}
	selfSigned, selfSignedKey, err := localstack.SelfSignedClient(dir, localstack.FrontProxyClientName)
	if err != nil {
		t.Fatal(err)
	}
	direct := func(user *localstack.User) *rest.Config { return cp.DirectConfig(cp.ServerURL, user) }
	invalidToken := localstack.User{Name: "forger", Token: "not-a-token-of-this-cluster"}
	tests := []struct {
		name string
		cfg  *rest.Config
		path string
		want int
	}{
		{"direct, no credentials, object", direct(nil), localstack.UpdateStatusPath, http.StatusUnauthorized},
		{"direct, no credentials, collection", direct(nil), collectionPath, http.StatusUnauthorized},
		{"direct, no credentials, discovery", direct(nil), "/apis/update.openshift.io/v1alpha1", http.StatusUnauthorized},
		{"direct, no credentials, metrics", direct(nil), "/metrics", http.StatusUnauthorized},
		{"through the aggregator, no credentials", cp.RESTConfig(nil), localstack.UpdateStatusPath, http.StatusUnauthorized},
		{"direct, invalid token", direct(&invalidToken), localstack.UpdateStatusPath, http.StatusUnauthorized},
		{"direct, forged X-Remote-User without a client certificate",
			cp.HeaderConfig(cp.ServerURL, "", "", "admin", "system:masters"), localstack.UpdateStatusPath, http.StatusUnauthorized},
		{"direct, forged X-Remote-User with a self-signed front-proxy certificate",
			cp.HeaderConfig(cp.ServerURL, selfSigned, selfSignedKey, "admin", "system:masters"), localstack.UpdateStatusPath, http.StatusUnauthorized},
		{"direct, X-Remote-User with a front-proxy CA certificate of a name not allowed",
			cp.HeaderConfig(cp.ServerURL, wrongCN, wrongCNKey, "admin", "system:masters"), localstack.UpdateStatusPath, http.StatusUnauthorized},
		// The positive cases, so that the refusals above mean something.
		{"direct, valid token, no role", direct(&cp.Users.Nobody), localstack.UpdateStatusPath, http.StatusForbidden},
		{"direct, valid token, reader", direct(&cp.Users.Viewer), localstack.UpdateStatusPath, http.StatusOK},
		{"direct, the front-proxy identity",
			cp.HeaderConfig(cp.ServerURL, cp.PKI.FrontProxyClientCert, cp.PKI.FrontProxyClientKey, "viewer"), localstack.UpdateStatusPath, http.StatusOK},
		{"direct, the front-proxy identity, user without a role",
			cp.HeaderConfig(cp.ServerURL, cp.PKI.FrontProxyClientCert, cp.PKI.FrontProxyClientKey, "nobody"), localstack.UpdateStatusPath, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := call(t, tt.cfg, http.MethodGet, tt.path, "", "")
			if code != tt.want {
				t.Fatalf("GET %s: got %d, want %d; body:\n%s", tt.path, code, tt.want, body)
			}
			if tt.want != http.StatusOK && strings.Contains(body, `"kind":"UpdateStatus`) {
				t.Fatalf("a refused request got the object: %s", body)
			}
		})
	}
}

// TestHealthEndpointsForProbes: the kubelet probes /livez and /readyz without
// credentials; those paths, and only those, answer without a token.
func TestHealthEndpointsForProbes(t *testing.T) {
	for _, path := range []string{"/livez", "/readyz", "/healthz"} {
		t.Run(path, func(t *testing.T) {
			code, body := call(t, cp.DirectConfig(cp.ServerURL, nil), http.MethodGet, path, "", "")
			if code != http.StatusOK {
				t.Fatalf("GET %s without credentials: got %d, want 200 (the kubelet's probes carry no token); body:\n%s", path, code, body)
			}
		})
	}
}

// TestTLSMinimumVersion: the server refuses TLS 1.0 and 1.1 handshakes and
// accepts TLS 1.2 and 1.3.
func TestTLSMinimumVersion(t *testing.T) {
	addr := localstack.HostPort(cp.ServerURL)
	tests := []struct {
		name    string
		version uint16
		ok      bool
	}{
		{"TLS 1.0", tls.VersionTLS10, false},
		{"TLS 1.1", tls.VersionTLS11, false},
		{"TLS 1.2", tls.VersionTLS12, true},
		{"TLS 1.3", tls.VersionTLS13, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := localstack.PeerCertificate(addr, tt.version, tt.version)
			switch {
			case tt.ok && err != nil:
				t.Fatalf("%s handshake failed: %v", tt.name, err)
			case !tt.ok && err == nil:
				t.Fatalf("%s handshake succeeded; the minimum must be TLS 1.2", tt.name)
			case !tt.ok && !strings.Contains(err.Error(), "protocol version"):
				t.Fatalf("%s handshake failed, but not for its version: %v", tt.name, err)
			}
		})
	}
}

// TestDirectWritesAre405: a cluster-admin calling the server directly (not
// through the aggregator) cannot write either.
func TestDirectWritesAre405(t *testing.T) {
	admin := cp.DirectConfig(cp.ServerURL, &cp.Users.Admin)
	obj := `{"apiVersion":"update.openshift.io/v1alpha1","kind":"UpdateStatus","metadata":{"name":"cluster"}}`
	tests := []struct {
		method, path, contentType, body string
	}{
		{http.MethodPost, collectionPath, "application/json", obj},
		{http.MethodPut, localstack.UpdateStatusPath, "application/json", obj},
		{http.MethodPut, localstack.UpdateStatusPath + "/status", "application/json", obj},
		{http.MethodPatch, localstack.UpdateStatusPath, "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`},
		{http.MethodPatch, localstack.UpdateStatusPath + "/status", "application/merge-patch+json", `{"status":{}}`},
		{http.MethodDelete, localstack.UpdateStatusPath, "", ""},
		{http.MethodDelete, collectionPath, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			code, body := call(t, admin, tt.method, tt.path, tt.contentType, tt.body)
			if code != http.StatusMethodNotAllowed {
				t.Fatalf("got %d, want 405; body:\n%s", code, body)
			}
		})
	}
}
