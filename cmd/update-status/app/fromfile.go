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

package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/untruncate"
)

// savedObjects are the update.openshift.io objects of a file saved from a
// cluster (kubectl get ... -o yaml|json): an UpdateStatus, the
// HostedClusterUpdateStatuses, and the per-insight objects that complete
// them.
type savedObjects struct {
	status   *v1alpha1.UpdateStatus
	hosted   []v1alpha1.HostedClusterUpdateStatus
	insights untruncate.Objects
	// hostedInsights are by namespace.
	hostedInsights map[string]*untruncate.HostedObjects
}

// readSaved reads path: YAML or JSON documents, each an object or a list
// (a v1 List or a kind's List). Objects of other groups and kinds are
// skipped.
func readSaved(path string) (*savedObjects, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	saved := &savedObjects{hostedInsights: map[string]*untruncate.HostedObjects{}}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if u.Object == nil {
			continue // an empty document
		}
		items := []unstructured.Unstructured{u}
		if u.IsList() {
			list, err := u.ToList()
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", path, err)
			}
			items = list.Items
		}
		for i := range items {
			if err := saved.add(&items[i]); err != nil {
				return nil, fmt.Errorf("reading %s: %s %s: %w", path, items[i].GetKind(), items[i].GetName(), err)
			}
		}
	}
	return saved, nil
}

// add keeps u when it is an object of update.openshift.io/v1alpha1 that a
// report reads.
func (s *savedObjects) add(u *unstructured.Unstructured) error {
	if u.GetAPIVersion() != v1alpha1.SchemeGroupVersion.String() {
		return nil
	}
	hosted := func() *untruncate.HostedObjects {
		h := s.hostedInsights[u.GetNamespace()]
		if h == nil {
			h = &untruncate.HostedObjects{}
			s.hostedInsights[u.GetNamespace()] = h
		}
		return h
	}
	from := func(obj any) error { return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj) }
	var err error
	switch u.GetKind() {
	case resources.UpdateStatus.Kind:
		s.status = &v1alpha1.UpdateStatus{}
		err = from(s.status)
	case resources.HostedClusterUpdateStatus.Kind:
		var o v1alpha1.HostedClusterUpdateStatus
		if err = from(&o); err == nil {
			s.hosted = append(s.hosted, o)
		}
	case resources.ClusterVersionInsights.Kind():
		err = appendFrom(from, &s.insights.ClusterVersions)
	case resources.ClusterOperatorInsights.Kind():
		err = appendFrom(from, &s.insights.ClusterOperators)
	case resources.MachineConfigPoolInsights.Kind():
		err = appendFrom(from, &s.insights.MachineConfigPools)
	case resources.NodeInsights.Kind():
		err = appendFrom(from, &s.insights.Nodes)
	case resources.HealthInsights.Kind():
		err = appendFrom(from, &s.insights.Health)
	case resources.ClusterVersionInsights.Hosted().Kind:
		err = appendFrom(from, &hosted().ClusterVersions)
	case resources.ClusterOperatorInsights.Hosted().Kind:
		err = appendFrom(from, &hosted().ClusterOperators)
	case resources.MachineConfigPoolInsights.Hosted().Kind:
		err = appendFrom(from, &hosted().MachineConfigPools)
	case resources.NodeInsights.Hosted().Kind:
		err = appendFrom(from, &hosted().Nodes)
	case resources.HealthInsights.Hosted().Kind:
		err = appendFrom(from, &hosted().Health)
	}
	return err
}

// appendFrom converts one object with from and appends it to list.
func appendFrom[T any](from func(any) error, list *[]T) error {
	var o T
	if err := from(&o); err != nil {
		return err
	}
	*list = append(*list, o)
	return nil
}

// updateStatus returns the saved UpdateStatus, completed with the saved
// per-insight objects when it left insights out.
func (s *savedObjects) updateStatus(path string) (*v1alpha1.UpdateStatus, error) {
	if s.status == nil {
		return nil, fmt.Errorf("%s holds no %s", path, resources.UpdateStatus.Kind)
	}
	out := *s.status
	if untruncate.Truncated(&out.Status) {
		out.Status = *untruncate.Status(&out.Status, &s.insights)
	}
	return &out, nil
}

// hostedStatus returns the saved HostedClusterUpdateStatus of the hosted
// cluster key, completed with the saved hosted per-insight objects when it
// left insights out.
func (s *savedObjects) hostedStatus(path string, key types.NamespacedName) (*v1alpha1.HostedClusterUpdateStatus, error) {
	for i := range s.hosted {
		o := &s.hosted[i]
		if o.Namespace != key.Namespace || o.Name != key.Name {
			continue
		}
		out := *o
		if h := s.hostedInsights[key.Namespace]; h != nil && untruncate.Truncated(&out.Status) {
			out.Status = *untruncate.Status(&out.Status, h.For(key.Name))
		}
		return &out, nil
	}
	return nil, fmt.Errorf("%s holds no %s %s", path, resources.HostedClusterUpdateStatus.Kind, key)
}
