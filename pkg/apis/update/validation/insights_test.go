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

package validation_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
)

// Label paths, as errors name them.
const (
	scopeLabel    = "metadata.labels[" + v1alpha1.LabelScope + "]"
	poolLabel     = "metadata.labels[" + v1alpha1.LabelPool + "]"
	informerLabel = "metadata.labels[" + v1alpha1.LabelInformer + "]"
	impactLabel   = "metadata.labels[" + v1alpha1.LabelImpactLevel + "]"
)

// insightMeta is the metadata the server gives a per-insight object; pool and
// level are left out when empty.
func insightMeta(name string, scope v1alpha1.ScopeType, pool, informer string, level v1alpha1.InsightImpactLevel) metav1.ObjectMeta {
	labels := map[string]string{v1alpha1.LabelScope: string(scope), v1alpha1.LabelInformer: informer}
	if pool != "" {
		labels[v1alpha1.LabelPool] = pool
	}
	if level != "" {
		labels[v1alpha1.LabelImpactLevel] = string(level)
	}
	return metav1.ObjectMeta{Name: name, Labels: labels}
}

// Valid objects of the five kinds, built from the insights of the example.

func cvObject(tb testing.TB) *v1alpha1.ClusterVersionProgressInsight {
	o := example(tb)
	in := &(*cpInsights(o))[0]
	return &v1alpha1.ClusterVersionProgressInsight{
		ObjectMeta: insightMeta(cv(o).Resource.Name, v1alpha1.ControlPlaneScope, "", "cpi", ""),
		Status: v1alpha1.ClusterVersionProgressInsightStatus{
			InsightUID: in.UID, AcquiredAt: in.AcquiredAt, ClusterVersionStatusInsight: *cv(o),
		},
	}
}

func coObject(tb testing.TB) *v1alpha1.ClusterOperatorProgressInsight {
	o := example(tb)
	in := &(*cpInsights(o))[1]
	return &v1alpha1.ClusterOperatorProgressInsight{
		ObjectMeta: insightMeta(etcd(o).Name, v1alpha1.ControlPlaneScope, "", "cpi", ""),
		Status: v1alpha1.ClusterOperatorProgressInsightStatus{
			InsightUID: in.UID, AcquiredAt: in.AcquiredAt, ClusterOperatorStatusInsight: *etcd(o),
		},
	}
}

func mcpObject(tb testing.TB) *v1alpha1.MachineConfigPoolProgressInsight {
	o := example(tb)
	in := &(*wpInsights(o))[0]
	return &v1alpha1.MachineConfigPoolProgressInsight{
		ObjectMeta: insightMeta(mcp(o).Name, v1alpha1.WorkerPoolScope, mcp(o).Name, "nodes", ""),
		Status: v1alpha1.MachineConfigPoolProgressInsightStatus{
			InsightUID: in.UID, AcquiredAt: in.AcquiredAt, MachineConfigPoolStatusInsight: *mcp(o),
		},
	}
}

func nodeObject(tb testing.TB) *v1alpha1.NodeProgressInsight {
	o := example(tb)
	in := &(*wpInsights(o))[1]
	return &v1alpha1.NodeProgressInsight{
		ObjectMeta: insightMeta(node(o).Name, v1alpha1.WorkerPoolScope, node(o).PoolResource.Name, "nodes", ""),
		Status: v1alpha1.NodeProgressInsightStatus{
			InsightUID: in.UID, AcquiredAt: in.AcquiredAt, NodeStatusInsight: *node(o),
		},
	}
}

func healthObject(tb testing.TB) *v1alpha1.HealthInsight {
	o := example(tb)
	in := &(*wpInsights(o))[4]
	h := health(o)
	return &v1alpha1.HealthInsight{
		ObjectMeta: insightMeta(in.UID, h.Scope.Type, o.Status.WorkerPools[0].Name, "nodes", h.Impact.Level),
		Status: v1alpha1.HealthInsightStatus{
			InsightUID: in.UID, AcquiredAt: in.AcquiredAt, HealthStatusInsight: *h,
		},
	}
}

// insightObject is what the shared cases need of a per-insight object.
type insightObject interface {
	runtime.Object
	metav1.Object
}

