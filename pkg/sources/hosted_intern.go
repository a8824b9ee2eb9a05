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

package sources

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/pkg/hypershift"
)

// A management cluster caches tens of thousands of Machines and
// ControlPlaneComponents whose namespaces, owners, versions and condition
// words repeat across a hosted cluster or the whole fleet. internMachine and
// internComponent make those strings share one copy (intern). The strings
// that name one object are left as decoded: a Machine's name, UID,
// resourceVersion, node and condition messages (which name the node); a
// component's UID and resourceVersion (its name and messages are the same
// in every hosted cluster).

// internMachine interns m's repeated strings; its labels and annotations
// are shared maps already (annotationSets).
func internMachine(m *capiv1.Machine) {
	internTo(&m.Namespace)
	internRefs(m.OwnerReferences)
	internPtr(m.Spec.Version)
	internTo(&m.Status.Phase)
	if r := m.Status.NodeRef; r != nil {
		internTo(&r.APIVersion)
		internTo(&r.Kind)
	}
	for i := range m.Status.Conditions {
		c := &m.Status.Conditions[i]
		internTo(&c.Type)
		internTo(&c.Status)
		internTo(&c.Severity)
		internTo(&c.Reason)
	}
}

// internComponent interns c's repeated strings: a hosted cluster's
// components share its namespace, and every cluster runs the same
// components at a handful of versions.
func internComponent(c *hypershift.ControlPlaneComponent) {
	internMeta(&c.ObjectMeta)
	internTo(&c.Name)
	internTo(&c.Status.Version)
	for i := range c.Status.Conditions {
		cond := &c.Status.Conditions[i]
		for _, s := range []*string{&cond.Type, &cond.Reason, &cond.Message} {
			internTo(s)
		}
		internTo(&cond.Status)
	}
}

// internMeta interns m's namespace, label and annotation values and owner
// references' kinds and names.
func internMeta(m *metav1.ObjectMeta) {
	internTo(&m.Namespace)
	for _, kv := range []map[string]string{m.Labels, m.Annotations} {
		for k, v := range kv {
			kv[k] = intern(v)
		}
	}
	internRefs(m.OwnerReferences)
}

// internRefs interns the owner references' kinds and names.
func internRefs(refs []metav1.OwnerReference) {
	for i := range refs {
		r := &refs[i]
		internTo(&r.APIVersion)
		internTo(&r.Kind)
		internTo(&r.Name)
	}
}

// internTo interns the string *s.
func internTo[S ~string](s *S) { *s = S(intern(string(*s))) }

// internPtr interns *s, if s is set.
func internPtr(s *string) {
	if s != nil {
		internTo(s)
	}
}
