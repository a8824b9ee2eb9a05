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

// Package validation checks UpdateStatus objects against the constraints of
// the update.openshift.io/v1alpha1 API: the lengths, limits, patterns, enums
// and list-map keys of the schema, the CEL rules as this project interprets
// them (docs/api-decisions.md#validation-rules), and the cheap consistency
// invariants of insight placement (docs/insights.md#where-insights-go).
//
// The server serves v1alpha1 objects as computed, so the validator checks
// v1alpha1 and is the oracle for every test of computed objects. It is written
// to run as a self-check on objects with many thousands of insights: a valid
// object is walked without allocating field paths.
package validation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Limits of the API (docs/api.md).
const (
	maxConditions           = 10
	maxWorkerPools          = 32
	maxInformers            = 16
	maxControlPlaneInsights = 128
	maxWorkerPoolInsights   = 1024
	maxVersionMetadata      = 5
	maxSummaries            = 16
	maxScopeResources       = 16
	maxNodeCount            = 4096

	maxConditionTypeLength    = 316
	maxConditionReasonLength  = 1024
	maxConditionMessageLength = 32768
	maxRefLength              = 253
	maxUIDLength              = 63
	maxOperatorNameLength     = 64
	maxNodeNameLength         = 253
	maxVersionLength          = 64
	maxMetadataValueLength    = 32
	maxNodeMessageLength      = 100
	maxSummaryLength          = 256
	maxDescriptionLength      = 4096
	maxReferenceLength        = 512
)

// Values of every enum used as a field type, and of metav1.Condition status.
var (
	conditionStatuses = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}

	controlPlaneInsightTypes = []v1alpha1.InsightType{
		v1alpha1.ClusterVersionStatusInsightType, v1alpha1.ClusterOperatorStatusInsightType,
		v1alpha1.MachineConfigPoolStatusInsightType, v1alpha1.NodeStatusInsightType, v1alpha1.HealthInsightType,
	}
	workerPoolInsightTypes = []v1alpha1.InsightType{
		v1alpha1.MachineConfigPoolStatusInsightType, v1alpha1.NodeStatusInsightType, v1alpha1.HealthInsightType,
	}
	controlPlaneAssessments = []v1alpha1.ControlPlaneAssessment{
		v1alpha1.ControlPlaneAssessmentUnknown, v1alpha1.ControlPlaneAssessmentProgressing,
		v1alpha1.ControlPlaneAssessmentCompleted, v1alpha1.ControlPlaneAssessmentDegraded,
	}
	versionMetadataKeys = []v1alpha1.VersionMetadataKey{
		v1alpha1.InstallationMetadata, v1alpha1.PartialMetadata, v1alpha1.ArchitectureMetadata,
	}
	poolAssessments = []v1alpha1.PoolAssessment{
		v1alpha1.PoolPending, v1alpha1.PoolCompleted, v1alpha1.PoolDegraded, v1alpha1.PoolExcluded, v1alpha1.PoolProgressing,
	}
	nodeSummaryTypes = []v1alpha1.NodeSummaryType{
		v1alpha1.NodesTotal, v1alpha1.NodesAvailable, v1alpha1.NodesProgressing, v1alpha1.NodesOutdated,
		v1alpha1.NodesDraining, v1alpha1.NodesExcluded, v1alpha1.NodesDegraded,
	}
	scopeTypes   = []v1alpha1.ScopeType{v1alpha1.ControlPlaneScope, v1alpha1.WorkerPoolScope}
	impactLevels = []v1alpha1.InsightImpactLevel{
		v1alpha1.UnknownImpactLevel, v1alpha1.InfoImpactLevel, v1alpha1.WarningImpactLevel,
		v1alpha1.ErrorImpactLevel, v1alpha1.CriticalInfoLevel,
	}
	impactTypes = []v1alpha1.InsightImpactType{
		v1alpha1.NoneImpactType, v1alpha1.UnknownImpactType, v1alpha1.ApiAvailabilityImpactType,
		v1alpha1.ClusterCapacityImpactType, v1alpha1.ApplicationAvailabilityImpactType,
		v1alpha1.ApplicationOutageImpactType, v1alpha1.DataLossImpactType,
		v1alpha1.UpdateSpeedImpactType, v1alpha1.UpdateStalledImpactType,
	}
)

// The API groups of a hosted cluster's objects.
const (
	groupHyperShift = "hypershift.openshift.io"
	groupClusterAPI = "cluster.x-k8s.io"
)

