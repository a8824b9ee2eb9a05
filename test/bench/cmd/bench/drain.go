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

package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/update-status/apiserver/internal/localstack"
	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/simulator"
)

// drainSpec is the drain informer cell (-drain, -drain-draining,
// -drain-small-pods): a cluster of Nodes nodes holding Pods pods, Draining
// of its workers draining with PerNode pods each; measured first with
// SmallPods pods in the cluster, then with Pods.
type drainSpec struct {
	Nodes, Pods       int
	Draining, PerNode int
	SmallPods         int
}

func (d drainSpec) String() string {
	if d.Nodes == 0 {
		return ""
	}
	return fmt.Sprintf("%dx%d", d.Nodes, d.Pods)
}

// parsePair parses "<a>x<b>" of two positive integers.
func parsePair(s, what string) (int, int, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "x")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || x < 1 || y < 1 {
		return 0, 0, fmt.Errorf("%q is not %s (two positive integers)", s, what)
	}
	return x, y, nil
}

// parseDrain reads the three flags of the cell; an empty -drain skips it.
func parseDrain(cell, draining string, small int) (drainSpec, error) {
	if strings.TrimSpace(cell) == "" {
		return drainSpec{}, nil
	}
	var d drainSpec
	var err error
	if d.Nodes, d.Pods, err = parsePair(cell, "<nodes>x<pods>"); err != nil {
		return drainSpec{}, err
	}
	if d.Draining, d.PerNode, err = parsePair(draining, "<draining nodes>x<pods each>"); err != nil {
		return drainSpec{}, err
	}
	d.SmallPods = small
	switch {
	case d.Nodes > 10000:
		return drainSpec{}, fmt.Errorf("-drain=%s: at most 10000 nodes (the simulator's limit)", cell)
	case d.Draining > d.Nodes-3-1:
		return drainSpec{}, fmt.Errorf("-drain-draining=%s: more draining nodes than workers with one to spare", draining)
	case d.SmallPods < d.Draining*d.PerNode || d.SmallPods > d.Pods:
		return drainSpec{}, fmt.Errorf("-drain-small-pods=%d: between the draining nodes' pods (%d) and -drain's pods (%d)", small, d.Draining*d.PerNode, d.Pods)
	}
	return d, nil
}

// drainResult is the cell's outcome.
type drainResult struct {
	Spec        drainSpec
	CreateNodes time.Duration
	Runs        []*drainRun
	Notes       []string
}

// drainRun is one measurement of the informer, with Pods pods in the
// cluster.
type drainRun struct {
	Pods int
	// CreatePods is how long creating the pods added for this run took
	// (PodsAdded of them).
	CreatePods time.Duration
	PodsAdded  int
	// Ready is the time from the informer's start to its insights about
	// every draining node (budgets at 0) being served.
	Ready time.Duration
	// RSS is the informer's resident memory at the end of the run, Peak
	// its high-water mark.
	RSS, Peak float64
	// CPU is the informer's CPU (cores) over the steady window, Window
	// long; Requests its requests to the kube-apiserver in that window,
	// StartupRequests those before it (the lists and watches of its start
	// and the first contributions).
	CPU             float64
	Window          time.Duration
	Requests        int64
	StartupRequests int64
	// Latency is the time from a budget set to disruptionsAllowed 0 to the
	// insight naming its node in the API, one sample per draining node
	// measured.
	Latency []time.Duration
}

// RequestsPerMinute is the steady request rate.
func (r *drainRun) RequestsPerMinute() float64 {
	if r.Window <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Window.Minutes()
}

// Names of the cell's objects.
const (
	drainNamespace      = "bench-drain"
	backgroundNamespace = "bench-background"
	drainImage          = "registry.invalid/bench/app:1"
)

func drainPodName(node, pod int) string { return fmt.Sprintf("db-%d-%d", node, pod) }
func drainApp(node int) string          { return fmt.Sprintf("db-%d", node) }

