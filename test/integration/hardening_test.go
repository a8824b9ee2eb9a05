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
	"context"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/insights"
)

// deployNamespace and deployServiceAccount are the names artifacts/deploy uses.
const (
	deployNamespace      = "update-status"
	deployServiceAccount = "update-status-apiserver"
)

// directClient is the generated clientset for user against a server
// instance at url, bypassing the aggregator.
func directClient(t *testing.T, url string, user *localstack.User) versioned.Interface {
	t.Helper()
	return clientFor(t, versioned.NewForConfig, cp.DirectConfig(url, user))
}

// startInstance starts one more server and stops it when the test ends.
func startInstance(t *testing.T, opts localstack.InstanceOptions) *localstack.Instance {
	t.Helper()
	return startInstanceOf(t, cp, opts)
}

// startInstanceOf is startInstance for the control plane c; a failed test
// logs the last lines of the server's log.
func startInstanceOf(t *testing.T, c *localstack.ControlPlane, opts localstack.InstanceOptions) *localstack.Instance {
	t.Helper()
	in, err := c.StartInstance(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last lines of %s:\n%s", in.Process.LogPath, in.Process.LogTail(40))
		}
		in.Process.Stop(10 * time.Second)
	})
	return in
}

// assertNoPanic fails if a server log mentions a panic.
func assertNoPanic(t *testing.T, logPaths ...string) {
	t.Helper()
	for _, p := range logPaths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("read %s: %v", p, err)
			continue
		}
		if strings.Contains(strings.ToLower(string(b)), "panic") {
			t.Errorf("%s mentions a panic", p)
		}
	}
}

// available returns the Available condition of the served object.
func available(us *v1alpha1.UpdateStatus) *metav1.Condition {
	for i := range us.Status.Conditions {
		if us.Status.Conditions[i].Type == v1alpha1.UpdateStatusAvailable {
			return &us.Status.Conditions[i]
		}
	}
	return nil
}

// TestReadyzUntilCachesSync starts a server whose source identity may not
// list anything yet: /readyz must stay failing (sources not synced) until
// the identity is granted the sources roles, then turn 200.
func TestReadyzUntilCachesSync(t *testing.T) {
	ctx := t.Context()
	in := startInstance(t, localstack.InstanceOptions{
		Name:                 "readyz",
		Kubeconfig:           cp.KubeconfigPath(cp.Users.Nobody.Name),
		DelegationKubeconfig: cp.KubeconfigPath(cp.Users.Server.Name),
		NoWait:               true,
	})
	admin := cp.DirectConfig(in.URL, &cp.Users.Admin)
	// /readyz is read every 100 ms for 4 s: it must fail all along.
	var sawServing bool
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 4*time.Second, true, func(context.Context) (bool, error) {
		code, body, err := tryCall(t, admin, "/readyz?verbose")
		if err != nil {
			return false, nil // not listening yet
		}
		sawServing = true
		if code == 200 {
			return false, fmt.Errorf("/readyz is 200 while the caches cannot sync:\n%s", body)
		}
		if !strings.Contains(body, "update-status-sources-synced failed") {
			return false, fmt.Errorf("/readyz fails without naming the unsynced sources:\n%s", body)
		}
		return false, nil
	}); !wait.Interrupted(err) {
		t.Fatal(err)
	}
	if !sawServing {
		t.Fatalf("the server never answered /readyz; log:\n%s", in.Process.LogTail(30))
	}

	grant(t, "update-status-apiserver-sources", "update-status-apiserver-mco-deployment")
	if err := in.WaitReady(ctx, admin, 60*time.Second); err != nil {
		t.Fatal(err)
	}
	us, err := directClient(t, in.URL, &cp.Users.Admin).UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := available(us); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("ready, but Available is not True: %s", dump(c))
	}
}

// tryCall GETs path with cfg and returns the transport error instead of
// failing the test (the server may not listen yet).
func tryCall(t *testing.T, cfg *rest.Config, path string) (int, string, error) {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, cfg.Host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// grant binds the nobody user to the sources ClusterRole and the
// machine-config-operator Deployment Role of artifacts/local, until the test ends.
func grant(t *testing.T, clusterRole, mcoRole string) {
	t.Helper()
	ctx := t.Context()
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: localstack.NobodyUser}}
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "it-readyz-nobody-sources"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
		Subjects:   subjects,
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "it-readyz-nobody-mco", Namespace: insights.MCONamespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: mcoRole},
		Subjects:   subjects,
	}
	if _, err := cp.Kube.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), crb.Name, metav1.DeleteOptions{})
	})
	if _, err := cp.Kube.RbacV1().RoleBindings(rb.Namespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Kube.RbacV1().RoleBindings(rb.Namespace).Delete(context.Background(), rb.Name, metav1.DeleteOptions{})
	})
}