// groupResource is an allowed target of a reference.
type groupResource struct{ group, resource string }

// refRule is a CEL rule that restricts what a reference may point at.
type refRule struct {
	allowed []groupResource
	message string
}

// The reference rules (docs/api-decisions.md#validation-rules). Those of
// the control plane and the worker pools carry upstream's messages.
var (
	ruleCPResource = refRule{
		allowed: []groupResource{{"config.openshift.io", "clusterversions"}, {"hypershift.openshift.io", "hostedclusters"}},
		message: "controlPlane.resource must be either a clusterversions.config.openshift.io or a hostedclusters.hypershift.openshift.io resource",
	}
	ruleCPPool = refRule{
		allowed: []groupResource{{"machineconfiguration.openshift.io", "machineconfigpools"}},
		message: "controlPlane.poolResource must be a machineconfigpools.machineconfiguration.openshift.io resource",
	}
	// R-WP-RES: the rule text is normative, its message mentions the wrong
	// resource (docs/api-decisions.md#validation-rules).
	ruleWPResource = refRule{
		allowed: []groupResource{{"machineconfiguration.openshift.io", "machineconfigpools"}, {"hypershift.openshift.io", "nodepools"}},
		message: "workerPools[].poolResource must be a machineconfigpools.machineconfiguration.openshift.io or hostedclusters.hypershift.openshift.io resource",
	}
	// R-CV-RES, R-CO-RES, R-MCP-RES and R-NODE-RES also allow the objects
	// of a hosted cluster that take the standalone ones' places; R-NODE-RES
	// writes the core group as an absent group
	// (docs/api-decisions.md#validation-rules).
	ruleCVResource   = resourceRule(groupResource{"config.openshift.io", "clusterversions"}, groupResource{groupHyperShift, "hostedclusters"})
	ruleCOResource   = resourceRule(groupResource{"config.openshift.io", "clusteroperators"}, groupResource{groupHyperShift, "controlplanecomponents"})
	ruleMCPResource  = resourceRule(groupResource{"machineconfiguration.openshift.io", "machineconfigpools"}, groupResource{groupHyperShift, "nodepools"})
	ruleNodeResource = resourceRule(groupResource{"", "nodes"}, groupResource{groupClusterAPI, "machines"})
)

// resourceRule is the rule on an insight's resource that allows the targets
// allowed. Its message names them: "resource must be a <resource>.<group>
// or ... resource", the core group written core.k8s.io.
func resourceRule(allowed ...groupResource) refRule {
	names := make([]string, len(allowed))
	for i, gr := range allowed {
		names[i] = gr.resource + "." + cmp.Or(gr.group, "core.k8s.io")
	}
	return refRule{allowed: allowed, message: "resource must be a " + strings.Join(names, " or ") + " resource"}
}

// Messages of the remaining rules and patterns.
const (
	msgName          = `must be "` + resources.UpdateStatusName + `"`
	msgDNS           = "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (regex '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')"
	msgOperatorName  = "must consist of lower case alphanumeric characters or '-' (regex '^[a-z0-9-]+$')"
	msgConditionType = "must be an optional DNS subdomain prefix and '/' followed by a name of alphanumeric characters, '-', '_' or '.' that starts and ends with an alphanumeric character"
	msgReason        = "must start with a letter, contain only letters, digits, '_', ',' or ':', and end with a letter, digit or '_'"
	msgVersion       = `must be "<none>" or a semantic version X.Y.Z with an optional pre-release and no build metadata`
	msgNodeVersion   = "must be a semantic version X.Y.Z with an optional pre-release and no build metadata"
	msgPrevious      = "previous version must be '<none>' iff marked with Installation metadata"
	msgTarget        = "target version must not be '<none>' or have Installation metadata"
	msgURL           = "reference must be a valid URL (an absolute URI or an absolute path, as CEL isURL accepts)"
	msgZeroTime      = "must be a time when present, not the zero time (which serializes as null)"
	msgEstimate      = "must be set with estimatedDurationNanoseconds"
	msgPercent       = "must be between 0 and 100, inclusive"
	msgNonNegative   = "must be greater than or equal to 0"
)

// ValidateUpdateStatus returns every violation of the API's constraints in
// obj, each with the path of the offending field. A nil result means obj may
// be served.
func ValidateUpdateStatus(obj *v1alpha1.UpdateStatus) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(nil, "an UpdateStatus is required")}
	}
	var v validator
	v.object(obj)
	return v.errs
}

