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

// Package hosted is the REST storage of the hosted-cluster kinds of
// update.openshift.io: HostedClusterUpdateStatus, one per HostedCluster in
// its namespace, and the hosted per-insight kinds (HostedNodeProgressInsight
// and the others). A publisher computes each hosted cluster with its own
// insights.Engine from the snapshots of the hosted sources, recomputes only
// the hosted clusters the sources name as changed, and publishes what
// changed to namespaced virtualstore.Stores, which the apiserver's registry
// and watch cache serve read-only.
package hosted

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	klabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/registry/insightobjects"
	"github.com/update-status/apiserver/pkg/registry/virtualstore"
	"github.com/update-status/apiserver/pkg/sources"
	"github.com/update-status/apiserver/pkg/view"
)

// Source is what the publisher reads; *sources.Hosted implements it.
type Source interface {
	// AddListener registers a function called with the key
	// ("namespace/name") of a hosted cluster whose objects changed, or
	// with sources.AllHostedClusters.
	AddListener(func(key string))
	// HostedClusterKeys lists the HostedClusters in the cache.
	HostedClusterKeys() []string
	// Snapshot returns what the caches hold of one hosted cluster.
	Snapshot(key string) sources.HostedSnapshot
	// InitialSyncDone is true once every hosted source has synced or is
	// known not to be served.
	InitialSyncDone() bool
}

