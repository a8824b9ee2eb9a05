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

package view

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// Changes is what one revision changed among the objects of one kind.
type Changes struct {
	// Changed are the objects added or changed in the revision; each
	// carries the revision's resourceVersion. Never modify them.
	Changed []runtime.Object
	// Deleted are the names of the objects the revision removed.
	Deleted []string
}

// kindOf returns the kind of in and the name of its object: the subject's
// name for the built-in informers' insights (a Health insight's uid), and
// "<uid>.<informer>" for an external informer's, so that no contribution
// takes the name of another's object or of a built-in one.
func kindOf(in *insights.Insight) (resources.InsightKind, string) {
	var k resources.InsightKind
	var name string
	switch {
	case in.ClusterVersion != nil:
		k, name = resources.ClusterVersionInsights, in.ClusterVersion.Resource.Name
	case in.ClusterOperator != nil:
		k, name = resources.ClusterOperatorInsights, in.ClusterOperator.Name
	case in.MachineConfigPool != nil:
		k, name = resources.MachineConfigPoolInsights, in.MachineConfigPool.Name
	case in.Node != nil:
		k, name = resources.NodeInsights, in.Node.Name
	case in.Health != nil:
		k, name = resources.HealthInsights, in.UID
	default:
		return resources.NumInsightKinds, ""
	}
	if in.External {
		name = in.UID + "." + in.Informer
	}
	return k, name
}

// insightLabels returns the labels of the object of in. A value a label
// cannot hold (a pool name of 64 characters) leaves its label out. Objects
// with the same labels share one map (labels), which nothing modifies: the
// map is most of an object's own memory.
func insightLabels(in *insights.Insight, shared map[labelKey]map[string]string) map[string]string {
	key := labelKey{scope: string(in.Scope), pool: in.Pool, informer: in.Informer, level: string(levelOf(in))}
	if l, ok := shared[key]; ok {
		return l
	}
	l := make(map[string]string, 4)
	set := func(key, value string) {
		if value != "" && len(utilvalidation.IsValidLabelValue(value)) == 0 {
			l[key] = value
		}
	}
	set(v1alpha1.LabelScope, key.scope)
	set(v1alpha1.LabelPool, key.pool)
	set(v1alpha1.LabelInformer, key.informer)
	set(v1alpha1.LabelImpactLevel, key.level)
	if shared != nil {
		shared[key] = l
	}
	return l
}

// labelKey is what an object's labels are made of.
type labelKey struct{ scope, pool, informer, level string }

// insightMeta returns the metadata of the object named name of kind k, which
// every replica derives alike from the UpdateStatus metadata base (see
// objectMeta): a name-based UUID and the same creationTimestamp.
func insightMeta(base *metav1.ObjectMeta, k resources.InsightKind, name string, labels map[string]string) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: base.CreationTimestamp}
	if base.UID != "" {
		m.UID = types.UID(uuid.NewSHA1(uuidOf(base.UID), []byte(k.Kind()+"/"+name)).String())
	}
	return m
}

func uuidOf(uid types.UID) uuid.UUID {
	u, err := uuid.Parse(string(uid))
	if err != nil {
		return uidNamespace
	}
	return u
}

