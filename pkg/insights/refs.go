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

package insights

import (
	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// The objects insights reference come from the model: an adapter sets a
// Resource on the control plane, a component, a pool or a node, and the
// standalone cluster's default applies where it sets none
// (docs/insights.md#the-cluster-model). An insight's uid is its kind's
// prefix and the referenced object.

// Prefixes of the uids of status insights.
const (
	uidPrefixCV   = "cv"
	uidPrefixCO   = "co"
	uidPrefixPool = "mcp"
	uidPrefixNode = "node"
)

// refUID is the uid of the insight of kind prefix about ref.
func refUID(prefix string, ref v1alpha1.ResourceRef) string {
	return conventions.UID(prefix, ref.Group, ref.Resource, ref.Namespace, ref.Name)
}

// ref is the object the control plane's insights reference.
func (cp *ControlPlane) ref() v1alpha1.ResourceRef {
	if cp.Resource != nil {
		return *cp.Resource
	}
	return cvRef(cp.Name)
}

// ref is the object the component's insights reference.
func (co *Component) ref() v1alpha1.ResourceRef {
	if co.Resource != nil {
		return *co.Resource
	}
	return coRef(co.Name)
}

// ref is the object the pool's insights reference.
func (p *Pool) ref() v1alpha1.ResourceRef {
	if p.Resource != nil {
		return *p.Resource
	}
	return mcpRef(p.Name)
}
