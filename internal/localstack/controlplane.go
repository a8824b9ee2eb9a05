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
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/ocp"
	hostedcrds "github.com/update-status/apiserver/pkg/hypershift/crds"
	"github.com/update-status/apiserver/pkg/monitoring"
)

// Options configure a ControlPlane. The zero value works when $KUBE_BIN_DIR
// is set and the working directory is inside the repository.
type Options struct {
	// RepoRoot is the repository root (artifacts/, ./cmd/apiserver); found
	// from the working directory when empty.
	RepoRoot string
	// Dir holds certificates, kubeconfigs, logs and etcd's data. When empty a
	// temporary directory is created, and Stop removes it.
	Dir string
	// ServerArgs are extra flags for update-status-apiserver.
	ServerArgs []string
	// SkipOpenShiftCRDs leaves the OpenShift CRDs out, for tests of a server
	// started before they exist; ocp.InstallCRDs adds them later.
	SkipOpenShiftCRDs bool
	// MachineConfigNodes also installs the MachineConfigNode CRD, for a
	// simulator that writes MachineConfigNodes.
	MachineConfigNodes bool
	// HostedCRDs also installs the CRDs of a HyperShift management cluster
	// (HostedCluster, HostedControlPlane, NodePool, ControlPlaneComponent and
	// Cluster API's Machine, MachineSet, MachineDeployment; see
	// pkg/hypershift/crds), for the hosted-cluster simulator.
	HostedCRDs bool
}

// ControlPlane is etcd + kube-apiserver on loopback with the OpenShift CRDs,
// the RBAC and Service of artifacts/local, and (after StartServer) the
// update-status-apiserver behind the aggregation layer.
type ControlPlane struct {
	Dir      string
	RepoRoot string
	PKI      *PKI
	Users    *Users

	Etcd          *Etcd
	KubeAPIServer *KubeAPIServer
	// Server is the update-status-apiserver process; nil before StartServer.
	Server *Process
	// DrainInformer is the drain-diagnosis informer, once started
	// (StartDrainInformer).
	DrainInformer *Process
	// ServerURL is the server's own address (not through the aggregator).
	ServerURL string
	// Prometheus is the local Prometheus; nil before StartPrometheus.
	Prometheus *Prometheus

	// Applier creates objects as the admin user.
	Applier *Applier
	// Kube is a clientset of the admin user.
	Kube kubernetes.Interface

	removeDir  bool
	serverArgs []string
	serverPort int
	stopOnce   sync.Once
}

