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

package validation

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// The per-insight kinds (docs/api-decisions.md#per-insight-resources) are
// checked here: their envelope (O-NAME, P-DNS on status.insightUID, the
// label rules L-SCOPE, L-POOL, L-INFORMER and L-IMPACT) and, with the same
// functions as inside UpdateStatus, the insight their status carries inline.
// Errors on the inline insight have paths directly below status
// (status.resource, status.scopeType, ...), as the objects serialize.

// Informers whose insights each kind may come from
// (docs/api-decisions.md#insight-engine, Informers).
var (
	controlPlaneInformers = []string{v1alpha1.InformerControlPlane}
	nodesInformers        = []string{v1alpha1.InformerNodes}
	healthInformers       = []string{v1alpha1.InformerControlPlane, v1alpha1.InformerNodes, v1alpha1.InformerAlerts, v1alpha1.InformerServer}
)

// poolLabel says what L-POOL asks of a kind.
type poolLabel int

const (
	// poolForbidden: the kind is never about a pool.
	poolForbidden poolLabel = iota
	// poolRequired: the label names the insight's pool.
	poolRequired
	// poolOptional: the label is present when the insight belongs to a pool.
	poolOptional
)

// envelope is what the envelope checks need from one per-insight object.
type envelope struct {
	kind     string
	typeMeta *metav1.TypeMeta
	meta     *metav1.ObjectMeta

	// subjectField is the status field that metadata.name must equal
	// (O-NAME) and subject its value.
	subjectField, subject string
	uid                   string
	acquiredAt            *metav1.Time

	// scope is the insight's scope, which the scope label must equal. A
	// missing or unknown scope is reported on the insight; the label then
	// only has to be a known scope.
	scope v1alpha1.ScopeType
	// poolRule is what L-POOL asks; with poolRequired the label must be pool,
	// read from the status field poolField.
	poolRule        poolLabel
	poolField, pool string
	informers       []string
	// level is the health impact level the impact-level label must equal;
	// hasLevel is false for the kinds that must not carry the label.
	hasLevel bool
	level    v1alpha1.InsightImpactLevel
}

// ValidateClusterVersionProgressInsight returns every violation of the API's
// constraints in obj, each with the path of the offending field.
func ValidateClusterVersionProgressInsight(obj *v1alpha1.ClusterVersionProgressInsight) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(nil, "a ClusterVersionProgressInsight is required")}
	}
	var v validator
	st := &obj.Status
	v.envelope(&envelope{
		kind: "ClusterVersionProgressInsight", typeMeta: &obj.TypeMeta, meta: &obj.ObjectMeta,
		subjectField: "resource.name", subject: st.Resource.Name, uid: st.InsightUID, acquiredAt: &st.AcquiredAt,
		scope: v1alpha1.ControlPlaneScope, informers: controlPlaneInformers,
	})
	status := path{name: "status"}
	v.clusterVersion(&status, &st.ClusterVersionStatusInsight)
	return v.errs
}

// ValidateClusterOperatorProgressInsight returns every violation of the API's
// constraints in obj, each with the path of the offending field.
func ValidateClusterOperatorProgressInsight(obj *v1alpha1.ClusterOperatorProgressInsight) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(nil, "a ClusterOperatorProgressInsight is required")}
	}
	var v validator
	st := &obj.Status
	v.envelope(&envelope{
		kind: "ClusterOperatorProgressInsight", typeMeta: &obj.TypeMeta, meta: &obj.ObjectMeta,
		subjectField: "name", subject: st.Name, uid: st.InsightUID, acquiredAt: &st.AcquiredAt,
		scope: v1alpha1.ControlPlaneScope, informers: controlPlaneInformers,
	})
	status := path{name: "status"}
	v.clusterOperator(&status, &st.ClusterOperatorStatusInsight)
	return v.errs
}

// ValidateMachineConfigPoolProgressInsight returns every violation of the
// API's constraints in obj, each with the path of the offending field.
func ValidateMachineConfigPoolProgressInsight(obj *v1alpha1.MachineConfigPoolProgressInsight) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(nil, "a MachineConfigPoolProgressInsight is required")}
	}
	var v validator
	st := &obj.Status
	v.envelope(&envelope{
		kind: "MachineConfigPoolProgressInsight", typeMeta: &obj.TypeMeta, meta: &obj.ObjectMeta,
		subjectField: "name", subject: st.Name, uid: st.InsightUID, acquiredAt: &st.AcquiredAt,
		scope: st.Scope, poolRule: poolRequired, poolField: "status.name", pool: st.Name, informers: nodesInformers,
	})
	// The object stands alone: its scope is whatever it says, and no
	// enclosing pool constrains it beyond its labels.
	status := path{name: "status"}
	v.machineConfigPool(&status, &st.MachineConfigPoolStatusInsight, &placement{scope: st.Scope})
	return v.errs
}

