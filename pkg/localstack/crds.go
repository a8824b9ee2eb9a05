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

package localstack

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// OpenShiftAPIModule is the module whose own CRD manifests are installed.
const OpenShiftAPIModule = "github.com/openshift/api"

// OpenShiftCRDFiles are the CRD manifests the server reads, relative to the
// openshift/api module directory. ClusterVersion comes in feature-set
// variants; -Default is the one of a normal cluster.
var OpenShiftCRDFiles = []string{
	"config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml",
	"config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusteroperators.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigpools.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigs.crd.yaml",
}

// ModuleDir returns the directory of module as the main module at repoRoot
// requires it (`go list -m -f {{.Dir}}`), downloading it when needed.
func ModuleDir(repoRoot, module string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module)
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", fmt.Errorf("go list -m %s: %w: %s", module, err, ee.Stderr)
		}
		return "", fmt.Errorf("go list -m %s: %w", module, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		cmd := exec.Command("go", "mod", "download", module)
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go mod download %s: %w: %s", module, err, out)
		}
		return ModuleDir(repoRoot, module)
	}
	return dir, nil
}

// InstallOpenShiftCRDs applies OpenShiftCRDFiles from the openshift/api
// module the main module at repoRoot requires, and waits until every CRD is
// Established.
func InstallOpenShiftCRDs(ctx context.Context, a *Applier, repoRoot string) error {
	dir, err := ModuleDir(repoRoot, OpenShiftAPIModule)
	if err != nil {
		return err
	}
	paths := make([]string, len(OpenShiftCRDFiles))
	for i, f := range OpenShiftCRDFiles {
		paths[i] = filepath.Join(dir, f)
	}
	crds, err := a.ApplyFiles(ctx, nil, paths...)
	if err != nil {
		return err
	}
	crdGVK := schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	for _, crd := range crds {
		if err := a.WaitForCondition(ctx, crdGVK, "", crd.GetName(), "Established", 30*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// WaitForCondition waits until the object has the condition type with status
// "True" in status.conditions.
func (a *Applier) WaitForCondition(ctx context.Context, gvk schema.GroupVersionKind, namespace, name, condType string, timeout time.Duration) error {
	ri, err := a.Resource(gvk, namespace)
	if err != nil {
		return err
	}
	var last string
	err = pollUntil(ctx, timeout, nil, func() (bool, error) {
		obj, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		for _, c := range conds {
			m, ok := c.(map[string]any)
			if !ok || m["type"] != condType {
				continue
			}
			last = fmt.Sprintf("%v: %v", m["reason"], m["message"])
			return m["status"] == "True", nil
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("%s %s did not become %s (last: %s): %w", gvk.Kind, name, condType, last, err)
	}
	return nil
}