// Statuses returns the published HostedClusterUpdateStatus objects of every
// namespace (none before the first publication), for the update metrics.
// The objects are shared: read them, never modify them.
func (p *Publisher) Statuses() []*update.HostedClusterUpdateStatus {
	if !p.Status.Ready() {
		return nil
	}
	var list update.HostedClusterUpdateStatusList
	opts := storage.ListOptions{Predicate: storage.Everything, Recursive: true}
	if err := p.Status.GetList(context.Background(), "/"+resources.HostedClusterUpdateStatus.Resource, opts, &list); err != nil {
		klog.ErrorS(err, "Cannot list the published HostedClusterUpdateStatus objects")
		return nil
	}
	out := make([]*update.HostedClusterUpdateStatus, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}

// Computer computes one hosted cluster; *insights.Engine implements it.
// A hosted cluster keeps its own, whose memory makes its next computations
// cheaper, while it changes (see cluster).
type Computer interface {
	ComputeHosted(src *insights.HostedSources, now time.Time) insights.Result
}

// statusKind indexes the HostedClusterUpdateStatus among the insight kinds
// in an object's key.
const statusKind = resources.NumInsightKinds

// computerIdle is how long a hosted cluster keeps its Computer without
// being computed again.
const computerIdle = 10 * time.Minute

// Options configure a Publisher.
type Options struct {
	// Clock is the time source of the computations. Required.
	Clock clock.Clock
	// NewComputer returns the Computer of a new hosted cluster; a new
	// insights.Engine when nil.
	NewComputer func() Computer
	// FoldDelay and QuietGap are the fold rule of the recomputations, the
	// UpdateStatus view's (view.Fold): a change is computed at once when
	// it is isolated or after a quiet window; a burst of changes to any
	// hosted clusters, once per FoldDelay.
	FoldDelay, QuietGap time.Duration
}

// Publisher computes the hosted-cluster objects and publishes them to its
// stores.
type Publisher struct {
	source      Source
	clock       clock.Clock
	newComputer func() Computer
	trigger     chan struct{}
	fold        *view.Fold

	// Status is the store of HostedClusterUpdateStatus; Insights those of
	// the hosted per-insight kinds, indexed by the resources.InsightKind of
	// their standalone twins.
	Status   *virtualstore.Store
	Insights insightobjects.Stores

	mu    sync.Mutex
	dirty map[string]bool
	all   bool

	// Owned by Run.
	rv       uint64
	synced   bool
	clusters map[string]*cluster
}

// cluster is the publisher's memory of one hosted cluster.
//
// Its Computer is dropped once it has not computed for computerIdle: a
// fleet's hosted clusters are mostly at rest, and an engine's memory of one
// is about as large as its result (docs/benchmarks.md), so one at rest
// keeps only its objects, and its next computation starts afresh.
type cluster struct {
	// computer is nil when dropped; computedAt is its last computation.
	computer   Computer
	computedAt time.Time
	// truncations are those of the last computation that did not panic.
	truncations []insights.Truncation
	// nextChange is when the last result changes by time alone.
	nextChange time.Time
	// objects are the objects last published, as the stores hold them.
	// The publisher gives the stores the objects it builds, with their
	// resourceVersion: they share what the engine returned, which it never
	// modifies (insights.Result), and nothing modifies them after.
	objects map[objectKey]runtime.Object
}

type objectKey struct {
	kind resources.InsightKind // statusKind for the HostedClusterUpdateStatus
	name string
}

// NewPublisher returns a publisher over source with empty, not yet ready
// stores; it registers for source changes. scheme registers the internal
// types.
func NewPublisher(source Source, scheme *runtime.Scheme, opts Options) (*Publisher, error) {
	if opts.Clock == nil {
		return nil, errors.New("hosted: Options.Clock is required")
	}
	if opts.NewComputer == nil {
		opts.NewComputer = func() Computer { return insights.NewEngine() }
	}
	types, err := virtualstore.TypesOf(scheme, update.SchemeGroupVersion, resources.HostedClusterUpdateStatus.Kind)
	if err != nil {
		return nil, err
	}
	status, err := virtualstore.New(virtualstore.Config{
		Resource: resources.HostedClusterUpdateStatus.GroupResource(), Prefix: "/" + resources.HostedClusterUpdateStatus.Resource,
		New: types.New, NewList: types.NewList,
	})
	if err != nil {
		return nil, err
	}
	stores, err := insightobjects.NewHostedStores(scheme)
	if err != nil {
		return nil, err
	}
	p := &Publisher{
		source: source, clock: opts.Clock, newComputer: opts.NewComputer, trigger: make(chan struct{}, 1),
		fold:   view.NewFold(opts.FoldDelay, opts.QuietGap),
		Status: status, Insights: stores, dirty: map[string]bool{}, clusters: map[string]*cluster{},
	}
	source.AddListener(p.changed)
	return p, nil
}

// changed marks the hosted cluster key (or all of them) for recomputation.
func (p *Publisher) changed(key string) {
	// The hosted clusters' sources are judged as one, each hosted cluster
	// an object: a wave of hosted clusters is a burst.
	p.fold.Changed(p.clock.Now(), "", key)
	p.mu.Lock()
	if key == sources.AllHostedClusters {
		p.all = true
	} else {
		p.dirty[key] = true
	}
	p.mu.Unlock()
	select {
	case p.trigger <- struct{}{}:
	default:
	}
}

func (p *Publisher) takeDirty() (map[string]bool, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	dirty, all := p.dirty, p.all
	p.dirty, p.all = map[string]bool{}, false
	return dirty, all
}

// Run computes every hosted cluster once, then the changed ones after every
// burst of changes, and those whose result changes by time when it does,
// until ctx is done.
func (p *Publisher) Run(ctx context.Context) {
	p.takeDirty()
	p.Publish(nil, true)
	for {
		var due <-chan time.Time
		next := p.nextChange()
		if !next.IsZero() {
			due = p.clock.After(next.Sub(p.clock.Now()))
		}
		select {
		case <-ctx.Done():
			return
		case <-due:
			if !p.releaseIdle(p.clock.Now()) {
				continue // only Computers were due
			}
		case <-p.trigger:
			if !p.fold.Sleep(ctx, p.clock, p.trigger) {
				return
			}
		}
		p.fold.Begin()
		dirty, all := p.takeDirty()
		now := p.clock.Now()
		for key, c := range p.clusters {
			if !c.nextChange.IsZero() && !c.nextChange.After(now) {
				dirty[key] = true
			}
		}
		p.Publish(dirty, all)
		p.fold.Computed(p.clock.Now())
	}
}

// releaseIdle drops the Computers not used for computerIdle at now, and
// reports whether a hosted cluster's result is due to change by time.
func (p *Publisher) releaseIdle(now time.Time) (changeDue bool) {
	for _, c := range p.clusters {
		c.dropIdle(now)
		changeDue = changeDue || (!c.nextChange.IsZero() && !c.nextChange.After(now))
	}
	return changeDue
}

// dropAt is when c's Computer is dropped, zero when it has none.
func (c *cluster) dropAt() time.Time {
	if c.computer == nil {
		return time.Time{}
	}
	return c.computedAt.Add(computerIdle)
}

// dropIdle drops c's Computer when it is due at now.
func (c *cluster) dropIdle(now time.Time) {
	if at := c.dropAt(); !at.IsZero() && !at.After(now) {
		c.computer = nil
	}
}

// nextChange is the earliest moment a hosted cluster's result changes by
// time alone, or its Computer has been idle for computerIdle; zero when
// there is none.
func (p *Publisher) nextChange() time.Time {
	var next time.Time
	earliest := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, c := range p.clusters {
		earliest(c.nextChange)
		earliest(c.dropAt())
	}
	return next
}

// Publish recomputes the hosted clusters in dirty (every one when all) and
// publishes the objects that changed, in one revision of every store. A
// hosted cluster whose HostedCluster is gone loses its objects.
//
// The resourceVersion of a revision is the highest etcd resourceVersion
// among the inputs of the recomputed hosted clusters (and the deletions the
// sources saw) times 1,000,000 when that is past the previous one, else one
// more than the previous one (docs/watch.md). An object keeps the
// resourceVersion of the revision in which it last changed.
func (p *Publisher) Publish(dirty map[string]bool, all bool) {
	keys := make([]string, 0, len(dirty))
	for key := range dirty {
		keys = append(keys, key)
	}
	if all {
		keys = append(keys, p.source.HostedClusterKeys()...)
		for key := range p.clusters {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	synced := p.source.InitialSyncDone()
	now := p.clock.Now()

	var maxRV uint64
	type pending struct {
		c   *cluster
		key objectKey
		obj runtime.Object
	}
	var changed []pending
	var deleted [statusKind + 1][]string
	for _, key := range keys {
		snap := p.source.Snapshot(key)
		maxRV = max(maxRV, snap.MaxResourceVersion)
		c := p.clusters[key]
		if !snap.Exists {
			if snap.Sources != nil && len(snap.Sources.NodePools) > 0 {
				names := make([]string, 0, len(snap.Sources.NodePools))
				for _, np := range snap.Sources.NodePools {
					names = append(names, np.Name)
				}
				klog.InfoS("NodePools name a HostedCluster that does not exist; they are reported once it does", "hostedCluster", key, "nodePools", names)
			}
			if c != nil {
				for k := range c.objects {
					deleted[k.kind] = append(deleted[k.kind], namespaceOf(key)+"/"+k.name)
				}
				delete(p.clusters, key)
			}
			continue
		}
		if c == nil {
			c = &cluster{objects: map[objectKey]runtime.Object{}}
			p.clusters[key] = c
		}
		objs, err := p.build(c, &snap, now)
		if err != nil {
			klog.ErrorS(err, "Cannot build the objects of a hosted cluster", "hostedCluster", key)
			continue
		}
		for k, obj := range objs {
			if old, ok := c.objects[k]; ok && sameContent(old, obj) {
				continue
			}
			changed = append(changed, pending{c: c, key: k, obj: obj})
		}
		for k := range c.objects {
			if _, ok := objs[k]; !ok {
				deleted[k.kind] = append(deleted[k.kind], namespaceOf(key)+"/"+k.name)
				delete(c.objects, k)
			}
		}
	}
	nothing := len(changed) == 0
	for _, d := range deleted {
		nothing = nothing && len(d) == 0
	}
	if nothing && p.rv != 0 && synced == p.synced {
		return
	}
	rv := max(p.rv+1, min(maxRV, 1<<40)*1_000_000)
	rvs := strconv.FormatUint(rv, 10)
	var byKind [statusKind + 1][]runtime.Object
	for _, ch := range changed {
		ch.obj.(metav1.Object).SetResourceVersion(rvs)
		ch.c.objects[ch.key] = ch.obj
		byKind[ch.key.kind] = append(byKind[ch.key.kind], ch.obj)
	}
	stores := append(p.Insights[:], p.Status)
	for k, store := range stores {
		sort.Strings(deleted[k])
		if err := store.PublishChanges(rv, byKind[k], deleted[k], synced); err != nil {
			klog.ErrorS(err, "Cannot publish hosted-cluster objects", "resourceVersion", rv)
		}
	}
	p.rv, p.synced = rv, synced
}

// sameContent reports whether built, an object just built (without a
// resourceVersion, not yet shared) or stored itself kept, says what stored,
// as published, says.
func sameContent(stored, built runtime.Object) bool {
	if stored == built {
		return true // kept as published
	}
	m := built.(metav1.Object)
	m.SetResourceVersion(stored.(metav1.Object).GetResourceVersion())
	defer m.SetResourceVersion("")
	return reflect.DeepEqual(stored, built)
}

func namespaceOf(key string) string {
	ns, _, _ := strings.Cut(key, "/")
	return ns
}

// uidNamespace is the namespace of the name-based UUIDs of the hosted
// objects, derived from the HostedCluster's uid.
var uidNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://update.openshift.io/v1alpha1/hostedclusterupdatestatuses"))

// build computes the hosted cluster of snap and returns its objects, without
// resourceVersions: the HostedClusterUpdateStatus, named and placed as its
// HostedCluster, and one object per insight, named
// "<hosted cluster>.<name of the standalone twin>" in the same namespace
// and labeled as the twin plus update.openshift.io/hosted-cluster.
func (p *Publisher) build(c *cluster, snap *sources.HostedSnapshot, now time.Time) (map[objectKey]runtime.Object, error) {
	ns, name, _ := strings.Cut(snap.Key, "/")
	meta := metav1.ObjectMeta{Namespace: ns, Name: name}
	var computeErr error
	var res *insights.Result
	if hc := snap.Sources.HostedCluster; hc != nil {
		meta.CreationTimestamp = hc.CreationTimestamp
		if hc.UID != "" {
			meta.UID = types.UID(uuid.NewSHA1(uidNamespace, []byte(hc.UID)).String())
		}
		// Dropped when idle, whether or not Run woke for it first.
		c.dropIdle(now)
		if c.computer == nil {
			c.computer = p.newComputer()
		}
		c.computedAt = now
		r, err := computeSafely(c.computer, snap.Sources, now)
		if err != nil {
			klog.ErrorS(err, "Cannot compute a hosted cluster", "hostedCluster", snap.Key)
			computeErr = err
			// Its memory may be half-updated: start afresh.
			c.computer, c.nextChange = nil, time.Time{}
		} else {
			res, c.truncations, c.nextChange = &r, r.Truncations, r.NextChange
		}
	} else {
		computeErr = fmt.Errorf("the HostedCluster cannot be read (%s)", strings.Join(snap.Malformed, "; "))
		// Nothing is computed until it can be read: the last result's
		// change by time is not awaited, or Run would wake for it at once,
		// again and again.
		c.nextChange = time.Time{}
	}

	cond := view.AvailableCondition(view.Snapshot{Unsynced: snap.Unsynced, Unavailable: snap.Unavailable}, computeErr, c.truncations, meta.CreationTimestamp)
	if len(snap.Malformed) > 0 && computeErr == nil {
		cond.Message += fmt.Sprintf(" Objects left out because they cannot be read (%d): %s.", len(snap.Malformed), strings.Join(snap.Malformed, "; "))
	}
	status := &update.HostedClusterUpdateStatus{ObjectMeta: meta}
	out := map[objectKey]runtime.Object{}
	if res == nil {
		// Nothing new: the objects of the last good computation stay, and
		// the status, a copy, says why. The publisher keeps no result of
		// its own: the objects hold what it says, and a result kept beside
		// them would be a second copy wherever they were published before
		// it (an unchanged object stays as published).
		for k, obj := range c.objects {
			if k.kind == statusKind {
				status.Status = obj.(*update.HostedClusterUpdateStatus).Status
			} else {
				out[k] = obj
			}
		}
	} else {
		if err := v1alpha1.Convert_v1alpha1_UpdateStatusStatus_To_update_UpdateStatusStatus(&res.Status, &status.Status, nil); err != nil {
			return nil, err
		}
		objs, err := view.Objects(res, meta)
		if err != nil {
			return nil, err
		}
		labels := map[string]map[string]string{}
		for k, list := range objs {
			for _, obj := range list {
				m := *obj.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
				m.Namespace, m.Name = ns, name+"."+m.Name
				m.Labels = hostedLabels(m.Labels, name, labels)
				hosted, err := insightobjects.HostedObject(obj, m)
				if err != nil {
					return nil, err
				}
				out[objectKey{resources.InsightKind(k), m.Name}] = hosted
			}
		}
	}
	// The engine sets no outer condition; the server's replaces any.
	status.Status.Conditions = []metav1.Condition{cond}
	out[objectKey{statusKind, name}] = status
	return out, nil
}

// hostedLabels returns labels with the hosted-cluster label (when the
// name can be a label value). The objects of one build with the same
// labels share one map (shared, by content), as view.Objects shares the
// labels it returns: nothing modifies them, and a map is most of a small
// object's memory.
func hostedLabels(labels map[string]string, hostedCluster string, shared map[string]map[string]string) map[string]string {
	key := klabels.Set(labels).String()
	if out, ok := shared[key]; ok {
		return out
	}
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	if len(utilvalidation.IsValidLabelValue(hostedCluster)) == 0 {
		out[v1alpha1.LabelHostedCluster] = hostedCluster
	}
	shared[key] = out
	return out
}

// computeSafely runs the rules and turns a panic into an error.
func computeSafely(c Computer, src *insights.HostedSources, now time.Time) (res insights.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the rules panicked: %v", r)
		}
	}()
	return c.ComputeHosted(src, now), nil
}