// ValidateNodeProgressInsight returns every violation of the API's
// constraints in obj, each with the path of the offending field.
func ValidateNodeProgressInsight(obj *v1alpha1.NodeProgressInsight) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(nil, "a NodeProgressInsight is required")}
	}
	var v validator
	st := &obj.Status
	v.envelope(&envelope{
		kind: "NodeProgressInsight", typeMeta: &obj.TypeMeta, meta: &obj.ObjectMeta,
		subjectField: "name", subject: st.Name, uid: st.InsightUID, acquiredAt: &st.AcquiredAt,
		scope: st.Scope, poolRule: poolRequired, poolField: "status.poolResource.name", pool: st.PoolResource.Name,
		informers: nodesInformers,
	})
	status := path{name: "status"}
	v.node(&status, &st.NodeStatusInsight, &placement{scope: st.Scope})
	return v.errs
}

// ValidateHealthInsight returns every violation of the API's constraints in
// obj, each with the path of the offending field.
func ValidateHealthInsight(obj *v1alpha1.HealthInsight) field.ErrorList {
	if obj == nil {
		return field.ErrorList{field.Required(nil, "a HealthInsight is required")}
	}
	var v validator
	st := &obj.Status
	v.envelope(&envelope{
		kind: "HealthInsight", typeMeta: &obj.TypeMeta, meta: &obj.ObjectMeta,
		subjectField: "insightUID", subject: st.InsightUID, uid: st.InsightUID, acquiredAt: &st.AcquiredAt,
		scope: st.Scope.Type, poolRule: poolOptional, informers: healthInformers,
		hasLevel: true, level: st.Impact.Level,
	})
	status := path{name: "status"}
	v.health(&status, &st.HealthStatusInsight, &placement{scope: st.Scope.Type})
	return v.errs
}

// Validate validates any object of the API group: an UpdateStatus or an
// object of one of the five per-insight kinds, of v1alpha1 or of the
// internal version (which is converted to v1alpha1 first, the version the
// rules are written for). Anything else is reported as an unsupported kind.
func Validate(obj runtime.Object) field.ErrorList {
	switch o := obj.(type) {
	case nil:
		return field.ErrorList{field.Required(nil, "an object is required")}
	case *v1alpha1.UpdateStatus:
		return ValidateUpdateStatus(o)
	case *v1alpha1.ClusterVersionProgressInsight:
		return ValidateClusterVersionProgressInsight(o)
	case *v1alpha1.ClusterOperatorProgressInsight:
		return ValidateClusterOperatorProgressInsight(o)
	case *v1alpha1.MachineConfigPoolProgressInsight:
		return ValidateMachineConfigPoolProgressInsight(o)
	case *v1alpha1.NodeProgressInsight:
		return ValidateNodeProgressInsight(o)
	case *v1alpha1.HealthInsight:
		return ValidateHealthInsight(o)
	case *update.UpdateStatus:
		return convertAndValidate(o, v1alpha1.Convert_update_UpdateStatus_To_v1alpha1_UpdateStatus, ValidateUpdateStatus)
	case *update.ClusterVersionProgressInsight:
		return convertAndValidate(o, v1alpha1.Convert_update_ClusterVersionProgressInsight_To_v1alpha1_ClusterVersionProgressInsight,
			ValidateClusterVersionProgressInsight)
	case *update.ClusterOperatorProgressInsight:
		return convertAndValidate(o, v1alpha1.Convert_update_ClusterOperatorProgressInsight_To_v1alpha1_ClusterOperatorProgressInsight,
			ValidateClusterOperatorProgressInsight)
	case *update.MachineConfigPoolProgressInsight:
		return convertAndValidate(o, v1alpha1.Convert_update_MachineConfigPoolProgressInsight_To_v1alpha1_MachineConfigPoolProgressInsight,
			ValidateMachineConfigPoolProgressInsight)
	case *update.NodeProgressInsight:
		return convertAndValidate(o, v1alpha1.Convert_update_NodeProgressInsight_To_v1alpha1_NodeProgressInsight,
			ValidateNodeProgressInsight)
	case *update.HealthInsight:
		return convertAndValidate(o, v1alpha1.Convert_update_HealthInsight_To_v1alpha1_HealthInsight, ValidateHealthInsight)
	}
	return field.ErrorList{field.Invalid(field.NewPath("kind"), fmt.Sprintf("%T", obj),
		"must be UpdateStatus or one of the per-insight kinds of "+v1alpha1.SchemeGroupVersion.String())}
}

