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

// Command hostedcrds writes the CRD manifests of HyperShift and Cluster API
// that the local stack and the hosted-cluster simulator install
// (pkg/hypershift/crds/manifests), from the modules' own manifests:
//
//   - github.com/openshift/hypershift/api (the version in go.mod):
//     hypershift/v1beta1/zz_generated.featuregated-crd-manifests/<plural>.hypershift.openshift.io/AAA_ungated.yaml
//     for HostedCluster, HostedControlPlane, NodePool and ControlPlaneComponent,
//     plus the NodePool scale subresource of manual-override-crd-manifests. The
//     empty-named feature-gate annotation, which the API server refuses, is
//     dropped, and the fields HyperShift added after that version
//     (pkg/hypershift) are added to the status schemas.
//   - sigs.k8s.io/cluster-api (the version in go.mod):
//     config/crd/bases/cluster.x-k8s.io_{machines,machinesets,machinedeployments}.yaml,
//     copied unchanged.
//
// Usage:
//
//	go run ./hack/hostedcrds            # write the manifests
//	go run ./hack/hostedcrds -verify    # fail when they are stale
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/update-status/apiserver/pkg/hypershift"
)

const (
	hypershiftModule = "github.com/openshift/hypershift/api"
	capiModule       = "sigs.k8s.io/cluster-api"
)

func main() {
	out := flag.String("out", "pkg/hypershift/crds/manifests", "directory of the manifests")
	verify := flag.Bool("verify", false, "compare with -out instead of writing it")
	flag.Parse()
	files, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostedcrds:", err)
		os.Exit(1)
	}
	if *verify {
		stale := false
		for name, want := range files {
			got, err := os.ReadFile(filepath.Join(*out, name))
			if err != nil || !bytes.Equal(got, want) {
				fmt.Fprintf(os.Stderr, "hostedcrds: %s is stale; run `make crds-hosted`\n", filepath.Join(*out, name))
				stale = true
			}
		}
		entries, _ := os.ReadDir(*out)
		for _, e := range entries {
			if _, ok := files[e.Name()]; !ok {
				fmt.Fprintf(os.Stderr, "hostedcrds: %s is not generated; remove it\n", filepath.Join(*out, e.Name()))
				stale = true
			}
		}
		if stale {
			os.Exit(1)
		}
		return
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "hostedcrds:", err)
		os.Exit(1)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "hostedcrds:", err)
			os.Exit(1)
		}
	}
}

// module is a module of the build list, downloaded.
type module struct {
	Path, Version, Dir string
}

// download returns the module's directory in the module cache, at the
// version go.mod selects.
func download(path string) (module, error) {
	var m module
	raw, err := exec.Command("go", "mod", "download", "-json", path).Output()
	if err != nil {
		return m, fmt.Errorf("go mod download %s: %w", path, err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("go mod download %s: %w", path, err)
	}
	return m, nil
}

// generate returns the manifests by file name.
func generate() (map[string][]byte, error) {
	hs, err := download(hypershiftModule)
	if err != nil {
		return nil, err
	}
	capi, err := download(capiModule)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	base := "hypershift/v1beta1/zz_generated.featuregated-crd-manifests"
	for _, plural := range []string{"hostedclusters", "hostedcontrolplanes", "nodepools", "controlplanecomponents"} {
		rel := base + "/" + plural + ".hypershift.openshift.io/AAA_ungated.yaml"
		crd, err := readCRD(filepath.Join(hs.Dir, rel))
		if err != nil {
			return nil, err
		}
		sources := []string{rel}
		delete(crd.Annotations, "feature-gate.release.openshift.io/")
		if len(crd.Annotations) == 0 {
			crd.Annotations = nil
		}
		status, err := statusProperties(crd)
		if err != nil {
			return nil, err
		}
		switch plural {
		case "hostedclusters", "hostedcontrolplanes":
			versionKey := "version"
			if plural == "hostedcontrolplanes" {
				versionKey = "versionStatus"
			}
			desired, ok := status[versionKey].Properties["desired"]
			if !ok {
				return nil, fmt.Errorf("%s: no status.%s.desired to take the release schema from", rel, versionKey)
			}
			status["controlPlaneVersion"] = hypershift.ControlPlaneVersionSchema(desired)
		case "nodepools":
			status["nodesInfo"] = hypershift.NodesInfoSchema()
			overrideRel := "hypershift/v1beta1/manual-override-crd-manifests/nodepools.hypershift.openshift.io/hypershift.openshift.io_nodepools_scale_subresource.yaml"
			override, err := readCRD(filepath.Join(hs.Dir, overrideRel))
			if err != nil {
				return nil, err
			}
			if len(override.Spec.Versions) != 1 || override.Spec.Versions[0].Subresources == nil || override.Spec.Versions[0].Subresources.Scale == nil {
				return nil, fmt.Errorf("%s: no scale subresource", overrideRel)
			}
			crd.Spec.Versions[0].Subresources.Scale = override.Spec.Versions[0].Subresources.Scale
			sources = append(sources, overrideRel)
		case "controlplanecomponents":
			status["observedGeneration"] = hypershift.ComponentObservedGenerationSchema()
		}
		data, err := yaml.Marshal(crd)
		if err != nil {
			return nil, err
		}
		files[crd.Name+".yaml"] = append(header(hs, sources, "with the fields of pkg/hypershift added"), data...)
	}
	for _, plural := range []string{"machines", "machinesets", "machinedeployments"} {
		rel := "config/crd/bases/cluster.x-k8s.io_" + plural + ".yaml"
		data, err := os.ReadFile(filepath.Join(capi.Dir, rel))
		if err != nil {
			return nil, err
		}
		if _, err := readCRD(filepath.Join(capi.Dir, rel)); err != nil {
			return nil, err
		}
		files[plural+".cluster.x-k8s.io.yaml"] = append(header(capi, []string{rel}, "unchanged"), data...)
	}
	return files, nil
}

// header names the manifest's sources.
func header(m module, rels []string, how string) []byte {
	var b strings.Builder
	b.WriteString("# Generated by hack/hostedcrds (make crds-hosted); do not edit.\n")
	fmt.Fprintf(&b, "# Source: %s@%s, %s:\n", m.Path, m.Version, how)
	for _, rel := range rels {
		fmt.Fprintf(&b, "#   %s\n", rel)
	}
	return []byte(b.String())
}

// readCRD decodes one CustomResourceDefinition manifest.
func readCRD(path string) (*apiextensionsv1.CustomResourceDefinition, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return crd, nil
}

// statusProperties returns the properties of the status schema of the
// CRD's only version; adding to the map adds to the CRD.
func statusProperties(crd *apiextensionsv1.CustomResourceDefinition) (map[string]apiextensionsv1.JSONSchemaProps, error) {
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("%s: want one version with a schema", crd.Name)
	}
	status, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"]
	if !ok || status.Properties == nil {
		return nil, fmt.Errorf("%s: no status schema", crd.Name)
	}
	return status.Properties, nil
}
