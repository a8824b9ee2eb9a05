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
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PKI holds the paths of the certificates and keys of one control plane. All
// files live in Dir; every key is ECDSA P-256.
type PKI struct {
	Dir string

	// CACert signs the kube-apiserver's and the update-status-apiserver's
	// serving certificates and is the kube-apiserver's client CA.
	CACert string
	// CAPEM is the content of CACert (for kubeconfigs and the APIService caBundle).
	CAPEM []byte

	// FrontProxyCACert signs the client certificate the aggregator presents to
	// aggregated servers (--requestheader-client-ca-file).
	FrontProxyCACert string
	// FrontProxyClientCert and FrontProxyClientKey are that client certificate.
	FrontProxyClientCert, FrontProxyClientKey string

	// KubeAPIServerCert and KubeAPIServerKey serve the kube-apiserver.
	KubeAPIServerCert, KubeAPIServerKey string

	// ServerCert and ServerKey serve the update-status-apiserver; the
	// certificate names the Service the APIService points at.
	ServerCert, ServerKey string

	// ServiceAccountKey and ServiceAccountPub sign and verify service-account tokens.
	ServiceAccountKey, ServiceAccountPub string

	// frontProxyCA signs more front-proxy client certificates (FrontProxyClient).
	frontProxyCA *certAuthority
}

// FrontProxyClientName is the common name of the aggregator's client
// certificate (--requestheader-allowed-names).
const FrontProxyClientName = "front-proxy-client"

// GeneratePKI writes a fresh PKI to dir. serverDNSNames are the DNS names of
// the update-status-apiserver's serving certificate; the aggregator checks
// <service>.<namespace>.svc whatever address it dials.
func GeneratePKI(dir string, serverDNSNames []string) (*PKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &PKI{Dir: dir}
	path := func(name string) string { return filepath.Join(dir, name) }
	notBefore := time.Now().Add(-time.Hour)
	notAfter := notBefore.Add(10 * 24 * time.Hour)

	ca, err := newCA("update-status-it-ca", notBefore, notAfter)
	if err != nil {
		return nil, err
	}
	frontProxyCA, err := newCA("update-status-it-front-proxy-ca", notBefore, notAfter)
	if err != nil {
		return nil, err
	}
	p.CACert, p.CAPEM = path("ca.crt"), ca.certPEM
	p.frontProxyCA = frontProxyCA
	p.FrontProxyCACert = path("front-proxy-ca.crt")
	if err := writeFile(p.CACert, ca.certPEM); err != nil {
		return nil, err
	}
	if err := writeFile(p.FrontProxyCACert, frontProxyCA.certPEM); err != nil {
		return nil, err
	}

	leaves := []struct {
		cert, key *string
		name      string
		issuer    *certAuthority
		tmpl      x509.Certificate
	}{
		{&p.KubeAPIServerCert, &p.KubeAPIServerKey, "kube-apiserver", ca, x509.Certificate{
			Subject:     pkix.Name{CommonName: "kube-apiserver"},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
				"kubernetes.default.svc.cluster.local"},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv4(10, 0, 0, 1)},
		}},
		{&p.ServerCert, &p.ServerKey, "update-status-apiserver", ca, x509.Certificate{
			Subject:     pkix.Name{CommonName: "update-status-apiserver"},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			DNSNames:    append([]string{"localhost"}, serverDNSNames...),
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		}},
		{&p.FrontProxyClientCert, &p.FrontProxyClientKey, "front-proxy-client", frontProxyCA, x509.Certificate{
			Subject:     pkix.Name{CommonName: FrontProxyClientName},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}},
	}
	for _, l := range leaves {
		tmpl := l.tmpl
		tmpl.NotBefore, tmpl.NotAfter = notBefore, notAfter
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		certPEM, keyPEM, err := l.issuer.sign(&tmpl)
		if err != nil {
			return nil, fmt.Errorf("certificate %s: %w", l.name, err)
		}
		*l.cert, *l.key = path(l.name+".crt"), path(l.name+".key")
		if err := writeFile(*l.cert, certPEM); err != nil {
			return nil, err
		}
		if err := writeFile(*l.key, keyPEM); err != nil {
			return nil, err
		}
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	saKeyPEM, err := encodeKey(saKey)
	if err != nil {
		return nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return nil, err
	}
	p.ServiceAccountKey, p.ServiceAccountPub = path("sa.key"), path("sa.pub")
	if err := writeFile(p.ServiceAccountKey, saKeyPEM); err != nil {
		return nil, err
	}
	if err := writeFile(p.ServiceAccountPub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})); err != nil {
		return nil, err
	}
	return p, nil
}

type certAuthority struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
}

func newCA(name string, notBefore, notAfter time.Time) (*certAuthority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("CA %s: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &certAuthority{cert: cert, key: key, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// sign issues a certificate for a new key from tmpl and returns both in PEM.
func (ca *certAuthority) sign(tmpl *x509.Certificate) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if tmpl.SerialNumber, err = newSerial(); err != nil {
		return nil, nil, err
	}
	tmpl.BasicConstraintsValid = true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, nil, err
	}
	if keyPEM, err = encodeKey(key); err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM, nil
}

func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

func newSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

func writeFile(path string, data []byte) error {
	return os.WriteFile(path, data, 0o600)
}

// FrontProxyClient writes a client certificate with the given common name,
// signed by the front-proxy CA, to dir and returns its paths: the aggregator's
// certificate when commonName is FrontProxyClientName, otherwise one that the
// CA signed for a name the servers must not accept.
func (p *PKI) FrontProxyClient(dir, commonName string) (cert, key string, err error) {
	return writeClientCert(p.frontProxyCA, dir, "client-", commonName)
}

// SelfSignedClient writes a self-signed client certificate with the given
// common name to dir and returns its paths: a certificate no CA vouches for.
func SelfSignedClient(dir, commonName string) (cert, key string, err error) {
	now := time.Now()
	ca, err := newCA(commonName+"-self", now.Add(-time.Hour), now.Add(24*time.Hour))
	if err != nil {
		return "", "", err
	}
	return writeClientCert(ca, dir, "selfsigned-", commonName)
}

// dayLongLeaf is the template of a leaf certificate for commonName with the
// extended key usage usage, valid from an hour before now for a day.
func dayLongLeaf(commonName string, usage x509.ExtKeyUsage, now time.Time) *x509.Certificate {
	return &x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
}

// writeClientCert has ca sign a day-long client certificate for commonName
// and writes it and its key to dir as <prefix><commonName>.crt and .key.
func writeClientCert(ca *certAuthority, dir, prefix, commonName string) (cert, key string, err error) {
	certPEM, keyPEM, err := ca.sign(dayLongLeaf(commonName, x509.ExtKeyUsageClientAuth, time.Now()))
	if err != nil {
		return "", "", err
	}
	cert, key = filepath.Join(dir, prefix+commonName+".crt"), filepath.Join(dir, prefix+commonName+".key")
	if err := writeFile(cert, certPEM); err != nil {
		return "", "", err
	}
	return cert, key, writeFile(key, keyPEM)
}
