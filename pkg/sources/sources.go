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

// Package sources runs the informers for every object the insight engine
// reads — ClusterVersion, ClusterOperators, MachineConfigPools,
// MachineConfigs, Nodes and the machine-config-operator Deployment — and
// builds engine snapshots from their caches.
//
// Transforms strip what the engine never reads before objects enter a cache
// (transform.go). A source API that is not served (for example no
// MachineConfigPool CRD) is not fatal: it is reported in the snapshot and
// picked up by a periodic discovery poll once it appears; an API that
// disappears is dropped the same way.
package sources

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coordinationinformers "k8s.io/client-go/informers/coordination/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	contributioninformers "github.com/update-status/apiserver/pkg/generated/informers/externalversions/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
)

// DefaultDiscoveryInterval is how often the APIs that are not served are
// looked for again.
const DefaultDiscoveryInterval = 30 * time.Second

// Clients are the API clients of the sources.
type Clients struct {
	Kube                 kubernetes.Interface
	Config               configclient.Interface
	MachineConfiguration mcfgclient.Interface
	// Contributions reads the UpdateInformers of external informers and
	// writes their status; without it they are not read.
	Contributions versioned.Interface
}

// Options configure a Set.
type Options struct {
	// Clock is the time source of the discovery poll. Required.
	Clock clock.WithTicker
	// DiscoveryInterval defaults to DefaultDiscoveryInterval.
	DiscoveryInterval time.Duration
	// Discovery answers which source APIs are served; the discovery client of
	// Clients.Kube when nil.
	Discovery discovery.ServerResourcesInterface
	// Alerts, when set, is polled for Prometheus alerts; without it the
	// alerts are unknown and every snapshot says so (AlertsOffMessage).
	Alerts *Alerts
}

// Set is the set of sources.
type Set struct {
	opts      Options
	discovery discovery.ServerResourcesInterface
	sources   []*source

	listenersMu sync.Mutex
	listeners   []func(source, object string)

	// deletedMaxRV is the highest resourceVersion of a deletion seen.
	deletedMaxRV atomic.Uint64
	// initialSyncDone latches once every source is synced or known not to
	// be served. It is updated when a source's state changes, so that the
	// readiness check reads a flag instead of walking the caches.
	initialSyncDone atomic.Bool

	// discovered, when set (by tests), is called after each discovery
	// poll, from the Run goroutine.
	discovered func()

	// contributions writes the engine's verdicts into the UpdateInformers'
	// status; nil without Clients.Contributions.
	contributions *contributionStatus
}

