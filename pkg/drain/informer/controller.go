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

// Package informer is the drain-diagnosis informer's controller: it follows
// the cordoned Nodes, their Pods, PodDisruptionBudgets, MachineConfigPools
// and MachineConfigNodes, judges each drain with package drain and keeps its
// UpdateInformer equal to the findings (cmd/update-status-drain-informer
// runs it).
package informer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	updatev1alpha1 "github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/contribute"
	"github.com/update-status/apiserver/pkg/drain"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
)

// Config is what a Controller is told.
type Config struct {
	// Namespace and Name are those of the UpdateInformer the findings are
	// written to.
	Namespace, Name string
	// Lease is the contribution's lease.
	Lease time.Duration
	// Resync is the longest time between two evaluations.
	Resync time.Duration
	// DrainTimeout is the age of a drain after which its insight is an
	// Error rather than a Warning.
	DrainTimeout time.Duration
}

// Controller evaluates the draining nodes and keeps the contribution equal
// to the findings.
type Controller struct {
	kube    kubernetes.Interface
	contrib *contribute.Contributor
	timeout time.Duration
	resync  time.Duration
	clock   clock.WithTicker

	kubeFactory informers.SharedInformerFactory
	nodeFactory informers.SharedInformerFactory     // cordoned nodes
	mcfgFactory mcfginformers.SharedInformerFactory // nil when MachineConfigPools are not served
	nodes       corelisters.NodeLister
	budgets     policylisters.PodDisruptionBudgetLister
	pools       mcfglisters.MachineConfigPoolLister // nil when not served
	mcfg        mcfgclient.Interface                // nil when MachineConfigNodes are not served
	synced      []cache.InformerSynced
	changed     chan struct{}

	// Touched only by the loop of Run.
	mcnWatches nodeWatches // the MachineConfigNode of each cordoned node
	podWatches nodeWatches // the Pods of each draining node
	firstSeen  map[string]time.Time
	last       []finding
}

// nodeWatches are watches of the objects of single nodes, by node name,
// each started when its node needs it and stopped when the node no longer
// does. They are plain informers (cache.NewInformerWithOptions: a store
// and one handler, no shared processor), as one loop reads each.
type nodeWatches map[string]*nodeWatch

type nodeWatch struct {
	store cache.Store
	ctrl  cache.Controller
	stop  context.CancelFunc
}

// start returns the watch of node, starting it if needed: lw lists and
// watches the node's objects, of the type of obj; their changes call
// handler.
func (w nodeWatches) start(ctx context.Context, node string, lw func() cache.ListerWatcher, obj runtime.Object, handler cache.ResourceEventHandler) *nodeWatch {
	if nw, ok := w[node]; ok {
		return nw
	}
	store, ctrl := cache.NewInformerWithOptions(cache.InformerOptions{ListerWatcher: lw(), ObjectType: obj, Handler: handler, Transform: slimObject})
	wctx, stop := context.WithCancel(ctx)
	go ctrl.RunWithContext(wctx)
	nw := &nodeWatch{store: store, ctrl: ctrl, stop: stop}
	w[node] = nw
	return nw
}

// retain stops the watches of the nodes not in keep.
func (w nodeWatches) retain(keep map[string]bool) {
	for node, nw := range w {
		if !keep[node] {
			nw.stop()
			delete(w, node)
		}
	}
}

// selected is a ListerWatcher of the objects that fieldSelector selects,
// through the typed client's list and watch (and WatchList where client
// supports it, as the generated informers do).
func selected[L runtime.Object](fieldSelector string, client any,
	list func(context.Context, metav1.ListOptions) (L, error), watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error)) cache.ListerWatcher {
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = fieldSelector
			return list(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = fieldSelector
			return watchFn(ctx, o)
		},
	}, client)
}

// finding is what is contributed about one node, without the instant
// (exported fields: equality.Semantic compares them).
type finding struct {
	UID, Pool    string
	ControlPlane bool
	Health       updatev1alpha1.HealthStatusInsight
}

