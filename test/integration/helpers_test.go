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
	"encoding/json"
	"io"
	"iter"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/informers/externalversions"
	"github.com/update-status/apiserver/pkg/simulator"
)

// statusName is the name of the singleton.
const statusName = "cluster"

// updateClient returns the generated clientset for user (nil: no credentials).
func updateClient(t *testing.T, user *localstack.User) versioned.Interface {
	t.Helper()
	return updateClientOf(t, cp, user)
}

// updateClientOf is updateClient for the control plane c.
func updateClientOf(t *testing.T, c *localstack.ControlPlane, user *localstack.User) versioned.Interface {
	t.Helper()
	return clientFor(t, versioned.NewForConfig, c.RESTConfig(user))
}

// clientFor returns the clientset newForConfig makes for cfg (versioned,
// kubernetes, dynamic, ... NewForConfig), or fails the test.
func clientFor[C any](t *testing.T, newForConfig func(*rest.Config) (C, error), cfg *rest.Config) C {
	t.Helper()
	client, err := newForConfig(cfg)
	if err != nil {
		t.Fatalf("clientset: %v", err)
	}
	return client
}

// getStatus reads the singleton as the admin user.
func getStatus(ctx context.Context, t *testing.T) *v1alpha1.UpdateStatus {
	t.Helper()
	us, err := updateClient(t, &cp.Users.Admin).UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get updatestatus/%s: %v", statusName, err)
	}
	return us
}

// waitForStatus polls the served object every 50 ms until pred holds and
// returns it with the time waited; it fails the test after timeout, showing
// the last object.
func waitForStatus(ctx context.Context, t *testing.T, timeout time.Duration, what string, pred func(*v1alpha1.UpdateStatus) bool) (*v1alpha1.UpdateStatus, time.Duration) {
	t.Helper()
	return waitForStatusOf(ctx, t, cp, timeout, what, pred)
}

// waitForStatusOf is waitForStatus for the control plane c.
func waitForStatusOf(ctx context.Context, t *testing.T, c *localstack.ControlPlane, timeout time.Duration, what string, pred func(*v1alpha1.UpdateStatus) bool) (*v1alpha1.UpdateStatus, time.Duration) {
	t.Helper()
	client := updateClientOf(t, c, &c.Users.Admin).UpdateV1alpha1().UpdateStatuses()
	begin := time.Now()
	var last, got *v1alpha1.UpdateStatus
	var lastErr error
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		us, err := client.Get(ctx, statusName, metav1.GetOptions{})
		if lastErr = err; err == nil {
			last = us
			if pred(us) {
				got = us
			}
		}
		return got != nil, nil
	}); err != nil {
		t.Fatalf("after %v the served UpdateStatus still does not show %s (last error: %v); last object:\n%s",
			timeout, what, lastErr, dump(last))
	}
	return got, time.Since(begin)
}

