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
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
)

// KubeAPIServer is a kube-apiserver on loopback.
type KubeAPIServer struct {
	// URL is the secure address, e.g. https://127.0.0.1:34567.
	URL     string
	Process *Process

	// What Restart needs to start the same kube-apiserver again.
	bin, dir, etcdURL string
	pki               *PKI
	users             *Users
	port              int
}

// StartKubeAPIServer starts bin against etcdURL with the PKI and the token
// users, and waits until /readyz answers ok. The flags set RBAC, static
// tokens without anonymous access, and the front-proxy (request-header)
// configuration of the aggregation layer.
func StartKubeAPIServer(ctx context.Context, bin, dir, etcdURL string, pki *PKI, users *Users) (*KubeAPIServer, error) {
	tokenFile := filepath.Join(dir, "tokens.csv")
	if err := users.WriteTokenFile(tokenFile); err != nil {
		return nil, err
	}
	ports, err := FreePorts(1)
	if err != nil {
		return nil, err
	}
	k := &KubeAPIServer{bin: bin, dir: dir, etcdURL: etcdURL, pki: pki, users: users, port: ports[0]}
	if err := k.start(ctx); err != nil {
		return nil, err
	}
	return k, nil
}

// Restart stops the kube-apiserver, waits for down, and starts it again on
// the same port with the same flags, waiting until it is ready. Clients keep
// their URL; their connections break as they would on a real restart.
func (k *KubeAPIServer) Restart(ctx context.Context, down time.Duration) error {
	k.Process.Stop(10 * time.Second)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(down):
	}
	return k.start(ctx)
}

// start starts the process on k.port and waits for /readyz.
func (k *KubeAPIServer) start(ctx context.Context) error {
	bin, dir, etcdURL, pki, users := k.bin, k.dir, k.etcdURL, k.pki, k.users
	tokenFile := filepath.Join(dir, "tokens.csv")
	url := fmt.Sprintf("https://127.0.0.1:%d", k.port)
	p, err := StartProcess("kube-apiserver", filepath.Join(dir, "kube-apiserver.log"), bin,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(k.port),
		// Kubernetes 1.37 refuses a loopback advertise address with the lease
		// endpoint reconciler; there is no kubernetes Service endpoint to keep anyway.
		"--endpoint-reconciler-type=none",
		"--tls-cert-file="+pki.KubeAPIServerCert,
		"--tls-private-key-file="+pki.KubeAPIServerKey,
		"--client-ca-file="+pki.CACert,
		"--token-auth-file="+tokenFile,
		"--anonymous-auth=false",
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+pki.ServiceAccountPub,
		"--service-account-signing-key-file="+pki.ServiceAccountKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		// The aggregation layer: the aggregator authenticates to aggregated
		// servers with this client certificate and passes the user in headers.
		"--requestheader-client-ca-file="+pki.FrontProxyCACert,
		"--requestheader-allowed-names="+FrontProxyClientName,
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-uid-headers=X-Remote-Uid",
		"--proxy-client-cert-file="+pki.FrontProxyClientCert,
		"--proxy-client-key-file="+pki.FrontProxyClientKey,
		// Off so that an ExternalName Service pointing at localhost reaches a
		// server on loopback (routing to endpoints rejects ExternalName).
		"--enable-aggregator-routing=false",
		"--allow-privileged=true",
		// No controller manager creates default ServiceAccounts.
		"--disable-admission-plugins=ServiceAccount",
		"--profiling=false",
	)
	if err != nil {
		return err
	}
	k.URL, k.Process = url, p
	client, err := kubernetes.NewForConfig(RESTConfig(url, pki.CAPEM, &users.Admin))
	if err != nil {
		p.Stop(5 * time.Second)
		return err
	}
	err = pollUntil(ctx, 60*time.Second, p, func() (bool, error) {
		var code int
		body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code).Raw()
		if err != nil {
			return false, err
		}
		return code == http.StatusOK && string(body) == "ok", nil
	})
	if err != nil {
		p.Stop(5 * time.Second)
		return fmt.Errorf("kube-apiserver did not become ready: %w; last lines of %s:\n%s", err, p.LogPath, p.LogTail(20))
	}
	return nil
}
