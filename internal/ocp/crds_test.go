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

package ocp

import (
	"context"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/update-status/apiserver/internal/testio"
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
	crds := loadOpenShiftCRDs(t)
	want := map[string]bool{
		"clusterversions.config.openshift.io":                  true,
		"clusteroperators.config.openshift.io":                 true,
		"machineconfigpools.machineconfiguration.openshift.io": true,
		"machineconfigs.machineconfiguration.openshift.io":     false,
	}
	for crd, status := range testio.ByName(t, crds, want) {
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
	crds := loadOpenShiftCRDs(t)
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

// loadOpenShiftCRDs loads the CRDs of the openshift/api checkout.
func loadOpenShiftCRDs(t *testing.T) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	dir, err := OpenShiftAPIDir()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := LoadCRDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return crds
}