// TestFreshClusterLeastPrivilege uses a second control plane, without the
// OpenShift CRDs, for what would disturb the suite's: every variant of
// artifacts/deploy passes a server-side dry run (with stand-ins for the CRDs
// of cert-manager and the Prometheus operator); the server runs with the
// credentials of the ServiceAccount of artifacts/deploy bound only by the
// RBAC of artifacts/deploy/base (delegation, sources, the
// machine-config-operator Deployment by resourceNames); started before the
// CRDs exist it serves Available=False naming the missing APIs, and it
// recovers once the CRDs and a cluster are installed, never refused by the
// kube-apiserver and without a panic.
func TestFreshClusterLeastPrivilege(t *testing.T) {
	ctx := t.Context()
	cp2, err := localstack.Start(ctx, localstack.Options{
		Dir:               filepath.Join(t.TempDir(), "fresh"),
		SkipOpenShiftCRDs: true,
		ServerArgs:        []string{"--source-discovery-interval=1s"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp2.Stop)

	// The dry run of namespaced objects needs their namespace to exist.
	if _, err := cp2.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: deployNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The OpenShift variants grant the alert reading in openshift-monitoring.
	if _, err := cp2.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "openshift-monitoring"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// The variants create Certificates, Issuers, ServiceMonitors and
	// PrometheusRules; their kinds must exist for the dry run.
	if err := installThirdPartyCRDs(ctx, cp2); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		dir       string
		ha        bool
		openshift bool
	}{
		{dir: "artifacts/deploy", ha: true},
		{dir: "artifacts/deploy/kubernetes", ha: true},
		{dir: "artifacts/deploy/kubernetes-single-node"},
		{dir: "artifacts/deploy/openshift", ha: true, openshift: true},
		{dir: "artifacts/deploy/openshift-single-node", openshift: true},
		{dir: "artifacts/deploy/openshift-management-cluster", ha: true, openshift: true},
	} {
		res := cp2.Kubectl(ctx, localstack.AdminUser, "apply", "--dry-run=server", "-k", filepath.Join(cp2.RepoRoot, v.dir))
		if res.Err != nil {
			t.Fatalf("kubectl apply --dry-run=server -k %s: %v\n%s\n%s", v.dir, res.Err, res.Stdout, res.Stderr)
		}
		want := []string{"deployment.apps/update-status-apiserver", "apiservice.apiregistration.k8s.io/v1alpha1.update.openshift.io",
			"clusterrole.rbac.authorization.k8s.io/update-status-reader", "clusterrole.rbac.authorization.k8s.io/update-status-metrics-reader",
			"networkpolicy.networking.k8s.io/default-deny"}
		if v.ha {
			want = append(want, "poddisruptionbudget.policy/update-status-apiserver")
		} else if strings.Contains(res.Stdout, "poddisruptionbudget") {
			t.Errorf("kubectl apply --dry-run=server -k %s: a PodDisruptionBudget in a single-node variant:\n%s", v.dir, res.Stdout)
		}
		if v.openshift {
			want = append(want, "servicemonitor.monitoring.coreos.com/update-status-apiserver", "prometheusrule.monitoring.coreos.com/update-status-apiserver")
		} else {
			want = append(want, "certificate.cert-manager.io/update-status-apiserver", "issuer.cert-manager.io/update-status-ca")
		}
		for _, obj := range want {
			if !strings.Contains(res.Stdout, obj) {
				t.Errorf("kubectl apply --dry-run=server -k %s: %s is not in the output:\n%s", v.dir, obj, res.Stdout)
			}
		}
	}

	base := filepath.Join(cp2.RepoRoot, "artifacts", "deploy", "base")
	var files []string
	for _, f := range []string{"namespace.yaml", "service-account.yaml", "rbac-delegation.yaml", "rbac-sources.yaml", "rbac-reader.yaml"} {
		files = append(files, filepath.Join(base, f))
	}
	objs, err := localstack.ReadManifests(nil, files...)
	if err != nil {
		t.Fatal(err)
	}
	localstack.SortForApply(objs)
	if _, err := cp2.Applier.Apply(ctx, objs...); err != nil {
		t.Fatalf("apply the RBAC of artifacts/deploy/base: %v", err)
	}
	kubeconfig, err := cp2.ServiceAccountKubeconfig(ctx, deployNamespace, deployServiceAccount)
	if err != nil {
		t.Fatal(err)
	}
	in := startInstanceOf(t, cp2, localstack.InstanceOptions{Name: "least-privilege", Kubeconfig: kubeconfig})
	cfg := cp2.DirectConfig(in.URL, &cp2.Users.Admin)
	client := clientFor(t, versioned.NewForConfig, cfg)
	us, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("no UpdateStatus without the CRDs: %v", err)
	}
	c := available(us)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.AvailableReasonSourceUnavailable ||
		!strings.Contains(c.Message, "clusterversions") {
		t.Fatalf("without the CRDs, want Available=False/%s naming clusterversions; got %s", v1alpha1.AvailableReasonSourceUnavailable, dump(c))
	}
	t.Logf("without the CRDs: %s: %s", c.Reason, c.Message)

	if err := ocp.InstallCRDs(ctx, cp2.RESTConfig(&cp2.Users.Admin)); err != nil {
		t.Fatal(err)
	}
	cl2, err := newCluster(ctx, cp2)
	if err != nil {
		t.Fatal(err)
	}
	worker := cl2.NodeNames("worker")[0]
	begin := time.Now()
	if wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		if us, err = client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		c := available(us)
		return c != nil && c.Status == metav1.ConditionTrue && cvInsight(us) != nil && nodeInsight(us, worker) != nil, nil
	}) != nil {
		t.Fatalf("30s after the CRDs were installed the status has not recovered (error %v):\n%s", err, dump(us))
	}
	t.Logf("recovered %v after the CRDs and the cluster were installed", time.Since(begin).Round(time.Millisecond))
	log, err := os.ReadFile(in.Process.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(log)), "forbidden") {
		t.Fatalf("the kube-apiserver refused the least-privilege server something; log:\n%s", in.Process.LogTail(40))
	}
	assertNoPanic(t, in.Process.LogPath)
}

