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
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
)

func TestGeneratePKI(t *testing.T) {
	p, err := GeneratePKI(t.TempDir(), []string{"update-status-apiserver.openshift-update-status.svc"})
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(p.CAPEM) {
		t.Fatal("CA PEM does not parse")
	}
	frontProxyRoots := x509.NewCertPool()
	fpPEM, err := os.ReadFile(p.FrontProxyCACert)
	if err != nil {
		t.Fatal(err)
	}
	frontProxyRoots.AppendCertsFromPEM(fpPEM)

	tests := []struct {
		name      string
		cert, key string
		roots     *x509.CertPool
		usage     x509.ExtKeyUsage
		dnsName   string // verified when set
		wrongName string // must fail verification when set
	}{
		{"kube-apiserver", p.KubeAPIServerCert, p.KubeAPIServerKey, roots, x509.ExtKeyUsageServerAuth, "localhost", "update-status-apiserver.openshift-update-status.svc"},
		{"kube-apiserver by IP", p.KubeAPIServerCert, p.KubeAPIServerKey, roots, x509.ExtKeyUsageServerAuth, "127.0.0.1", ""},
		{"server by service name", p.ServerCert, p.ServerKey, roots, x509.ExtKeyUsageServerAuth, "update-status-apiserver.openshift-update-status.svc", "other.openshift-update-status.svc"},
		{"server by IP", p.ServerCert, p.ServerKey, roots, x509.ExtKeyUsageServerAuth, "127.0.0.1", ""},
		{"front-proxy client", p.FrontProxyClientCert, p.FrontProxyClientKey, frontProxyRoots, x509.ExtKeyUsageClientAuth, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pair, err := tls.LoadX509KeyPair(tt.cert, tt.key)
			if err != nil {
				t.Fatalf("key pair: %v", err)
			}
			leaf, err := x509.ParseCertificate(pair.Certificate[0])
			if err != nil {
				t.Fatal(err)
			}
			opts := x509.VerifyOptions{Roots: tt.roots, DNSName: tt.dnsName, KeyUsages: []x509.ExtKeyUsage{tt.usage}}
			if _, err := leaf.Verify(opts); err != nil {
				t.Errorf("verify: %v", err)
			}
			if tt.wrongName != "" {
				opts.DNSName = tt.wrongName
				if _, err := leaf.Verify(opts); err == nil {
					t.Errorf("certificate is also valid for %s", tt.wrongName)
				}
			}
			if tt.usage == x509.ExtKeyUsageClientAuth && leaf.Subject.CommonName != FrontProxyClientName {
				t.Errorf("CN = %q, want %q (--requestheader-allowed-names)", leaf.Subject.CommonName, FrontProxyClientName)
			}
		})
	}

	for _, f := range []string{p.ServiceAccountKey, p.ServiceAccountPub} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := pem.Decode(data); b == nil {
			t.Errorf("%s is not PEM", f)
		}
	}
	if st, err := os.Stat(p.ServerKey); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("server key mode = %v (%v), want 0600", st.Mode().Perm(), err)
	}
}