// statusHeader reaches the insightUID and acquiredAt of o's status, which
// every per-insight kind has.
func statusHeader(o insightObject) (*string, *metav1.Time) {
	st := reflect.ValueOf(o).Elem().FieldByName("Status")
	return st.FieldByName("InsightUID").Addr().Interface().(*string), st.FieldByName("AcquiredAt").Addr().Interface().(*metav1.Time)
}

// objectCase mutates a valid object and lists every error it must produce.
type objectCase[T any] struct {
	name   string
	mutate func(T)
	want   []want
}

// poolRule says what L-POOL asks of a kind.
type poolRule int

const (
	poolForbidden poolRule = iota
	poolRequired
	poolOptional
)

// kindRules are the envelope rules that differ between the kinds.
type kindRules struct {
	// nameIsUID says the object is named after its insightUID (O-NAME), so
	// a case that changes the uid changes the name too.
	nameIsUID bool
	pool      poolRule
	// impact says the kind carries the impact-level label (L-IMPACT).
	impact bool
	// foreignInformer is a built-in informer whose insights the kind never
	// has (L-INFORMER); empty when it takes them all.
	foreignInformer string
}

// commonCases are the envelope cases every kind shares, those of its
// rules among them.
func commonCases[T insightObject](kind string, rules kindRules) []objectCase[T] {
	setUID := func(o T, uid string) {
		p, _ := statusHeader(o)
		*p = uid
		if rules.nameIsUID && uid != "" {
			o.SetName(uid)
		}
	}
	setLabel := func(key, value string) func(T) {
		return func(o T) { o.GetLabels()[key] = value }
	}
	deleteLabel := func(key string) func(T) {
		return func(o T) { delete(o.GetLabels(), key) }
	}
	noLabels := []want{{required, scopeLabel}, {required, informerLabel}}
	cases := []objectCase[T]{
		{"valid", func(T) {}, nil},
		{"type meta set", func(o T) {
			o.GetObjectKind().SetGroupVersionKind(v1alpha1.SchemeGroupVersion.WithKind(kind))
		}, nil},
		{"other labels are left alone", setLabel("example.com/team", "upgrades"), nil},
		{"wrong kind", func(o T) {
			o.GetObjectKind().SetGroupVersionKind(v1alpha1.SchemeGroupVersion.WithKind("UpdateStatus"))
		}, []want{{invalid, "kind"}}},
		{"wrong apiVersion", func(o T) {
			o.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Group: v1alpha1.GroupName, Version: "v1", Kind: kind})
		}, []want{{invalid, "apiVersion"}}},
		{"namespaced", func(o T) { o.SetNamespace("default") }, []want{{forbidden, "metadata.namespace"}}},
		{"name missing", func(o T) { o.SetName("") }, []want{{required, "metadata.name"}}},
		{"name of another subject", func(o T) { o.SetName("other") }, []want{{invalid, "metadata.name"}}},
		{"insightUID missing", func(o T) { setUID(o, "") }, []want{{required, "status.insightUID"}}},
		{"insightUID too long", func(o T) { setUID(o, strings.Repeat("u", 64)) }, []want{{tooLong, "status.insightUID"}}},
		{"insightUID not a DNS label", func(o T) { setUID(o, "node.one") }, []want{{invalid, "status.insightUID"}}},
		{"acquiredAt missing", func(o T) { _, at := statusHeader(o); *at = metav1.Time{} }, []want{{required, "status.acquiredAt"}}},
		{"scope label missing", deleteLabel(v1alpha1.LabelScope), []want{{required, scopeLabel}}},
		{"scope label not the insight's", func(o T) {
			other := v1alpha1.WorkerPoolScope
			if o.GetLabels()[v1alpha1.LabelScope] == string(other) {
				other = v1alpha1.ControlPlaneScope
			}
			o.GetLabels()[v1alpha1.LabelScope] = string(other)
		}, []want{{invalid, scopeLabel}}},
		{"informer label missing", deleteLabel(v1alpha1.LabelInformer), []want{{required, informerLabel}}},
		{"informer label unknown", setLabel(v1alpha1.LabelInformer, "scheduler"), []want{{notSupported, informerLabel}}},
		{"label value syntax", setLabel("example.com/team", "-x-"), []want{{invalid, "metadata.labels"}}},
	}
	switch rules.pool {
	case poolForbidden:
		cases = append(cases, objectCase[T]{"pool label", setLabel(v1alpha1.LabelPool, "master"), []want{{forbidden, poolLabel}}})
	case poolRequired:
		noLabels = append(noLabels, want{required, poolLabel})
		cases = append(cases,
			objectCase[T]{"pool label missing", deleteLabel(v1alpha1.LabelPool), []want{{required, poolLabel}}},
			objectCase[T]{"pool label of another pool", setLabel(v1alpha1.LabelPool, "infra"), []want{{invalid, poolLabel}}})
	case poolOptional:
		cases = append(cases,
			objectCase[T]{"no pool", deleteLabel(v1alpha1.LabelPool), nil},
			objectCase[T]{"pool label not a pool name", setLabel(v1alpha1.LabelPool, "Worker"), []want{{invalid, poolLabel}}})
	}
	if rules.impact {
		noLabels = append(noLabels, want{required, impactLabel})
		cases = append(cases, objectCase[T]{"impact-level label missing", deleteLabel(v1alpha1.LabelImpactLevel), []want{{required, impactLabel}}})
	} else {
		cases = append(cases, objectCase[T]{"impact-level label", setLabel(v1alpha1.LabelImpactLevel, "Info"), []want{{forbidden, impactLabel}}})
	}
	if rules.foreignInformer != "" {
		cases = append(cases, objectCase[T]{rules.foreignInformer + " informer", setLabel(v1alpha1.LabelInformer, rules.foreignInformer),
			[]want{{notSupported, informerLabel}}})
	}
	return append(cases, objectCase[T]{"no labels", func(o T) { o.SetLabels(nil) }, noLabels})
}

