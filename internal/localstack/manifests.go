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
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// ReadManifests reads every object of the given files and directories (a
// directory contributes its *.yaml, *.yml and *.json files in name order,
// not recursively). Multi-document YAML and `kind: List` are expanded. Each
// ${NAME} in a file is replaced by vars[NAME] before decoding (as envsubst
// would); a ${NAME} without a value is an error naming the file. With nil
// vars the files are read verbatim.
func ReadManifests(vars map[string]string, paths ...string) ([]*unstructured.Unstructured, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			switch filepath.Ext(e.Name()) {
			case ".yaml", ".yml", ".json":
				if !e.IsDir() {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
		}
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		text, err := expandVars(data, vars)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		fileObjs, err := decodeObjects(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		objs = append(objs, fileObjs...)
	}
	return objs, nil
}

// varPattern matches ${NAME}; a lone $ (as in CRD regular expressions) is
// left alone.
var varPattern = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func expandVars(data []byte, vars map[string]string) ([]byte, error) {
	if vars == nil {
		return data, nil
	}
	var missing []string
	out := varPattern.ReplaceAllFunc(data, func(m []byte) []byte {
		name := string(m[2 : len(m)-1])
		v, ok := vars[name]
		if !ok {
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
			return m
		}
		return []byte(v)
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("no value for %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func decodeObjects(data []byte) ([]*unstructured.Unstructured, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []*unstructured.Unstructured
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		js, err := utilyaml.ToJSON(doc)
		if err != nil {
			return nil, err
		}
		if t := bytes.TrimSpace(js); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			continue // empty document or only comments
		}
		// The unstructured scheme keeps integers as int64, as the API does.
		obj, _, err := unstructured.UnstructuredJSONScheme.Decode(js, nil, nil)
		if err != nil {
			return nil, err
		}
		switch o := obj.(type) {
		case *unstructured.UnstructuredList:
			for i := range o.Items {
				objs = append(objs, &o.Items[i])
			}
		case *unstructured.Unstructured:
			objs = append(objs, o)
		default:
			return nil, fmt.Errorf("unexpected object %T", obj)
		}
	}
}

// Applier creates or updates objects of any kind through the dynamic client.
type Applier struct {
	Dynamic dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
}

// NewApplier returns an Applier for the server of cfg.
func NewApplier(cfg *rest.Config) (*Applier, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Applier{Dynamic: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}, nil
}

// Resource returns the client for the resource of obj's kind, in obj's
// namespace when the resource is namespaced. An unknown kind refreshes
// discovery once (a CRD may have just been established).
func (a *Applier) Resource(gvk schema.GroupVersionKind, namespace string) (dynamic.ResourceInterface, error) {
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		a.mapper.Reset()
		m, err = a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		if namespace == "" {
			namespace = metav1.NamespaceDefault
		}
		return a.Dynamic.Resource(m.Resource).Namespace(namespace), nil
	}
	return a.Dynamic.Resource(m.Resource), nil
}

// Apply creates each object, or replaces it when it exists, then writes its
// status through the status subresource when the manifest has one (a create
// ignores the status of most resources). It returns the objects as stored.
func (a *Applier) Apply(ctx context.Context, objs ...*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, obj := range objs {
		stored, err := a.apply(ctx, obj.DeepCopy())
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", obj.GetKind(), objectName(obj), err)
		}
		out = append(out, stored)
	}
	return out, nil
}

func (a *Applier) apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, err := a.Resource(obj.GroupVersionKind(), obj.GetNamespace())
	if err != nil {
		return nil, err
	}
	status, hasStatus := obj.Object["status"]
	stored, err := ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: "update-status-it"})
	if apierrors.IsAlreadyExists(err) {
		var existing *unstructured.Unstructured
		if existing, err = ri.Get(ctx, obj.GetName(), metav1.GetOptions{}); err != nil {
			return nil, err
		}
		obj.SetResourceVersion(existing.GetResourceVersion())
		stored, err = ri.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "update-status-it"})
	}
	if err != nil {
		return nil, err
	}
	if !hasStatus || status == nil {
		return stored, nil
	}
	stored.Object["status"] = status
	return ri.UpdateStatus(ctx, stored, metav1.UpdateOptions{FieldManager: "update-status-it"})
}

// ApplyFiles reads manifests (see ReadManifests) and applies them in
// SortForApply order.
func (a *Applier) ApplyFiles(ctx context.Context, vars map[string]string, paths ...string) ([]*unstructured.Unstructured, error) {
	objs, err := ReadManifests(vars, paths...)
	if err != nil {
		return nil, err
	}
	SortForApply(objs)
	return a.Apply(ctx, objs...)
}

func objectName(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// applyRank orders kinds so that what others depend on comes first:
// Namespaces and CRDs first, APIServices (which make the aggregator probe the
// server) last.
func applyRank(obj *unstructured.Unstructured) int {
	switch obj.GroupVersionKind().GroupKind() {
	case schema.GroupKind{Kind: "Namespace"}:
		return 0
	case schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:
		return 1
	case schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}:
		return 3
	default:
		return 2
	}
}

// SortForApply orders objs stably by applyRank.
func SortForApply(objs []*unstructured.Unstructured) {
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int { return applyRank(a) - applyRank(b) })
}