// validator collects errors while walking one object.
type validator struct {
	errs field.ErrorList
	// seen is reused for the key checks of long list maps.
	seen map[string]struct{}
	// lastVersion is the last string that matched versionRE; node versions
	// repeat, so this skips most regexp runs.
	lastVersion string
}

// placement says where an insight sits, for the placement checks.
type placement struct {
	// scope is the scopeType MachineConfigPool and Node insights must have.
	scope v1alpha1.ScopeType
	// pool is the name of the enclosing pool (the control-plane pool under
	// controlPlane); empty when unknown, then nothing is checked against it.
	pool string
}

func (v *validator) add(err *field.Error) { v.errs = append(v.errs, err) }

func (v *validator) object(obj *v1alpha1.UpdateStatus) {
	v.typeMeta(&obj.TypeMeta, "UpdateStatus")
	meta := field.NewPath("metadata")
	switch obj.Name {
	case resources.UpdateStatusName:
	case "":
		v.add(field.Required(meta.Child("name"), msgName))
	default:
		v.add(field.Invalid(meta.Child("name"), obj.Name, msgName))
	}
	v.clusterScoped(&obj.ObjectMeta, "UpdateStatus")
	status := path{name: "status"}
	v.status(&status, &obj.Status)
}

// typeMeta checks apiVersion and kind where they are set.
func (v *validator) typeMeta(tm *metav1.TypeMeta, kind string) {
	if tm.APIVersion != "" && tm.APIVersion != v1alpha1.SchemeGroupVersion.String() {
		v.add(field.Invalid(field.NewPath("apiVersion"), tm.APIVersion, "must be "+v1alpha1.SchemeGroupVersion.String()))
	}
	if tm.Kind != "" && tm.Kind != kind {
		v.add(field.Invalid(field.NewPath("kind"), tm.Kind, "must be "+kind))
	}
}

// clusterScoped reports a namespace on an object of a cluster-scoped kind.
func (v *validator) clusterScoped(meta *metav1.ObjectMeta, kind string) {
	if meta.Namespace != "" {
		v.add(field.Forbidden(field.NewPath("metadata", "namespace"), kind+" is cluster-scoped"))
	}
}

func (v *validator) status(p *path, s *v1alpha1.UpdateStatusStatus) {
	conds := p.child("conditions")
	v.conditions(&conds, s.Conditions)
	if s.ControlPlane != nil {
		cp := p.child("controlPlane")
		v.controlPlane(&cp, s.ControlPlane)
	}
	pools := p.child("workerPools")
	listMap(v, &pools, s.WorkerPools, maxWorkerPools, "name", func(pool *v1alpha1.Pool) string { return pool.Name }, v.pool)
}

func (v *validator) controlPlane(p *path, cp *v1alpha1.ControlPlane) {
	conds := p.child("conditions")
	v.conditions(&conds, cp.Conditions)
	if cp.Resource != nil {
		rp := p.child("resource")
		v.reference(&rp, cp.Resource, &ruleCPResource)
	}
	where := placement{scope: v1alpha1.ControlPlaneScope}
	if cp.PoolResource != nil {
		rp := p.child("poolResource")
		v.reference(&rp, &cp.PoolResource.ResourceRef, &ruleCPPool)
		where.pool = cp.PoolResource.Name
	}
	infs := p.child("informers")
	informerList(v, &infs, cp.Informers, func(inf *v1alpha1.ControlPlaneInformer) string { return inf.Name },
		func(ins *path, inf *v1alpha1.ControlPlaneInformer) { v.controlPlaneInsights(ins, inf.Insights, &where) })
}

// informerList checks the informers of the control plane or of a pool: at
// most the API's number, each one's name (name gives it) unique and a
// subdomain (R-SUBDOMAIN), and each one's insights with insights.
func informerList[I any](v *validator, p *path, infs []I, name func(*I) string, insights func(*path, *I)) {
	listMap(v, p, infs, maxInformers, "name", name, func(ip *path, inf *I) {
		np := ip.child("name")
		v.subdomainField(&np, name(inf), true)
		ins := ip.child("insights")
		insights(&ins, inf)
	})
}

// listMap checks a list map: at most maxN items, the key of each (key gives
// it, in the field keyField) unique, and each item with check, at its index.
func listMap[T any](v *validator, p *path, items []T, maxN int, keyField string, key func(*T) string, check func(*path, *T)) {
	v.maxItems(p, len(items), maxN)
	v.duplicates(p, len(items), keyField, func(i int) string { return key(&items[i]) })
	for i := range items {
		ip := p.at(i)
		check(&ip, &items[i])
	}
}