// newInsightObject builds the object of in with the generated conversions,
// which share the insight's fields below the top-level struct instead of
// copying them.
func newInsightObject(k resources.InsightKind, meta metav1.ObjectMeta, in *insights.Insight) (runtime.Object, error) {
	uid, at := in.UID, in.AcquiredAt
	var err error
	switch k {
	case resources.ClusterVersionInsights:
		o := &update.ClusterVersionProgressInsight{ObjectMeta: meta, Status: update.ClusterVersionProgressInsightStatus{InsightUID: uid, AcquiredAt: at}}
		err = v1alpha1.Convert_v1alpha1_ClusterVersionStatusInsight_To_update_ClusterVersionStatusInsight(in.ClusterVersion, &o.Status.ClusterVersionStatusInsight, nil)
		return o, err
	case resources.ClusterOperatorInsights:
		o := &update.ClusterOperatorProgressInsight{ObjectMeta: meta, Status: update.ClusterOperatorProgressInsightStatus{InsightUID: uid, AcquiredAt: at}}
		err = v1alpha1.Convert_v1alpha1_ClusterOperatorStatusInsight_To_update_ClusterOperatorStatusInsight(in.ClusterOperator, &o.Status.ClusterOperatorStatusInsight, nil)
		return o, err
	case resources.MachineConfigPoolInsights:
		o := &update.MachineConfigPoolProgressInsight{ObjectMeta: meta, Status: update.MachineConfigPoolProgressInsightStatus{InsightUID: uid, AcquiredAt: at}}
		err = v1alpha1.Convert_v1alpha1_MachineConfigPoolStatusInsight_To_update_MachineConfigPoolStatusInsight(in.MachineConfigPool, &o.Status.MachineConfigPoolStatusInsight, nil)
		return o, err
	case resources.NodeInsights:
		o := &update.NodeProgressInsight{ObjectMeta: meta, Status: update.NodeProgressInsightStatus{InsightUID: uid, AcquiredAt: at}}
		err = v1alpha1.Convert_v1alpha1_NodeStatusInsight_To_update_NodeStatusInsight(in.Node, &o.Status.NodeStatusInsight, nil)
		return o, err
	case resources.HealthInsights:
		o := &update.HealthInsight{ObjectMeta: meta, Status: update.HealthInsightStatus{InsightUID: uid, AcquiredAt: at}}
		err = v1alpha1.Convert_v1alpha1_HealthStatusInsight_To_update_HealthStatusInsight(in.Health, &o.Status.HealthStatusInsight, nil)
		return o, err
	}
	return nil, fmt.Errorf("no insight kind %d", k)
}

// Objects returns the per-insight objects of one computation, each kind
// sorted by name, without resourceVersions: what a revision would serve,
// built from scratch (update-status compute prints them offline). meta is
// the metadata of the UpdateStatus of the same computation.
func Objects(res *insights.Result, meta metav1.ObjectMeta) ([resources.NumInsightKinds][]runtime.Object, error) {
	var out [resources.NumInsightKinds][]runtime.Object
	seen := make(map[objectKey]bool, len(res.Insights))
	labels := map[labelKey]map[string]string{}
	for _, in := range res.Insights {
		k, name := kindOf(in)
		key := objectKey{k, name}
		if k == resources.NumInsightKinds || name == "" || seen[key] {
			continue
		}
		seen[key] = true
		obj, err := newInsightObject(k, insightMeta(&meta, k, name, insightLabels(in, labels)), in)
		if err != nil {
			return out, err
		}
		out[k] = append(out[k], obj)
	}
	for k := range out {
		sort.Slice(out[k], func(i, j int) bool { return nameOf(out[k][i]) < nameOf(out[k][j]) })
	}
	return out, nil
}

func nameOf(obj runtime.Object) string {
	return obj.(metav1.Object).GetName()
}

type objectKey struct {
	kind resources.InsightKind
	name string
}

// objectEntry is the view's memory of one served insight object.
type objectEntry struct {
	kind resources.InsightKind
	// in is the engine's insight the object was built from, never
	// modified.
	in  *insights.Insight
	obj runtime.Object
	// sum fingerprints the object's content, resourceVersion aside.
	sum uint64
	// seen is the computation that last listed the insight.
	seen uint64
}

// insightSet is the view's memory of the served insight objects, so that a
// computation touches only what changed: an insight whose engine content
// (the same pointer), uid, acquiredAt and labels are as before keeps its
// object, and a new object whose content equals the old one's keeps the old
// object too.
type insightSet struct {
	gen     uint64
	entries map[objectKey]*objectEntry
	// sum is the sum of the entries' content fingerprints: with the
	// UpdateStatus fingerprint it identifies the content of a revision.
	sum uint64
	// labels are the label maps of the objects, shared by objects with the
	// same labels.
	labels map[labelKey]map[string]string
	// lastList is the insight list of the last good computation.
	lastList []*insights.Insight
	// prevList is the list of the last update and prevEntries the entry
	// of each of its insights (nil when it has none); spare is the other
	// buffer of prevEntries.
	prevList           []*insights.Insight
	prevEntries, spare []*objectEntry
}