// runObjectCases runs the shared cases of the kind of T, by its rules, and
// the kind's own cases, through the kind's validator, the generic Validate,
// and Validate of the internal form of the object.
func runObjectCases[T insightObject](t *testing.T, fresh func(testing.TB) T, validate func(T) field.ErrorList, rules kindRules, cases []objectCase[T]) {
	t.Helper()
	kind := reflect.TypeFor[T]().Elem().Name()
	for _, tc := range append(commonCases[T](kind, rules), cases...) {
		t.Run(tc.name, func(t *testing.T) {
			obj := fresh(t)
			tc.mutate(obj)

			got := errorStrings(validate(obj))

			wantStrings := make([]string, 0, len(tc.want))
			for _, w := range tc.want {
				wantStrings = append(wantStrings, string(w.typ)+" "+w.path)
			}
			slices.Sort(wantStrings)
			if !slices.Equal(got, wantStrings) {
				t.Fatalf("errors:\n got  %q\n want %q", got, wantStrings)
			}
			if generic := errorStrings(validation.Validate(obj)); !slices.Equal(generic, got) {
				t.Errorf("Validate: %q, the kind's validator: %q", generic, got)
			}

			// The internal form has no type meta; otherwise it must fare
			// the same.
			bare := obj.DeepCopyObject().(T)
			bare.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
			internal, err := scheme.ConvertToVersion(bare.DeepCopyObject(), update.SchemeGroupVersion)
			if err != nil {
				t.Fatal(err)
			}
			if typ := fmt.Sprintf("%T", internal); !strings.HasPrefix(typ, "*update.") {
				t.Fatalf("converted to %s, not to an internal type", typ)
			}
			if got, want := errorStrings(validation.Validate(internal)), errorStrings(validate(bare)); !slices.Equal(got, want) {
				t.Errorf("Validate(%T): %q, want %q", internal, got, want)
			}
		})
	}
}

