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
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/hypershift"
	"github.com/update-status/apiserver/pkg/simulator"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// The management-cluster cell (issue #50): a HyperShift management cluster
// with a fleet of hosted clusters, each of NodePools x Machines Machines
// and Components ControlPlaneComponents, in the middle of an update,
// measured once per fleet size on a control plane of its own: the
// server's initial sync and heap, and, under a churn of Machine changes,
// its CPU per change and the lag of watchers of one hosted cluster's node
// insights beside watchers of its Machines.

// hostedSpec is the cell's flags.
type hostedSpec struct {
	// Clusters are the fleet sizes (hosted clusters); none skips the cell.
	Clusters []int
	// NodePools per hosted cluster, Machines per NodePool, Components per
	// control plane.
	NodePools, Machines, Components int
	// Watchers on each side; Rate changes per second for Duration.
	Watchers int
	Rate     int
	Duration time.Duration
}

// register defines the cell's flags on fs; the function it returns
// completes the spec once fs is parsed.
func (s *hostedSpec) register(fs *flag.FlagSet) func() error {
	clusters := fs.String("hosted", "10,200", "the management-cluster cell: fleet sizes (hosted clusters), comma-separated, each on its own control plane; empty to skip")
	fs.IntVar(&s.NodePools, "hosted-nodepools", 2, "with -hosted: NodePools per hosted cluster")
	fs.IntVar(&s.Machines, "hosted-machines", 25, "with -hosted: Machines per NodePool")
	fs.IntVar(&s.Components, "hosted-components", 40, "with -hosted: ControlPlaneComponents per hosted control plane")
	fs.IntVar(&s.Watchers, "hosted-watchers", 10, "with -hosted: watchers of each side (one hosted cluster's Machines, its node insights, every hosted cluster's node insights)")
	fs.IntVar(&s.Rate, "hosted-rate", 10, "with -hosted: Machine changes (NodeHealthy toggled) per second")
	fs.DurationVar(&s.Duration, "hosted-duration", 30*time.Second, "with -hosted: how long each churn writes changes")
	return func() error {
		s.Clusters = nil
		if strings.TrimSpace(*clusters) == "" {
			return nil
		}
		var err error
		if s.Clusters, err = ints(*clusters); err != nil {
			return fmt.Errorf("-hosted: %w", err)
		}
		if s.NodePools < 1 || s.Machines < 1 || s.Components < 1 || s.Watchers < 1 || s.Rate < 1 || s.Duration < time.Second {
			return fmt.Errorf("-hosted-nodepools=%d -hosted-machines=%d -hosted-components=%d -hosted-watchers=%d -hosted-rate=%d -hosted-duration=%v: at least 1 each and 1s",
				s.NodePools, s.Machines, s.Components, s.Watchers, s.Rate, s.Duration)
		}
		return nil
	}
}

// flags returns the flags of the spec, for flagsLine.
func (s hostedSpec) flags() string {
	if len(s.Clusters) == 0 {
		return ` -hosted=""`
	}
	c := make([]string, len(s.Clusters))
	for i, n := range s.Clusters {
		c[i] = fmt.Sprint(n)
	}
	return fmt.Sprintf(" -hosted=%s -hosted-nodepools=%d -hosted-machines=%d -hosted-components=%d -hosted-watchers=%d -hosted-rate=%d -hosted-duration=%v",
		strings.Join(c, ","), s.NodePools, s.Machines, s.Components, s.Watchers, s.Rate, s.Duration)
}

// The cell's kinds of watchers.
const (
	kindMachines      = "machines"
	kindHostedNodes   = "hostednodeprogressinsights"
	kindHostedFleet   = "hostednodeprogressinsights, every hosted cluster"
	hostedNamespace   = "clusters"
	hostedUnhealthyBy = "bench: the node is unhealthy"
	// hostedHealthyBy is the message of a healthy Machine: Cluster API's
	// schema wants one.
	hostedHealthyBy = "bench: the node is healthy"
)

// machinesGVR are Cluster API's Machines, in the version the simulator
// writes.
var machinesGVR = capiv1.GroupVersion.WithResource("machines")

