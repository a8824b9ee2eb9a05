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
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// User is an identity of the kube-apiserver's static token file.
type User struct {
	Name   string
	UID    string
	Groups []string
	Token  string
}

// Names of the users every control plane has. Their roles come from
// artifacts/local (viewer, server) or from built-in groups (admin).
const (
	// AdminUser is in system:masters: cluster-admin.
	AdminUser = "admin"
	// ViewerUser is bound only to the updatestatus-reader ClusterRole.
	ViewerUser = "viewer"
	// NobodyUser is authenticated and bound to no role.
	NobodyUser = "nobody"
	// HostedReaderUser is bound only to the hostedclusterupdatestatus-reader
	// ClusterRole, by a RoleBinding in HostedReaderNamespace.
	HostedReaderUser = "hosted-reader"
	// ServerUser is the identity of the update-status-apiserver. It is named
	// like the ServiceAccount of a real deployment, so the RBAC of
	// artifacts/local binds it exactly as it would bind that ServiceAccount.
	ServerUser = "system:serviceaccount:" + ServerNamespace + ":" + ServerServiceAccount
)

// Names of the objects of artifacts/local.
const (
	ServerNamespace      = "openshift-update-status"
	ServerServiceAccount = "update-status-apiserver"
	ServerServiceName    = "update-status-apiserver"
	APIServiceName       = "v1alpha1.update.openshift.io"
	ReaderClusterRole    = "updatestatus-reader"
	// HostedReaderNamespace is the one namespace whose hosted clusters
	// HostedReaderUser may read.
	HostedReaderNamespace = "tenant-1"
)

// Users holds the token users of a control plane.
type Users struct {
	Admin, Viewer, Nobody, Server User
	HostedReader                  User
}

// NewUsers creates the users with fresh random tokens.
func NewUsers() (*Users, error) {
	u := &Users{
		Admin:        User{Name: AdminUser, UID: "uid-admin", Groups: []string{"system:masters"}},
		Viewer:       User{Name: ViewerUser, UID: "uid-viewer"},
		Nobody:       User{Name: NobodyUser, UID: "uid-nobody"},
		HostedReader: User{Name: HostedReaderUser, UID: "uid-hosted-reader"},
		Server: User{Name: ServerUser, UID: "uid-update-status-apiserver",
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ServerNamespace}},
	}
	for _, user := range u.all() {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		user.Token = hex.EncodeToString(b)
	}
	return u, nil
}

func (u *Users) all() []*User {
	return []*User{&u.Admin, &u.Viewer, &u.Nobody, &u.Server, &u.HostedReader}
}

// WriteTokenFile writes the kube-apiserver's --token-auth-file.
func (u *Users) WriteTokenFile(path string) error {
	var b strings.Builder
	for _, user := range u.all() {
		fmt.Fprintf(&b, "%s,%s,%s,%q\n", user.Token, user.Name, user.UID, strings.Join(user.Groups, ","))
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// RESTConfig returns a client configuration for user against the server at
// host, trusting caPEM. A nil user gives a configuration without credentials.
func RESTConfig(host string, caPEM []byte, user *User) *rest.Config {
	cfg := &rest.Config{
		Host:            host,
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM},
		QPS:             200,
		Burst:           400,
	}
	if user != nil {
		cfg.BearerToken = user.Token
	}
	return cfg
}

// WriteKubeconfig writes a kubeconfig for user against host; the CA is
// embedded so the file stands alone.
func WriteKubeconfig(path, host string, caPEM []byte, user User) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = &clientcmdapi.Cluster{Server: host, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user.Name] = &clientcmdapi.AuthInfo{Token: user.Token}
	cfg.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: user.Name}
	cfg.CurrentContext = "local"
	return clientcmd.WriteToFile(*cfg, path)
}