func TestClusterVersionProgressInsight(t *testing.T) {
	runObjectCases(t, cvObject, validation.ValidateClusterVersionProgressInsight, kindRules{pool: poolForbidden, foreignInformer: "nodes"},
		[]objectCase[*v1alpha1.ClusterVersionProgressInsight]{
			{"hosted cluster name", func(o *v1alpha1.ClusterVersionProgressInsight) {
				o.Name, o.Status.Resource.Name = "prod", "prod"
			}, nil},
			{"name is not the resource's", func(o *v1alpha1.ClusterVersionProgressInsight) { o.Status.Resource.Name = "other" },
				[]want{{invalid, "metadata.name"}}},
			// Rules of the insight itself, as inside UpdateStatus.
			{"R-CV-RES", func(o *v1alpha1.ClusterVersionProgressInsight) { o.Status.Resource.Resource = "clusteroperators" },
				[]want{{invalid, "status.resource"}}},
			{"R-TARGET", func(o *v1alpha1.ClusterVersionProgressInsight) { o.Status.Versions.Target.Version = "<none>" },
				[]want{{invalid, "status.versions.target"}}},
			{"P-VERSION", func(o *v1alpha1.ClusterVersionProgressInsight) { o.Status.Versions.Previous.Version = "4.16" },
				[]want{{invalid, "status.versions.previous.version"}}},
			{"completion out of range", func(o *v1alpha1.ClusterVersionProgressInsight) { o.Status.Completion = 101 },
				[]want{{invalid, "status.completion"}}},
		})
}

func TestClusterOperatorProgressInsight(t *testing.T) {
	runObjectCases(t, coObject, validation.ValidateClusterOperatorProgressInsight, kindRules{pool: poolForbidden, foreignInformer: "alerts"},
		[]objectCase[*v1alpha1.ClusterOperatorProgressInsight]{
			{"name is not the operator's", func(o *v1alpha1.ClusterOperatorProgressInsight) {
				o.Status.Name, o.Status.Resource.Name = "dns", "dns"
			}, []want{{invalid, "metadata.name"}}},
			{"P-OPNAME", func(o *v1alpha1.ClusterOperatorProgressInsight) {
				o.Name, o.Status.Name, o.Status.Resource.Name = "etcd_2", "etcd_2", "etcd-2"
			}, []want{{invalid, "status.name"}, {invalid, "status.name"}}},
			{"R-CO-RES", func(o *v1alpha1.ClusterOperatorProgressInsight) { o.Status.Resource.Group = "operator.openshift.io" },
				[]want{{invalid, "status.resource"}}},
			{"duplicate condition", func(o *v1alpha1.ClusterOperatorProgressInsight) {
				o.Status.Conditions = append(o.Status.Conditions, condition("Healthy"))
			}, []want{{duplicate, "status.conditions[2].type"}}},
		})
}

func TestMachineConfigPoolProgressInsight(t *testing.T) {
	runObjectCases(t, mcpObject, validation.ValidateMachineConfigPoolProgressInsight, kindRules{pool: poolRequired, foreignInformer: "cpi"},
		[]objectCase[*v1alpha1.MachineConfigPoolProgressInsight]{
			{"control-plane pool", func(o *v1alpha1.MachineConfigPoolProgressInsight) {
				o.Name, o.Status.Name, o.Status.Resource.Name = "master", "master", "master"
				o.Status.Scope = v1alpha1.ControlPlaneScope
				o.Labels[v1alpha1.LabelScope], o.Labels[v1alpha1.LabelPool] = "ControlPlane", "master"
			}, nil},
			{"name is not the pool's", func(o *v1alpha1.MachineConfigPoolProgressInsight) { o.Name = "infra" },
				[]want{{invalid, "metadata.name"}}},
			// A missing scope is reported on the insight; the label need
			// only be a scope.
			{"scopeType missing", func(o *v1alpha1.MachineConfigPoolProgressInsight) { o.Status.Scope = "" },
				[]want{{required, "status.scopeType"}}},
			{"scopeType missing and scope label unknown", func(o *v1alpha1.MachineConfigPoolProgressInsight) {
				o.Status.Scope, o.Labels[v1alpha1.LabelScope] = "", "Cluster"
			}, []want{{required, "status.scopeType"}, {notSupported, scopeLabel}}},
			{"R-MCP-RES", func(o *v1alpha1.MachineConfigPoolProgressInsight) { o.Status.Resource.Resource = "nodepools" },
				[]want{{invalid, "status.resource"}}},
			{"summary count out of range", func(o *v1alpha1.MachineConfigPoolProgressInsight) { o.Status.Summaries[0].Count = -1 },
				[]want{{invalid, "status.summaries[0].count"}}},
		})
}