// known implements insightSums: the fingerprint of the entry named by the
// insight's subject, when the entry was built from that very content.
func (s *insightSet) known(in insights.Insight) (uint64, bool) {
	k, name := kindOf(&in)
	ent := s.entries[objectKey{k, name}]
	if ent == nil || !sameContent(ent.in, &in) {
		return 0, false
	}
	return ent.sum, true
}

// pendingChange is an object to publish once the revision's
// resourceVersion is known.
type pendingChange struct {
	kind resources.InsightKind
	ent  *objectEntry
	// gone names a deleted object.
	gone string
}

// update folds one computation's insights into the set and returns the
// changes. The objects of changed entries get their resourceVersion from
// commit. all reports every object as changed (the first synced revision).
func (s *insightSet) update(list []*insights.Insight, meta *metav1.ObjectMeta, metaChanged, all bool) ([]pendingChange, error) {
	if s.labels == nil || len(s.labels) > 1024 {
		// A bound, should pools come and go.
		s.labels = map[labelKey]map[string]string{}
	}
	if s.entries == nil {
		s.entries = make(map[objectKey]*objectEntry, len(list))
	}
	s.gen++
	var changes []pendingChange
	// The engine lists insights in a stable order, so most insights sit
	// where they sat in the previous list, with the same content pointer:
	// those find their entry without a lookup.
	prev, prevEntries := s.prevList, s.prevEntries
	entries := s.spare[:0]
	seen := 0
	for i, in := range list {
		// The very insight of the last list, or one with the same content
		// and envelope: its entry stands as it is.
		if !metaChanged && i < len(prev) && (prev[i] == in || sameInsight(prev[i], in)) {
			if ent := prevEntries[i]; ent != nil && ent.seen != s.gen {
				ent.seen = s.gen
				seen++
				entries = append(entries, ent)
				if all {
					changes = append(changes, pendingChange{kind: ent.kind, ent: ent})
				}
				continue
			}
		}
		k, name := kindOf(in)
		if k == resources.NumInsightKinds || name == "" {
			entries = append(entries, nil)
			continue
		}
		key := objectKey{k, name}
		ent := s.entries[key]
		if ent != nil && ent.seen == s.gen {
			entries = append(entries, nil)
			continue // the first of two insights with one name wins
		}
		seen++
		if ent != nil && !metaChanged && sameInsight(ent.in, in) {
			ent.seen = s.gen
			entries = append(entries, ent)
			if all {
				changes = append(changes, pendingChange{kind: k, ent: ent})
			}
			continue
		}
		obj, err := newInsightObject(k, insightMeta(meta, k, name, insightLabels(in, s.labels)), in)
		if err != nil {
			return nil, err
		}
		sum, err := objectSum(k, obj)
		if err != nil {
			return nil, err
		}
		if ent == nil {
			ent = &objectEntry{kind: k}
			s.entries[key] = ent
		} else {
			s.sum -= ent.sum
			if ent.sum == sum && !all {
				// Same content from a new computation: keep the served object.
				ent.in, ent.seen = in, s.gen
				s.sum += sum
				entries = append(entries, ent)
				continue
			}
		}
		*ent = objectEntry{kind: k, in: in, obj: obj, sum: sum, seen: s.gen}
		s.sum += sum
		entries = append(entries, ent)
		changes = append(changes, pendingChange{kind: k, ent: ent})
	}
	if seen != len(s.entries) {
		for key, ent := range s.entries {
			if ent.seen != s.gen {
				delete(s.entries, key)
				s.sum -= ent.sum
				changes = append(changes, pendingChange{kind: key.kind, gone: key.name})
			}
		}
	}
	s.prevList, s.prevEntries, s.spare = list, entries, prevEntries
	return changes, nil
}