// installThirdPartyCRDs installs the stand-in CRDs of
// testdata/crds/third-party.yaml and waits until they are established.
func installThirdPartyCRDs(ctx context.Context, cp2 *localstack.ControlPlane) error {
	crds, err := cp2.Applier.ApplyFiles(ctx, nil, filepath.Join(cp2.RepoRoot, "testdata", "crds", "third-party.yaml"))
	if err != nil {
		return err
	}
	crdGVK := schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	for _, crd := range crds {
		if err := cp2.Applier.WaitForCondition(ctx, crdGVK, "", crd.GetName(), "Established", 30*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// TestKubeAPIServerRestart restarts the kube-apiserver while watchers are
// connected to the server: every watcher either keeps its stream or gets 410
// and relists, and all of them, and a GET through the aggregator, see a
// change made after the restart within seconds; nothing panics.
func TestKubeAPIServerRestart(t *testing.T) {
	ctx := t.Context()
	ensureUpdating(t)
	const watchers = 10
	present := func(us *v1alpha1.UpdateStatus) bool {
		h := healthInsightAbout(us, "clusteroperators", "dns")
		return h != nil && strings.Contains(h.Impact.Summary, "degraded")
	}
	if present(getStatus(ctx, t)) {
		t.Fatal("dns is degraded before the test")
	}
	client := directClient(t, cp.ServerURL, &cp.Users.Admin).UpdateV1alpha1().UpdateStatuses()
	watching := make(chan int, watchers)
	seen := make(chan int, watchers)
	relists := make(chan int, 100)
	for i := range watchers {
		go followStatus(ctx, client, i, present, watching, seen, relists)
	}
	for range watchers {
		select {
		case <-watching:
		case <-time.After(10 * time.Second):
			t.Fatal("the watchers did not all open their watch within 10s")
		}
	}

	if err := cp.KubeAPIServer.Restart(ctx, 2*time.Second); err != nil {
		t.Fatalf("restart the kube-apiserver: %v", err)
	}
	restarted := time.Now()
	degradeOperator(t, "dns")
	_, d := waitForStatus(ctx, t, 15*time.Second, "dns degraded through the aggregator after the restart", present)
	t.Logf("GET through the aggregator shows the change %v after it was made (%v after the restart)", d.Round(time.Millisecond), time.Since(restarted).Round(time.Millisecond))
	got := map[int]bool{}
	timeout := time.After(10 * time.Second)
	for len(got) < watchers {
		select {
		case i := <-seen:
			got[i] = true
		case <-timeout:
			t.Fatalf("after 10s only %d of %d watchers saw the change", len(got), watchers)
		}
	}
	t.Logf("all %d watchers saw the change; %d relists after a closed watch or 410", watchers, len(relists))
	assertNoPanic(t, cp.Server.LogPath)
}

// followStatus watches the object with client, relisting when the watch
// closes or answers 410; it sends i to watching once its first watch is
// open, and to seen once an object satisfying present arrives. Like a
// client, it pauses 200 ms before it tries again after an error.
func followStatus(ctx context.Context, client interface {
	Get(context.Context, string, metav1.GetOptions) (*v1alpha1.UpdateStatus, error)
	Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
}, i int, present func(*v1alpha1.UpdateStatus) bool, watching, seen, relists chan<- int) {
	rv := ""
	opened := false
	for ctx.Err() == nil {
		if rv == "" {
			us, err := client.Get(ctx, statusName, metav1.GetOptions{})
			if err != nil {
				time.Sleep(200 * time.Millisecond) // simulates time passing: a client's pause before it retries
				continue
			}
			if present(us) {
				seen <- i
				return
			}
			rv = us.ResourceVersion
		}
		w, err := client.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, FieldSelector: "metadata.name=" + statusName})
		if err != nil {
			rv = ""
			relists <- i
			time.Sleep(200 * time.Millisecond) // simulates time passing: a client's pause before it retries
			continue
		}
		if !opened {
			opened = true
			watching <- i
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				if apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) || apierrors.IsGone(apierrors.FromObject(ev.Object)) {
					rv = ""
				}
				break
			}
			us, ok := ev.Object.(*v1alpha1.UpdateStatus)
			if !ok {
				continue
			}
			rv = us.ResourceVersion
			if present(us) {
				w.Stop()
				seen <- i
				return
			}
		}
		w.Stop()
		select {
		case relists <- i:
		default:
		}
	}
}