// Start starts etcd and kube-apiserver, installs the OpenShift CRDs and the
// repository's own (ProjectCRDFiles) and applies artifacts/local except the APIService (StartServer registers it
// once the server listens). On error everything started is stopped.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	begin := time.Now()
	etcdBin, kasBin, err := KubeBinaries()
	if err != nil {
		return nil, err
	}
	cp := &ControlPlane{Dir: opts.Dir, RepoRoot: opts.RepoRoot, serverArgs: opts.ServerArgs}
	if cp.RepoRoot == "" {
		if cp.RepoRoot, err = RepoRoot(); err != nil {
			return nil, err
		}
	}
	if cp.Dir == "" {
		if cp.Dir, err = os.MkdirTemp("", "update-status-it-"); err != nil {
			return nil, err
		}
		cp.removeDir = true
	} else if err := os.MkdirAll(cp.Dir, 0o700); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			cp.Stop()
		}
	}()

	serverDNS := ServerServiceName + "." + ServerNamespace + ".svc"
	if cp.PKI, err = GeneratePKI(filepath.Join(cp.Dir, "pki"), []string{serverDNS}); err != nil {
		return nil, fmt.Errorf("PKI: %w", err)
	}
	if cp.Users, err = NewUsers(); err != nil {
		return nil, err
	}
	if cp.Etcd, err = StartEtcd(ctx, etcdBin, cp.Dir); err != nil {
		return nil, err
	}
	if cp.KubeAPIServer, err = StartKubeAPIServer(ctx, kasBin, cp.Dir, cp.Etcd.ClientURL, cp.PKI, cp.Users); err != nil {
		return nil, err
	}
	klog.InfoS("Control plane is ready", "kubeAPIServer", cp.KubeAPIServer.URL, "etcd", cp.Etcd.ClientURL,
		"dir", cp.Dir, "elapsed", time.Since(begin).Round(time.Millisecond))

	admin := cp.RESTConfig(&cp.Users.Admin)
	if cp.Kube, err = kubernetes.NewForConfig(admin); err != nil {
		return nil, err
	}
	if cp.Applier, err = NewApplier(admin); err != nil {
		return nil, err
	}
	for _, u := range cp.Users.all() {
		if err := WriteKubeconfig(cp.KubeconfigPath(u.Name), cp.KubeAPIServer.URL, cp.PKI.CAPEM, *u); err != nil {
			return nil, err
		}
	}

	if !opts.SkipOpenShiftCRDs {
		if err := ocp.InstallCRDs(ctx, admin); err != nil {
			return nil, fmt.Errorf("OpenShift CRDs: %w", err)
		}
	}
	if opts.MachineConfigNodes {
		if err := ocp.InstallMachineConfigNodeCRD(ctx, admin); err != nil {
			return nil, fmt.Errorf("MachineConfigNode CRD: %w", err)
		}
	}
	if opts.HostedCRDs {
		if err := hostedcrds.Install(ctx, admin); err != nil {
			return nil, fmt.Errorf("HyperShift and Cluster API CRDs: %w", err)
		}
	}
	if err := InstallProjectCRDs(ctx, admin, cp.RepoRoot); err != nil {
		return nil, fmt.Errorf("CRDs of artifacts/deploy/crds: %w", err)
	}
	ports, err := FreePorts(1)
	if err != nil {
		return nil, err
	}
	cp.serverPort = ports[0]
	cp.ServerURL = "https://127.0.0.1:" + strconv.Itoa(cp.serverPort)
	objs, err := cp.localArtifacts()
	if err != nil {
		return nil, err
	}
	var notAPIService []*unstructured.Unstructured
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() != apiServiceGVK.GroupKind() {
			notAPIService = append(notAPIService, o)
		}
	}
	if _, err := cp.Applier.Apply(ctx, notAPIService...); err != nil {
		return nil, fmt.Errorf("artifacts/local: %w", err)
	}
	klog.InfoS("OpenShift CRDs and artifacts/local are installed", "elapsed", time.Since(begin).Round(time.Millisecond))
	return cp, nil
}

var apiServiceGVK = schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}

// localArtifacts reads artifacts/local with the values of this control plane.
func (cp *ControlPlane) localArtifacts() ([]*unstructured.Unstructured, error) {
	objs, err := ReadManifests(map[string]string{
		"SERVER_PORT": strconv.Itoa(cp.serverPort),
		"CA_BUNDLE":   base64.StdEncoding.EncodeToString(cp.PKI.CAPEM),
	}, filepath.Join(cp.RepoRoot, "artifacts", "local"))
	if err != nil {
		return nil, err
	}
	SortForApply(objs)
	return objs, nil
}

// ServerOptions are what StartServerWith adds to the server's flags.
type ServerOptions struct {
	// AlertsURL, when set, is the server's --alerts-url: a Prometheus
	// /api/v1/alerts (Prometheus.AlertsURL).
	AlertsURL string
	// AlertsInterval is the server's --alerts-interval when AlertsURL is set;
	// the server's default when zero.
	AlertsInterval time.Duration
	// AlertsKeep is the server's --alerts-keep (how long the last good read
	// stays after reads fail) when AlertsURL is set; the default when zero.
	AlertsKeep time.Duration
}

// Args are the flags of o.
func (o ServerOptions) Args() []string {
	var args []string
	if o.AlertsURL != "" {
		args = append(args, "--alerts-url="+o.AlertsURL)
		if o.AlertsInterval > 0 {
			args = append(args, "--alerts-interval="+o.AlertsInterval.String())
		}
		if o.AlertsKeep > 0 {
			args = append(args, "--alerts-keep="+o.AlertsKeep.String())
		}
	}
	return args
}

// Local alerting-rule settings: an update in the local stack moves every
// few seconds, so it counts as stalled after LocalStallAfter without
// progress, and every alert fires after LocalAlertFor.
const (
	LocalStallAfter = 15 * time.Second
	LocalAlertFor   = 2 * time.Second
)

