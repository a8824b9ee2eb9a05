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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/mod/module"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"
)

// OpenShiftAPIModule is the module whose CRD manifests InstallCRDs applies.
const OpenShiftAPIModule = "github.com/openshift/api"

// OpenShiftAPIDirEnv, when set, names the openshift/api module directory and
// skips the lookup.
const OpenShiftAPIDirEnv = "OPENSHIFT_API_DIR"

// CRDFiles are the manifests of the kinds this package builds, relative to
// the openshift/api module root (the Default feature set of ClusterVersion).
var CRDFiles = []string{
	"config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml",
	"config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusteroperators.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigpools.crd.yaml",
	"machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigs.crd.yaml",
}

// crdEstablishTimeout bounds the wait for the CRDs to be served.
const crdEstablishTimeout = time.Minute

// InstallCRDs applies the ClusterVersion, ClusterOperator, MachineConfigPool
// and MachineConfig CRDs from the openshift/api module's own manifests and
// waits until they are Established. The module directory is found as
// OpenShiftAPIDir describes.
func InstallCRDs(ctx context.Context, cfg *rest.Config) error {
	return installModuleCRDs(ctx, cfg, CRDFiles)
}

// InstallMachineConfigNodeCRD applies the MachineConfigNode CRD
// (MachineConfigNodeCRDFile) as InstallCRDs does, for a cluster whose
// MachineConfigNodes are simulated.
func InstallMachineConfigNodeCRD(ctx context.Context, cfg *rest.Config) error {
	return installModuleCRDs(ctx, cfg, []string{MachineConfigNodeCRDFile})
}

// installModuleCRDs applies the manifests rels of the openshift/api module.
func installModuleCRDs(ctx context.Context, cfg *rest.Config, rels []string) error {
	dir, err := OpenShiftAPIDir()
	if err != nil {
		return err
	}
	paths := make([]string, len(rels))
	for i, rel := range rels {
		paths[i] = filepath.Join(dir, rel)
	}
	crds, err := LoadCRDFiles(paths...)
	if err != nil {
		return err
	}
	return InstallCRDObjects(ctx, cfg, crds)
}

// InstallCRDObjects applies crds through cfg's API server as ApplyCRDs
// does.
func InstallCRDObjects(ctx context.Context, cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) error {
	client, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("apiextensions client: %w", err)
	}
	return ApplyCRDs(ctx, client, crds)
}

// OpenShiftAPIDir returns the directory of the openshift/api module this
// binary was built with: $OPENSHIFT_API_DIR if set; else the module cache
// entry of the version recorded in the build info; else what
// `go list -m -f {{.Dir}} github.com/openshift/api` prints (which needs the
// go command and a working directory inside this module). It fails with the
// places it looked when none has the manifests.
func OpenShiftAPIDir() (string, error) {
	var tried []string
	check := func(dir, how string) bool {
		if dir == "" {
			return false
		}
		_, err := os.Stat(filepath.Join(dir, CRDFiles[0]))
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%s): %v", dir, how, err))
			return false
		}
		return true
	}
	if dir := os.Getenv(OpenShiftAPIDirEnv); dir != "" {
		if check(dir, "$"+OpenShiftAPIDirEnv) {
			return dir, nil
		}
		return "", fmt.Errorf("ocp: $%s does not hold the openshift/api CRD manifests: %s", OpenShiftAPIDirEnv, strings.Join(tried, "; "))
	}
	if dir := moduleCacheDir(); check(dir, "module cache, version from the build info") {
		return dir, nil
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", OpenShiftAPIModule).Output()
	if err != nil {
		tried = append(tried, fmt.Sprintf("`go list -m %s`: %v", OpenShiftAPIModule, err))
	} else if dir := strings.TrimSpace(string(out)); check(dir, "go list -m") {
		return dir, nil
	}
	return "", fmt.Errorf("ocp: cannot find the %s module with its CRD manifests (run `go mod download %s` or set $%s); tried: %s",
		OpenShiftAPIModule, OpenShiftAPIModule, OpenShiftAPIDirEnv, strings.Join(tried, "; "))
}

// moduleCacheDir returns where the module cache keeps the openshift/api
// version recorded in the build info, or "".
func moduleCacheDir() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, dep := range info.Deps {
		if dep.Path != OpenShiftAPIModule {
			continue
		}
		if dep.Replace != nil {
			dep = dep.Replace
			if strings.HasPrefix(dep.Path, ".") || strings.HasPrefix(dep.Path, "/") {
				return dep.Path
			}
		}
		cache := os.Getenv("GOMODCACHE")
		if cache == "" {
			if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
				cache = strings.TrimSpace(string(out))
			}
		}
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			cache = filepath.Join(home, "go", "pkg", "mod")
		}
		escaped, err := module.EscapePath(dep.Path)
		if err != nil {
			return ""
		}
		v, err := module.EscapeVersion(dep.Version)
		if err != nil {
			return ""
		}
		return filepath.Join(cache, escaped+"@"+v)
	}
	return ""
}

// LoadCRDs reads CRDFiles from the openshift/api module directory.
func LoadCRDs(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	paths := make([]string, len(CRDFiles))
	for i, rel := range CRDFiles {
		paths[i] = filepath.Join(dir, rel)
	}
	return LoadCRDFiles(paths...)
}

// LoadCRDFiles reads one CustomResourceDefinition from each of paths.
func LoadCRDFiles(paths ...string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("ocp: read CRD manifest: %w", err)
		}
		crd, err := DecodeCRD(raw, path)
		if err != nil {
			return nil, err
		}
		out = append(out, crd)
	}
	return out, nil
}

// DecodeCRD decodes one CustomResourceDefinition manifest; source names it
// in errors.
func DecodeCRD(raw []byte, source string) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(raw, crd); err != nil {
		return nil, fmt.Errorf("ocp: decode %s: %w", source, err)
	}
	if crd.Kind != "CustomResourceDefinition" || crd.Name == "" {
		return nil, fmt.Errorf("ocp: %s is not a CustomResourceDefinition", source)
	}
	return crd, nil
}

// ApplyCRDs creates the CRDs (or updates them when they exist) and waits
// until every one is Established.
func ApplyCRDs(ctx context.Context, client apiextensionsclient.Interface, crds []*apiextensionsv1.CustomResourceDefinition) error {
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	for _, crd := range crds {
		_, err := api.Create(ctx, crd, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			var existing *apiextensionsv1.CustomResourceDefinition
			existing, err = api.Get(ctx, crd.Name, metav1.GetOptions{})
			if err == nil {
				update := crd.DeepCopy()
				update.ResourceVersion = existing.ResourceVersion
				_, err = api.Update(ctx, update, metav1.UpdateOptions{})
			}
		}
		if err != nil {
			return fmt.Errorf("ocp: apply CRD %s: %w", crd.Name, err)
		}
	}
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, crdEstablishTimeout, true, func(ctx context.Context) (bool, error) {
		for _, crd := range crds {
			got, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if !crdEstablished(got) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("ocp: CRDs not Established after %s", crdEstablishTimeout)
		}
		return fmt.Errorf("ocp: wait for the CRDs: %w", err)
	}
	klog.V(1).InfoS("OpenShift CRDs established", "count", len(crds), "duration", time.Since(start))
	return nil
}

// crdEstablished reports Established=True and NamesAccepted=True.
func crdEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	established, accepted := false, false
	for _, c := range crd.Status.Conditions {
		switch c.Type {
		case apiextensionsv1.Established:
			established = c.Status == apiextensionsv1.ConditionTrue
		case apiextensionsv1.NamesAccepted:
			accepted = c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return established && accepted
}