// TestServingCertificateRotation replaces the serving certificate on disk:
// new connections get the new one without a restart.
func TestServingCertificateRotation(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for src, dst := range map[string]string{cp.PKI.ServerCert: cert, cp.PKI.ServerKey: key} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	in := startInstance(t, localstack.InstanceOptions{Name: "cert-rotation", CertFile: cert, KeyFile: key})
	addr := localstack.HostPort(in.URL)
	before, err := localstack.PeerCertificate(addr, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if before.Subject.CommonName != "update-status-apiserver" {
		t.Fatalf("serving %q before the rotation", before.Subject.CommonName)
	}
	newDER, err := localstack.WriteServingCert(cert, key, "rotated-serving-cert")
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	var subject pkix.Name
	var lastErr error
	if err := wait.PollUntilContextTimeout(t.Context(), 250*time.Millisecond, 75*time.Second, true, func(context.Context) (bool, error) {
		got, err := localstack.PeerCertificate(addr, 0, 0)
		if lastErr = err; err == nil {
			if subject = got.Subject; string(got.Raw) == string(newDER) {
				return true, nil
			}
		}
		if exited, _ := in.Process.Exited(); exited {
			return false, errors.New("the server exited after its certificate was replaced")
		}
		return false, nil
	}); wait.Interrupted(err) {
		t.Fatalf("75s after the replacement new connections still get %v (error %v)", subject, lastErr)
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("new connections got the new certificate %v after it was written", time.Since(begin).Round(time.Millisecond))
	// The same process still serves requests.
	if _, err := directClient(t, in.URL, &cp.Users.Admin).UpdateV1alpha1().UpdateStatuses().Get(t.Context(), statusName, metav1.GetOptions{}); err != nil {
		// The client trusts the test CA, which did not sign the new certificate.
		if !strings.Contains(err.Error(), "certificate") {
			t.Fatalf("GET after the rotation: %v", err)
		}
	}
}

// TestReplicas runs a second replica against the same kube-apiserver: both
// list at the same resourceVersion with the same content, and a watch opened on one with
// a resourceVersion read from the other sees the next change (or gets 410
// and relists).
func TestReplicas(t *testing.T) {
	ctx := t.Context()
	ensureUpdating(t)
	b := startInstance(t, localstack.InstanceOptions{Name: "replica-b"})
	ca := directClient(t, cp.ServerURL, &cp.Users.Admin).UpdateV1alpha1().UpdateStatuses()
	cb := directClient(t, b.URL, &cp.Users.Admin).UpdateV1alpha1().UpdateStatuses()

	present := func(us *v1alpha1.UpdateStatus) bool {
		return healthInsightAbout(us, "clusteroperators", "console") != nil
	}
	// agree waits until both replicas list at one resourceVersion, with the
	// same content and no console fault. The list's resourceVersion is the
	// one to compare: an object's is the revision in which the replica last
	// saw its content change, which differs when one replica computed a
	// burst in two parts and the other in one (docs/watch.md). Requiring
	// the fault to be gone matters: right after a restore both replicas
	// still agree on the faulty revision for up to a fold delay, and a watch
	// opened from it would see the restore and the next fault folded into
	// content identical to it (no event, rightly).
	agree := func(what string) string {
		t.Helper()
		var x, y *v1alpha1.UpdateStatusList
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			var errA, errB error
			x, errA = ca.List(ctx, metav1.ListOptions{})
			y, errB = cb.List(ctx, metav1.ListOptions{})
			if errA != nil || errB != nil || len(x.Items) != 1 || len(y.Items) != 1 || x.ResourceVersion != y.ResourceVersion || present(&x.Items[0]) {
				return false, nil
			}
			if dump(x.Items[0].Status) != dump(y.Items[0].Status) {
				return false, fmt.Errorf("%s: same resourceVersion %s, different content:\nA: %s\nB: %s", what, x.ResourceVersion, dump(x.Items[0].Status), dump(y.Items[0].Status))
			}
			return true, nil
		})
		switch {
		case wait.Interrupted(err):
			t.Fatalf("%s: the replicas do not converge on one fault-free list resourceVersion within 10s: A %s, B %s", what, listRV(x), listRV(y))
		case err != nil:
			t.Fatal(err)
		}
		return x.ResourceVersion
	}
	first := agree("at start")

	for _, tt := range []struct {
		name    string
		watchOn interface {
			Watch(context.Context, metav1.ListOptions) (watch.Interface, error)
		}
	}{
		{"watch on A with B's resourceVersion", ca},
		{"watch on B with A's resourceVersion", cb},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rv := agree("before the watch")
			w, err := tt.watchOn.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			restore := makeOperatorUnavailable(t, "console")
			defer restore()
			timeout := time.After(10 * time.Second)
			for {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						t.Fatal("the watch closed before the change")
					}
					if ev.Type == watch.Error {
						if err := apierrors.FromObject(ev.Object); apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
							t.Logf("410 from the other replica's resourceVersion: the client relists")
							return
						}
						t.Fatalf("watch error: %v", apierrors.FromObject(ev.Object))
					}
					if us, ok := ev.Object.(*v1alpha1.UpdateStatus); ok && present(us) {
						return
					}
				case <-timeout:
					t.Fatal("the change did not arrive within 10s")
				}
			}
		})
		// Let both replicas see the restore before the next case.
		agree("after " + tt.name)
	}
	t.Logf("replicas agreed on resourceVersion %s at start", first)
}