// benchDrain runs the cell on its own control plane.
func benchDrain(ctx context.Context, c config) (_ *drainResult, err error) {
	d := c.drain
	r := &drainResult{Spec: d}
	klog.InfoS("Starting the control plane of the drain informer cell", "nodes", d.Nodes, "pods", d.Pods)
	cp, err := localstack.Start(ctx, localstack.Options{MachineConfigNodes: true})
	if err != nil {
		return nil, err
	}
	defer cp.Stop()
	if err := cp.StartServer(ctx); err != nil {
		return nil, err
	}
	admin := cp.RESTConfig(&cp.Users.Admin)
	cs, err := newClientsets(admin)
	if err != nil {
		return nil, err
	}

	// The nodes: the simulator's cluster at rest (its pools, nodes and
	// operators).
	t := time.Now()
	if err := createSimulatedCluster(ctx, cp, d.Nodes); err != nil {
		return nil, err
	}
	r.CreateNodes = time.Since(t)
	workers, err := workerNames(ctx, cs.kube)
	if err != nil {
		return nil, err
	}
	if len(workers) <= d.Draining {
		return nil, fmt.Errorf("%d workers for %d draining nodes", len(workers), d.Draining)
	}
	draining, others := workers[:d.Draining], workers[d.Draining:]
	klog.InfoS("Created the nodes", "nodes", d.Nodes, "elapsed", r.CreateNodes.Round(time.Millisecond))

	for _, ns := range []string{drainNamespace, backgroundNamespace} {
		if _, err := cs.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
	}
	clients, err := podClients(admin, 8)
	if err != nil {
		return nil, err
	}
	// The draining nodes' pods (running and ready, as their kubelet
	// reports) and one budget per node, with room for one disruption.
	t = time.Now()
	if err := createDrainPods(ctx, clients, draining, d.PerNode); err != nil {
		return nil, err
	}
	for i := range draining {
		if err := createBudget(ctx, cs.kube, i, d.PerNode); err != nil {
			return nil, err
		}
	}
	if err := markDraining(ctx, cs.kube, draining); err != nil {
		return nil, err
	}
	created := d.Draining * d.PerNode
	firstCreate := time.Since(t)

	proxy, err := startCountingProxy(cp)
	if err != nil {
		return nil, err
	}
	defer proxy.close()
	kubeconfig, err := proxy.kubeconfig(ctx, cp, filepath.Join(cp.Dir, "drain-informer-proxied.kubeconfig"))
	if err != nil {
		return nil, err
	}

	for i, total := range []int{d.SmallPods, d.Pods} {
		if i == 1 && total == d.SmallPods {
			break
		}
		run := &drainRun{Pods: total}
		t := time.Now()
		if err := createBackgroundPods(ctx, clients, others, created, total-created); err != nil {
			return r, err
		}
		run.PodsAdded, run.CreatePods = total-created, time.Since(t)
		if i == 0 {
			run.PodsAdded, run.CreatePods = total, run.CreatePods+firstCreate
		}
		created = total
		klog.InfoS("Pods in the cluster", "pods", total, "added", run.PodsAdded, "elapsed", run.CreatePods.Round(time.Millisecond))
		if err := measureDrainInformer(ctx, c, cp, cs.kube, cs.updates, proxy, kubeconfig, draining, run); err != nil {
			return r, err
		}
		r.Runs = append(r.Runs, run)
	}
	return r, nil
}

// createSimulatedCluster writes the simulator's cluster of n nodes, at rest,
// with a MachineConfigNode for every node as the machine-config operator keeps.
func createSimulatedCluster(ctx context.Context, cp *localstack.ControlPlane, n int) error {
	sink, err := simulator.NewAPISink(cp.RESTConfig(&cp.Users.Admin), simulator.APISinkOptions{QPS: -1, Workers: 64})
	if err != nil {
		return err
	}
	sim, err := simulator.New(simulator.Options{Nodes: n, Seed: 1, Sink: sink, MachineConfigNodes: true})
	if err != nil {
		return err
	}
	return sim.Create(ctx)
}

// workerNames are the nodes of the worker pool, by name.
func workerNames(ctx context.Context, kube kubernetes.Interface) ([]string, error) {
	list, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "node-role.kubernetes.io/worker,!node-role.kubernetes.io/master", ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(list.Items))
	for _, n := range list.Items {
		out = append(out, n.Name)
	}
	return out, nil
}

// podClients are k clientsets, each on its own connection, so that creating
// pods is not bound by one HTTP/2 connection.
func podClients(cfg *rest.Config, k int) ([]kubernetes.Interface, error) {
	out := make([]kubernetes.Interface, k)
	for i := range out {
		c := unlimited(cfg)
		// A dialer of its own keeps client-go from sharing the cached
		// transport (and its connection).
		c.Dial = (&net.Dialer{Timeout: 30 * time.Second}).DialContext
		var err error
		if out[i], err = kubernetes.NewForConfig(c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// podWorkers is how many pods are created at once.
const podWorkers = 64

// concurrently calls do(client, i) for every i below n, with podWorkers
// calls at once spread over clients; it stops at the first error.
func concurrently(ctx context.Context, clients []kubernetes.Interface, n int, do func(kubernetes.Interface, int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(podWorkers)
	for i := 0; i < n && gctx.Err() == nil; i++ {
		client := clients[i%len(clients)]
		g.Go(func() error { return do(client, i) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// createPods creates n pods, build(i) the i-th.
func createPods(ctx context.Context, clients []kubernetes.Interface, n int, build func(i int) *corev1.Pod) error {
	return concurrently(ctx, clients, n, func(client kubernetes.Interface, i int) error {
		p := build(i)
		if _, err := client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		return nil
	})
}

// benchPod is a pod of a ReplicaSet bound to node (no scheduler: the local
// stack has none; spec.nodeName is set at creation).
func benchPod(ns, name, app, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app,
				UID: types.UID("00000000-0000-4000-8000-000000000001"), Controller: ptr.To(true)}}},
		Spec: corev1.PodSpec{NodeName: node, AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{Name: "app", Image: drainImage}}},
	}
}

// createDrainPods creates perNode pods on each draining node and writes
// their status running and ready.
func createDrainPods(ctx context.Context, clients []kubernetes.Interface, draining []string, perNode int) error {
	build := func(i int) *corev1.Pod {
		node := i / perNode
		return benchPod(drainNamespace, drainPodName(node, i%perNode), drainApp(node), draining[node])
	}
	if err := createPods(ctx, clients, len(draining)*perNode, build); err != nil {
		return err
	}
	now := metav1.Now()
	return concurrently(ctx, clients, len(draining)*perNode, func(client kubernetes.Interface, i int) error {
		p := build(i)
		p.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &now,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}}
		if _, err := client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("status of pod %s: %w", p.Name, err)
		}
		return nil
	})
}