// hostedRun is the cell at one fleet size.
type hostedRun struct {
	Clusters int
	// Machines and Components are the fleet's.
	Machines, Components int
	// Create is how long writing the fleet took, Requests its API requests.
	Create   time.Duration
	Requests int64
	// Ready is the time from the server's start to its /readyz, Sync to
	// every hosted cluster's HostedClusterUpdateStatus and every Machine's
	// node insight listed.
	Ready, Sync time.Duration
	// Empty is the server's memory on the control plane before the fleet,
	// Mem after the sync.
	Empty, Mem memory
	// One is the churn over the first hosted cluster's Machines watched as
	// Machines and as its node insights; Fleet the churn over Machines of
	// every hosted cluster, watched as every hosted cluster's node insights.
	Machines1, Insights1, Fleet *nodeWatchCell
}

// hostedResult is the cell.
type hostedResult struct {
	Spec  hostedSpec
	Runs  []*hostedRun
	Notes []string
}

// benchHosted runs the cell, each fleet size on its own control plane.
func benchHosted(ctx context.Context, c config) (*hostedResult, error) {
	res := &hostedResult{Spec: c.hosted}
	for _, n := range c.hosted.Clusters {
		run, err := benchHostedFleet(ctx, c, n)
		if run != nil {
			res.Runs = append(res.Runs, run)
		}
		if err != nil {
			return res, fmt.Errorf("%d hosted clusters: %w", n, err)
		}
	}
	return res, nil
}