// ValidateControlPlaneInsights returns every violation in the insights one
// informer asserts about the control plane (at most the API's number, unique
// uids, each by the rules of an UpdateStatus), each with its path below fld.
func ValidateControlPlaneInsights(insights []v1alpha1.ControlPlaneInsight, fld *field.Path) field.ErrorList {
	var v validator
	p := rootedAt(fld)
	v.controlPlaneInsights(&p, insights, &placement{scope: v1alpha1.ControlPlaneScope})
	return v.errs
}

// ValidateWorkerPoolInsights is ValidateControlPlaneInsights for the
// insights one informer asserts about the worker pool called pool: their
// MachineConfigPool and Node insights must name it.
func ValidateWorkerPoolInsights(pool string, insights []v1alpha1.WorkerPoolInsight, fld *field.Path) field.ErrorList {
	var v validator
	p := rootedAt(fld)
	v.workerPoolInsights(&p, insights, &placement{scope: v1alpha1.WorkerPoolScope, pool: pool})
	return v.errs
}

func (v *validator) controlPlaneInsights(p *path, insights []v1alpha1.ControlPlaneInsight, where *placement) {
	insightList(v, p, insights, maxControlPlaneInsights,
		func(in *v1alpha1.ControlPlaneInsight) (string, *metav1.Time) { return in.UID, &in.AcquiredAt },
		func(up *path, in *v1alpha1.ControlPlaneInsight) {
			v.union(up, controlPlaneInsightTypes, &in.Insight, where)
		})
}

func (v *validator) workerPoolInsights(p *path, insights []v1alpha1.WorkerPoolInsight, where *placement) {
	insightList(v, p, insights, maxWorkerPoolInsights,
		func(in *v1alpha1.WorkerPoolInsight) (string, *metav1.Time) { return in.UID, &in.AcquiredAt },
		func(up *path, in *v1alpha1.WorkerPoolInsight) { v.workerPoolUnion(up, &in.Insight, where) })
}

// insightList checks an informer's list of insights: at most maxN, their
// uids unique, each one's uid and acquiredAt (header says which) and its
// insight union (union checks it at the path "insight").
func insightList[I any](v *validator, p *path, insights []I, maxN int, header func(*I) (uid string, acquiredAt *metav1.Time), union func(*path, *I)) {
	listMap(v, p, insights, maxN, "uid", func(in *I) string {
		uid, _ := header(in)
		return uid
	}, func(xp *path, in *I) {
		uid, acquiredAt := header(in)
		v.insightHeader(xp, "uid", uid, acquiredAt)
		up := xp.child("insight")
		union(&up, in)
	})
}

func (v *validator) pool(p *path, pool *v1alpha1.Pool) {
	conds := p.child("conditions")
	v.conditions(&conds, pool.Conditions)
	np := p.child("name")
	v.subdomainField(&np, pool.Name, true)
	rp := p.child("resource")
	v.reference(&rp, &pool.Resource.ResourceRef, &ruleWPResource)
	if pool.Name != "" && pool.Resource.Name != "" && pool.Name != pool.Resource.Name {
		v.add(field.Invalid(np.build(), pool.Name, "workerPools .name must match .resource.name"))
	}
	where := placement{scope: v1alpha1.WorkerPoolScope, pool: pool.Name}
	infs := p.child("informers")
	informerList(v, &infs, pool.Informers, func(inf *v1alpha1.WorkerPoolInformer) string { return inf.Name },
		func(ins *path, inf *v1alpha1.WorkerPoolInformer) { v.workerPoolInsights(ins, inf.Insights, &where) })
}

// insightHeader checks the uid (P-DNS), in the field uidField, and the
// acquiredAt of an insight: an insight list item, or the status of a
// per-insight object.
func (v *validator) insightHeader(p *path, uidField, uid string, acquiredAt *metav1.Time) {
	up := p.child(uidField)
	v.patternField(&up, uid, maxUIDLength, true, conventions.MatchesDNSLabel, msgDNS)
	ap := p.child("acquiredAt")
	v.requiredTime(&ap, acquiredAt)
}

