// Package insights turns a snapshot of cluster objects and a clock reading into
// the status of an UpdateStatus, judging the cluster as `oc adm upgrade status`
// does. It does no I/O and never reads the wall clock.
package insights

import (
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Sources is a snapshot of every object the engine reads. Slices may be in any
// order; the engine sorts what it needs. Objects are never modified.
type Sources struct {
	// ClusterVersion is the ClusterVersion named "version"; nil when absent.
	ClusterVersion *configv1.ClusterVersion
	// ClusterOperators are all ClusterOperators.
	ClusterOperators []*configv1.ClusterOperator
	// MachineConfigPools are all MachineConfigPools.
	MachineConfigPools []*mcfgv1.MachineConfigPool
	// MachineConfigVersions maps a MachineConfig name to the value of its
	// machineconfiguration.openshift.io/release-image-version annotation
	// (only that annotation of a MachineConfig matters).
	MachineConfigVersions map[string]string
	// Nodes are all Nodes.
	Nodes []*corev1.Node
	// MCODeployment is openshift-machine-config-operator/machine-config-operator;
	// nil when absent.
	MCODeployment *appsv1.Deployment
	// Alerts are firing or pending Prometheus alerts; nil when unknown.
	Alerts []Alert
}

// Alert is one Prometheus alert, as listed by /api/v1/alerts.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
	ActiveAt    time.Time         `json:"activeAt"`
}

// Result is the outcome of one evaluation.
type Result struct {
	// Status is the computed status, without the outer conditions (those
	// describe the server, not the cluster, and are the server's to add).
	Status v1alpha1.UpdateStatusStatus
	// NextChange is the earliest moment after now at which the result would
	// change by the passing of time alone (a threshold crossing, an estimate
	// rolling over); zero when nothing time-dependent is pending.
	NextChange time.Time
}

// Engine computes results and remembers per-object work between calls, so that
// a change to one object does not redo the work for all the others. An Engine
// is not safe for concurrent use.
type Engine struct{}

// NewEngine returns an Engine with empty memory.
func NewEngine() *Engine { return &Engine{} }

// Compute evaluates src at the instant now.
func (e *Engine) Compute(src *Sources, now time.Time) Result {
	return Result{}
}

// Compute evaluates src at the instant now with a fresh Engine.
func Compute(src *Sources, now time.Time) Result {
	return NewEngine().Compute(src, now)
}