func dump(obj any) string {
	b, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// cvInsight returns the ClusterVersion insight of the control plane, or nil.
func cvInsight(us *v1alpha1.UpdateStatus) *v1alpha1.ClusterVersionStatusInsight {
	if us == nil || us.Status.ControlPlane == nil {
		return nil
	}
	for _, inf := range us.Status.ControlPlane.Informers {
		for _, in := range inf.Insights {
			if in.Insight.ClusterVersionStatusInsight != nil {
				return in.Insight.ClusterVersionStatusInsight
			}
		}
	}
	return nil
}

// placedInsight is one insight of an UpdateStatus: the informer that lists
// it, its worker pool ("" for the control plane's) and the union members
// the control plane and the worker pools share, and the control plane's
// ClusterVersion insight.
type placedInsight struct {
	informer, pool string
	cv             *v1alpha1.ClusterVersionStatusInsight
	mcp            *v1alpha1.MachineConfigPoolStatusInsight
	node           *v1alpha1.NodeStatusInsight
	health         *v1alpha1.HealthStatusInsight
}

// allInsights yields every insight of us (none when us is nil): the control
// plane's first, then each worker pool's.
func allInsights(us *v1alpha1.UpdateStatus) iter.Seq[placedInsight] {
	return func(yield func(placedInsight) bool) {
		if us == nil {
			return
		}
		if cp := us.Status.ControlPlane; cp != nil {
			for _, inf := range cp.Informers {
				for _, in := range inf.Insights {
					u := &in.Insight
					if !yield(placedInsight{informer: inf.Name, cv: u.ClusterVersionStatusInsight, mcp: u.MachineConfigPoolStatusInsight, node: u.NodeStatusInsight, health: u.HealthInsight}) {
						return
					}
				}
			}
		}
		for _, p := range us.Status.WorkerPools {
			for _, inf := range p.Informers {
				for _, in := range inf.Insights {
					u := &in.Insight
					if !yield(placedInsight{informer: inf.Name, pool: p.Name, mcp: u.MachineConfigPoolStatusInsight, node: u.NodeStatusInsight, health: u.HealthInsight}) {
						return
					}
				}
			}
		}
	}
}

// healthInsights returns every health insight of the control plane and the
// worker pools.
func healthInsights(us *v1alpha1.UpdateStatus) []v1alpha1.HealthStatusInsight {
	var out []v1alpha1.HealthStatusInsight
	for in := range allInsights(us) {
		if in.health != nil {
			out = append(out, *in.health)
		}
	}
	return out
}

// healthInsightAbout returns the health insight whose scope names the
// resource (e.g. "clusteroperators", "dns"), or nil.
func healthInsightAbout(us *v1alpha1.UpdateStatus, resource, name string) *v1alpha1.HealthStatusInsight {
	for _, h := range healthInsights(us) {
		for _, r := range h.Scope.Resources {
			if r.Resource == resource && r.Name == name {
				return &h
			}
		}
	}
	return nil
}

// nodeInsight returns the insight about a node, wherever it is placed.
func nodeInsight(us *v1alpha1.UpdateStatus, node string) *v1alpha1.NodeStatusInsight {
	for in := range allInsights(us) {
		if in.node != nil && in.node.Name == node {
			return in.node
		}
	}
	return nil
}

// poolInsight returns the MachineConfigPool insight of a worker pool.
func poolInsight(us *v1alpha1.UpdateStatus, pool string) *v1alpha1.MachineConfigPoolStatusInsight {
	for in := range allInsights(us) {
		if in.pool != "" && in.mcp != nil && in.mcp.Name == pool {
			return in.mcp
		}
	}
	return nil
}

// conditionStatus returns the status of the condition of type typ, or "".
func conditionStatus(conds []metav1.Condition, typ string) metav1.ConditionStatus {
	for _, c := range conds {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

// serviceAccountClients returns the update and Kubernetes clientsets that
// act as the ServiceAccount name in namespace of the shared control plane.
func serviceAccountClients(ctx context.Context, t *testing.T, namespace, name string) (versioned.Interface, kubernetes.Interface) {
	t.Helper()
	path, err := cp.ServiceAccountKubeconfig(ctx, namespace, name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	return clientFor(t, versioned.NewForConfig, cfg), clientFor(t, kubernetes.NewForConfig, cfg)
}

// startAndSync starts factory's informers, shuts them down when the test
// ends and fails the test unless they all sync within 30 seconds.
func startAndSync(ctx context.Context, t *testing.T, factory externalversions.SharedInformerFactory) {
	t.Helper()
	factory.Start(ctx.Done())
	t.Cleanup(factory.Shutdown)
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for typ, ok := range factory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			t.Fatalf("informer %v did not sync", typ)
		}
	}
}

// ownControlPlane starts a control plane of its own in a test directory
// named name, for a test that would disturb the shared one, and stops it
// when the test ends. The server is not started.
func ownControlPlane(ctx context.Context, t *testing.T, name string) *localstack.ControlPlane {
	t.Helper()
	return ownControlPlaneWith(ctx, t, name, localstack.Options{})
}

// ownControlPlaneWith is ownControlPlane with o (its Dir is filled in).
func ownControlPlaneWith(ctx context.Context, t *testing.T, name string, o localstack.Options) *localstack.ControlPlane {
	t.Helper()
	o.Dir = filepath.Join(t.TempDir(), name)
	own, err := localstack.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(own.Stop)
	return own
}

// startServerOf starts the server of the control plane c with opts, or
// fails the test with the last lines of its log.
func startServerOf(ctx context.Context, t *testing.T, c *localstack.ControlPlane, opts localstack.ServerOptions) {
	t.Helper()
	if err := c.StartServerWith(ctx, opts); err != nil {
		t.Fatalf("start the server: %v\n%s", err, c.Logs(40))
	}
}

// ownSimulatedCluster starts a control plane of its own in a test
// directory named name, for a test that would disturb the shared one, and
// creates in it the simulated cluster of opts on a fake clock (opts' Sink
// and Clock are filled in). The server is not started.
func ownSimulatedCluster(ctx context.Context, t *testing.T, name string, opts simulator.Options) (*localstack.ControlPlane, *simulator.Simulator, *clocktesting.FakeClock) {
	t.Helper()
	own := ownControlPlane(ctx, t, name)
	clk := clocktesting.NewFakeClock(time.Now())
	var err error
	if opts.Sink, err = simulator.NewAPISink(own.RESTConfig(&own.Users.Admin), simulator.APISinkOptions{QPS: -1, Workers: 16}); err != nil {
		t.Fatal(err)
	}
	opts.Clock = clk
	sim, err := simulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Create(ctx); err != nil {
		t.Fatal(err)
	}
	return own, sim, clk
}

// startPrometheusOver serves the simulator's metrics on loopback and starts
// own's Prometheus over them (and over own's server, see
// localstack.ControlPlane.StartPrometheus).
func startPrometheusOver(ctx context.Context, t *testing.T, own *localstack.ControlPlane, sim *simulator.Simulator) *localstack.Prometheus {
	t.Helper()
	if _, err := localstack.PrometheusBinary(); err != nil {
		t.Fatalf("%v", err)
	}
	metricsSrv := httptest.NewServer(sim.MetricsHandler())
	t.Cleanup(metricsSrv.Close)
	prom, err := own.StartPrometheus(ctx, strings.TrimPrefix(metricsSrv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	return prom
}

// sampleEvery calls sample at once and then every interval in the
// background until the returned stop is called; stop returns when the last
// call has.
func sampleEvery(interval time.Duration, sample func()) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		for {
			sample()
			select {
			case <-done:
				return
			case <-time.After(interval):
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// awaitWatch reads what a kubectl watch (started by startKubectl) sends on
// events until pred accepts one, and returns what it read, the accepted one
// last. It fails the test when the watch ends first (with kubectl's
// stderr) or when nothing is accepted within timeout.
func awaitWatch[T any](t *testing.T, events <-chan T, stderr *strings.Builder, what string, timeout time.Duration, pred func(T) bool) []T {
	t.Helper()
	var seen []T
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the kubectl watch ended while waiting for %s: %s", what, stderr.String())
			}
			seen = append(seen, ev)
			if pred(ev) {
				return seen
			}
		case <-deadline:
			t.Fatalf("the kubectl watch showed no %s within %v; saw %d events", what, timeout, len(seen))
		}
	}
}

// startKubectl starts kubectl as the admin with args (a watch, which runs
// until ctx is cancelled) and returns its standard output and error; the
// test's cleanup calls cancel and waits for it.
func startKubectl(ctx context.Context, t *testing.T, cancel context.CancelFunc, args ...string) (io.Reader, *strings.Builder) {
	t.Helper()
	return startKubectlOf(ctx, t, cp, cancel, args...)
}

// startKubectlOf is startKubectl on the control plane c.
func startKubectlOf(ctx context.Context, t *testing.T, c *localstack.ControlPlane, cancel context.CancelFunc, args ...string) (io.Reader, *strings.Builder) {
	t.Helper()
	cmd := c.KubectlCommand(ctx, localstack.AdminUser, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return stdout, stderr
}