// benchHostedFleet measures a fleet of n hosted clusters.
func benchHostedFleet(ctx context.Context, c config, n int) (_ *hostedRun, err error) {
	s := c.hosted
	r := &hostedRun{Clusters: n, Machines: n * s.NodePools * s.Machines, Components: n * s.Components}
	klog.InfoS("Starting the control plane of the management-cluster cell", "hostedClusters", n)
	cp, err := localstack.Start(ctx, localstack.Options{HostedCRDs: true})
	if err != nil {
		return nil, err
	}
	defer cp.Stop()
	admin := newHTTPClient(cp.PKI.CAPEM, cp.Users.Admin.Token)
	profDir := filepath.Join(c.artifacts, fmt.Sprintf("hosted-%d", n))
	if err := os.MkdirAll(profDir, 0o755); err != nil {
		return nil, err
	}

	// The server on the empty management cluster (the CRDs only): the
	// memory baseline.
	if err := cp.StartServer(ctx); err != nil {
		return nil, err
	}
	if r.Empty, err = measureMemory(ctx, admin, cp.ServerURL, cp.Server.Pid()); err != nil {
		return nil, err
	}
	cp.Server.Stop(10 * time.Second)

	// The fleet, created through the API at full speed, then the update
	// requested: every control plane and NodePool targets the new release,
	// none has moved yet.
	t := time.Now()
	// Cluster API's CRD warns about the Machines' finalizer on every write.
	quiet := cp.RESTConfig(&cp.Users.Admin)
	quiet.WarningHandler = rest.NoWarnings{}
	sink, err := simulator.NewAPISink(quiet, simulator.APISinkOptions{QPS: -1, Workers: 64})
	if err != nil {
		return nil, err
	}
	clusters := hosted.NewClusters(n)
	for i := range clusters {
		clusters[i].Nodes, clusters[i].NodePools = s.Machines, s.NodePools
	}
	sim, err := hosted.New(hosted.Options{Namespace: hostedNamespace, Clusters: clusters, Components: s.Components, Sink: sink})
	if err != nil {
		return nil, err
	}
	if err := sim.Create(ctx); err != nil {
		return nil, fmt.Errorf("creating the fleet: %w", err)
	}
	if err := sim.StartUpdate(ctx); err != nil {
		return nil, err
	}
	r.Create, r.Requests = time.Since(t), sink.Requests()
	klog.InfoS("Created the fleet", "hostedClusters", n, "machines", r.Machines, "elapsed", r.Create.Round(time.Millisecond))

	p, ready, err := startServer(ctx, cp, mustBin(), admin)
	if err != nil {
		return r, err
	}
	cp.Server = p
	r.Ready = ready
	if err := waitHostedSynced(ctx, admin, cp.ServerURL, n, r.Machines); err != nil {
		return r, err
	}
	r.Sync = time.Since(t.Add(r.Create))
	klog.InfoS("Fleet synced", "hostedClusters", n, "ready", ready.Round(time.Millisecond), "sync", r.Sync.Round(time.Millisecond))
	if r.Mem, err = measureMemory(ctx, admin, cp.ServerURL, p.Pid()); err != nil {
		return r, err
	}
	if err := saveProfile(ctx, admin, cp.ServerURL, "heap", filepath.Join(profDir, "heap-synced.pprof")); err != nil {
		klog.ErrorS(err, "No heap profile")
	}

	cs, err := newClientsets(quiet)
	if err != nil {
		return r, err
	}
	machines, err := listMachines(ctx, cs.dynamic)
	if err != nil {
		return r, err
	}
	first := clusters[0].Name
	firstNS := hypershift.ControlPlaneNamespace(hostedNamespace, first)
	insightNames, err := hostedInsightNames(ctx, cs.updates, first)
	if err != nil {
		return r, err
	}
	spec := nodeWatchSpec{Rate: s.Rate, Duration: s.Duration, Deadline: c.nodeWatch.Deadline}

	// One hosted cluster: its Machines (the kube-apiserver serves them)
	// and its node insights (through the aggregation layer), side by side
	// under the same churn of its Machines.
	one := machines.churn(func(m machineRef) bool { return m.namespace == firstNS })
	onePath := "/apis/" + capiv1.GroupVersion.String() + "/namespaces/" + firstNS + "/machines"
	if r.Machines1, err = contentWatchRun(ctx, spec, cp, admin, one,
		listedWatch("straight to the kube-apiserver", admin, cp.KubeAPIServer.URL+onePath, machineUnhealthy),
		kindMachines, s.Watchers, s.Rate, ""); err != nil {
		return r, err
	}
	hostedPath := apiPrefix + "namespaces/" + hostedNamespace + "/" + resources.NodeInsights.Hosted().Resource +
		"?watch=1&labelSelector=" + url.QueryEscape(v1alpha1.LabelHostedCluster+"="+first)
	target := watchFromNow("through the kube-apiserver's aggregation layer", cp.KubeAPIServer.URL+hostedPath, hostedInsightUnhealthy)
	if target.names, err = insightNames.index(one.nodes); err != nil {
		return r, err
	}
	if r.Insights1, err = contentWatchRun(ctx, spec, cp, admin, one, target, kindHostedNodes, s.Watchers, s.Rate,
		filepath.Join(profDir, "hosted-one-cpu.pprof")); err != nil {
		return r, err
	}

	// The fleet: one Machine of each hosted cluster after another, watched
	// as every hosted cluster's node insights.
	fleet := machines.spread()
	all, err := hostedInsightNames(ctx, cs.updates, "")
	if err != nil {
		return r, err
	}
	target = watchFromNow("through the kube-apiserver's aggregation layer", cp.KubeAPIServer.URL+apiPrefix+resources.NodeInsights.Hosted().Resource+"?watch=1", hostedInsightUnhealthy)
	if target.names, err = all.index(fleet.nodes); err != nil {
		return r, err
	}
	if r.Fleet, err = contentWatchRun(ctx, spec, cp, admin, fleet, target, kindHostedFleet, s.Watchers, s.Rate,
		filepath.Join(profDir, "hosted-fleet-cpu.pprof")); err != nil {
		return r, err
	}
	return r, nil
}

