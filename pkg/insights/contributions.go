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

package insights

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
)

// MaxClockSkew is how far in the future an UpdateInformer's renewTime may be
// before the engine refuses the contribution: more than a component's clock
// can plausibly be ahead of the server's.
const MaxClockSkew = time.Minute

// Every list of informers in UpdateStatus keeps room for the built-in
// informers, whether or not they report anything now, so that a contribution
// accepted today is not refused tomorrow because the alerts started firing.
const (
	maxExternalControlPlaneInformers = maxInformersPerList - 4 // alerts, cpi, nodes, update-status
	maxExternalPoolInformers         = maxInformersPerList - 1 // nodes
)

// refExternalInformers documents the contribution API.
const refExternalInformers = "https://github.com/update-status/apiserver/blob/main/docs/insights.md#external-informers"

// Verdict is the engine's verdict on one UpdateInformer: what the server
// writes into its status.
type Verdict struct {
	// Namespace and Name identify the UpdateInformer.
	Namespace, Name string
	// Generation is the metadata.generation the verdict is about.
	Generation int64
	// Informer is the name the insights are served under.
	Informer string
	// Accepted is whether the insights are merged when the lease is current;
	// when false, Reason (an informersv1alpha1.Reason… constant) and Message
	// say why.
	Accepted bool
	Reason   string
	Message  string
	// Expired is whether the lease lapsed, at ExpiresAt: the insights have
	// left the API.
	Expired   bool
	ExpiresAt time.Time
	// Insights is how many insights are merged: zero unless accepted and
	// current.
	Insights int32
}

// contribution is an UpdateInformer accepted and current: its insights, in
// the order UpdateStatus lists them, and their entries of Result.Insights.
type contribution struct {
	informer     string
	controlPlane []v1alpha1.ControlPlaneInsight
	pools        map[string][]v1alpha1.WorkerPoolInsight
	flat         []*Insight
}

// contributionEntry is the Engine's memory of one UpdateInformer object: the
// sorted lists do not change while the object does not.
type contributionEntry struct {
	obj *informersv1alpha1.UpdateInformer
	c   *contribution
	// problem is the reason and message of a refusal the object alone
	// decides (not the pools, nodes or clock).
	reason, message string
}

