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

package sources

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/pkg/hypershift"
	"github.com/update-status/apiserver/pkg/insights"
)

// AllHostedClusters is the key a Hosted listener gets when every hosted
// cluster may have changed (a cache synced, an API appeared or went).
const AllHostedClusters = ""

// HostedOptions configure Hosted.
type HostedOptions struct {
	// Clock is the time source of the discovery poll. Required.
	Clock clock.WithTicker
	// DiscoveryInterval defaults to DefaultDiscoveryInterval.
	DiscoveryInterval time.Duration
	// Discovery answers which APIs are served. Required.
	Discovery discovery.ServerResourcesInterface
}

// Hosted runs the informers of a HyperShift management cluster — the
// HostedClusters, NodePools, HostedControlPlanes and ControlPlaneComponents
// of hypershift.openshift.io and the Machines, MachineSets and
// MachineDeployments of cluster.x-k8s.io — and groups their caches by hosted
// cluster. It lists and watches those seven resources and nothing else (no
// Secret, no kubeconfig of a hosted cluster). Each starts once discovery
// finds its API, as the sources of Set do, so a cluster without HyperShift
// has no hosted clusters and is ready at once.
//
// Objects enter the caches converted to the pkg/hypershift and Cluster API
// types (hostedTransform); one that does not convert is kept as a malformed
// placeholder that the snapshots report and skip.
type Hosted struct {
	opts      HostedOptions
	discovery discovery.ServerResourcesInterface

	hostedClusters, nodePools, controlPlanes, components *source
	machines, machineSets, machineDeployments            *source
	sources                                              []*source

	listenersMu sync.Mutex
	listeners   []func(key string)

	deletedMaxRV    atomic.Uint64
	initialSyncDone atomic.Bool

	// discovered, when set (by tests), is called after each discovery
	// poll, from the Run goroutine.
	discovered func()
}

// The indexes of the hosted caches.
const (
	// indexControlPlaneNamespace indexes HostedClusters by the namespace
	// of their control plane.
	indexControlPlaneNamespace = "controlPlaneNamespace"
	// indexHostedCluster indexes NodePools by the "namespace/name" of the
	// HostedCluster they name.
	indexHostedCluster = "hostedCluster"
)

// NewHosted returns the hosted sources read through client. Nothing runs
// until Run.
func NewHosted(client dynamic.Interface, opts HostedOptions) (*Hosted, error) {
	if client == nil || opts.Discovery == nil || opts.Clock == nil {
		return nil, errors.New("sources: NewHosted needs a client, Options.Discovery and Options.Clock")
	}
	if opts.DiscoveryInterval <= 0 {
		opts.DiscoveryInterval = DefaultDiscoveryInterval
	}
	h := &Hosted{opts: opts, discovery: opts.Discovery}
	byNamespace := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	newSource := func(gvr schema.GroupVersionResource, kind string, indexers cache.Indexers, convert func(*unstructured.Unstructured) (interface{}, error), observe func(interface{})) *source {
		return &source{
			name: gvr.Resource + "." + gvr.Group,
			gvr:  gvr,
			newInformer: func() cache.SharedIndexInformer {
				return dynamicinformer.NewFilteredDynamicInformer(client, gvr, metav1.NamespaceAll, 0, indexers, nil).Informer()
			},
			transform:      hostedTransform(kind, convert),
			observe:        observe,
			mayBeForbidden: true,
		}
	}
	hv, cv := hyperv1.GroupVersion.WithResource, capiv1.GroupVersion.WithResource
	h.hostedClusters = newSource(hv("hostedclusters"), "HostedCluster",
		cache.Indexers{indexControlPlaneNamespace: func(obj interface{}) ([]string, error) {
			m, ok := obj.(metav1.Object)
			if !ok {
				return nil, nil
			}
			return []string{hypershift.ControlPlaneNamespace(m.GetNamespace(), m.GetName())}, nil
		}},
		func(u *unstructured.Unstructured) (interface{}, error) { return hypershift.HostedClusterFrom(u) },
		func(obj interface{}) { h.notify(hostedKeyOf(obj)) })
	h.nodePools = newSource(hv("nodepools"), "NodePool",
		cache.Indexers{indexHostedCluster: func(obj interface{}) ([]string, error) {
			if key := nodePoolCluster(obj); key != "" {
				return []string{key}, nil
			}
			return nil, nil
		}},
		func(u *unstructured.Unstructured) (interface{}, error) { return hypershift.NodePoolFrom(u) },
		func(obj interface{}) { h.notify(nodePoolCluster(obj)) })
	inControlPlane := func(obj interface{}) { h.notifyControlPlane(obj) }
	h.controlPlanes = newSource(hv("hostedcontrolplanes"), "HostedControlPlane", byNamespace,
		func(u *unstructured.Unstructured) (interface{}, error) { return hypershift.HostedControlPlaneFrom(u) }, inControlPlane)
	h.components = newSource(hv("controlplanecomponents"), "ControlPlaneComponent", byNamespace,
		func(u *unstructured.Unstructured) (interface{}, error) {
			unstructured.RemoveNestedField(u.Object, "status", "resources")
			c, err := hypershift.ControlPlaneComponentFrom(u)
			if err == nil {
				internComponent(c)
			}
			return c, err
		}, inControlPlane)
	h.machines = newSource(cv("machines"), "Machine", byNamespace,
		func(u *unstructured.Unstructured) (interface{}, error) {
			for _, f := range machineUnread {
				unstructured.RemoveNestedField(u.Object, f...)
			}
			labels, annotations := u.GetLabels(), u.GetAnnotations()
			u.SetLabels(nil)
			u.SetAnnotations(nil)
			m, err := hypershift.MachineFrom(u)
			if err == nil {
				m.Labels = machineLabelSets.share(only(labels, machineLabelsRead))
				m.Annotations = machineAnnotationSets.share(only(annotations, machineAnnotationsRead))
				internMachine(m)
			}
			return m, err
		}, inControlPlane)
	h.machineSets = newSource(cv("machinesets"), "MachineSet", byNamespace,
		func(u *unstructured.Unstructured) (interface{}, error) { return hypershift.MachineSetFrom(u) }, inControlPlane)
	h.machineDeployments = newSource(cv("machinedeployments"), "MachineDeployment", byNamespace,
		func(u *unstructured.Unstructured) (interface{}, error) { return hypershift.MachineDeploymentFrom(u) }, inControlPlane)
	h.sources = []*source{h.hostedClusters, h.nodePools, h.controlPlanes, h.components, h.machines, h.machineSets, h.machineDeployments}
	return h, nil
}

