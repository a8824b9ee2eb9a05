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

package v1alpha1_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/update-status/apiserver/internal/apitypes"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/openapi"
)

const modelPackage = "io.openshift.update.v1alpha1."

// modelTypes are the struct types of the API (docs/api.md), derived from
// the scheme.
var modelTypes = func() []interface{ OpenAPIModelName() string } {
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	var out []interface{ OpenAPIModelName() string }
	for _, t := range apitypes.Structs(scheme, v1alpha1.SchemeGroupVersion, &v1alpha1.UpdateStatus{}) {
		out = append(out, reflect.New(t).Elem().Interface().(interface{ OpenAPIModelName() string }))
	}
	return out
}()

func definitions() map[string]common.OpenAPIDefinition {
	return openapi.GetOpenAPIDefinitions(func(name string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + name)
	})
}

func TestOpenAPIHasEveryType(t *testing.T) {
	defs := definitions()

	for _, typ := range modelTypes {
		goName := reflect.TypeOf(typ).Name()
		name := typ.OpenAPIModelName()
		if want := modelPackage + goName; name != want {
			t.Errorf("%s: model name %q, want %q", goName, name, want)
		}
		def, ok := defs[name]
		if !ok {
			t.Errorf("no OpenAPI definition %q", name)
			continue
		}
		if def.Schema.Description == "" {
			t.Errorf("%s has no description", name)
		}
	}
	var ours []string
	for name := range defs {
		if strings.HasPrefix(name, modelPackage) {
			ours = append(ours, name)
		}
	}
	if len(ours) != len(modelTypes) {
		slices.Sort(ours)
		t.Errorf("%d definitions in %s*, want %d: %v", len(ours), modelPackage, len(modelTypes), ours)
	}
}

// TestOpenAPIReferencesResolve checks that every $ref in our definitions
// names a definition that exists.
func TestOpenAPIReferencesResolve(t *testing.T) {
	defs := definitions()
	refs := 0
	for name, def := range defs {
		if !strings.HasPrefix(name, modelPackage) {
			continue
		}
		s := def.Schema
		walkSchema(&s, func(ref string) {
			refs++
			target := strings.TrimPrefix(ref, "#/definitions/")
			if _, ok := defs[target]; !ok {
				t.Errorf("%s refers to missing definition %q", name, target)
			}
		})
		for _, dep := range def.Dependencies {
			if _, ok := defs[dep]; !ok {
				t.Errorf("%s depends on missing definition %q", name, dep)
			}
		}
	}
	// UpdateStatus alone refers to ObjectMeta, spec and status.
	if refs < 3 {
		t.Errorf("found only %d references; the walk is broken", refs)
	}
}

func TestOpenAPIEnumsAndLimits(t *testing.T) {
	defs := definitions()
	prop := func(model, field string) *spec.Schema {
		t.Helper()
		def, ok := defs[modelPackage+model]
		if !ok {
			t.Fatalf("no definition %s", model)
		}
		p, ok := def.Schema.Properties[field]
		if !ok {
			t.Fatalf("%s has no property %q", model, field)
		}
		return &p
	}
	enumTests := []struct {
		model, field string
		want         []string
	}{
		{"InsightImpact", "level", []string{"Unknown", "Info", "Warning", "Error", "Critical"}},
		{"InsightImpact", "type", []string{"None", "Unknown", "API Availability", "Cluster Capacity", "Application Availability",
			"Application Outage", "Data Loss", "Update Speed", "Update Stalled"}},
		{"ControlPlaneInsightUnion", "type", []string{"ClusterVersion", "ClusterOperator", "MachineConfigPool", "Node", "Health"}},
		{"ClusterVersionStatusInsight", "assessment", []string{"Unknown", "Progressing", "Completed", "Degraded"}},
		{"MachineConfigPoolStatusInsight", "assessment", []string{"Pending", "Completed", "Degraded", "Excluded", "Progressing"}},
		{"NodeSummary", "type", []string{"Total", "Available", "Progressing", "Outdated", "Draining", "Excluded", "Degraded"}},
		{"VersionMetadata", "key", []string{"Installation", "Partial", "Architecture"}},
		{"InsightScope", "type", []string{"ControlPlane", "WorkerPool"}},
		{"NodeStatusInsight", "scopeType", []string{"ControlPlane", "WorkerPool"}},
	}
	for _, tt := range enumTests {
		var got []string
		for _, v := range prop(tt.model, tt.field).Enum {
			got = append(got, v.(string))
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tt.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s.%s enum = %q, want %q", tt.model, tt.field, got, want)
		}
	}

	limitTests := []struct {
		model, field string
		check        func(*spec.Schema) bool
	}{
		{"WorkerPoolInformer", "insights", func(s *spec.Schema) bool { return eq(s.MaxItems, 1024) }},
		{"ControlPlaneInformer", "insights", func(s *spec.Schema) bool { return eq(s.MaxItems, 128) }},
		{"UpdateStatusStatus", "workerPools", func(s *spec.Schema) bool { return eq(s.MaxItems, 32) }},
		{"ControlPlaneInsight", "uid", func(s *spec.Schema) bool {
			return eq(s.MinLength, 1) && eq(s.MaxLength, 63) && s.Pattern == "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
		}},
		{"ClusterOperatorStatusInsight", "name", func(s *spec.Schema) bool { return eq(s.MaxLength, 64) && s.Pattern == "^[a-z0-9-]+$" }},
		{"NodeSummary", "count", func(s *spec.Schema) bool {
			return s.Minimum != nil && *s.Minimum == 0 && s.Maximum != nil && *s.Maximum == 4096
		}},
		{"InsightRemediation", "reference", func(s *spec.Schema) bool { return eq(s.MaxLength, 512) }},
	}
	for _, tt := range limitTests {
		if s := prop(tt.model, tt.field); !tt.check(s) {
			t.Errorf("%s.%s lacks its limits: %+v", tt.model, tt.field, s.SchemaProps)
		}
	}
}

func eq(p *int64, want int64) bool { return p != nil && *p == want }

// walkSchema calls visit for every $ref in s.
func walkSchema(s *spec.Schema, visit func(string)) {
	if s == nil {
		return
	}
	if ref := s.Ref.String(); ref != "" {
		visit(ref)
	}
	for _, p := range s.Properties {
		walkSchema(&p, visit)
	}
	if s.Items != nil {
		walkSchema(s.Items.Schema, visit)
		for i := range s.Items.Schemas {
			walkSchema(&s.Items.Schemas[i], visit)
		}
	}
	if s.AdditionalProperties != nil {
		walkSchema(s.AdditionalProperties.Schema, visit)
	}
	for i := range s.AllOf {
		walkSchema(&s.AllOf[i], visit)
	}
}

// TestOpenAPISpecIsOptional: spec is always {}, so neither OpenAPI nor
// `kubectl explain` may call it required (kubectl would then demand it in
// client-side validation of a manifest).
func TestOpenAPISpecIsOptional(t *testing.T) {
	def, ok := definitions()[modelPackage+"UpdateStatus"]
	if !ok {
		t.Fatal("no UpdateStatus definition")
	}
	if _, ok := def.Schema.Properties["spec"]; !ok {
		t.Fatal("UpdateStatus has no spec property")
	}
	if slices.Contains(def.Schema.Required, "spec") {
		t.Errorf("spec is required: %v", def.Schema.Required)
	}
}
