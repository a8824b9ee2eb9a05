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
	"slices"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
)

// SourcesBuilder turns cluster objects into the engine's input. It is the one
// way to build Sources: the informers, the file loader, the simulator and the
// benchmarks all add their objects here, so that they agree on which
// ClusterVersion and which Deployment count and on what is kept of a
// MachineConfig. The zero value is ready to use; a builder is not safe for
// concurrent use.
type SourcesBuilder struct {
	src Sources
}

// Add adds obj when it is an object the engine reads and reports whether it
// did. It takes *configv1.ClusterVersion, *configv1.ClusterOperator,
// *mcfgv1.MachineConfigPool, *mcfgv1.MachineConfig, *Node, *corev1.Node and
// *appsv1.Deployment; anything else (nil, another kind, a deletion
// tombstone) is ignored. Objects are kept by reference, not copied, except
// that of a *corev1.Node the engine keeps its NodeOf: a caller that adds the
// same Nodes again and again (an informer cache) adds their NodeOf instead,
// so that the engine knows an unchanged node by its pointer.
//
// The ClusterVersion kept is the one named ClusterVersionName, or the first
// one added when none has that name (object dumps may hold another). The only
// Deployment kept is MCONamespace/MCODeploymentName. Of a MachineConfig only
// its name and ReleaseImageVersionAnnotation are kept.
func (b *SourcesBuilder) Add(obj any) bool {
	switch o := obj.(type) {
	case *configv1.ClusterVersion:
		if o == nil {
			return false
		}
		if cur := b.src.ClusterVersion; cur == nil || cur.Name != ClusterVersionName && o.Name == ClusterVersionName {
			b.src.ClusterVersion = o
		}
	case *configv1.ClusterOperator:
		return appendTo(&b.src.ClusterOperators, o)
	case *mcfgv1.MachineConfigPool:
		return appendTo(&b.src.MachineConfigPools, o)
	case *mcfgv1.MachineConfig:
		if o == nil {
			return false
		}
		b.AddMachineConfig(o.Name, o.Annotations)
	case *Node:
		return appendTo(&b.src.Nodes, o)
	case *corev1.Node:
		if o == nil {
			return false
		}
		b.src.Nodes = append(b.src.Nodes, NodeOf(o, nil))
	case *appsv1.Deployment:
		if o == nil || o.Namespace != MCONamespace || o.Name != MCODeploymentName {
			return false
		}
		b.src.MCODeployment = o
	case *informersv1alpha1.UpdateInformer:
		return appendTo(&b.src.UpdateInformers, o)
	case *coordinationv1.Lease:
		if o == nil || !IsContributionLease(o) {
			return false
		}
		b.src.ContributionLeases = append(b.src.ContributionLeases, o)
	default:
		return false
	}
	return true
}

// appendTo appends o to *list unless o is nil, and reports whether it did.
func appendTo[T any](list *[]*T, o *T) bool {
	if o == nil {
		return false
	}
	*list = append(*list, o)
	return true
}

// GrowNodes makes room for n more Nodes, for a caller that knows how many it
// is about to add.
func (b *SourcesBuilder) GrowNodes(n int) {
	b.src.Nodes = slices.Grow(b.src.Nodes, n)
}

// AddMachineConfig adds a MachineConfig given by its name and annotations,
// for callers that do not decode the whole object.
func (b *SourcesBuilder) AddMachineConfig(name string, annotations map[string]string) {
	if b.src.MachineConfigVersions == nil {
		b.src.MachineConfigVersions = map[string]string{}
	}
	b.src.MachineConfigVersions[name] = annotations[ReleaseImageVersionAnnotation]
}

// AddAlerts adds Prometheus alerts. Once it has been called, even with none,
// the alerts are known: Sources.Alerts is not nil.
func (b *SourcesBuilder) AddAlerts(alerts ...Alert) {
	if b.src.Alerts == nil {
		b.src.Alerts = make([]Alert, 0, len(alerts))
	}
	b.src.Alerts = append(b.src.Alerts, alerts...)
}

// Build returns the sources added so far and resets the builder.
func (b *SourcesBuilder) Build() *Sources {
	out := b.src
	b.src = Sources{}
	return &out
}