// workerPoolUnion checks a worker pool's insight union, whose members are
// those of the control plane's but clusterVersion and clusterOperator.
func (v *validator) workerPoolUnion(p *path, u *v1alpha1.WorkerPoolInsightUnion, where *placement) {
	v.union(p, workerPoolInsightTypes, &v1alpha1.ControlPlaneInsightUnion{
		Type:                           u.Type,
		MachineConfigPoolStatusInsight: u.MachineConfigPoolStatusInsight,
		NodeStatusInsight:              u.NodeStatusInsight,
		HealthInsight:                  u.HealthInsight,
	}, where)
}

// union checks an insight union whose discriminator takes the values types:
// R-UNION for the members of those types (the union has no others) and
// every member that is set.
func (v *validator) union(p *path, types []v1alpha1.InsightType, u *v1alpha1.ControlPlaneInsightUnion, where *placement) {
	tp := p.child("type")
	checkEnum(v, &tp, u.Type, types)
	v.member(p, types, "clusterVersion", v1alpha1.ClusterVersionStatusInsightType, u.Type, u.ClusterVersionStatusInsight != nil)
	v.member(p, types, "clusterOperator", v1alpha1.ClusterOperatorStatusInsightType, u.Type, u.ClusterOperatorStatusInsight != nil)
	v.member(p, types, "machineConfigPool", v1alpha1.MachineConfigPoolStatusInsightType, u.Type, u.MachineConfigPoolStatusInsight != nil)
	v.member(p, types, "node", v1alpha1.NodeStatusInsightType, u.Type, u.NodeStatusInsight != nil)
	v.member(p, types, "health", v1alpha1.HealthInsightType, u.Type, u.HealthInsight != nil)
	if u.ClusterVersionStatusInsight != nil {
		mp := p.child("clusterVersion")
		v.clusterVersion(&mp, u.ClusterVersionStatusInsight)
	}
	if u.ClusterOperatorStatusInsight != nil {
		mp := p.child("clusterOperator")
		v.clusterOperator(&mp, u.ClusterOperatorStatusInsight)
	}
	if u.MachineConfigPoolStatusInsight != nil {
		mp := p.child("machineConfigPool")
		v.machineConfigPool(&mp, u.MachineConfigPoolStatusInsight, where)
	}
	if u.NodeStatusInsight != nil {
		mp := p.child("node")
		v.node(&mp, u.NodeStatusInsight, where)
	}
	if u.HealthInsight != nil {
		mp := p.child("health")
		v.health(&mp, u.HealthInsight, where)
	}
}

// member applies an R-UNION rule: the member called name is set iff the
// discriminator is want. A union whose discriminator does not take want
// (one of types) has no such member.
func (v *validator) member(p *path, types []v1alpha1.InsightType, name string, want, got v1alpha1.InsightType, set bool) {
	if (got == want) == set || !slices.Contains(types, want) {
		return
	}
	mp := p.child(name)
	msg := fmt.Sprintf("%s is required when type is %s, and forbidden otherwise", name, want)
	if set {
		v.add(field.Forbidden(mp.build(), msg))
	} else {
		v.add(field.Required(mp.build(), msg))
	}
}

func (v *validator) clusterVersion(p *path, cv *v1alpha1.ClusterVersionStatusInsight) {
	conds := p.child("conditions")
	v.conditions(&conds, cv.Conditions)
	rp := p.child("resource")
	v.reference(&rp, &cv.Resource, &ruleCVResource)
	ap := p.child("assessment")
	checkEnum(v, &ap, cv.Assessment, controlPlaneAssessments)

	vp := p.child("versions")
	prev := vp.child("previous")
	if none, installation, ok := v.version(&prev, &cv.Versions.Previous); ok && none != installation {
		v.add(field.Invalid(prev.build(), cv.Versions.Previous.Version, msgPrevious))
	}
	target := vp.child("target")
	if none, installation, ok := v.version(&target, &cv.Versions.Target); ok && (none || installation) {
		v.add(field.Invalid(target.build(), cv.Versions.Target.Version, msgTarget))
	}

	cp := p.child("completion")
	v.percent(&cp, cv.Completion)
	sp := p.child("startedAt")
	v.requiredTime(&sp, &cv.StartedAt)
	cdp := p.child("completedAt")
	v.optionalTime(&cdp, cv.CompletedAt)
	ep := p.child("estimatedCompletedAt")
	v.optionalTime(&ep, cv.EstimatedCompletedAt)
	if cv.EstimatedDurationNanoseconds != nil && cv.EstimatedCompletedAt == nil {
		v.add(field.Required(ep.build(), msgEstimate))
	}
}