// commit gives the changed objects the resourceVersion rv and returns the
// changes by kind.
func (s *insightSet) commit(changes []pendingChange, rv uint64) [resources.NumInsightKinds]Changes {
	var out [resources.NumInsightKinds]Changes
	rvs := strconv.FormatUint(rv, 10)
	for _, c := range changes {
		if c.ent == nil {
			out[c.kind].Deleted = append(out[c.kind].Deleted, c.gone)
			continue
		}
		m := c.ent.obj.(metav1.Object)
		if m.GetResourceVersion() != "" {
			// A served object is never modified: republish a copy.
			c.ent.obj = shallowCopy(c.ent.obj)
			m = c.ent.obj.(metav1.Object)
		}
		m.SetResourceVersion(rvs)
		out[c.kind].Changed = append(out[c.kind].Changed, c.ent.obj)
	}
	for k := range out {
		sort.Strings(out[k].Deleted)
		sort.Slice(out[k].Changed, func(i, j int) bool { return nameOf(out[k].Changed[i]) < nameOf(out[k].Changed[j]) })
	}
	return out
}

// shallowCopy copies an insight object's top-level struct; the copy shares
// everything below it.
func shallowCopy(obj runtime.Object) runtime.Object {
	switch o := obj.(type) {
	case *update.ClusterVersionProgressInsight:
		c := *o
		return &c
	case *update.ClusterOperatorProgressInsight:
		c := *o
		return &c
	case *update.MachineConfigPoolProgressInsight:
		c := *o
		return &c
	case *update.NodeProgressInsight:
		c := *o
		return &c
	case *update.HealthInsight:
		c := *o
		return &c
	}
	return obj.DeepCopyObject()
}

// sameInsight reports whether a and b give their objects the same content:
// the same engine content, uid, acquiredAt and labels.
func sameInsight(a, b *insights.Insight) bool {
	return sameContent(a, b) && a.UID == b.UID && a.AcquiredAt.Equal(&b.AcquiredAt) && a.Scope == b.Scope && a.Pool == b.Pool &&
		a.Informer == b.Informer && levelOf(a) == levelOf(b)
}

// sameContent reports whether a and b share their engine content: the
// engine never modifies what it returned, so the same pointer in two results
// is the same, unchanged content.
func sameContent(a, b *insights.Insight) bool {
	return a != nil && b != nil && a.ClusterVersion == b.ClusterVersion && a.ClusterOperator == b.ClusterOperator &&
		a.MachineConfigPool == b.MachineConfigPool && a.Node == b.Node && a.Health == b.Health &&
		(a.ClusterVersion != nil || a.ClusterOperator != nil || a.MachineConfigPool != nil || a.Node != nil || a.Health != nil)
}

func levelOf(in *insights.Insight) v1alpha1.InsightImpactLevel {
	if in.Health == nil {
		return ""
	}
	return in.Health.Impact.Level
}

// objectSum fingerprints an insight object as clients see it, apart from
// its resourceVersion: kind, metadata and status.
func objectSum(k resources.InsightKind, obj runtime.Object) (uint64, error) {
	m := obj.(metav1.Object)
	h := sha256.New()
	writeField(h, k.Kind())
	writeField(h, m.GetName())
	writeField(h, string(m.GetUID()))
	ts := m.GetCreationTimestamp()
	writeField(h, ts.UTC().Format("2006-01-02T15:04:05Z"))
	keys := make([]string, 0, len(m.GetLabels()))
	for key := range m.GetLabels() {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		writeField(h, key)
		writeField(h, m.GetLabels()[key])
	}
	var status any
	switch o := obj.(type) {
	case *update.ClusterVersionProgressInsight:
		status = &o.Status
	case *update.ClusterOperatorProgressInsight:
		status = &o.Status
	case *update.MachineConfigPoolProgressInsight:
		status = &o.Status
	case *update.NodeProgressInsight:
		status = &o.Status
	case *update.HealthInsight:
		status = &o.Status
	}
	if err := json.NewEncoder(h).Encode(status); err != nil {
		return 0, err
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return binary.BigEndian.Uint64(sum[:8]), nil
}