// createBackgroundPods adds n pods (from index from) spread over nodes:
// the cluster's other workloads, which the informer must not hold. They
// stay Pending without status: nothing runs them.
func createBackgroundPods(ctx context.Context, clients []kubernetes.Interface, nodes []string, from, n int) error {
	if n <= 0 {
		return nil
	}
	return createPods(ctx, clients, n, func(i int) *corev1.Pod {
		k := from + i
		return benchPod(backgroundNamespace, fmt.Sprintf("app-%d", k), fmt.Sprintf("app-%d", k%1000), nodes[k%len(nodes)])
	})
}

// createBudget creates the budget of draining node i, with room for one
// disruption (the local stack has no disruption controller: the cell
// writes the status).
func createBudget(ctx context.Context, kube kubernetes.Interface, i, pods int) error {
	b, err := kube.PolicyV1().PodDisruptionBudgets(drainNamespace).Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: drainApp(i)},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(int32(pods - 1))),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": drainApp(i)}}},
	}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	return setBudgetStatus(ctx, kube, b, 1)
}

// setBudgetStatus writes the budget's status with allowed disruptions.
func setBudgetStatus(ctx context.Context, kube kubernetes.Interface, b *policyv1.PodDisruptionBudget, allowed int32) error {
	expected := *b.Spec.MinAvailable
	healthy := expected.IntVal + 1
	b.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: b.Generation, ExpectedPods: healthy, CurrentHealthy: healthy,
		DesiredHealthy: healthy - allowed, DisruptionsAllowed: allowed}
	_, err := kube.PolicyV1().PodDisruptionBudgets(b.Namespace).UpdateStatus(ctx, b, metav1.UpdateOptions{})
	return err
}

// setBudgets sets the budgets of the draining nodes idx to allowed.
func setBudgets(ctx context.Context, kube kubernetes.Interface, allowed int32, idx ...int) error {
	for _, i := range idx {
		b, err := kube.PolicyV1().PodDisruptionBudgets(drainNamespace).Get(ctx, drainApp(i), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := setBudgetStatus(ctx, kube, b, allowed); err != nil {
			return err
		}
	}
	return nil
}

// markDraining cordons the nodes with a drain the daemon asked for and the
// drain controller has not completed.
func markDraining(ctx context.Context, kube kubernetes.Interface, nodes []string) error {
	for _, name := range nodes {
		n, err := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Unschedulable = true
		n.Annotations[insights.DesiredDrainAnnotation] = "drain-" + n.Annotations[insights.CurrentConfigAnnotation] + "-bench"
		if _, err := kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// countingProxy forwards the informer's requests to the kube-apiserver and
// counts them. It serves TLS with the kube-apiserver's certificate, so that
// the informer talks to it as to a kube-apiserver (HTTP/2, its watches on
// one connection).
type countingProxy struct {
	srv      *http.Server
	url      string
	requests atomic.Int64
}

func startCountingProxy(cp *localstack.ControlPlane) (*countingProxy, error) {
	target, err := url.Parse(cp.KubeAPIServer.URL)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cp.PKI.CAPEM) {
		return nil, fmt.Errorf("no CA certificate")
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 64}
	rp.FlushInterval = -1 // watches stream
	p := &countingProxy{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.url = "https://" + l.Addr().String()
	p.srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p.requests.Add(1)
		rp.ServeHTTP(w, req)
	})}
	go func() { _ = p.srv.ServeTLS(l, cp.PKI.KubeAPIServerCert, cp.PKI.KubeAPIServerKey) }()
	return p, nil
}

func (p *countingProxy) close() { _ = p.srv.Close() }