// StartPrometheus starts a Prometheus (see StartPrometheus) in Dir/prometheus
// that scrapes targets and the server (as the admin user), and evaluates the
// repository's RulesFile and the update-status rules (pkg/monitoring, with
// LocalStallAfter and LocalAlertFor) every second; Stop stops it with the
// rest. The control plane keeps it in cp.Prometheus.
func (cp *ControlPlane) StartPrometheus(ctx context.Context, targets ...string) (*Prometheus, error) {
	if cp.Prometheus != nil {
		return nil, fmt.Errorf("prometheus already started at %s", cp.Prometheus.URL)
	}
	dir := filepath.Join(cp.Dir, "prometheus")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	rules, err := monitoring.RulesFile(monitoring.RuleOptions{StallAfter: LocalStallAfter, For: LocalAlertFor},
		"The update-status alerting rules with the local stack's durations (internal/localstack).")
	if err != nil {
		return nil, err
	}
	rulesFile := filepath.Join(dir, "update-status-rules.yaml")
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(rulesFile, rules, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(tokenFile, []byte(cp.Users.Admin.Token), 0o600); err != nil {
		return nil, err
	}
	p, err := StartPrometheus(ctx, dir, PrometheusOptions{
		Targets:   targets,
		RulesFile: filepath.Join(cp.RepoRoot, RulesFile),
		MoreRules: []string{rulesFile},
		Server:    &ScrapedServer{Addresses: []string{HostPort(cp.ServerURL)}, CAFile: cp.PKI.CACert, TokenFile: tokenFile},
	})
	if err != nil {
		return nil, err
	}
	cp.Prometheus = p
	return p, nil
}

// StartServer builds (unless $UPDATE_STATUS_APISERVER names a binary) and
// starts update-status-apiserver with delegated authentication and
// authorization, waits for its /readyz, registers the APIService and waits
// until the APIService is Available and the resource answers a GET.
func (cp *ControlPlane) StartServer(ctx context.Context) error {
	return cp.StartServerWith(ctx, ServerOptions{})
}

// StartServerWith is StartServer with the flags of o added, for example the
// alert source of a local Prometheus:
//
//	cp.StartServerWith(ctx, ServerOptions{AlertsURL: cp.Prometheus.AlertsURL(), AlertsInterval: 2 * time.Second})
func (cp *ControlPlane) StartServerWith(ctx context.Context, o ServerOptions) error {
	begin := time.Now()
	bin, err := BuildServer(cp.RepoRoot, cp.Dir)
	if err != nil {
		return err
	}
	args := append(append(cp.ServerFlags(), cp.serverArgs...), o.Args()...)
	if cp.Server, err = StartProcess("update-status-apiserver", filepath.Join(cp.Dir, "update-status-apiserver.log"), bin, args...); err != nil {
		return err
	}
	// The server's own /readyz, with the admin token (delegated authentication
	// turns it into a TokenReview).
	directCfg := cp.RESTConfig(&cp.Users.Admin)
	directCfg.Host = cp.ServerURL
	direct, err := kubernetes.NewForConfig(directCfg)
	if err != nil {
		return err
	}
	err = pollUntil(ctx, 60*time.Second, cp.Server, func() (bool, error) {
		var code int
		err := direct.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).StatusCode(&code).Error()
		return code == http.StatusOK, err
	})
	if err != nil {
		if exited, _ := cp.Server.Exited(); exited {
			return fmt.Errorf("update-status-apiserver /readyz: %w", err) // err carries the log
		}
		return fmt.Errorf("update-status-apiserver /readyz: %w; last lines of %s:\n%s", err, cp.Server.LogPath, cp.Server.LogTail(30))
	}
	objs, err := cp.localArtifacts()
	if err != nil {
		return err
	}
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() != apiServiceGVK.GroupKind() {
			continue
		}
		if _, err := cp.Applier.Apply(ctx, o); err != nil {
			return err
		}
		if err := cp.Applier.WaitForCondition(ctx, apiServiceGVK, "", o.GetName(), "Available", 60*time.Second); err != nil {
			return fmt.Errorf("%w; last lines of %s:\n%s", err, cp.Server.LogPath, cp.Server.LogTail(30))
		}
	}
	if err := cp.WaitForUpdateStatus(ctx, 60*time.Second); err != nil {
		return err
	}
	klog.InfoS("update-status-apiserver is serving through the aggregator", "server", cp.ServerURL,
		"elapsed", time.Since(begin).Round(time.Millisecond))
	return nil
}