// version checks one side of the update edge. It reports whether the version
// is the "<none>" placeholder and whether Installation metadata is present;
// ok is false when the version itself is missing or malformed, so the edge
// rules are not evaluated on top of that error.
func (v *validator) version(p *path, ver *v1alpha1.Version) (none, installation, ok bool) {
	vp := p.child("version")
	ok = v.length(&vp, ver.Version, maxVersionLength, true)
	none = ver.Version == noneVersion
	if ok && !none && !v.semver(ver.Version) {
		v.add(field.Invalid(vp.build(), ver.Version, msgVersion))
		ok = false
	}
	mp := p.child("metadata")
	listMap(v, &mp, ver.Metadata, maxVersionMetadata, "key", func(md *v1alpha1.VersionMetadata) string { return string(md.Key) },
		func(ip *path, md *v1alpha1.VersionMetadata) {
			kp := ip.child("key")
			checkEnum(v, &kp, md.Key, versionMetadataKeys)
			if tooLong(md.Value, maxMetadataValueLength) {
				vp := ip.child("value")
				v.add(field.TooLong(vp.build(), md.Value, maxMetadataValueLength))
			}
		})
	installation = slices.ContainsFunc(ver.Metadata, func(md v1alpha1.VersionMetadata) bool { return md.Key == v1alpha1.InstallationMetadata })
	return none, installation, ok
}

func (v *validator) clusterOperator(p *path, co *v1alpha1.ClusterOperatorStatusInsight) {
	conds := p.child("conditions")
	v.conditions(&conds, co.Conditions)
	np := p.child("name")
	v.operatorName(&np, co.Name)
	rp := p.child("resource")
	v.reference(&rp, &co.Resource, &ruleCOResource)
	v.nameMatchesResource(&np, co.Name, co.Resource.Name)
}

func (v *validator) machineConfigPool(p *path, mcp *v1alpha1.MachineConfigPoolStatusInsight, where *placement) {
	conds := p.child("conditions")
	v.conditions(&conds, mcp.Conditions)
	np := p.child("name")
	v.operatorName(&np, mcp.Name)
	rp := p.child("resource")
	v.reference(&rp, &mcp.Resource.ResourceRef, &ruleMCPResource)
	v.nameMatchesResource(&np, mcp.Name, mcp.Resource.Name)
	v.enclosingPool(&rp, mcp.Resource.Name, where)
	sp := p.child("scopeType")
	v.scopeType(&sp, mcp.Scope, where)
	ap := p.child("assessment")
	checkEnum(v, &ap, mcp.Assessment, poolAssessments)
	cp := p.child("completion")
	v.percent(&cp, mcp.Completion)

	sums := p.child("summaries")
	listMap(v, &sums, mcp.Summaries, maxSummaries, "type", func(s *v1alpha1.NodeSummary) string { return string(s.Type) },
		func(ip *path, s *v1alpha1.NodeSummary) {
			tp := ip.child("type")
			checkEnum(v, &tp, s.Type, nodeSummaryTypes)
			if s.Count < 0 || s.Count > maxNodeCount {
				cp := ip.child("count")
				v.add(field.Invalid(cp.build(), s.Count, fmt.Sprintf("must be between 0 and %d, inclusive", maxNodeCount)))
			}
		})
}

func (v *validator) node(p *path, n *v1alpha1.NodeStatusInsight, where *placement) {
	conds := p.child("conditions")
	v.conditions(&conds, n.Conditions)
	np := p.child("name")
	v.length(&np, n.Name, maxNodeNameLength, true)
	rp := p.child("resource")
	v.reference(&rp, &n.Resource, &ruleNodeResource)
	if n.Resource.Group == "" {
		// A hosted cluster's node references its Machine, which is named
		// apart from the node.
		v.nameMatchesResource(&np, n.Name, n.Resource.Name)
	}
	pp := p.child("poolResource")
	v.reference(&pp, &n.PoolResource.ResourceRef, &ruleMCPResource)
	v.enclosingPool(&pp, n.PoolResource.Name, where)
	sp := p.child("scopeType")
	v.scopeType(&sp, n.Scope, where)
	vp := p.child("version")
	v.patternField(&vp, n.Version, maxVersionLength, false, v.semver, msgNodeVersion)
	if tooLong(n.Message, maxNodeMessageLength) {
		mp := p.child("message")
		v.add(field.TooLong(mp.build(), n.Message, maxNodeMessageLength))
	}
}