// waitHostedSynced waits until the server lists a HostedClusterUpdateStatus
// per hosted cluster and a node insight per Machine.
func waitHostedSynced(ctx context.Context, h *httpClient, serverURL string, clusters, machines int) error {
	statuses := serverURL + apiPrefix + resources.HostedClusterUpdateStatus.Resource
	nodes := serverURL + apiPrefix + resources.NodeInsights.Hosted().Resource
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	var got [2]int
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var err error
		if got[0], err = countItems(ctx, h, statuses); err == nil && got[0] == clusters {
			if got[1], err = countItems(ctx, h, nodes); err == nil && got[1] == machines {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("after 5 minutes the server lists %d of %d HostedClusterUpdateStatuses and %d of %d node insights (last error %v)",
				got[0], clusters, got[1], machines, err)
		case <-tick.C:
		}
	}
}

// machineRef is a Machine the churn toggles: where its NodeHealthy
// condition is in status.conditions.
type machineRef struct {
	namespace, name string
	healthy         int
}

// fleetMachines are the fleet's Machines, by namespace (a hosted cluster's
// control plane namespace) in name order.
type fleetMachines struct {
	dyn dynamic.Interface
	// byName indexes every Machine by name; namespaces are in order.
	byName     map[string]machineRef
	namespaces []string
	inNS       map[string][]string
}

// listMachines reads every Machine and where its NodeHealthy condition is.
func listMachines(ctx context.Context, dyn dynamic.Interface) (*fleetMachines, error) {
	list, err := dyn.Resource(machinesGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	f := &fleetMachines{dyn: dyn, byName: map[string]machineRef{}, inNS: map[string][]string{}}
	for _, u := range list.Items {
		conds, _, _ := unstructuredSlice(u.Object, "status", "conditions")
		ref := machineRef{namespace: u.GetNamespace(), name: u.GetName(), healthy: -1}
		for i, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == string(capiv1.MachineNodeHealthyCondition) {
				ref.healthy = i
			}
		}
		if ref.healthy < 0 {
			return nil, fmt.Errorf("machine %s/%s has no %s condition", ref.namespace, ref.name, capiv1.MachineNodeHealthyCondition)
		}
		if _, dup := f.byName[ref.name]; dup {
			return nil, fmt.Errorf("two Machines called %s", ref.name)
		}
		f.byName[ref.name] = ref
		if len(f.inNS[ref.namespace]) == 0 {
			f.namespaces = append(f.namespaces, ref.namespace)
		}
		f.inNS[ref.namespace] = append(f.inNS[ref.namespace], ref.name)
	}
	slices.Sort(f.namespaces)
	for _, names := range f.inNS {
		slices.Sort(names)
	}
	return f, nil
}

// unstructuredSlice is obj's list at fields, or nil.
func unstructuredSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		cur = m[f]
	}
	s, ok := cur.([]any)
	return s, ok, nil
}

// churn returns a churn over the Machines keep accepts.
func (f *fleetMachines) churn(keep func(machineRef) bool) *churn {
	var names []string
	for _, ns := range f.namespaces {
		for _, n := range f.inNS[ns] {
			if keep(f.byName[n]) {
				names = append(names, n)
			}
		}
	}
	return &churn{nodes: names, objects: machineHealth{f}}
}

// spread returns a churn over every Machine, one of each hosted cluster
// after another.
func (f *fleetMachines) spread() *churn {
	var names []string
	for i := 0; ; i++ {
		added := false
		for _, ns := range f.namespaces {
			if i < len(f.inNS[ns]) {
				names = append(names, f.inNS[ns][i])
				added = true
			}
		}
		if !added {
			break
		}
	}
	return &churn{nodes: names, objects: machineHealth{f}}
}

// machineHealth toggles a Machine's NodeHealthy condition: on is False with
// the message hostedUnhealthyBy, off True with none; Cluster API's Machine
// health as a node's kubelet stops and resumes reporting.
type machineHealth struct{ f *fleetMachines }