// Malformed stands in a hosted cache for an object that does not convert
// to its type: the snapshots report it and give the engine nothing of it.
type Malformed struct {
	metav1.ObjectMeta
	// Kind is the object's kind.
	Kind string
	// Err says why it does not convert.
	Err error
	// HostedCluster is, for a NodePool, the "namespace/name" its
	// spec.clusterName names, when that much can be read.
	HostedCluster string
}

func (m *Malformed) String() string {
	return fmt.Sprintf("%s %s/%s: %v", m.Kind, m.Namespace, m.Name, m.Err)
}

// hostedTransform converts an unstructured object of kind with convert,
// dropping its managedFields and kubectl's last applied copy first; an
// object that does not convert becomes a Malformed. Anything else (an
// object converted already, a tombstone) passes through.
func hostedTransform(kind string, convert func(*unstructured.Unstructured) (interface{}, error)) cache.TransformFunc {
	return func(obj interface{}) (interface{}, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil
		}
		u.SetManagedFields(nil)
		if a := u.GetAnnotations(); a[lastAppliedAnnotation] != "" {
			delete(a, lastAppliedAnnotation)
			u.SetAnnotations(a)
		}
		out, err := convertSafely(u, convert)
		if err == nil {
			return out, nil
		}
		klog.ErrorS(err, "Skipping a hosted-cluster object that does not convert", "kind", kind, "namespace", u.GetNamespace(), "name", u.GetName())
		m := &Malformed{
			ObjectMeta: metav1.ObjectMeta{Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID(), ResourceVersion: u.GetResourceVersion()},
			Kind:       kind, Err: err,
		}
		if kind == "NodePool" {
			if c, ok, _ := unstructured.NestedString(u.Object, "spec", "clusterName"); ok && c != "" {
				m.HostedCluster = u.GetNamespace() + "/" + c
			}
		}
		return m, nil
	}
}

// machineUnread are the fields of a Machine the engine does not read, left
// out of the cache: a management cluster holds tens of thousands of
// Machines, and these (the node's system info, its addresses, the bootstrap
// and infrastructure references, the v1beta2 conditions that Cluster API
// 1.9 and later write beside the v1beta1 ones) are about half of each.
var machineUnread = [][]string{
	{"status", "nodeInfo"}, {"status", "addresses"}, {"status", "v1beta2"}, {"status", "certificatesExpiryDate"},
	{"spec", "bootstrap"}, {"spec", "infrastructureRef"}, {"spec", "providerID"},
	{"spec", "clusterName"}, {"spec", "failureDomain"}, {"spec", "readinessGates"},
}