// New returns the sources for clients. Nothing runs until Run.
func New(clients Clients, opts Options) (*Set, error) {
	if clients.Kube == nil || clients.Config == nil || clients.MachineConfiguration == nil {
		return nil, errors.New("sources: every client is required")
	}
	if opts.Clock == nil {
		return nil, errors.New("sources: Options.Clock is required")
	}
	if opts.DiscoveryInterval <= 0 {
		opts.DiscoveryInterval = DefaultDiscoveryInterval
	}
	noIndexers := cache.Indexers{}
	s := &Set{opts: opts, discovery: opts.Discovery}
	if s.discovery == nil {
		s.discovery = clients.Kube.Discovery()
	}
	s.sources = []*source{
		{
			name: "clusteroperators.config.openshift.io",
			gvr:  configv1.GroupVersion.WithResource("clusteroperators"),
			newInformer: func() cache.SharedIndexInformer {
				return configinformers.NewClusterOperatorInformer(clients.Config, 0, noIndexers)
			},
			transform: transformClusterOperator,
		},
		{
			name: "clusterversions.config.openshift.io",
			gvr:  configv1.GroupVersion.WithResource("clusterversions"),
			newInformer: func() cache.SharedIndexInformer {
				return configinformers.NewFilteredClusterVersionInformer(clients.Config, 0, noIndexers, byName(insights.ClusterVersionName))
			},
			transform: transformClusterVersion,
		},
		{
			name:         "deployments.apps/" + insights.MCONamespace + "/" + insights.MCODeploymentName,
			gvr:          appsv1.SchemeGroupVersion.WithResource("deployments"),
			alwaysServed: true,
			newInformer: func() cache.SharedIndexInformer {
				return appsinformers.NewFilteredDeploymentInformer(clients.Kube, insights.MCONamespace, 0, noIndexers, byName(insights.MCODeploymentName))
			},
			transform: transformDeployment,
		},
		{
			name: "machineconfigpools.machineconfiguration.openshift.io",
			gvr:  mcfgv1.GroupVersion.WithResource("machineconfigpools"),
			newInformer: func() cache.SharedIndexInformer {
				return mcfginformers.NewMachineConfigPoolInformer(clients.MachineConfiguration, 0, noIndexers)
			},
			transform: transformMachineConfigPool,
		},
		{
			name: "machineconfigs.machineconfiguration.openshift.io",
			gvr:  mcfgv1.GroupVersion.WithResource("machineconfigs"),
			newInformer: func() cache.SharedIndexInformer {
				return mcfginformers.NewMachineConfigInformer(clients.MachineConfiguration, 0, noIndexers)
			},
			transform: transformMachineConfig,
		},
		{
			name:         "nodes",
			gvr:          corev1.SchemeGroupVersion.WithResource("nodes"),
			alwaysServed: true,
			newInformer: func() cache.SharedIndexInformer {
				return coreinformers.NewNodeInformer(clients.Kube, 0, noIndexers)
			},
			transform: transformNode,
		},
	}
	if clients.Contributions != nil {
		caches := &contributionCaches{}
		s.contributions = &contributionStatus{client: clients.Contributions, clock: opts.Clock, caches: caches, wake: make(chan struct{}, 1)}
		s.sources = append(s.sources,
			&source{
				name: informersv1alpha1.ResourceUpdateInformers + "." + informersv1alpha1.GroupName,
				gvr:  informersv1alpha1.SchemeGroupVersion.WithResource(informersv1alpha1.ResourceUpdateInformers),
				newInformer: func() cache.SharedIndexInformer {
					inf := contributioninformers.NewUpdateInformerInformer(clients.Contributions, metav1.NamespaceAll, 0, noIndexers)
					caches.informers.Store(&inf)
					return inf
				},
				transform: transformUpdateInformer,
				matters:   withCompanion[*informersv1alpha1.UpdateInformer](caches.lease, opts.Clock, contributionMatters),
			},
			&source{
				// Only the Leases that renew UpdateInformers: the label
				// selector keeps the cluster's node and leader-election
				// Leases out of the cache.
				name:         "leases.coordination.k8s.io/" + informersv1alpha1.LeaseLabel,
				gvr:          coordinationv1.SchemeGroupVersion.WithResource("leases"),
				alwaysServed: true,
				newInformer: func() cache.SharedIndexInformer {
					inf := coordinationinformers.NewFilteredLeaseInformer(clients.Kube, metav1.NamespaceAll, 0, noIndexers, func(o *metav1.ListOptions) {
						o.LabelSelector = informersv1alpha1.LeaseLabel
					})
					caches.leases.Store(&inf)
					return inf
				},
				transform: transformLease,
				matters:   withCompanion[*coordinationv1.Lease](caches.updateInformer, opts.Clock, leaseMatters),
			})
	}
	return s, nil
}

func byName(name string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	}
}

// AddListener registers f to be called, without blocking, with the name of
// the source (a resource, "alerts", "discovery") and the namespace/name of
// the object that changed (empty when none or unknown) whenever a source
// changes or its cache syncs. Call it before Run.
func (s *Set) AddListener(f func(source, object string)) {
	s.listenersMu.Lock()
	defer s.listenersMu.Unlock()
	s.listeners = append(s.listeners, f)
}

func (s *Set) notify(source, object string) {
	s.listenersMu.Lock()
	listeners := s.listeners
	s.listenersMu.Unlock()
	for _, f := range listeners {
		f(source, object)
	}
}

func (s *Set) recordDeletion(obj interface{}) { raiseRV(&s.deletedMaxRV, obj) }

