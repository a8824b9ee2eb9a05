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
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/pkg/insights"
)

// Sink receives the simulated objects.
type Sink interface {
	// Write stores one batch of changes. A step writes one batch; Create
	// writes a few (owners before the objects that reference their UIDs).
	// The sink may update the changed objects in place with what it stored
	// (UID, resource version, generation); it must not keep references to
	// them after it returns.
	Write(ctx context.Context, b *Batch) error
}

// RequestCounter is implemented by sinks that talk to an API server.
type RequestCounter interface {
	// Requests returns the number of API requests made so far.
	Requests() int64
}

// Batch is what one Write receives.
type Batch struct {
	// Step numbers the state; the creation is step 0.
	Step int
	// Time is the clock reading of the step.
	Time time.Time
	// Phase is the phase after the step.
	Phase Phase
	// Changes lists the changed objects in dependency order: namespaces,
	// MachineConfigs, Deployments, MachineConfigPools, Nodes,
	// ClusterOperators, then the ClusterVersion (owners that others reference
	// by UID come in an earlier batch).
	Changes []Change
	// State holds every object of the simulated cluster after the step.
	State *State
}

// Change is one object to write.
type Change struct {
	// Object is the simulated object: *corev1.Namespace, *corev1.Node,
	// *appsv1.Deployment, *configv1.ClusterVersion, *configv1.ClusterOperator,
	// *mcfgv1.MachineConfigPool, *mcfgv1.MachineConfig, and with
	// Options.RouterPods *corev1.Pod and *policyv1.PodDisruptionBudget.
	Object runtime.Object
	// Create is set when the object is new.
	Create bool
	// Spec is set when metadata or spec changed (written with Update).
	Spec bool
	// Status is set when status changed (written through the status
	// subresource with UpdateStatus).
	Status bool
	// Delete is set when the object is gone (an evicted pod); the other
	// fields are then unset.
	Delete bool
}

// State is the whole simulated cluster: the objects the insight engine reads.
type State struct {
	// Time is the clock reading the state belongs to.
	Time time.Time
	// Phase is the simulator's phase.
	Phase              Phase
	ClusterVersion     *configv1.ClusterVersion
	ClusterOperators   []*configv1.ClusterOperator
	MachineConfigPools []*mcfgv1.MachineConfigPool
	MachineConfigs     []*mcfgv1.MachineConfig
	Nodes              []*corev1.Node
	MCODeployment      *appsv1.Deployment
	// MachineConfigNodes are written only with Options.MachineConfigNodes;
	// the insight engine does not read them.
	MachineConfigNodes []*mcfgv1.MachineConfigNode
}

// DeepCopy returns a copy of s that shares nothing with it.
func (s *State) DeepCopy() *State {
	if s == nil {
		return nil
	}
	out := &State{Time: s.Time, Phase: s.Phase}
	if s.ClusterVersion != nil {
		out.ClusterVersion = s.ClusterVersion.DeepCopy()
	}
	if s.MCODeployment != nil {
		out.MCODeployment = s.MCODeployment.DeepCopy()
	}
	out.ClusterOperators = make([]*configv1.ClusterOperator, len(s.ClusterOperators))
	for i, o := range s.ClusterOperators {
		out.ClusterOperators[i] = o.DeepCopy()
	}
	out.MachineConfigPools = make([]*mcfgv1.MachineConfigPool, len(s.MachineConfigPools))
	for i, o := range s.MachineConfigPools {
		out.MachineConfigPools[i] = o.DeepCopy()
	}
	out.MachineConfigs = make([]*mcfgv1.MachineConfig, len(s.MachineConfigs))
	for i, o := range s.MachineConfigs {
		out.MachineConfigs[i] = o.DeepCopy()
	}
	out.Nodes = make([]*corev1.Node, len(s.Nodes))
	for i, o := range s.Nodes {
		out.Nodes[i] = o.DeepCopy()
	}
	for _, o := range s.MachineConfigNodes {
		out.MachineConfigNodes = append(out.MachineConfigNodes, o.DeepCopy())
	}
	return out
}

// MachineConfigVersions maps each MachineConfig name to its
// insights.ReleaseImageVersionAnnotation (empty when absent), the only part
// of a MachineConfig the insight engine reads.
func (s *State) MachineConfigVersions() map[string]string {
	var b insights.SourcesBuilder
	for _, mc := range s.MachineConfigs {
		b.Add(mc)
	}
	return b.Build().MachineConfigVersions
}

// Sources returns the state as the insight engine's input. The objects are
// shared, not copied.
func (s *State) Sources() *insights.Sources {
	var b insights.SourcesBuilder
	b.Add(s.ClusterVersion)
	b.Add(s.MCODeployment)
	for _, o := range s.ClusterOperators {
		b.Add(o)
	}
	for _, o := range s.MachineConfigPools {
		b.Add(o)
	}
	for _, o := range s.MachineConfigs {
		b.Add(o)
	}
	for _, o := range s.Nodes {
		b.Add(o)
	}
	return b.Build()
}

// kindRank orders changes within a batch (see Batch.Changes).
func kindRank(obj runtime.Object) int {
	switch obj.(type) {
	case *corev1.Namespace:
		return 0
	case *mcfgv1.MachineConfig:
		return 1
	case *appsv1.Deployment:
		return 2
	case *mcfgv1.MachineConfigPool:
		return 3
	case *corev1.Node:
		return 4
	case *configv1.ClusterOperator:
		return 5
	case *configv1.ClusterVersion:
		return 6
	default:
		return 7
	}
}

// changeSet collects the changes of one step, one entry per object.
type changeSet struct {
	order []*Change
	index map[runtime.Object]*Change
	// mutations counts every mark, so that callers can tell whether a pass
	// changed anything.
	mutations int
}

func (c *changeSet) mark(obj runtime.Object, create, spec, status bool) {
	ch := c.entry(obj)
	ch.Create = ch.Create || create
	ch.Spec = ch.Spec || spec
	ch.Status = ch.Status || status
}

// markDelete records that obj is gone. An object created in the same batch
// is not written at all.
func (c *changeSet) markDelete(obj runtime.Object) {
	ch := c.entry(obj)
	*ch = Change{Object: obj, Delete: !ch.Create}
}

// entry counts a mark and returns obj's change, a new one with nothing to
// write when obj has none yet.
func (c *changeSet) entry(obj runtime.Object) *Change {
	c.mutations++
	if c.index == nil {
		c.index = map[runtime.Object]*Change{}
	}
	if ch, ok := c.index[obj]; ok {
		return ch
	}
	ch := &Change{Object: obj}
	c.index[obj] = ch
	c.order = append(c.order, ch)
	return ch
}

// take returns the changes in dependency order and empties the set.
func (c *changeSet) take() []Change {
	out := make([]Change, 0, len(c.order))
	for rank := 0; rank <= 7; rank++ {
		for _, ch := range c.order {
			if kindRank(ch.Object) == rank && (ch.Create || ch.Spec || ch.Status || ch.Delete) {
				out = append(out, *ch)
			}
		}
	}
	c.order, c.index = nil, nil
	return out
}