// machineLabelsRead and machineAnnotationsRead are the labels and
// annotations of a Machine the engine reads (its NodePool, MachineSet,
// MachineDeployment and release); the others are left out of the cache.
var (
	machineLabelsRead      = []string{capiv1.MachineSetNameLabel, capiv1.MachineDeploymentNameLabel}
	machineAnnotationsRead = []string{hypershift.NodePoolAnnotation, hypershift.ReleaseVersionAnnotation}
)

// only returns the entries of m under keys, or nil when there is none.
func only(m map[string]string, keys []string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			if out == nil {
				out = make(map[string]string, len(keys))
			}
			out[k] = v
		}
	}
	return out
}

// convertSafely is convert with a panic turned into an error.
func convertSafely(u *unstructured.Unstructured, convert func(*unstructured.Unstructured) (interface{}, error)) (out interface{}, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("conversion panicked: %v", r)
		}
	}()
	return convert(u)
}

// untomb returns the object of a deletion tombstone, or obj.
func untomb(obj interface{}) interface{} {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Obj
	}
	return obj
}

// hostedKeyOf returns the "namespace/name" of a HostedCluster.
func hostedKeyOf(obj interface{}) string {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return t.Key
	}
	m, ok := obj.(metav1.Object)
	if !ok {
		return ""
	}
	return m.GetNamespace() + "/" + m.GetName()
}

// nodePoolCluster returns the "namespace/name" of the HostedCluster that
// a NodePool names, "" when unknown.
func nodePoolCluster(obj interface{}) string {
	switch np := untomb(obj).(type) {
	case *hypershift.NodePool:
		if np.Spec.ClusterName == "" {
			return ""
		}
		return np.Namespace + "/" + np.Spec.ClusterName
	case *Malformed:
		return np.HostedCluster
	}
	return ""
}

// AddListener registers f to be called, without blocking, with the
// "namespace/name" of a hosted cluster whose objects changed, or with
// AllHostedClusters. Call it before Run.
func (h *Hosted) AddListener(f func(key string)) {
	h.listenersMu.Lock()
	defer h.listenersMu.Unlock()
	h.listeners = append(h.listeners, f)
}

func (h *Hosted) notify(key string) {
	if key == "" {
		return
	}
	h.notifyKey(key)
}

func (h *Hosted) notifyKey(key string) {
	h.listenersMu.Lock()
	listeners := h.listeners
	h.listenersMu.Unlock()
	for _, f := range listeners {
		f(key)
	}
}

// notifyControlPlane notifies the hosted clusters whose control-plane
// namespace holds obj; an object in a namespace of no known hosted cluster
// notifies nothing (the hosted cluster, once it appears, is computed with
// it).
func (h *Hosted) notifyControlPlane(obj interface{}) {
	m, ok := untomb(obj).(metav1.Object)
	if !ok {
		return
	}
	_, inf, _ := h.hostedClusters.snapshotState()
	if inf == nil {
		return
	}
	owners, err := inf.GetIndexer().ByIndex(indexControlPlaneNamespace, m.GetNamespace())
	if err != nil {
		return
	}
	for _, o := range owners {
		h.notify(hostedKeyOf(o))
	}
}

func (h *Hosted) recordDeletion(obj interface{}) { raiseRV(&h.deletedMaxRV, obj) }

// Run starts the informers of the served APIs and polls discovery for the
// others until ctx is done.
func (h *Hosted) Run(ctx context.Context) {
	klog.InfoS("Starting hosted-cluster sources", "discoveryInterval", h.opts.DiscoveryInterval)
	defer klog.InfoS("Stopped hosted-cluster sources")
	pollDiscovery(ctx, h.opts.Clock, h.opts.DiscoveryInterval, h.sources, h.discover)
}

func (h *Hosted) discover(ctx context.Context) {
	if h.discovered != nil {
		defer h.discovered()
	}
	everything := func() {
		latchInitialSync(&h.initialSyncDone, h.sources, "hosted source")
		h.notifyKey(AllHostedClusters)
	}
	discoverSources(ctx, h.discovery, h.sources, sourceHooks{
		// Events notify through each source's observe.
		changed: func(string, string) {},
		deleted: h.recordDeletion,
		synced:  everything,
		gone: func(first bool) {
			if first {
				everything()
			}
		},
	})
	// A source found Forbidden since the last discovery counts as not
	// served: the initial sync may be done now.
	if !h.initialSyncDone.Load() {
		latchInitialSync(&h.initialSyncDone, h.sources, "hosted source")
		if h.initialSyncDone.Load() {
			h.notifyKey(AllHostedClusters)
		}
	}
}