// resourceVersionOf returns the etcd resourceVersion of a cached object. The
// engine's Nodes, most of the objects, give the number NodeOf parsed: their
// metadata accessor would build an ObjectMeta, and parsing every Node's
// string at every snapshot was most of resourceVersionOf's cost
// (BenchmarkSnapshot).
func resourceVersionOf(obj interface{}) (uint64, bool) {
	if n, ok := obj.(*insights.Node); ok {
		return n.ResourceVersionNumber()
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return 0, false
	}
	rv, err := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	return rv, err == nil
}

// objectKey returns the namespace/name of a cached object (or of the
// object of a tombstone); empty when it has none.
func objectKey(obj interface{}) string {
	if n, ok := obj.(*insights.Node); ok {
		return n.Name
	}
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return ""
	}
	return key
}

// Run starts the informers of the served APIs and polls discovery for the
// others until ctx is done.
func (s *Set) Run(ctx context.Context) {
	klog.InfoS("Starting sources", "discoveryInterval", s.opts.DiscoveryInterval)
	defer klog.InfoS("Stopped sources")
	if s.opts.Alerts != nil {
		go s.opts.Alerts.Run(ctx, func() { s.notify("alerts", "") })
	}
	if s.contributions != nil {
		go s.contributions.run(ctx)
	}
	pollDiscovery(ctx, s.opts.Clock, s.opts.DiscoveryInterval, s.sources, s.discover)
}

// pollDiscovery runs discover now and every interval until ctx is done, then
// stops the informers of srcs.
func pollDiscovery(ctx context.Context, clk clock.WithTicker, interval time.Duration, srcs []*source, discover func(context.Context)) {
	discover(ctx)
	ticker := clk.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			for _, src := range srcs {
				src.stop("shutting down")
			}
			return
		case <-ticker.C():
			discover(ctx)
		}
	}
}

// discover starts the informers of newly served APIs and stops those of APIs
// no longer served.
func (s *Set) discover(ctx context.Context) {
	if s.discovered != nil {
		defer s.discovered()
	}
	discoverSources(ctx, s.discovery, s.sources, sourceHooks{
		changed: s.notify, deleted: s.recordDeletion, synced: s.updateInitialSync,
		gone: func(bool) { s.updateInitialSync(); s.notify("discovery", "") },
	})
}

// sourceHooks are what a group of sources calls on its events: changed on
// every event and once a cache has synced (after synced), deleted with every
// deleted object, gone when discovery finds a source's API not served (first
// is true when that is news: the source ran or was not discovered yet).
type sourceHooks struct {
	changed func(source, object string)
	deleted func(obj interface{})
	synced  func()
	gone    func(first bool)
}

// discoverSources starts the informers of srcs whose APIs are served and
// stops those whose APIs are no longer served, asking disc once per group
// version.
func discoverSources(ctx context.Context, disc discovery.ServerResourcesInterface, srcs []*source, h sourceHooks) {
	served := map[schema.GroupVersion]map[string]bool{}
	for _, src := range srcs {
		if src.alwaysServed {
			src.start(ctx, h.changed, h.deleted, h.synced)
			continue
		}
		gv := src.gvr.GroupVersion()
		resources, ok := served[gv]
		if !ok {
			var err error
			resources, err = servedResources(disc, gv)
			if err != nil {
				klog.V(2).InfoS("Discovery failed; will retry", "groupVersion", gv.String(), "err", err)
				continue
			}
			served[gv] = resources
		}
		st := src.runState()
		switch {
		case resources[src.gvr.Resource]:
			src.start(ctx, h.changed, h.deleted, h.synced)
		case st == stateRunning:
			src.stop("its API is no longer served")
			h.gone(true)
		default:
			h.gone(src.markUnavailable())
		}
	}
}

// servedResources returns the resources served in gv; an empty set when gv
// is not served at all.
func servedResources(disc discovery.ServerResourcesInterface, gv schema.GroupVersion) (map[string]bool, error) {
	list, err := disc.ServerResourcesForGroupVersion(gv.String())
	if apierrors.IsNotFound(err) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, r := range list.APIResources {
		out[r.Name] = true
	}
	return out, nil
}