// NewController returns a controller for the cluster of cfg. It reads the
// machineconfiguration.openshift.io/v1 resources only when discovery says
// they are served.
func NewController(cfg *rest.Config, o Config) (*Controller, error) {
	// Uncompressed responses: the watches are of a few objects each (one
	// node's pods, one MachineConfigNode), and a compressed stream holds a
	// decompressor of some 40 KiB for its lifetime.
	cfg = rest.CopyConfig(cfg)
	cfg.DisableCompression = true
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	updates, err := versioned.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	contrib, err := contribute.New(updates.InformersV1alpha1(), kube, o.Namespace, o.Name, contribute.WithLease(o.Lease))
	if err != nil {
		return nil, err
	}
	c := &Controller{
		kube: kube, contrib: contrib, timeout: o.DrainTimeout, resync: o.Resync, clock: clock.RealClock{},
		changed:    make(chan struct{}, 1),
		mcnWatches: nodeWatches{},
		podWatches: nodeWatches{},
		firstSeen:  map[string]time.Time{},
	}
	// No informer resync: the loop re-evaluates every --resync by itself.
	c.kubeFactory = informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithTransform(dropManagedFields))
	budgets := c.kubeFactory.Policy().V1().PodDisruptionBudgets()
	c.budgets = budgets.Lister()
	// Only cordoned Nodes: the machine-config daemon and the drain
	// controller cordon a node before they drain it, so a draining node is
	// always among them, and the cache follows the cordoned nodes, not the
	// cluster's.
	c.nodeFactory = informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithTransform(slimObject),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = cordoned }))
	nodes := c.nodeFactory.Core().V1().Nodes()
	c.nodes = nodes.Lister()
	c.watch(nodes.Informer(), budgets.Informer())

	served, err := servedResources(kube, mcfgv1.GroupVersion.String())
	if err != nil {
		return nil, err
	}
	if served["machineconfigpools"] || served["machineconfignodes"] {
		mcfg, err := mcfgclient.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		if served["machineconfigpools"] {
			c.mcfgFactory = mcfginformers.NewSharedInformerFactoryWithOptions(mcfg, 0, mcfginformers.WithTransform(dropManagedFields))
			inf := c.mcfgFactory.Machineconfiguration().V1().MachineConfigPools()
			c.pools = inf.Lister()
			c.watch(inf.Informer())
		}
		// A MachineConfigNode is watched only for a cordoned node (there is
		// one per node of the cluster).
		if served["machineconfignodes"] {
			c.mcfg = mcfg
		}
	}
	klog.InfoS("Sources", "informer", contrib.InformerName(), "machineConfigPools", c.pools != nil, "machineConfigNodes", c.mcfg != nil)
	return c, nil
}

// servedResources are the resources of groupVersion the server serves;
// none when it does not know the group version.
func servedResources(kube kubernetes.Interface, groupVersion string) (map[string]bool, error) {
	list, err := kube.Discovery().ServerResourcesForGroupVersion(groupVersion)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return map[string]bool{}, nil
		}
		return nil, fmt.Errorf("discovery of %s: %w", groupVersion, err)
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Name] = true
	}
	return served, nil
}

// cordoned selects the Nodes that are cordoned.
var cordoned = fields.OneTermEqualSelector("spec.unschedulable", "true").String()

// slimObject keeps the caches small by keeping of Nodes, Pods and
// MachineConfigNodes only what the rules read: of a node its metadata and
// spec.unschedulable (not its status: images, conditions, addresses); of a
// pod its metadata, phase and conditions; of a MachineConfigNode its name,
// its pool and the conditions drain.MachineConfigNodeConditions. Managed
// fields are dropped from every object.
func slimObject(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Pod:
		o.Spec = corev1.PodSpec{}
		o.Status = corev1.PodStatus{Phase: o.Status.Phase, Conditions: o.Status.Conditions}
	case *corev1.Node:
		o.Spec = corev1.NodeSpec{Unschedulable: o.Spec.Unschedulable}
		o.Status = corev1.NodeStatus{}
	case *mcfgv1.MachineConfigNode:
		var kept []metav1.Condition
		for _, c := range o.Status.Conditions {
			if slices.Contains(drain.MachineConfigNodeConditions, mcfgv1.StateProgress(c.Type)) {
				kept = append(kept, c)
			}
		}
		o.ObjectMeta = metav1.ObjectMeta{Name: o.Name, UID: o.UID, ResourceVersion: o.ResourceVersion, Generation: o.Generation}
		o.Spec = mcfgv1.MachineConfigNodeSpec{Pool: o.Spec.Pool}
		o.Status = mcfgv1.MachineConfigNodeStatus{Conditions: slices.Clip(kept)}
	}
	return dropManagedFields(obj)
}

