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

package simulator

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/update-status/apiserver/internal/ocp"
)

// TestObjectsMatchTheCRDSchemas checks every simulated ClusterVersion,
// ClusterOperator, MachineConfigPool and MachineConfig, at every phase,
// against the openshift/api CRD schemas the way the API server does: no
// field would be pruned as unknown, and the pruned object validates
// (required fields, types, enums, formats). CEL rules are not evaluated.
func TestObjectsMatchTheCRDSchemas(t *testing.T) {
	dir, err := ocp.OpenShiftAPIDir()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := ocp.LoadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		structural *structuralschema.Structural
		validator  apiservervalidation.SchemaValidator
	}
	schemas := map[string]schema{}
	for _, crd := range crds {
		internal := &apiextensions.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, internal, nil); err != nil {
			t.Fatal(err)
		}
		structural, err := structuralschema.NewStructural(internal)
		if err != nil {
			t.Fatalf("%s: %v", crd.Name, err)
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal)
		if err != nil {
			t.Fatalf("%s: %v", crd.Name, err)
		}
		schemas[crd.Spec.Names.Kind] = schema{structural, validator}
	}
	check := func(t *testing.T, obj runtime.Object) {
		t.Helper()
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		var u map[string]interface{}
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatal(err)
		}
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		sc, ok := schemas[kind]
		if !ok {
			t.Fatalf("no schema for %q", kind)
		}
		name, _ := m["metadata"].(map[string]interface{})["name"].(string)
		// Unknown fields would be dropped silently by the API server: data
		// loss, unless the value is null (the typed clients send null for
		// unset fields that are feature-gated out of the Default CRD, such
		// as ClusterVersion spec.signatureStores).
		var nonNull map[string]interface{}
		if err := json.Unmarshal(raw, &nonNull); err != nil {
			t.Fatal(err)
		}
		dropNulls(nonNull)
		if unknown := pruning.PruneWithOptions(nonNull, sc.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}); len(unknown) > 0 {
			t.Errorf("%s %s: fields unknown to the CRD: %v", kind, name, unknown)
		}
		pruning.Prune(u, sc.structural, true)
		defaulting.PruneNonNullableNullsWithoutDefaults(u, sc.structural)
		if errs := apiservervalidation.ValidateCustomResource(nil, u, sc.validator); len(errs) > 0 {
			t.Errorf("%s %s does not validate: %v", kind, name, errs.ToAggregate())
		}
	}
	pct := intstr.FromString("50%")
	s, fc, _ := startedSimulator(t, Options{Nodes: 8, Seed: 3, WorkerPools: []PoolOptions{{Name: "worker", MaxUnavailable: &pct}, {Name: "infra", Nodes: 2}}})
	if _, err := s.FailClusterVersion(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	seen := map[Phase]bool{}
	stepUntil(t, s, fc, func(st *State) {
		if seen[st.Phase] {
			return
		}
		seen[st.Phase] = true
		check(t, st.ClusterVersion)
		for _, o := range st.ClusterOperators {
			check(t, o)
		}
		for _, o := range st.MachineConfigPools {
			check(t, o)
		}
		for _, o := range st.MachineConfigs {
			check(t, o)
		}
	}, nil)
	if len(seen) < 5 {
		t.Errorf("checked %d phases", len(seen))
	}
}

// dropNulls removes null values from a decoded JSON object, recursively.
func dropNulls(v interface{}) {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			dropNulls(e)
		}
	case []interface{}:
		for _, e := range x {
			dropNulls(e)
		}
	}
}