// convertAndValidate converts an internal object with the generated
// conversion and validates the result. A nil pointer is validated as nil.
func convertAndValidate[In, Out any](in *In, convert func(*In, *Out, conversion.Scope) error,
	validate func(*Out) field.ErrorList) field.ErrorList {
	if in == nil {
		return validate(nil)
	}
	out := new(Out)
	if err := convert(in, out, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("converting %T to v1alpha1: %w", in, err))}
	}
	return validate(out)
}

// envelope checks what a per-insight object adds around its insight.
func (v *validator) envelope(e *envelope) {
	v.typeMeta(e.typeMeta, e.kind)
	meta := field.NewPath("metadata")
	// O-NAME. The name's format follows from the status field it equals,
	// which is checked with the insight.
	informer := e.meta.Labels[v1alpha1.LabelInformer]
	switch {
	case conventions.IsExternalInformer(informer):
		// An external informer's object is named after its insight's uid.
		if want := e.uid + "." + informer; e.meta.Name != want {
			v.add(field.Invalid(meta.Child("name"), e.meta.Name, fmt.Sprintf("must be <status.insightUID>.<informer> %q", want)))
		}
	case e.meta.Name == "":
		v.add(field.Required(meta.Child("name"), "must equal status."+e.subjectField))
	case e.subject != "" && e.meta.Name != e.subject:
		v.add(field.Invalid(meta.Child("name"), e.meta.Name, fmt.Sprintf("must equal status.%s %q", e.subjectField, e.subject)))
	}
	v.clusterScoped(e.meta, e.kind)
	status := path{name: "status"}
	v.insightHeader(&status, "insightUID", e.uid, e.acquiredAt)
	v.labels(e)
}

// labels checks the labels that select per-insight objects.
func (v *validator) labels(e *envelope) {
	labels := e.meta.Labels
	lp := field.NewPath("metadata", "labels")
	// Key and value syntax, as for any object.
	v.errs = append(v.errs, metavalidation.ValidateLabels(labels, lp)...)

	// L-SCOPE.
	if scope, ok := labels[v1alpha1.LabelScope]; !ok {
		v.add(field.Required(lp.Key(v1alpha1.LabelScope), "must be the insight's scope"))
	} else if slices.Contains(scopeTypes, e.scope) {
		if v1alpha1.ScopeType(scope) != e.scope {
			v.add(field.Invalid(lp.Key(v1alpha1.LabelScope), scope, fmt.Sprintf("must equal the insight's scope %q", e.scope)))
		}
	} else if !slices.Contains(scopeTypes, v1alpha1.ScopeType(scope)) {
		v.add(field.NotSupported(lp.Key(v1alpha1.LabelScope), scope, scopeTypes))
	}

	// L-POOL.
	pool, hasPool := labels[v1alpha1.LabelPool]
	switch e.poolRule {
	case poolForbidden:
		if hasPool {
			v.add(field.Forbidden(lp.Key(v1alpha1.LabelPool), e.kind+" is not about a pool"))
		}
	case poolRequired:
		switch {
		case !hasPool:
			v.add(field.Required(lp.Key(v1alpha1.LabelPool), "must equal "+e.poolField))
		case e.pool != "" && pool != e.pool:
			v.add(field.Invalid(lp.Key(v1alpha1.LabelPool), pool, fmt.Sprintf("must equal %s %q", e.poolField, e.pool)))
		}
	case poolOptional:
		if !hasPool {
			break
		}
		// R-SUBDOMAIN, as for a pool's name.
		if errs := subdomainErrors(pool); len(errs) > 0 {
			v.add(field.Invalid(lp.Key(v1alpha1.LabelPool), pool, strings.Join(errs, "; ")))
		}
	}

	// L-INFORMER.
	if informer, ok := labels[v1alpha1.LabelInformer]; !ok {
		v.add(field.Required(lp.Key(v1alpha1.LabelInformer), ""))
	} else if !slices.Contains(e.informers, informer) && !conventions.IsExternalInformer(informer) {
		v.add(field.NotSupported(lp.Key(v1alpha1.LabelInformer), informer, append(e.informers, "<name>.<namespace> of an UpdateInformer")))
	}

	// L-IMPACT.
	level, hasLevel := labels[v1alpha1.LabelImpactLevel]
	switch {
	case !e.hasLevel:
		if hasLevel {
			v.add(field.Forbidden(lp.Key(v1alpha1.LabelImpactLevel), "only a HealthInsight has an impact level"))
		}
	case !hasLevel:
		v.add(field.Required(lp.Key(v1alpha1.LabelImpactLevel), "must equal status.impact.level"))
	case e.level != "" && v1alpha1.InsightImpactLevel(level) != e.level:
		v.add(field.Invalid(lp.Key(v1alpha1.LabelImpactLevel), level, fmt.Sprintf("must equal status.impact.level %q", e.level)))
	}
}