// judgeContributions judges the UpdateInformers of src at a.now: a.external
// gets the accepted, current ones, in informer-name order, a.verdicts a
// verdict for every object and a.serverHealth the health insights the
// verdicts call for. ps are the pools.
func (e *Engine) judgeContributions(src *Cluster, ps *poolSet, a *assembly) {
	if len(src.UpdateInformers) == 0 {
		e.contribs = nil
		return
	}
	var nodes map[string]bool
	nodeExists := func(name string) bool {
		if nodes == nil {
			nodes = nodeNames(src.Nodes)
		}
		return nodes[name]
	}
	objs := slices.Clone(src.UpdateInformers)
	objs = slices.DeleteFunc(objs, func(o *informersv1alpha1.UpdateInformer) bool { return o == nil })
	// First come, first served for the room in the lists; then by name, so
	// that every replica decides alike. (Stable: of two objects listed with
	// one namespace and name, the first listed stands.)
	slices.SortStableFunc(objs, func(x, y *informersv1alpha1.UpdateInformer) int {
		if c := x.CreationTimestamp.Compare(y.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	leases := companionLeases(src.ContributionLeases)
	memory := make(map[string]*contributionEntry, len(objs))
	cpUsed, poolUsed := 0, map[string]int{}
	var accepted []*contribution
	verdicts := make([]Verdict, 0, len(objs))
	for _, o := range objs {
		key := o.Namespace + "/" + o.Name
		if _, dup := memory[key]; dup {
			continue // the same object listed twice: one informer, one verdict
		}
		ent := e.contribs[key]
		switch {
		case ent != nil && ent.obj == o:
		case ent != nil && sameAssertions(ent.obj, o):
			// A renewal: the same insights, so the same lists and entries
			// of Result.Insights (pointers included).
			ent = &contributionEntry{obj: o, c: ent.c, reason: ent.reason, message: ent.message}
		default:
			ent = prepareContribution(o)
		}
		memory[key] = ent
		v := Verdict{Namespace: o.Namespace, Name: o.Name, Generation: o.Generation,
			Informer: informersv1alpha1.InformerName(o.Namespace, o.Name), Accepted: true}
		renewed, lease := LeaseOf(o, leases[key])
		v.ExpiresAt = renewed.Add(lease)
		v.Expired = !a.now.Before(v.ExpiresAt)
		switch {
		case ent.reason != "":
			v.Accepted, v.Reason, v.Message = false, ent.reason, ent.message
		case renewed.After(a.now.Add(MaxClockSkew)):
			v.Accepted, v.Reason = false, informersv1alpha1.ReasonRenewTimeInFuture
			v.Message = fmt.Sprintf("renewTime %s is more than %s ahead of the server's clock",
				renewed.UTC().Format(time.RFC3339), MaxClockSkew)
			// The clock catches up with the renewal then.
			a.next = earliest(a.next, renewed.Add(-MaxClockSkew))
		default:
			v.Reason, v.Message = checkReferences(ent.c, ps, nodeExists)
			v.Accepted = v.Reason == ""
		}
		if v.Accepted && !v.Expired {
			c := ent.c
			// Only a list that appears takes room.
			full := len(c.controlPlane) > 0 && cpUsed >= maxExternalControlPlaneInformers
			for pool, list := range c.pools {
				full = full || len(list) > 0 && poolUsed[pool] >= maxExternalPoolInformers
			}
			if full {
				v.Accepted, v.Reason = false, informersv1alpha1.ReasonTooManyInformers
				v.Message = fmt.Sprintf("the control plane keeps room for %d external informers and each worker pool for %d; earlier UpdateInformers took it",
					maxExternalControlPlaneInformers, maxExternalPoolInformers)
			} else {
				if len(c.controlPlane) > 0 {
					cpUsed++
				}
				for pool, list := range c.pools {
					if len(list) > 0 {
						poolUsed[pool]++
					}
				}
				accepted = append(accepted, c)
				v.Insights = int32(len(c.flat))
			}
		}
		switch {
		case v.Expired:
			a.serverHealth = append(a.serverHealth, expiredHealth(o, &v, renewed, lease))
		case !v.Accepted:
			a.serverHealth = append(a.serverHealth, refusedHealth(o, &v))
			a.next = earliest(a.next, v.ExpiresAt)
		default:
			a.next = earliest(a.next, v.ExpiresAt)
		}
		verdicts = append(verdicts, v)
	}
	e.contribs = memory
	slices.SortFunc(verdicts, func(x, y Verdict) int {
		return cmp.Or(cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	a.verdicts = verdicts
	slices.SortFunc(accepted, func(x, y *contribution) int { return cmp.Compare(x.informer, y.informer) })
	a.external = accepted
}

// LeaseOf returns when o was last renewed and its lease (the default when it
// sets none). The renewal is the later of o's spec.renewTime (its creation
// when unset) and the renewTime of l, its companion Lease (nil when it has
// none; see IsContributionLease).
func LeaseOf(o *informersv1alpha1.UpdateInformer, l *coordinationv1.Lease) (time.Time, time.Duration) {
	renewed := o.CreationTimestamp.Time
	if o.Spec.RenewTime != nil {
		renewed = o.Spec.RenewTime.Time
	}
	if l != nil && l.Spec.RenewTime != nil && l.Spec.RenewTime.After(renewed) {
		renewed = l.Spec.RenewTime.Time
	}
	seconds := int32(informersv1alpha1.DefaultLeaseDurationSeconds)
	if s := o.Spec.LeaseDurationSeconds; s != nil && *s > 0 {
		seconds = *s
	}
	return renewed, time.Duration(seconds) * time.Second
}

// IsContributionLease reports whether l renews an UpdateInformer: the one
// with its namespace and name, when it carries informersv1alpha1.LeaseLabel.
func IsContributionLease(l *coordinationv1.Lease) bool {
	_, ok := l.Labels[informersv1alpha1.LeaseLabel]
	return ok
}

// companionLeases indexes the contribution leases by namespace/name.
func companionLeases(leases []*coordinationv1.Lease) map[string]*coordinationv1.Lease {
	if len(leases) == 0 {
		return nil
	}
	out := make(map[string]*coordinationv1.Lease, len(leases))
	for _, l := range leases {
		if l != nil && IsContributionLease(l) {
			out[l.Namespace+"/"+l.Name] = l
		}
	}
	return out
}

// prepareContribution checks what o alone decides and sorts its insights as
// UpdateStatus lists them. It never fails on a malformed object: it refuses
// it with a reason.
func prepareContribution(o *informersv1alpha1.UpdateInformer) *contributionEntry {
	informer := informersv1alpha1.InformerName(o.Namespace, o.Name)
	ent := &contributionEntry{obj: o}
	refuse := func(reason, format string, args ...any) *contributionEntry {
		ent.reason, ent.message = reason, fmt.Sprintf(format, args...)
		return ent
	}
	// A namespace is a DNS label (no dot), so that no two objects derive one
	// informer name; an object of the API always has one.
	if len(informer) > informersv1alpha1.MaxInformerNameLength || len(utilvalidation.IsValidLabelValue(informer)) > 0 ||
		len(utilvalidation.IsDNS1123Subdomain(informer)) > 0 || len(utilvalidation.IsDNS1123Label(o.Namespace)) > 0 {
		return refuse(informersv1alpha1.ReasonInformerNameTooLong,
			"the informer name %q (<name>.<namespace>) must be a label value of at most %d characters", informer, informersv1alpha1.MaxInformerNameLength)
	}
	c := &contribution{informer: informer, pools: map[string][]v1alpha1.WorkerPoolInsight{}}
	seen := map[string]bool{}
	uid := func(u string) error {
		if seen[u] {
			return nil // the same insight may stand under several pools
		}
		seen[u] = true
		if len(utilvalidation.IsDNS1123Label(u)) > 0 {
			return fmt.Errorf("uid %q is not a lowercase RFC 1123 label", u)
		}
		return nil
	}
	if cp := o.Spec.ControlPlane; cp != nil {
		if len(cp.Insights) > informersv1alpha1.MaxControlPlaneInsights {
			return refuse(informersv1alpha1.ReasonInvalidInsight, "%d control-plane insights, more than %d", len(cp.Insights), informersv1alpha1.MaxControlPlaneInsights)
		}
		for i := range cp.Insights {
			in := &cp.Insights[i]
			if err := checkControlPlaneInsight(in); err != nil {
				return refuse(informersv1alpha1.ReasonInvalidInsight, "controlPlane.insights[%d]: %v", i, err)
			}
			if err := uid(in.UID); err != nil {
				return refuse(informersv1alpha1.ReasonInvalidInsight, "controlPlane.insights[%d]: %v", i, err)
			}
		}
		c.controlPlane = slices.Clone(cp.Insights)
		slices.SortStableFunc(c.controlPlane, func(x, y v1alpha1.ControlPlaneInsight) int {
			return cmp.Or(cmp.Compare(conventions.TypeOrder(x.Insight.Type), conventions.TypeOrder(y.Insight.Type)), cmp.Compare(x.UID, y.UID))
		})
		for i := range c.controlPlane {
			in := &c.controlPlane[i]
			u := &in.Insight
			c.flat = append(c.flat, &Insight{UID: in.UID, AcquiredAt: in.AcquiredAt, Scope: v1alpha1.ControlPlaneScope, Informer: informer,
				External: true, ClusterVersion: u.ClusterVersionStatusInsight, ClusterOperator: u.ClusterOperatorStatusInsight,
				MachineConfigPool: u.MachineConfigPoolStatusInsight, Node: u.NodeStatusInsight, Health: u.HealthInsight})
		}
	}
	if len(o.Spec.WorkerPools) > informersv1alpha1.MaxWorkerPools {
		return refuse(informersv1alpha1.ReasonInvalidInsight, "%d worker pools, more than %d", len(o.Spec.WorkerPools), informersv1alpha1.MaxWorkerPools)
	}
	for i := range o.Spec.WorkerPools {
		p := &o.Spec.WorkerPools[i]
		if _, dup := c.pools[p.Name]; dup {
			return refuse(informersv1alpha1.ReasonInvalidInsight, "workerPools[%d]: pool %q is listed twice", i, p.Name)
		}
		if len(p.Insights) > informersv1alpha1.MaxWorkerPoolInsights {
			return refuse(informersv1alpha1.ReasonInvalidInsight, "workerPools[%d]: %d insights, more than %d", i, len(p.Insights), informersv1alpha1.MaxWorkerPoolInsights)
		}
		for j := range p.Insights {
			if err := checkWorkerPoolInsight(&p.Insights[j]); err != nil {
				return refuse(informersv1alpha1.ReasonInvalidInsight, "workerPools[%d].insights[%d]: %v", i, j, err)
			}
			if err := uid(p.Insights[j].UID); err != nil {
				return refuse(informersv1alpha1.ReasonInvalidInsight, "workerPools[%d].insights[%d]: %v", i, j, err)
			}
		}
		list := slices.Clone(p.Insights)
		slices.SortStableFunc(list, func(x, y v1alpha1.WorkerPoolInsight) int {
			return cmp.Or(cmp.Compare(conventions.TypeOrder(x.Insight.Type), conventions.TypeOrder(y.Insight.Type)), cmp.Compare(x.UID, y.UID))
		})
		c.pools[p.Name] = list
		for j := range list {
			in := &list[j]
			u := &in.Insight
			c.flat = append(c.flat, &Insight{UID: in.UID, AcquiredAt: in.AcquiredAt, Scope: v1alpha1.WorkerPoolScope, Pool: p.Name,
				Informer: informer, External: true, MachineConfigPool: u.MachineConfigPoolStatusInsight, Node: u.NodeStatusInsight,
				Health: u.HealthInsight})
		}
	}
	if msg := invalidAssertion(o); msg != "" {
		return refuse(informersv1alpha1.ReasonInvalidInsight, "%s", msg)
	}
	ent.c = c
	return ent
}

// sameAssertions reports whether two objects of one UpdateInformer assert the
// same insights: a renewal that changed nothing else.
func sameAssertions(a, b *informersv1alpha1.UpdateInformer) bool {
	return a.Namespace == b.Namespace && a.Name == b.Name &&
		apiequality.Semantic.DeepEqual(a.Spec.ControlPlane, b.Spec.ControlPlane) &&
		apiequality.Semantic.DeepEqual(a.Spec.WorkerPools, b.Spec.WorkerPools)
}

// maxInvalidMessage bounds the message of an InvalidInsight refusal: the
// offending value may be large.
const maxInvalidMessage = 1024

// invalidAssertion checks the insights of o by the rules UpdateStatus obeys
// (package validation's per-insight validators), where they would stand: on
// the control plane, or in their pool. It returns the first violation, with
// its path in o's spec, or "" when there is none. What the schema of the
// CustomResourceDefinition cannot say (an insight placed where its scope
// does not allow, a node insight naming another pool) is caught here, and so
// is an object that bypassed the schema.
func invalidAssertion(o *informersv1alpha1.UpdateInformer) string {
	var errs field.ErrorList
	if cp := o.Spec.ControlPlane; cp != nil {
		errs = validation.ValidateControlPlaneInsights(cp.Insights, field.NewPath("controlPlane", "insights"))
	}
	for i := 0; len(errs) == 0 && i < len(o.Spec.WorkerPools); i++ {
		p := &o.Spec.WorkerPools[i]
		errs = validation.ValidateWorkerPoolInsights(p.Name, p.Insights, field.NewPath("workerPools").Index(i).Child("insights"))
	}
	if len(errs) == 0 {
		return ""
	}
	return conventions.Truncate(errs[0].Field+": "+errs[0].ErrorBody(), maxInvalidMessage)
}

// checkControlPlaneInsight checks that the union member named by the type is
// the one set, which the schema says too: an object that bypassed it must not
// crash the engine.
func checkControlPlaneInsight(in *v1alpha1.ControlPlaneInsight) error {
	u := &in.Insight
	set := map[v1alpha1.InsightType]bool{
		v1alpha1.ClusterVersionStatusInsightType:    u.ClusterVersionStatusInsight != nil,
		v1alpha1.ClusterOperatorStatusInsightType:   u.ClusterOperatorStatusInsight != nil,
		v1alpha1.MachineConfigPoolStatusInsightType: u.MachineConfigPoolStatusInsight != nil,
		v1alpha1.NodeStatusInsightType:              u.NodeStatusInsight != nil,
		v1alpha1.HealthInsightType:                  u.HealthInsight != nil,
	}
	return checkUnion(u.Type, set)
}

// checkWorkerPoolInsight is checkControlPlaneInsight for a pool's insight.
func checkWorkerPoolInsight(in *v1alpha1.WorkerPoolInsight) error {
	u := &in.Insight
	set := map[v1alpha1.InsightType]bool{
		v1alpha1.MachineConfigPoolStatusInsightType: u.MachineConfigPoolStatusInsight != nil,
		v1alpha1.NodeStatusInsightType:              u.NodeStatusInsight != nil,
		v1alpha1.HealthInsightType:                  u.HealthInsight != nil,
	}
	return checkUnion(u.Type, set)
}

func checkUnion(typ v1alpha1.InsightType, set map[v1alpha1.InsightType]bool) error {
	n := 0
	for _, ok := range set {
		if ok {
			n++
		}
	}
	if n != 1 || !set[typ] {
		return fmt.Errorf("type %q must name the one member that is set", typ)
	}
	return nil
}

// checkReferences checks what the cluster decides: the pools must be worker
// pools that exist and the nodes named must exist.
func checkReferences(c *contribution, ps *poolSet, nodeExists func(string) bool) (reason, message string) {
	for _, pool := range slices.Sorted(maps.Keys(c.pools)) {
		p := ps.byName[pool]
		switch {
		case p == nil:
			return informersv1alpha1.ReasonUnknownPool, fmt.Sprintf("MachineConfigPool %q does not exist", pool)
		case p.master:
			return informersv1alpha1.ReasonUnknownPool, fmt.Sprintf("%q is the control plane's pool: put its insights under controlPlane", pool)
		}
	}
	for _, in := range c.flat {
		if in.MachineConfigPool != nil && ps.byName[in.MachineConfigPool.Name] == nil {
			return informersv1alpha1.ReasonUnknownPool, fmt.Sprintf("insight %q names MachineConfigPool %q, which does not exist", in.UID, in.MachineConfigPool.Name)
		}
		var names []string
		if in.Node != nil {
			names = append(names, in.Node.Name)
		}
		if in.Health != nil {
			for _, r := range in.Health.Scope.Resources {
				if r.Group == "" && r.Resource == "nodes" {
					names = append(names, r.Name)
				}
			}
		}
		for _, n := range names {
			if !nodeExists(n) {
				return informersv1alpha1.ReasonUnknownNode, fmt.Sprintf("insight %q names Node %q, which does not exist", in.UID, n)
			}
		}
	}
	return "", ""
}

// informerRef is the reference of the UpdateInformer o.
func informerRef(o *informersv1alpha1.UpdateInformer) *v1alpha1.ResourceRef {
	return &v1alpha1.ResourceRef{Group: informersv1alpha1.GroupName, Resource: informersv1alpha1.ResourceUpdateInformers,
		Namespace: o.Namespace, Name: o.Name}
}

// contributionHealth is a Health insight of the server's own about the
// UpdateInformer o. Its uid hashes the object's namespace and name, which no
// two objects share.
func contributionHealth(kind v1alpha1.HealthKind, o *informersv1alpha1.UpdateInformer, started time.Time, summary, description string) *healthItem {
	ref := informerRef(o)
	uid := string(kind) + "-" + conventions.Hash16(ref.Group, ref.Resource, ref.Namespace, ref.Name)
	if !conventions.IsDNSLabel(ref.Namespace) {
		ref = nil // no reference to an object the API cannot hold
	}
	h := newHealth(kind, "", ref, v1alpha1.ControlPlaneScope, started, v1alpha1.WarningImpactLevel, v1alpha1.NoneImpactType,
		summary, description, refExternalInformers)
	h.uid = uid
	return h
}

func expiredHealth(o *informersv1alpha1.UpdateInformer, v *Verdict, renewed time.Time, lease time.Duration) *healthItem {
	return contributionHealth(v1alpha1.HealthInformerExpired, o, v.ExpiresAt,
		fmt.Sprintf("Informer %s stopped reporting at %s", v.Informer, v.ExpiresAt.UTC().Format(time.RFC3339)),
		fmt.Sprintf("UpdateInformer %s/%s was last renewed at %s with a lease of %s, so its insights have left the API. They come back when the component renews it; delete the object if the component is gone for good.",
			o.Namespace, o.Name, renewed.UTC().Format(time.RFC3339), lease))
}

func refusedHealth(o *informersv1alpha1.UpdateInformer, v *Verdict) *healthItem {
	return contributionHealth(v1alpha1.HealthInformerRefused, o, o.CreationTimestamp.Time,
		fmt.Sprintf("Insights of informer %s are not accepted: %s", v.Informer, v.Reason),
		fmt.Sprintf("UpdateInformer %s/%s: %s. Its insights are not shown until the component corrects the object.",
			o.Namespace, o.Name, strings.TrimSuffix(v.Message, ".")))
}

// nodeNames returns the names of nodes.
func nodeNames(nodes []*Node) map[string]bool {
	out := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if n != nil {
			out[n.Name] = true
		}
	}
	return out
}