func TestNodeProgressInsight(t *testing.T) {
	runObjectCases(t, nodeObject, validation.ValidateNodeProgressInsight, kindRules{pool: poolRequired, foreignInformer: "cpi"},
		[]objectCase[*v1alpha1.NodeProgressInsight]{
			{"name is not the node's", func(o *v1alpha1.NodeProgressInsight) {
				o.Status.Name, o.Status.Resource.Name = "ip-10-0-1-1", "ip-10-0-1-1"
			}, []want{{invalid, "metadata.name"}}},
			{"node moved to another pool", func(o *v1alpha1.NodeProgressInsight) { o.Status.PoolResource.Name = "infra" },
				[]want{{invalid, poolLabel}}},
			{"scope label not the node's", func(o *v1alpha1.NodeProgressInsight) { o.Status.Scope = v1alpha1.ControlPlaneScope },
				[]want{{invalid, scopeLabel}}},
			{"R-NODE-RES", func(o *v1alpha1.NodeProgressInsight) { o.Status.Resource.Group = "core" },
				[]want{{invalid, "status.resource"}}},
			{"P-NODEVERSION", func(o *v1alpha1.NodeProgressInsight) { o.Status.Version = "<none>" },
				[]want{{invalid, "status.version"}}},
			{"message too long", func(o *v1alpha1.NodeProgressInsight) { o.Status.Message = strings.Repeat("m", 101) },
				[]want{{tooLong, "status.message"}}},
		})
}

func TestHealthInsight(t *testing.T) {
	runObjectCases(t, healthObject, validation.ValidateHealthInsight, kindRules{nameIsUID: true, pool: poolOptional, impact: true},
		[]objectCase[*v1alpha1.HealthInsight]{
			{"control-plane alert", func(o *v1alpha1.HealthInsight) {
				delete(o.Labels, v1alpha1.LabelPool)
				o.Status.Scope.Type, o.Labels[v1alpha1.LabelScope] = v1alpha1.ControlPlaneScope, "ControlPlane"
				o.Labels[v1alpha1.LabelInformer] = "alerts"
			}, nil},
			{"cpi informer", func(o *v1alpha1.HealthInsight) { o.Labels[v1alpha1.LabelInformer] = "cpi" }, nil},
			{"name is not the insightUID", func(o *v1alpha1.HealthInsight) { o.Status.InsightUID = "health-other" },
				[]want{{invalid, "metadata.name"}}},
			{"impact-level label not the insight's", func(o *v1alpha1.HealthInsight) {
				o.Labels[v1alpha1.LabelImpactLevel] = string(v1alpha1.CriticalInfoLevel)
			}, []want{{invalid, impactLabel}}},
			{"impact level missing", func(o *v1alpha1.HealthInsight) { o.Status.Impact.Level = "" },
				[]want{{required, "status.impact.level"}}},
			{"scope label not the insight's scope", func(o *v1alpha1.HealthInsight) {
				o.Status.Scope.Type = v1alpha1.ControlPlaneScope
			}, []want{{invalid, scopeLabel}}},
			{"R-URL", func(o *v1alpha1.HealthInsight) { o.Status.Remediation.Reference = "drain docs" },
				[]want{{invalid, "status.remediation.reference"}}},
			{"startedAt missing", func(o *v1alpha1.HealthInsight) { o.Status.StartedAt = metav1.Time{} },
				[]want{{required, "status.startedAt"}}},
		})
}

func TestValidateOtherObjects(t *testing.T) {
	if errs := validation.Validate(example(t)); len(errs) != 0 {
		t.Errorf("Validate(example) = %v", errs)
	}
	if errs := validation.Validate(nil); len(errs) != 1 || errs[0].Type != required {
		t.Errorf("Validate(nil) = %v, want one Required error", errs)
	}
	if errs := validation.Validate((*update.NodeProgressInsight)(nil)); len(errs) != 1 || errs[0].Type != required {
		t.Errorf("Validate(nil *update.NodeProgressInsight) = %v, want one Required error", errs)
	}
	if errs := validation.Validate(&v1alpha1.NodeProgressInsightList{}); len(errs) != 1 || errs[0].Field != "kind" {
		t.Errorf("Validate(a list) = %v, want one error at kind", errs)
	}
}
