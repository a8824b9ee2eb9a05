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
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// InstanceOptions configure an additional update-status-apiserver process,
// next to the one StartServer registers behind the aggregator.
type InstanceOptions struct {
	// Name tells the instance's log file apart: update-status-apiserver-<Name>.log.
	Name string
	// Kubeconfig is the identity the instance reads the sources with; the
	// server user's kubeconfig when empty.
	Kubeconfig string
	// DelegationKubeconfig is the identity of TokenReviews and
	// SubjectAccessReviews; Kubeconfig when empty.
	DelegationKubeconfig string
	// CertFile and KeyFile serve the instance; the PKI's server certificate
	// when empty.
	CertFile, KeyFile string
	// Args are extra flags.
	Args []string
	// NoWait returns as soon as the process started, without waiting for
	// /readyz.
	NoWait bool
	// Port is the port to serve on; a free one when 0 (a replica started
	// again where it was killed gives its port).
	Port int
}

// Instance is an update-status-apiserver process reached directly (not
// through the aggregator).
type Instance struct {
	// URL is the instance's address, https://127.0.0.1:<port>.
	URL     string
	Process *Process
}

// StartInstance starts one more update-status-apiserver on a free port. Unless
// opts.NoWait, it waits up to a minute for /readyz; the caller stops the
// process (Process.Stop), also on error paths after it returned.
func (cp *ControlPlane) StartInstance(ctx context.Context, opts InstanceOptions) (*Instance, error) {
	bin, err := BuildServer(cp.RepoRoot, cp.Dir)
	if err != nil {
		return nil, err
	}
	ports := []int{opts.Port}
	if opts.Port == 0 {
		if ports, err = FreePorts(1); err != nil {
			return nil, err
		}
	}
	kubeconfig := opts.Kubeconfig
	if kubeconfig == "" {
		kubeconfig = cp.KubeconfigPath(cp.Users.Server.Name)
	}
	delegation := opts.DelegationKubeconfig
	if delegation == "" {
		delegation = kubeconfig
	}
	cert, key := opts.CertFile, opts.KeyFile
	if cert == "" {
		cert, key = cp.PKI.ServerCert, cp.PKI.ServerKey
	}
	args := append([]string{
		"--secure-port=" + strconv.Itoa(ports[0]),
		"--bind-address=127.0.0.1",
		"--tls-cert-file=" + cert,
		"--tls-private-key-file=" + key,
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + delegation,
		"--authorization-kubeconfig=" + delegation,
	}, cp.serverArgs...)
	args = append(args, opts.Args...)
	name := "update-status-apiserver-" + sanitize(opts.Name)
	p, err := StartProcess(name, filepath.Join(cp.Dir, name+".log"), bin, args...)
	if err != nil {
		return nil, err
	}
	in := &Instance{URL: "https://127.0.0.1:" + strconv.Itoa(ports[0]), Process: p}
	if opts.NoWait {
		return in, nil
	}
	if err := in.WaitReady(ctx, cp.DirectConfig(in.URL, &cp.Users.Admin), time.Minute); err != nil {
		p.Stop(5 * time.Second)
		return nil, err
	}
	return in, nil
}

// WaitReady polls the instance's /readyz with cfg until it answers 200.
func (in *Instance) WaitReady(ctx context.Context, cfg *rest.Config, timeout time.Duration) error {
	client, err := rest.UnversionedRESTClientFor(withCodecs(cfg))
	if err != nil {
		return err
	}
	err = pollUntil(ctx, timeout, in.Process, func() (bool, error) {
		var code int
		err := client.Get().AbsPath("/readyz").Do(ctx).StatusCode(&code).Error()
		return code == http.StatusOK, err
	})
	if err != nil {
		return fmt.Errorf("%s /readyz: %w; last lines of %s:\n%s", in.Process.Name, err, in.Process.LogPath, in.Process.LogTail(30))
	}
	return nil
}

// DirectConfig is a client configuration for user (nil: no credentials) that
// talks to an update-status-apiserver at url directly, trusting the test CA.
func (cp *ControlPlane) DirectConfig(url string, user *User) *rest.Config {
	return RESTConfig(url, cp.PKI.CAPEM, user)
}