// PointAPIService points the APIService at port on this machine (the
// ExternalName Service's address), waits until it is Available and the
// UpdateStatus answers through it; ServerPort points it back at the
// server StartServer started.
func (cp *ControlPlane) PointAPIService(ctx context.Context, port int) error {
	ri, err := cp.Applier.Resource(apiServiceGVK, "")
	if err != nil {
		return err
	}
	patch := fmt.Appendf(nil, `{"spec":{"service":{"port":%d}}}`, port)
	if _, err := ri.Patch(ctx, APIServiceName, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return err
	}
	if err := cp.Applier.WaitForCondition(ctx, apiServiceGVK, "", APIServiceName, "Available", 60*time.Second); err != nil {
		return err
	}
	return cp.WaitForUpdateStatus(ctx, 60*time.Second)
}

// ServerPort is the port of the server StartServer starts.
func (cp *ControlPlane) ServerPort() int { return cp.serverPort }

// ServerFlags are the flags that serve update-status-apiserver on the
// control plane's server port, with its serving certificate, as the server
// user.
func (cp *ControlPlane) ServerFlags() []string {
	kubeconfig := cp.KubeconfigPath(cp.Users.Server.Name)
	return []string{
		"--secure-port=" + strconv.Itoa(cp.serverPort),
		"--bind-address=127.0.0.1",
		"--tls-cert-file=" + cp.PKI.ServerCert,
		"--tls-private-key-file=" + cp.PKI.ServerKey,
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
	}
}

// UpdateStatusPath is the URL path of the singleton through the aggregator.
const UpdateStatusPath = "/apis/update.openshift.io/v1alpha1/updatestatuses/cluster"

// WaitForUpdateStatus waits until a GET of updatestatuses/cluster through the
// kube-apiserver succeeds as the admin user.
func (cp *ControlPlane) WaitForUpdateStatus(ctx context.Context, timeout time.Duration) error {
	err := pollUntil(ctx, timeout, cp.Server, func() (bool, error) {
		var code int
		err := cp.Kube.Discovery().RESTClient().Get().AbsPath(UpdateStatusPath).Do(ctx).StatusCode(&code).Error()
		return code == http.StatusOK, err
	})
	if err != nil {
		return fmt.Errorf("GET %s through the kube-apiserver: %w", UpdateStatusPath, err)
	}
	return nil
}

// RESTConfig returns a client configuration for user (nil: no credentials)
// against the kube-apiserver.
func (cp *ControlPlane) RESTConfig(user *User) *rest.Config {
	return RESTConfig(cp.KubeAPIServer.URL, cp.PKI.CAPEM, user)
}

// KubeconfigPath is the kubeconfig of the named user in Dir.
func (cp *ControlPlane) KubeconfigPath(user string) string {
	return filepath.Join(cp.Dir, "kubeconfig-"+sanitize(user))
}

// Stop stops the server, Prometheus, kube-apiserver and etcd (in that order) and removes
// Dir when Start created it. It is safe to call more than once.
func (cp *ControlPlane) Stop() {
	cp.stopOnce.Do(func() {
		for _, p := range []*Process{cp.DrainInformer, cp.Server, promProcess(cp.Prometheus), kasProcess(cp.KubeAPIServer), etcdProcess(cp.Etcd)} {
			if p != nil {
				p.Stop(10 * time.Second)
			}
		}
		if cp.removeDir && cp.Dir != "" {
			if err := os.RemoveAll(cp.Dir); err != nil {
				klog.ErrorS(err, "Cannot remove the control plane's directory", "dir", cp.Dir)
			}
		}
	})
}

// Logs returns the last n lines of every process log, for failure reports.
func (cp *ControlPlane) Logs(n int) string {
	var out string
	for _, p := range []*Process{etcdProcess(cp.Etcd), kasProcess(cp.KubeAPIServer), promProcess(cp.Prometheus), cp.Server} {
		if p != nil {
			out += fmt.Sprintf("==> %s <==\n%s\n", p.LogPath, p.LogTail(n))
		}
	}
	return out
}

func kasProcess(k *KubeAPIServer) *Process {
	if k == nil {
		return nil
	}
	return k.Process
}

func promProcess(p *Prometheus) *Process {
	if p == nil {
		return nil
	}
	return p.Process
}

func etcdProcess(e *Etcd) *Process {
	if e == nil {
		return nil
	}
	return e.Process
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			b[i] = '-'
		}
	}
	return string(b)
}