func (v *validator) health(p *path, h *v1alpha1.HealthStatusInsight, where *placement) {
	sp := p.child("startedAt")
	v.requiredTime(&sp, &h.StartedAt)

	scope := p.child("scope")
	tp := scope.child("type")
	checkEnum(v, &tp, h.Scope.Type, scopeTypes)
	// A WorkerPool-scoped problem that names no pool is placed under the
	// control plane (docs/insights.md#where-insights-go), so only placement
	// under a pool is strict.
	if where.scope == v1alpha1.WorkerPoolScope && h.Scope.Type == v1alpha1.ControlPlaneScope {
		v.add(field.Invalid(tp.build(), h.Scope.Type, "must be WorkerPool for an insight under status.workerPools"))
	}
	rs := scope.child("resources")
	v.maxItems(&rs, len(h.Scope.Resources), maxScopeResources)
	for i := range h.Scope.Resources {
		ip := rs.at(i)
		v.reference(&ip, &h.Scope.Resources[i], nil)
	}

	impact := p.child("impact")
	lp := impact.child("level")
	checkEnum(v, &lp, h.Impact.Level, impactLevels)
	itp := impact.child("type")
	checkEnum(v, &itp, h.Impact.Type, impactTypes)
	smp := impact.child("summary")
	v.length(&smp, h.Impact.Summary, maxSummaryLength, true)
	if tooLong(h.Impact.Description, maxDescriptionLength) {
		dp := impact.child("description")
		v.add(field.TooLong(dp.build(), h.Impact.Description, maxDescriptionLength))
	}

	rem := p.child("remediation")
	refp := rem.child("reference")
	v.patternField(&refp, h.Remediation.Reference, maxReferenceLength, true, conventions.IsURL, msgURL)
	efp := rem.child("estimatedFinish")
	v.optionalTime(&efp, h.Remediation.EstimatedFinish)
}

// reference checks a ResourceRef and, when rule is not nil, the CEL rule that
// restricts its target. A violated rule is reported on the reference itself.
func (v *validator) reference(p *path, r *v1alpha1.ResourceRef, rule *refRule) {
	gp := p.child("group")
	v.subdomainField(&gp, r.Group, false)
	rp := p.child("resource")
	v.subdomainField(&rp, r.Resource, true)
	np := p.child("name")
	v.subdomainField(&np, r.Name, true)
	nsp := p.child("namespace")
	v.patternField(&nsp, r.Namespace, maxRefLength, false, conventions.MatchesDNSLabel, msgDNS)
	if rule == nil {
		return
	}
	for _, gr := range rule.allowed {
		if r.Group == gr.group && r.Resource == gr.resource {
			return
		}
	}
	gr := r.Resource
	if r.Group != "" {
		gr += "." + r.Group
	}
	v.add(field.Invalid(p.build(), gr, rule.message))
}

func (v *validator) scopeType(p *path, s v1alpha1.ScopeType, where *placement) {
	checkEnum(v, p, s, scopeTypes)
	if s != "" && slices.Contains(scopeTypes, s) && s != where.scope {
		under := "status.controlPlane"
		if where.scope == v1alpha1.WorkerPoolScope {
			under = "status.workerPools"
		}
		v.add(field.Invalid(p.build(), s, fmt.Sprintf("must be %s for an insight under %s", where.scope, under)))
	}
}

// enclosingPool checks that the pool reference at p, naming the pool name,
// names the enclosing pool, when both are known.
func (v *validator) enclosingPool(p *path, name string, where *placement) {
	if where.pool != "" && name != "" && name != where.pool {
		np := p.child("name")
		v.add(field.Invalid(np.build(), name, fmt.Sprintf("must name the enclosing pool %q", where.pool)))
	}
}

// nameMatchesResource checks the [project] rule that an insight's name is the
// name of its resource. Missing names are reported elsewhere.
func (v *validator) nameMatchesResource(p *path, name, resourceName string) {
	if name != "" && resourceName != "" && name != resourceName {
		v.add(field.Invalid(p.build(), name, fmt.Sprintf("must equal resource.name %q", resourceName)))
	}
}