func (m machineHealth) set(ctx context.Context, name string, on bool) (string, bool, error) {
	ref, ok := m.f.byName[name]
	if !ok {
		return "", false, fmt.Errorf("no Machine %s", name)
	}
	status, message := "True", hostedHealthyBy
	if on {
		status, message = "False", hostedUnhealthyBy
	}
	at := fmt.Sprintf("/status/conditions/%d", ref.healthy)
	patch := fmt.Appendf(nil, `[{"op":"test","path":%q,"value":%q},{"op":"replace","path":%q,"value":%q},{"op":"add","path":%q,"value":%q}]`,
		at+"/type", capiv1.MachineNodeHealthyCondition, at+"/status", status, at+"/message", message)
	u, err := m.f.dyn.Resource(machinesGVR).Namespace(ref.namespace).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return "", false, err
	}
	msg, _, _ := unstructuredString(u.Object, "status", "conditions", ref.healthy, "message")
	return u.GetResourceVersion(), msg == hostedUnhealthyBy, nil
}

func (m machineHealth) get(ctx context.Context, name string) (bool, error) {
	ref, ok := m.f.byName[name]
	if !ok {
		return false, fmt.Errorf("no Machine %s", name)
	}
	u, err := m.f.dyn.Resource(machinesGVR).Namespace(ref.namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	msg, _, _ := unstructuredString(u.Object, "status", "conditions", ref.healthy, "message")
	return msg == hostedUnhealthyBy, nil
}

// unstructuredString reads the string at path (field names and list
// indexes) in obj.
func unstructuredString(obj map[string]any, path ...any) (string, bool, error) {
	var cur any = obj
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return "", false, nil
			}
			cur = m[k]
		case int:
			s, ok := cur.([]any)
			if !ok || k >= len(s) {
				return "", false, nil
			}
			cur = s[k]
		}
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// machineUnhealthyText is how a Machine's event shows it unhealthy: the
// churn's NodeHealthy message.
var machineUnhealthyText = []byte(hostedUnhealthyBy)

// insightNotReadyText is how a hosted node insight's event shows its
// Machine unhealthy: the engine makes a node whose NodeHealthy is False
// unavailable for the reason NotReady, which no other state of the churned
// Machines shows (TestHostedInsightShowsUnhealthyMachine).
var insightNotReadyText = []byte(`"reason":"NotReady"`)

// machineUnhealthy reads whether a JSON watch event of a Machine shows it
// unhealthy.
func machineUnhealthy(line []byte) (bool, bool) {
	return bytes.Contains(line, machineUnhealthyText), true
}

// hostedInsightUnhealthy reads whether a JSON watch event of a hosted node
// insight shows its Machine unhealthy.
func hostedInsightUnhealthy(line []byte) (bool, bool) {
	return bytes.Contains(line, insightNotReadyText), true
}

// insightNames maps a Machine's name to the name of its node insight.
type insightNames map[string]string

// hostedInsightNames reads the node insights of the hosted cluster called
// cluster (every hosted cluster's when empty) and the Machine each is about.
func hostedInsightNames(ctx context.Context, updates versioned.Interface, cluster string) (insightNames, error) {
	opts := metav1.ListOptions{}
	if cluster != "" {
		opts.LabelSelector = v1alpha1.LabelHostedCluster + "=" + cluster
	}
	// The aggregator answers 503 for a moment when its availability check
	// of the server times out on a busy machine: a few tries.
	var list *v1alpha1.HostedNodeProgressInsightList
	err := wait.PollUntilContextTimeout(ctx, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		list, err = updates.UpdateV1alpha1().HostedNodeProgressInsights(hostedNamespace).List(ctx, opts)
		if apierrors.IsServiceUnavailable(err) {
			klog.V(2).ErrorS(err, "Listing the hosted node insights again")
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return nil, err
	}
	out := insightNames{}
	for _, in := range list.Items {
		if ref := in.Status.Resource; ref.Resource == machinesGVR.Resource {
			out[ref.Name] = in.Name
		}
	}
	return out, nil
}

// index maps the insight of each Machine in machines to the Machine's
// index.
func (n insightNames) index(machines []string) (map[string]int32, error) {
	out := make(map[string]int32, len(machines))
	for i, m := range machines {
		name, ok := n[m]
		if !ok {
			return nil, fmt.Errorf("no node insight names Machine %s (%d insights name Machines)", m, len(n))
		}
		out[name] = int32(i)
	}
	return out, nil
}