func listRV(l *v1alpha1.UpdateStatusList) string {
	if l == nil {
		return "<none>"
	}
	return l.ResourceVersion
}

// rawGet returns a GET of a path of the server at url as user that client-go
// does not retry: client-go waits out a 429's Retry-After and tries again,
// which hides the status and the header the limit tests assert.
func rawGet(t *testing.T, url string, user *localstack.User) func(ctx context.Context, path string) (*http.Response, error) {
	t.Helper()
	rt, err := rest.TransportFor(cp.DirectConfig(url, user))
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: rt}
	return func(ctx context.Context, path string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+path, nil)
		if err != nil {
			return nil, err
		}
		return hc.Do(req)
	}
}

// await429 GETs path until the answer is 429 Too Many Requests, and returns
// its Retry-After and body. The body is read within the poll, whose context
// ends the response.
func await429(ctx context.Context, get func(context.Context, string) (*http.Response, error), path string, timeout time.Duration) (retryAfter string, body []byte, err error) {
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		r, err := get(ctx, path)
		if err != nil {
			return false, err
		}
		defer func() { _ = r.Body.Close() }()
		if r.StatusCode != http.StatusTooManyRequests {
			return false, nil
		}
		retryAfter = r.Header.Get("Retry-After")
		body, err = io.ReadAll(r.Body)
		return err == nil, err
	})
	return retryAfter, body, err
}