func (v *validator) conditions(p *path, conds []metav1.Condition) {
	listMap(v, p, conds, maxConditions, "type", func(c *metav1.Condition) string { return c.Type }, func(cp *path, c *metav1.Condition) {
		tp := cp.child("type")
		v.patternField(&tp, c.Type, maxConditionTypeLength, true, isConditionType, msgConditionType)
		sp := cp.child("status")
		checkEnum(v, &sp, c.Status, conditionStatuses)
		if c.ObservedGeneration < 0 {
			op := cp.child("observedGeneration")
			v.add(field.Invalid(op.build(), c.ObservedGeneration, msgNonNegative))
		}
		lp := cp.child("lastTransitionTime")
		v.requiredTime(&lp, &c.LastTransitionTime)
		rp := cp.child("reason")
		v.patternField(&rp, c.Reason, maxConditionReasonLength, true, isConditionReason, msgReason)
		if tooLong(c.Message, maxConditionMessageLength) {
			mp := cp.child("message")
			v.add(field.TooLong(mp.build(), c.Message, maxConditionMessageLength))
		}
	})
}

// length reports a missing required or too long string and returns whether s
// is non-empty and short enough for its pattern to be checked.
func (v *validator) length(p *path, s string, maxChars int, required bool) bool {
	if s == "" {
		if required {
			v.add(field.Required(p.build(), ""))
		}
		return false
	}
	if tooLong(s, maxChars) {
		v.add(field.TooLong(p.build(), s, maxChars))
		return false
	}
	return true
}

// patternField checks a string field: missing when required, at most
// maxChars long, and, when present, a string that matches accepts (msg says
// what it must be).
func (v *validator) patternField(p *path, s string, maxChars int, required bool, matches func(string) bool, msg string) {
	if v.length(p, s, maxChars, required) && !matches(s) {
		v.add(field.Invalid(p.build(), s, msg))
	}
}

// subdomainField checks a string field with MaxLength 253 and R-SUBDOMAIN.
func (v *validator) subdomainField(p *path, s string, required bool) {
	if !v.length(p, s, maxRefLength, required) {
		return
	}
	if errs := subdomainErrors(s); len(errs) > 0 {
		v.add(field.Invalid(p.build(), s, strings.Join(errs, "; ")))
	}
}

func (v *validator) operatorName(p *path, s string) {
	v.patternField(p, s, maxOperatorNameLength, true, conventions.IsOperatorName, msgOperatorName) // P-OPNAME; the length is checked first
}

func (v *validator) semver(s string) bool {
	if s == v.lastVersion {
		return true
	}
	if !versionRE.MatchString(s) {
		return false
	}
	v.lastVersion = s
	return true
}

func (v *validator) percent(p *path, n int32) {
	if n < 0 || n > 100 {
		v.add(field.Invalid(p.build(), n, msgPercent))
	}
}

func (v *validator) requiredTime(p *path, t *metav1.Time) {
	if t.IsZero() {
		v.add(field.Required(p.build(), ""))
	}
}

func (v *validator) optionalTime(p *path, t *metav1.Time) {
	if t != nil && t.IsZero() {
		v.add(field.Invalid(p.build(), "null", msgZeroTime))
	}
}

func (v *validator) maxItems(p *path, n, maxN int) {
	if n > maxN {
		v.add(field.TooMany(p.build(), n, maxN))
	}
}

// checkEnum reports a missing or unknown value of an enum field.
func checkEnum[T ~string](v *validator, p *path, val T, allowed []T) {
	if val == "" {
		v.add(field.Required(p.build(), ""))
		return
	}
	if !slices.Contains(allowed, val) {
		v.add(field.NotSupported(p.build(), val, allowed))
	}
}

// duplicates reports every item of a list map whose key repeats the key of
// an earlier item, at that item's key field; key(i) is the key of item i of n.
// Empty keys are left to the required-field checks.
func (v *validator) duplicates(p *path, n int, keyField string, key func(int) string) {
	if n <= 16 {
		for i := 1; i < n; i++ {
			k := key(i)
			for j := 0; j < i && k != ""; j++ {
				if key(j) == k {
					v.duplicate(p, i, keyField, k)
					break
				}
			}
		}
		return
	}
	if v.seen == nil {
		v.seen = make(map[string]struct{}, n)
	} else {
		clear(v.seen)
	}
	for i := 0; i < n; i++ {
		k := key(i)
		if k == "" {
			continue
		}
		if _, dup := v.seen[k]; dup {
			v.duplicate(p, i, keyField, k)
			continue
		}
		v.seen[k] = struct{}{}
	}
}

func (v *validator) duplicate(p *path, i int, keyField, key string) {
	ip := p.at(i)
	kp := ip.child(keyField)
	v.add(field.Duplicate(kp.build(), key))
}
