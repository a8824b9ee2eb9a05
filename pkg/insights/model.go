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
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Cluster is the cluster as the rules of docs/insights.md read it, whatever
// objects it was read from (docs/insights.md#the-cluster-model): a control
// plane and its components, pools and their nodes, and health signals. An
// adapter fills it from one shape of cluster; the standalone adapter
// (standalone.go) fills it from a Sources.
//
// Like Sources, a Cluster and everything it points to are read-only once
// built; an Engine recognises a component, pool or node it saw before by
// its pointer or by its name and resourceVersion, so a changed one must be
// a new value.
type Cluster struct {
	// ControlPlane is the control plane's version and update state; nil
	// when the source that reports it is absent.
	ControlPlane *ControlPlane
	// ControlPlaneMissing, when ControlPlane is nil, is the health insight
	// that says so; nil is the standalone cluster's (no ClusterVersion).
	ControlPlaneMissing *Signal
	// Components are the control plane's components the update rolls out,
	// in any order (a name listed twice counts once).
	Components []*Component
	// HasComponents says whether the source listed any component at all,
	// counted or not: a control plane without any cannot be assessed.
	HasComponents bool
	// Pools are the node pools, in any order.
	Pools []*Pool
	// Nodes are all nodes, in any order; a node belongs to the first pool
	// that selects it (docs/insights.md#pool-assignment).
	Nodes []*Node
	// ConfigVersions maps a node configuration's name (what a Node's current
	// and desired configs name) to the release version it was rendered for.
	ConfigVersions map[string]string
	// Signals are the health signals the adapter reads from its objects that
	// no rule derives from the model (docs/insights.md#adapter-signals).
	Signals []Signal
	// Alerts are the firing or pending alerts; nil when unknown.
	Alerts []Alert
	// UpdateInformers and ContributionLeases are the external informers'
	// contributions and their companion Leases
	// (docs/insights.md#external-informers).
	UpdateInformers    []*informersv1alpha1.UpdateInformer
	ContributionLeases []*coordinationv1.Lease
}

// ControlPlane is the control plane's version history and update state.
type ControlPlane struct {
	// Name is the name of the object that reports it, which insights
	// reference (the ClusterVersion "version").
	Name string
	// Resource is the object insights reference; nil is the ClusterVersion
	// Name (a hosted cluster's is its HostedCluster).
	Resource *v1alpha1.ResourceRef
	// DesiredVersion is the version the components are updating to;
	// DesiredArchitecture its architecture, "" when not reported.
	DesiredVersion      string
	DesiredArchitecture string
	// History lists the updates, newest first; the last is the
	// installation.
	History []Update
	// Progressing says whether an update is in progress; Failing whether
	// it fails to proceed. Each is nil when not reported.
	Progressing, Failing *metav1.Condition
	// Changed is the latest change the source records (creation, condition
	// transitions, history times, managed-fields times).
	Changed time.Time
	// CompletionFromHistory says that the source lists no components by
	// nature (a hosted cluster older than ControlPlaneComponents): without
	// any, the control plane is complete when History's latest update is,
	// rather than unassessable.
	CompletionFromHistory bool
}

// UpdateState is the state of an entry of the update history.
type UpdateState string

// The states of an update.
const (
	// UpdateCompleted: the update was rolled out completely.
	UpdateCompleted UpdateState = "Completed"
	// UpdatePartial: the update has not finished, or was abandoned.
	UpdatePartial UpdateState = "Partial"
)

// Update is one entry of the control plane's update history.
type Update struct {
	Version string
	// Image is the release image; two entries of one version with
	// different images are a migration to multi-arch.
	Image     string
	State     UpdateState
	StartedAt time.Time
	// CompletedAt is nil while the update has not completed.
	CompletedAt *metav1.Time
}

// Component is one component of the control plane that an update rolls out
// (a ClusterOperator of the release payload; a ControlPlaneComponent of a
// hosted cluster). It is done, in the rules' word "updated", when it reports
// the control plane's desired version among Versions and no rollout is
// pending.
type Component struct {
	Name string
	// Resource is the object insights reference; nil is the ClusterOperator
	// Name (a hosted cluster's is its ControlPlaneComponent).
	Resource        *v1alpha1.ResourceRef
	UID             types.UID
	ResourceVersion string
	// Versions are the versions the component reports for itself.
	Versions []string
	// RolloutPending says that the component still rolls out something the
	// version does not show (the machine-config operator's own image during
	// a migration to multi-arch; a hosted component whose rollout has not
	// completed).
	RolloutPending bool
	// RollsOutNodes marks the component that updates the nodes (the
	// machine-config operator): while it is the only one left updating,
	// its own Progressing transition is the control plane's last progress
	// (docs/insights.md#last-observed-progress).
	RollsOutNodes bool
	// Available, Degraded and Progressing are the component's conditions;
	// each is nil when not reported.
	Available, Degraded, Progressing *metav1.Condition
	// Changed is the latest change the source records.
	Changed time.Time
}

// Pool is a pool of nodes that roll out one configuration (a
// MachineConfigPool; a hosted cluster's NodePool).
type Pool struct {
	Name string
	UID  types.UID
	// Resource is the object insights reference; nil is the
	// MachineConfigPool Name, and then the pool named "master" is the
	// control plane's. A pool with a Resource (a hosted cluster's NodePool)
	// is always a worker pool.
	Resource *v1alpha1.ResourceRef
	// NodeSelector selects the pool's nodes; a selector that cannot be
	// parsed selects none and is reported.
	NodeSelector *metav1.LabelSelector
	// Paused says that the pool's nodes are held at their configuration.
	Paused bool
	// TargetConfig is the configuration the pool rolls out.
	TargetConfig string
	// Layered says that the pool rolls out images; TargetImageConfig is
	// then the configuration the newest image is equivalent to.
	Layered           bool
	TargetImageConfig string
	// Changed is the latest change the source records.
	Changed time.Time
}