// dropManagedFields keeps the caches small: nothing here reads them.
func dropManagedFields(obj any) (any, error) {
	if a, err := meta.Accessor(obj); err == nil {
		a.SetManagedFields(nil)
	}
	return obj, nil
}

// watch makes every change of the informers' objects trigger an evaluation.
func (c *Controller) watch(infs ...cache.SharedIndexInformer) {
	for _, inf := range infs {
		_, _ = inf.AddEventHandler(c.handler())
		c.synced = append(c.synced, inf.HasSynced)
	}
}

func (c *Controller) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.poke() },
		UpdateFunc: func(any, any) { c.poke() },
		DeleteFunc: func(any) { c.poke() },
	}
}

func (c *Controller) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// Run starts the informers and the contribution and evaluates on every
// change and every resync until ctx ends; then it stops the pod watches and
// waits for the contribution to be withdrawn.
func (c *Controller) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	c.kubeFactory.Start(ctx.Done())
	c.nodeFactory.Start(ctx.Done())
	if c.mcfgFactory != nil {
		c.mcfgFactory.Start(ctx.Done())
	}
	defer c.kubeFactory.Shutdown()
	defer c.nodeFactory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return fmt.Errorf("caches not synced: %w", ctx.Err())
	}
	withdrawn := make(chan error, 1)
	go func() { withdrawn <- c.contrib.Run(ctx) }()
	logger.Info("Watching draining nodes", "informer", c.contrib.InformerName(), "resync", c.resync)

	ticker := c.clock.NewTicker(c.resync)
	defer ticker.Stop()
	for {
		c.sync(ctx)
		select {
		case <-ctx.Done():
			c.mcnWatches.retain(nil)
			c.podWatches.retain(nil)
			return <-withdrawn
		case <-c.changed:
		case <-ticker.C():
		}
	}
}

// sync evaluates every draining node and sets the contribution when the
// findings changed.
func (c *Controller) sync(ctx context.Context) {
	logger := klog.FromContext(ctx)
	now := c.clock.Now()
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		logger.Error(err, "Listing nodes")
		return
	}
	var pools []*mcfgv1.MachineConfigPool
	if c.pools != nil {
		pools, _ = c.pools.List(labels.Everything())
	}
	cordoned, draining := map[string]bool{}, map[string]bool{}
	var findings []*drain.Finding
	for _, node := range nodes {
		cordoned[node.Name] = true
		mcn, synced := c.mcn(ctx, node.Name)
		if !synced {
			continue // evaluated when its MachineConfigNode is in
		}
		if !drain.IsDraining(node, mcn) {
			continue
		}
		draining[node.Name] = true
		if _, ok := c.firstSeen[node.Name]; !ok {
			c.firstSeen[node.Name] = now
		}
		w := c.podWatches.start(ctx, node.Name, func() cache.ListerWatcher {
			logger.V(2).Info("Watching the pods of a draining node", "node", node.Name)
			pods := c.kube.CoreV1().Pods(metav1.NamespaceAll)
			return selected(fields.OneTermEqualSelector("spec.nodeName", node.Name).String(), c.kube, pods.List, pods.Watch)
		}, &corev1.Pod{}, c.handler())
		if !w.ctrl.HasSynced() {
			continue // evaluated when its pods are in
		}
		pool := drain.PoolOf(node, mcn, pools)
		if pool == "" {
			logger.V(2).Info("Draining node in no MachineConfigPool; not reported", "node", node.Name)
			continue
		}
		in := &drain.Input{Node: node, Pool: pool, MCN: mcn, DrainStarted: c.drainStarted(node.Name, mcn)}
		for _, obj := range w.store.List() {
			in.Pods = append(in.Pods, obj.(*corev1.Pod))
		}
		in.Budgets = c.budgetsOf(in.Pods)
		in.Protected = c.protected(ctx, drain.Blockers(in, now))
		if f := drain.Evaluate(in, now, c.timeout); f != nil {
			findings = append(findings, f)
		}
	}
	c.podWatches.retain(draining)
	c.mcnWatches.retain(cordoned)
	for name := range c.firstSeen {
		if !draining[name] {
			delete(c.firstSeen, name)
		}
	}
	c.publish(logger, findings, now)
}

