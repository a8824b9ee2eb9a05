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
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	k8stesting "k8s.io/client-go/testing"
)

func TestOpenShiftAPIDir(t *testing.T) {
	dir, err := OpenShiftAPIDir()
	if err != nil {
		t.Fatalf("OpenShiftAPIDir: %v", err)
	}
	if !strings.Contains(dir, "openshift/api") {
		t.Errorf("dir %s is not the openshift/api module", dir)
	}

	t.Setenv(OpenShiftAPIDirEnv, dir)
	if got, err := OpenShiftAPIDir(); err != nil || got != dir {
		t.Errorf("with $%s set: %q, %v", OpenShiftAPIDirEnv, got, err)
	}
	t.Setenv(OpenShiftAPIDirEnv, t.TempDir())
	if _, err := OpenShiftAPIDir(); err == nil || !strings.Contains(err.Error(), "does not hold the openshift/api CRD manifests") {
		t.Errorf("with an empty $%s: %v, want a clear error", OpenShiftAPIDirEnv, err)
	}
}

func TestLoadCRDs(t *testing.T) {
	dir, err := OpenShiftAPIDir()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := LoadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"clusterversions.config.openshift.io":                  true,
		"clusteroperators.config.openshift.io":                 true,
		"machineconfigpools.machineconfiguration.openshift.io": true,
		"machineconfigs.machineconfiguration.openshift.io":     false,
	}
	if len(crds) != len(want) {
		t.Fatalf("%d CRDs, want %d", len(crds), len(want))
	}
	for _, crd := range crds {
		status, ok := want[crd.Name]
		if !ok {
			t.Errorf("unexpected CRD %s", crd.Name)
			continue
		}
		if crd.Spec.Scope != apiextensionsv1.ClusterScoped || len(crd.Spec.Versions) != 1 || !crd.Spec.Versions[0].Served {
			t.Errorf("CRD %s: scope %s, versions %d", crd.Name, crd.Spec.Scope, len(crd.Spec.Versions))
		}
		hasStatus := crd.Spec.Versions[0].Subresources != nil && crd.Spec.Versions[0].Subresources.Status != nil
		if hasStatus != status {
			t.Errorf("CRD %s: status subresource %v, want %v", crd.Name, hasStatus, status)
		}
	}
	if _, err := LoadCRDs(t.TempDir()); err == nil {
		t.Error("LoadCRDs of an empty directory succeeded")
	}
}

func TestApplyCRDsWaitsForEstablished(t *testing.T) {
	dir, err := OpenShiftAPIDir()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := LoadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	client := apiextensionsfake.NewClientset()
	// The fake API server establishes a CRD on its second read, as a real
	// one does shortly after the create.
	reads := map[string]int{}
	client.PrependReactor("get", "customresourcedefinitions", func(action k8stesting.Action) (bool, runtime.Object, error) {
		name := action.(k8stesting.GetAction).GetName()
		obj, err := client.Tracker().Get(action.GetResource(), "", name)
		if err != nil {
			return true, nil, err
		}
		crd := obj.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
		reads[name]++
		if reads[name] >= 2 {
			crd.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{
				{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
				{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
			}
		}
		return true, crd, nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ApplyCRDs(ctx, client, crds); err != nil {
		t.Fatalf("ApplyCRDs: %v", err)
	}
	for _, crd := range crds {
		if reads[crd.Name] < 2 {
			t.Errorf("CRD %s read %d times; ApplyCRDs did not wait for Established", crd.Name, reads[crd.Name])
		}
	}
	// A second apply updates the existing CRDs.
	if err := ApplyCRDs(ctx, client, crds); err != nil {
		t.Fatalf("second ApplyCRDs: %v", err)
	}
	var updates int
	for _, a := range client.Actions() {
		if a.GetVerb() == "update" {
			updates++
		}
	}
	if updates != len(crds) {
		t.Errorf("%d updates on the second apply, want %d", updates, len(crds))
	}
}

// TestObjectsMatchTheCRDSchemas checks every simulated ClusterVersion,
// ClusterOperator, MachineConfigPool and MachineConfig, at every phase,
// against the openshift/api CRD schemas the way the API server does: no
// field would be pruned as unknown, and the pruned object validates
// (required fields, types, enums, formats). CEL rules are not evaluated.
func TestObjectsMatchTheCRDSchemas(t *testing.T) {
	dir, err := OpenShiftAPIDir()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := LoadCRDs(dir)
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