// SyncCheck returns nil once every hosted source has synced or is known
// not to be served.
func (h *Hosted) SyncCheck() error {
	return syncCheck(&h.initialSyncDone, h.sources, "hosted source")
}

// InitialSyncDone is true once every hosted source has synced or is known
// not to be served; it never goes back to false.
func (h *Hosted) InitialSyncDone() bool { return h.initialSyncDone.Load() }

// HostedSnapshot is what the caches hold of one hosted cluster.
type HostedSnapshot struct {
	// Key is the HostedCluster's "namespace/name".
	Key string
	// Sources are the engine's inputs; Sources.HostedCluster is nil when
	// the HostedCluster is missing or malformed.
	Sources *insights.HostedSources
	// Exists is true when the HostedCluster is in the cache, readable or
	// not.
	Exists bool
	// MaxResourceVersion is the highest etcd resourceVersion among the
	// objects of the hosted cluster and the deletions seen.
	MaxResourceVersion uint64
	// Malformed lists the objects of the hosted cluster that did not
	// convert and were left out, each as "<kind> <namespace>/<name>: <why>".
	Malformed []string
	// Unsynced and Unavailable name the hosted sources not synced yet and
	// those whose API is not served.
	Unsynced, Unavailable []string
	// InitialSyncDone is true once every hosted source has synced or is
	// known not to be served.
	InitialSyncDone bool
}

// HostedClusterKeys returns the "namespace/name" of every HostedCluster in
// the cache (malformed ones included), sorted.
func (h *Hosted) HostedClusterKeys() []string {
	_, inf, _ := h.hostedClusters.snapshotState()
	if inf == nil {
		return nil
	}
	keys := inf.GetIndexer().ListKeys()
	sort.Strings(keys)
	return keys
}

// Snapshot returns what the caches hold of the hosted cluster key
// ("namespace/name"): its HostedCluster, the NodePools whose
// spec.clusterName names it in its namespace, and the HostedControlPlane,
// ControlPlaneComponents, Machines, MachineSets and MachineDeployments of
// its control-plane namespace, each list sorted by name. Its cost is that of
// the hosted cluster's objects, not of all of them.
func (h *Hosted) Snapshot(key string) HostedSnapshot {
	snap := HostedSnapshot{Key: key, Sources: &insights.HostedSources{}, MaxResourceVersion: h.deletedMaxRV.Load(), InitialSyncDone: h.initialSyncDone.Load()}
	ns, name, _ := strings.Cut(key, "/")
	cpNamespace := hypershift.ControlPlaneNamespace(ns, name)
	for _, s := range h.sources {
		inf, _, ok := s.readable(&snap.Unavailable, &snap.Unsynced)
		if !ok {
			continue
		}
		var items []interface{}
		switch s {
		case h.hostedClusters:
			if obj, ok, _ := inf.GetIndexer().GetByKey(key); ok {
				items = []interface{}{obj}
				snap.Exists = true
			}
		case h.nodePools:
			items, _ = inf.GetIndexer().ByIndex(indexHostedCluster, key)
		default:
			items, _ = inf.GetIndexer().ByIndex(cache.NamespaceIndex, cpNamespace)
		}
		sort.Slice(items, func(i, j int) bool { return nameOfItem(items[i]) < nameOfItem(items[j]) })
		for _, item := range items {
			snap.add(item, name)
		}
	}
	return snap
}

// add puts a cached object into the snapshot of the hosted cluster name.
func (snap *HostedSnapshot) add(item interface{}, name string) {
	if rv, ok := resourceVersionOf(item); ok && rv > snap.MaxResourceVersion {
		snap.MaxResourceVersion = rv
	}
	src := snap.Sources
	switch o := item.(type) {
	case *Malformed:
		snap.Malformed = append(snap.Malformed, o.String())
	case *hypershift.HostedCluster:
		src.HostedCluster = o
	case *hypershift.NodePool:
		src.NodePools = append(src.NodePools, o)
	case *hypershift.HostedControlPlane:
		// One per control-plane namespace, named after the HostedCluster;
		// prefer that one should there be more.
		if src.HostedControlPlane == nil || o.Name == name {
			src.HostedControlPlane = o
		}
	case *hypershift.ControlPlaneComponent:
		src.Components = append(src.Components, o)
	case *capiv1.Machine:
		src.Machines = append(src.Machines, o)
	case *capiv1.MachineSet:
		src.MachineSets = append(src.MachineSets, o)
	case *capiv1.MachineDeployment:
		src.MachineDeployments = append(src.MachineDeployments, o)
	}
}

func nameOfItem(obj interface{}) string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetName()
	}
	return ""
}