// kubeconfig writes a kubeconfig of the drain informer's ServiceAccount
// that goes through the proxy, to path.
func (p *countingProxy) kubeconfig(ctx context.Context, cp *localstack.ControlPlane, path string) (string, error) {
	sa, err := cp.ServiceAccountKubeconfig(ctx, localstack.DrainInformerNamespace, localstack.DrainInformerServiceAccount)
	if err != nil {
		return "", err
	}
	// The same credentials and CA, the cluster's address the proxy's.
	kc, err := clientcmd.LoadFromFile(sa)
	if err != nil {
		return "", err
	}
	for _, c := range kc.Clusters {
		c.Server = p.url
	}
	return path, clientcmd.WriteToFile(*kc, path)
}

// measureDrainInformer starts the informer (through the proxy) and fills
// run.
func measureDrainInformer(ctx context.Context, c config, cp *localstack.ControlPlane, kube kubernetes.Interface, updates versioned.Interface,
	proxy *countingProxy, kubeconfig string, draining []string, run *drainRun) error {
	all := make([]int, len(draining))
	for i := range all {
		all[i] = i
	}
	// Every budget at 0 at the start: the informer is ready when it names
	// every draining node.
	if err := setBudgets(ctx, kube, 0, all...); err != nil {
		return err
	}
	proxy.requests.Store(0)
	start := time.Now()
	p, err := cp.StartDrainInformer(ctx, "--kubeconfig="+kubeconfig, "--lease=60s", "--resync=10s")
	if err != nil {
		return err
	}
	defer func() {
		p.Stop(10 * time.Second)
		_ = updates.InformersV1alpha1().UpdateInformers(localstack.DrainInformerNamespace).Delete(context.Background(), localstack.DrainInformerName, metav1.DeleteOptions{})
	}()
	name := informersv1alpha1.InformerName(localstack.DrainInformerNamespace, localstack.DrainInformerName)
	named := func() (map[string]bool, error) {
		list, err := updates.UpdateV1alpha1().HealthInsights().List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.LabelInformer + "=" + name})
		if err != nil {
			return nil, err
		}
		out := map[string]bool{}
		for _, hi := range list.Items {
			for _, ref := range hi.Status.Scope.Resources {
				if ref.Resource == "nodes" {
					out[ref.Name] = true
				}
			}
		}
		return out, nil
	}
	waitNamed := func(timeout time.Duration, done func(map[string]bool) bool) error {
		return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
			m, err := named()
			return err == nil && done(m), nil
		})
	}
	if err := waitNamed(5*time.Minute, func(m map[string]bool) bool {
		if exited, _ := p.Exited(); exited {
			return true
		}
		return len(m) == len(draining)
	}); err != nil {
		return fmt.Errorf("the informer did not name the %d draining nodes: %w\n%s", len(draining), err, p.LogTail(20))
	}
	if exited, err := p.Exited(); exited {
		return fmt.Errorf("the informer exited: %v\n%s", err, p.LogTail(20))
	}
	run.Ready = time.Since(start)
	if err := setBudgets(ctx, kube, 1, all...); err != nil {
		return err
	}
	if err := waitNamed(time.Minute, func(m map[string]bool) bool { return len(m) == 0 }); err != nil {
		return fmt.Errorf("the insights stayed after the budgets allowed a disruption: %w", err)
	}
	run.StartupRequests = proxy.requests.Load()

	// The steady window: draining nodes, nothing held, nothing changing.
	cpu0, err := cpuSeconds(p.Pid())
	if err != nil {
		return err
	}
	proxy.requests.Store(0)
	t0 := time.Now()
	if err := window(ctx, c.drainWindow); err != nil {
		return err
	}
	run.Window = time.Since(t0)
	run.Requests = proxy.requests.Load()
	cpu1, err := cpuSeconds(p.Pid())
	if err != nil {
		return err
	}
	run.CPU = (cpu1 - cpu0) / run.Window.Seconds()

	// A budget reaching 0, one draining node at a time.
	for i := range min(c.drainSamples, len(draining)) {
		t := time.Now()
		if err := setBudgets(ctx, kube, 0, i); err != nil {
			return err
		}
		if err := waitNamed(time.Minute, func(m map[string]bool) bool { return m[draining[i]] }); err != nil {
			return fmt.Errorf("no insight about %s after its budget reached 0: %w", draining[i], err)
		}
		run.Latency = append(run.Latency, time.Since(t))
		if err := setBudgets(ctx, kube, 1, i); err != nil {
			return err
		}
		if err := waitNamed(time.Minute, func(m map[string]bool) bool { return len(m) == 0 }); err != nil {
			return err
		}
	}
	if run.RSS, err = rssBytes(p.Pid()); err != nil {
		return err
	}
	run.Peak, err = statusBytes(p.Pid(), "VmHWM:")
	return err
}