// HeaderConfig is a client configuration that talks to an
// update-status-apiserver at url as the aggregator does: with the client
// certificate certFile/keyFile (none when empty) and the user in X-Remote-*
// headers. With the PKI's front-proxy client certificate it is the
// aggregator; with anything else it is a forgery.
func (cp *ControlPlane) HeaderConfig(url, certFile, keyFile, user string, groups ...string) *rest.Config {
	cfg := RESTConfig(url, cp.PKI.CAPEM, nil)
	cfg.CertFile, cfg.KeyFile = certFile, keyFile
	cfg.WrapTransport = headerTransport(user, groups)
	return cfg
}

// headerTransport adds the front-proxy headers to every request.
func headerTransport(user string, groups []string) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			req = req.Clone(req.Context())
			req.Header.Set("X-Remote-User", user)
			for _, g := range groups {
				req.Header.Add("X-Remote-Group", g)
			}
			return rt.RoundTrip(req)
		})
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// withCodecs gives cfg what rest.UnversionedRESTClientFor needs.
func withCodecs(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	if c.NegotiatedSerializer == nil {
		c.NegotiatedSerializer = unversionedCodecs
	}
	return c
}

// ServiceAccountKubeconfig requests a token for the ServiceAccount
// namespace/name (TokenRequest, valid for an hour) and writes a kubeconfig
// with it against the kube-apiserver; it returns the file's path.
func (cp *ControlPlane) ServiceAccountKubeconfig(ctx context.Context, namespace, name string) (string, error) {
	expiry := int64(3600)
	tr, err := cp.Kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token for serviceaccount %s/%s: %w", namespace, name, err)
	}
	user := User{Name: "system:serviceaccount:" + namespace + ":" + name, Token: tr.Status.Token}
	path := cp.KubeconfigPath(user.Name)
	if err := WriteKubeconfig(path, cp.KubeAPIServer.URL, cp.PKI.CAPEM, user); err != nil {
		return "", err
	}
	return path, nil
}

// WriteServingCert writes a fresh serving certificate for 127.0.0.1 and
// localhost, with the given common name and signed by a new throw-away CA, to
// certFile and keyFile, replacing each atomically (rename) as a certificate
// rotation does. It returns the certificate in DER form.
func WriteServingCert(certFile, keyFile, commonName string) ([]byte, error) {
	now := time.Now()
	ca, err := newCA(commonName+"-ca", now.Add(-time.Hour), now.Add(24*time.Hour))
	if err != nil {
		return nil, err
	}
	tmpl := dayLongLeaf(commonName, x509.ExtKeyUsageServerAuth, now)
	tmpl.DNSNames, tmpl.IPAddresses = []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)}
	certPEM, keyPEM, err := ca.sign(tmpl)
	if err != nil {
		return nil, err
	}
	if err := replaceFile(keyFile, keyPEM); err != nil {
		return nil, err
	}
	if err := replaceFile(certFile, certPEM); err != nil {
		return nil, err
	}
	block, _ := pem.Decode(certPEM)
	return block.Bytes, nil
}

func replaceFile(path string, data []byte) error {
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// PeerCertificate dials addr (host:port) with TLS, without verifying the
// chain, and returns the leaf certificate the server presented. minVersion
// and maxVersion bound the offered TLS versions (0: Go's defaults).
func PeerCertificate(addr string, minVersion, maxVersion uint16) (*x509.Certificate, error) {
	conn, err := tls.Dial("tcp", addr, &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // the test compares the certificate itself.
		MinVersion:         minVersion,
		MaxVersion:         maxVersion,
	})
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close() }()
	certs := conn.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s presented no certificate", addr)
	}
	return certs[0], nil
}

// HostPort is the host:port part of an https URL.
func HostPort(url string) string { return strings.TrimPrefix(url, "https://") }

// unversionedCodecs decodes the plain answers of /readyz and friends.
var unversionedCodecs = scheme.Codecs.WithoutConversion()
