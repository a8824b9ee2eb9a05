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
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
)

// The MCO Deployment the engine reads.
const (
	MCONamespace      = "openshift-machine-config-operator"
	MCODeploymentName = "machine-config-operator"
	// ClusterVersionName is the name of the only ClusterVersion.
	ClusterVersionName = "version"
)

// DefaultDiscoveryInterval is how often the APIs that are not served are
// looked for again.
const DefaultDiscoveryInterval = 30 * time.Second

// Clients are the API clients of the sources.
type Clients struct {
	Kube                 kubernetes.Interface
	Config               configclient.Interface
	MachineConfiguration mcfgclient.Interface
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
}

// Set is the set of sources. It implements view.Source.
type Set struct {
	opts      Options
	discovery discovery.ServerResourcesInterface
	sources   []*source

	listenersMu sync.Mutex
	listeners   []func()

	// deletedMaxRV is the highest resourceVersion of a deletion seen.
	deletedMaxRV    atomic.Uint64
	initialSyncDone atomic.Bool

	// discovered, when set (by tests), is called after each discovery
	// poll, from the Run goroutine.
	discovered func()
}

var _ view.Source = &Set{}

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
				return configinformers.NewFilteredClusterVersionInformer(clients.Config, 0, noIndexers, byName(ClusterVersionName))
			},
			transform: transformClusterVersion,
		},
		{
			name:         "deployments.apps/" + MCONamespace + "/" + MCODeploymentName,
			gvr:          appsv1.SchemeGroupVersion.WithResource("deployments"),
			alwaysServed: true,
			newInformer: func() cache.SharedIndexInformer {
				return appsinformers.NewFilteredDeploymentInformer(clients.Kube, MCONamespace, 0, noIndexers, byName(MCODeploymentName))
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
	return s, nil
}

func byName(name string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	}
}

// AddListener registers f to be called, without blocking, whenever a source
// changes or a cache syncs. Call it before Run.
func (s *Set) AddListener(f func()) {
	s.listenersMu.Lock()
	defer s.listenersMu.Unlock()
	s.listeners = append(s.listeners, f)
}

func (s *Set) notify() {
	s.listenersMu.Lock()
	listeners := s.listeners
	s.listenersMu.Unlock()
	for _, f := range listeners {
		f()
	}
}

func (s *Set) recordDeletion(obj interface{}) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	rv, err := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	if err != nil {
		return
	}
	for {
		cur := s.deletedMaxRV.Load()
		if rv <= cur || s.deletedMaxRV.CompareAndSwap(cur, rv) {
			return
		}
	}
}

// Run starts the informers of the served APIs and polls discovery for the
// others until ctx is done.
func (s *Set) Run(ctx context.Context) {
	klog.InfoS("Starting sources", "discoveryInterval", s.opts.DiscoveryInterval)
	defer klog.InfoS("Stopped sources")
	s.discover(ctx)
	ticker := s.opts.Clock.NewTicker(s.opts.DiscoveryInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			for _, src := range s.sources {
				src.stop("shutting down")
			}
			return
		case <-ticker.C():
			s.discover(ctx)
		}
	}
}

// discover starts the informers of newly served APIs and stops those of APIs
// no longer served.
func (s *Set) discover(ctx context.Context) {
	if s.discovered != nil {
		defer s.discovered()
	}
	served := map[schema.GroupVersion]map[string]bool{}
	for _, src := range s.sources {
		if src.alwaysServed {
			src.start(ctx, s.notify, s.recordDeletion)
			continue
		}
		gv := src.gvr.GroupVersion()
		resources, ok := served[gv]
		if !ok {
			var err error
			resources, err = s.servedResources(gv)
			if err != nil {
				klog.V(2).InfoS("Discovery failed; will retry", "groupVersion", gv.String(), "err", err)
				continue
			}
			served[gv] = resources
		}
		st, _, _ := src.status()
		switch {
		case resources[src.gvr.Resource]:
			src.start(ctx, s.notify, s.recordDeletion)
		case st == stateRunning:
			src.stop("its API is no longer served")
			s.notify()
		default:
			src.markUnavailable()
			s.notify()
		}
	}
}

// servedResources returns the resources served in gv; an empty set when gv
// is not served at all.
func (s *Set) servedResources(gv schema.GroupVersion) (map[string]bool, error) {
	list, err := s.discovery.ServerResourcesForGroupVersion(gv.String())
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

// Snapshot implements view.Source.
func (s *Set) Snapshot() view.Snapshot {
	snap := view.Snapshot{Inputs: &insights.Sources{}}
	maxRV := s.deletedMaxRV.Load()
	observe := func(obj metav1.Object) {
		if rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64); err == nil && rv > maxRV {
			maxRV = rv
		}
	}
	allSynced := true
	for _, src := range s.sources {
		st, inf := src.snapshotState()
		switch {
		case st == stateUnavailable:
			snap.Unavailable = append(snap.Unavailable, src.name)
			continue
		case st == stateUnknown:
			snap.Unsynced = append(snap.Unsynced, src.name)
			allSynced = false
			continue
		case !src.synced.Load():
			snap.Unsynced = append(snap.Unsynced, src.name)
			allSynced = false
		}
		addItems(snap.Inputs, inf.GetStore().List(), observe)
	}
	sort.Strings(snap.Unsynced)
	sort.Strings(snap.Unavailable)
	snap.MaxResourceVersion = maxRV
	if allSynced && s.initialSyncDone.CompareAndSwap(false, true) {
		klog.InfoS("Initial sync of the sources done", "unavailable", snap.Unavailable)
	}
	snap.InitialSyncDone = s.initialSyncDone.Load()
	return snap
}

// addItems adds the objects of one cache to in.
func addItems(in *insights.Sources, items []interface{}, observe func(metav1.Object)) {
	for _, item := range items {
		switch obj := item.(type) {
		case *configv1.ClusterVersion:
			observe(obj)
			if obj.Name == ClusterVersionName {
				in.ClusterVersion = obj
			}
		case *configv1.ClusterOperator:
			observe(obj)
			in.ClusterOperators = append(in.ClusterOperators, obj)
		case *mcfgv1.MachineConfigPool:
			observe(obj)
			in.MachineConfigPools = append(in.MachineConfigPools, obj)
		case *mcfgv1.MachineConfig:
			observe(obj)
			if in.MachineConfigVersions == nil {
				in.MachineConfigVersions = make(map[string]string, len(items))
			}
			in.MachineConfigVersions[obj.Name] = obj.Annotations[ReleaseImageVersionAnnotation]
		case *corev1.Node:
			observe(obj)
			in.Nodes = append(in.Nodes, obj)
		case *appsv1.Deployment:
			observe(obj)
			if obj.Namespace == MCONamespace && obj.Name == MCODeploymentName {
				in.MCODeployment = obj
			}
		}
	}
}

// SyncCheck returns nil once the initial sync is done, otherwise an error
// naming every source that has not synced and why, if known. It is the
// readyz check of the sources.
func (s *Set) SyncCheck() error {
	if s.initialSyncDone.Load() {
		return nil
	}
	var waiting []string
	for _, src := range s.sources {
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
		// Synced but no snapshot taken yet: take one to latch the state.
		s.Snapshot()
		if s.initialSyncDone.Load() {
			return nil
		}
	}
	return fmt.Errorf("source caches not synced: %s", strings.Join(waiting, ", "))
}