// Snapshot returns the engine's inputs as the caches hold them now, and the
// state of the caches.
func (s *Set) Snapshot() view.Snapshot {
	var snap view.Snapshot
	var b insights.SourcesBuilder
	maxRV := s.deletedMaxRV.Load()
	for _, src := range s.sources {
		inf, bounds, ok := src.readable(&snap.Unavailable, &snap.Unsynced)
		if !ok {
			continue
		}
		handled := bounds.handled.Load()
		items := inf.GetStore().List()
		if len(items) > 0 {
			if _, ok := items[0].(*insights.Node); ok {
				b.GrowNodes(len(items))
			}
		}
		var rejected []int // the items that are not inputs, in order
		for i, item := range items {
			if !b.Add(item) {
				rejected = append(rejected, i)
			}
		}
		if len(rejected) == len(items) {
			continue
		}
		if len(rejected) == 0 && bounds.transformed.Load() == handled {
			maxRV = max(maxRV, handled)
			continue
		}
		// Objects are between the cache and the handlers, or some are not
		// inputs: read the inputs' resourceVersions.
		for i, item := range items {
			if len(rejected) > 0 && rejected[0] == i {
				rejected = rejected[1:]
				continue
			}
			if rv, ok := resourceVersionOf(item); ok && rv > maxRV {
				maxRV = rv
			}
		}
	}
	sort.Strings(snap.Unsynced)
	sort.Strings(snap.Unavailable)
	if s.opts.Alerts == nil {
		snap.AlertsUnavailable = AlertsOffMessage
	} else {
		var alerts []insights.Alert
		alerts, snap.AlertsUnavailable = s.opts.Alerts.State()
		if alerts != nil {
			b.AddAlerts(alerts...)
		}
	}
	snap.Inputs = b.Build()
	snap.MaxResourceVersion = maxRV
	snap.InitialSyncDone = s.initialSyncDone.Load()
	return snap
}

// RecordVerdicts takes the engine's verdicts on the UpdateInformers, to
// write into their status. It never blocks: the writer works on the latest
// verdicts it was given.
func (s *Set) RecordVerdicts(verdicts []insights.Verdict) {
	if s.contributions != nil {
		s.contributions.record(verdicts)
	}
}

// updateInitialSync latches initialSyncDone once no source waits for
// discovery and every served one has synced. It reads the state of each
// source, never its cache; the sources call it whenever that state changes.
func (s *Set) updateInitialSync() { latchInitialSync(&s.initialSyncDone, s.sources, "source") }

// SyncCheck returns nil once the initial sync is done, otherwise an error
// naming every source that has not synced and why, if known. It is the
// readyz check of the sources: it reads the state of the sources, never their
// caches.
func (s *Set) SyncCheck() error { return syncCheck(&s.initialSyncDone, s.sources, "source") }

// latchInitialSync sets done once no source of srcs waits for discovery
// and every served one has synced; what names the group in the log.
func latchInitialSync(done *atomic.Bool, srcs []*source, what string) {
	if done.Load() {
		return
	}
	var unavailable []string
	for _, src := range srcs {
		st, synced, _ := src.status()
		switch {
		case st == stateUnknown, st == stateRunning && !synced:
			return
		case st == stateUnavailable:
			unavailable = append(unavailable, src.name)
		}
	}
	if done.CompareAndSwap(false, true) {
		klog.InfoS("Initial sync done", "of", what, "unavailable", unavailable)
	}
}

// syncCheck returns nil once done is latched, otherwise an error naming
// every source of srcs that has not synced and why, if known.
func syncCheck(done *atomic.Bool, srcs []*source, what string) error {
	if done.Load() {
		return nil
	}
	var waiting []string
	for _, src := range srcs {
		st, synced, lastErr := src.status()
		switch {
		case st == stateUnknown:
			waiting = append(waiting, src.name+" (waiting for discovery)")
		case st == stateRunning && !synced && lastErr != nil:
			waiting = append(waiting, fmt.Sprintf("%s (%v)", src.name, lastErr))
		case st == stateRunning && !synced:
			waiting = append(waiting, src.name)
		}
	}
	if len(waiting) == 0 {
		// Every source synced an instant ago and has not latched it yet.
		latchInitialSync(done, srcs, what)
		if done.Load() {
			return nil
		}
	}
	return fmt.Errorf("%s caches not synced: %s", what, strings.Join(waiting, ", "))
}