// TestRequestsInFlightLimit: with --max-requests-inflight=1 and a LIST held
// in flight (one that waits for a resourceVersion the cache has not reached),
// a reader's GET is answered 429 with a Retry-After, while system:masters is
// not counted (as everywhere in Kubernetes); once nothing is held, the
// reader's GET is served again.
func TestRequestsInFlightLimit(t *testing.T) {
	ctx := t.Context()
	in := startInstance(t, localstack.InstanceOptions{Name: "inflight-limit", Args: []string{"--max-requests-inflight=1"}})
	get := rawGet(t, in.URL, &cp.Users.Viewer)
	// The watch cache holds a LIST from a future resourceVersion for a few
	// seconds before it gives up; one after another keeps the slot taken.
	holdCtx, release := context.WithCancel(ctx)
	held := make(chan struct{})
	go func() {
		defer close(held)
		for holdCtx.Err() == nil {
			if r, err := get(holdCtx, "/apis/update.openshift.io/v1alpha1/nodeprogressinsights?resourceVersion=999999999999&resourceVersionMatch=NotOlderThan"); err == nil {
				_, _ = io.Copy(io.Discard, r.Body)
				_ = r.Body.Close()
			}
		}
	}()
	retryAfter, body, err := await429(ctx, get, localstack.UpdateStatusPath, 20*time.Second)
	if err != nil {
		release()
		t.Fatalf("a reader's GET beside a held LIST was not refused: %v", err)
	}
	// The library's filter answers in plain text; client-go goes by the
	// status code and the Retry-After.
	if retryAfter != "1" || !strings.Contains(string(body), "Too many requests") {
		t.Errorf("429 with Retry-After %q and body %q: want Retry-After 1 and the library's message", retryAfter, body)
	}
	if _, err := directClient(t, in.URL, &cp.Users.Admin).UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{}); err != nil {
		t.Errorf("system:masters GET while the slot is taken: %v", err)
	}
	release()
	<-held
	if _, err := directClient(t, in.URL, &cp.Users.Viewer).UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{}); err != nil {
		t.Errorf("the reader's GET once nothing is held: %v", err)
	}
}

// TestWatchLimit runs a server with --max-watches=2: with two watches open
// the third is answered 429 with a Retry-After; GETs still answer, and the
// two open watches still get the next change.
func TestWatchLimit(t *testing.T) {
	ctx := t.Context()
	ensureUpdating(t)
	in := startInstance(t, localstack.InstanceOptions{Name: "watch-limit", Args: []string{"--max-watches=2"}})
	c := directClient(t, in.URL, &cp.Users.Admin).UpdateV1alpha1()
	us, err := c.UpdateStatuses().Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer us.Stop()
	hi, err := c.HealthInsights().Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer hi.Stop()
	// The watches count once the server handles them: wait for the refusal
	// rather than assume it. A raw request, as client-go would wait out the
	// Retry-After and try again.
	get := rawGet(t, in.URL, &cp.Users.Admin)
	retryAfter, body, err := await429(ctx, get, "/apis/update.openshift.io/v1alpha1/nodeprogressinsights?watch=true", 10*time.Second)
	if err != nil {
		t.Fatalf("a third watch was not refused: %v", err)
	}
	if retryAfter == "" || !strings.Contains(string(body), "TooManyRequests") {
		t.Errorf("429 with Retry-After %q and body %s: want a Retry-After and a TooManyRequests Status", retryAfter, body)
	}
	if _, err := c.UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{}); err != nil {
		t.Errorf("GET while the watches are full: %v", err)
	}

	restore := makeOperatorUnavailable(t, "console")
	defer restore()
	for name, w := range map[string]watch.Interface{"updatestatuses": us, "healthinsights": hi} {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				t.Errorf("the open %s watch: %v %v", name, ev.Type, ok)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("the open %s watch saw no event within 10s of the change", name)
		}
	}
}