// mcn is the MachineConfigNode of a cordoned node, nil when there is none;
// synced is false while its watch has not listed it yet.
func (c *Controller) mcn(ctx context.Context, node string) (_ *mcfgv1.MachineConfigNode, synced bool) {
	if c.mcfg == nil {
		return nil, true
	}
	w := c.mcnWatches.start(ctx, node, func() cache.ListerWatcher {
		mcns := c.mcfg.MachineconfigurationV1().MachineConfigNodes()
		return selected(fields.OneTermEqualSelector("metadata.name", node).String(), c.mcfg, mcns.List, mcns.Watch)
	}, &mcfgv1.MachineConfigNode{}, c.handler())
	if !w.ctrl.HasSynced() {
		return nil, false
	}
	obj, ok, _ := w.store.GetByKey(node)
	if !ok {
		return nil, true
	}
	return obj.(*mcfgv1.MachineConfigNode), true
}

// drainStarted is when the MachineConfigNode says the drain began, else
// when the node was first seen draining.
func (c *Controller) drainStarted(node string, mcn *mcfgv1.MachineConfigNode) time.Time {
	if t := drain.DrainStartedAt(mcn); !t.IsZero() {
		return t
	}
	return c.firstSeen[node]
}

// budgetsOf are the budgets of the pods' namespaces.
func (c *Controller) budgetsOf(pods []*corev1.Pod) []*policyv1.PodDisruptionBudget {
	seen := map[string]bool{}
	var out []*policyv1.PodDisruptionBudget
	for _, p := range pods {
		if seen[p.Namespace] {
			continue
		}
		seen[p.Namespace] = true
		bs, _ := c.budgets.PodDisruptionBudgets(p.Namespace).List(labels.Everything())
		out = append(out, bs...)
	}
	return out
}

// protected lists, for each holding budget that is short of healthy pods,
// the pods it selects, to name the unhealthy ones (one list request per
// such budget and evaluation; a budget that is not short has none to name).
func (c *Controller) protected(ctx context.Context, blockers []drain.Blocker) map[string][]*corev1.Pod {
	out := map[string][]*corev1.Pod{}
	for _, b := range blockers {
		if b.Budget == nil || b.Budget.Status.CurrentHealthy >= b.Budget.Status.DesiredHealthy {
			continue
		}
		key := b.Budget.Namespace + "/" + b.Budget.Name
		if _, done := out[key]; done {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(b.Budget.Spec.Selector)
		if err != nil {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		list, err := c.kube.CoreV1().Pods(b.Budget.Namespace).List(lctx, metav1.ListOptions{LabelSelector: sel.String(), ResourceVersion: "0"})
		cancel()
		if err != nil {
			klog.FromContext(ctx).Error(err, "Listing the pods of a budget", "budget", key)
			out[key] = nil
			continue
		}
		for i := range list.Items {
			out[key] = append(out[key], &list.Items[i])
		}
	}
	return out
}

// publish sets the contribution when the findings differ from the last
// ones (the instant aside), so that an unchanged state costs only the
// contributor's renewals.
func (c *Controller) publish(logger klog.Logger, findings []*drain.Finding, now time.Time) {
	cur := make([]finding, 0, len(findings))
	for _, f := range findings {
		cur = append(cur, finding{UID: f.UID, Pool: f.Pool, ControlPlane: f.ControlPlane, Health: f.Health})
	}
	slices.SortFunc(cur, func(a, b finding) int { return strings.Compare(a.UID, b.UID) })
	if c.last != nil && equality.Semantic.DeepEqual(cur, c.last) {
		return
	}
	c.last = cur
	cp, pools := drain.Contributions(findings, now)
	c.contrib.Set(cp, pools)
	for _, f := range findings {
		logger.Info("Blocked drain", "uid", f.UID, "pool", f.Pool, "level", f.Health.Impact.Level, "summary", f.Health.Impact.Summary)
	}
	logger.Info("Contribution set", "blockedNodes", len(findings))
}
