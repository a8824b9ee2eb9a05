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
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The condition setters below follow the convention every OpenShift operator
// uses: lastTransitionTime moves only when the status changes. They append a
// missing condition and report whether anything changed.

// conditionFields points at the fields every kind of condition has.
type conditionFields[T, S comparable] struct {
	typ             *T
	status          *S
	reason, message *string
	transition      *metav1.Time
	// touched, when not nil, moves with every change (a Node's heartbeat, a
	// Deployment's lastUpdateTime).
	touched *metav1.Time
}

// setCondition sets the condition of type t among conds, whose fields fields
// finds, and returns it when anything changed.
func setCondition[C any, T, S comparable](conds *[]C, fields func(*C) conditionFields[T, S], t T, status S, reason, message string, now time.Time) *C {
	for i := range *conds {
		c := &(*conds)[i]
		f := fields(c)
		if *f.typ != t {
			continue
		}
		if *f.status == status && *f.reason == reason && *f.message == message {
			return nil
		}
		if *f.status != status {
			*f.transition = metav1.NewTime(now)
		}
		*f.status, *f.reason, *f.message = status, reason, message
		f.touch(now)
		return c
	}
	*conds = append(*conds, *new(C))
	c := &(*conds)[len(*conds)-1]
	f := fields(c)
	*f.typ, *f.status, *f.reason, *f.message, *f.transition = t, status, reason, message, metav1.NewTime(now)
	f.touch(now)
	return c
}

// touch moves the touched time, if the kind has one, to now.
func (f conditionFields[T, S]) touch(now time.Time) {
	if f.touched != nil {
		*f.touched = metav1.NewTime(now)
	}
}

// findCondition returns the condition of type t among conds, or nil.
func findCondition[C any, T, S comparable](conds []C, fields func(*C) conditionFields[T, S], t T) *C {
	for i := range conds {
		if *fields(&conds[i]).typ == t {
			return &conds[i]
		}
	}
	return nil
}

func clusterFields(c *configv1.ClusterOperatorStatusCondition) conditionFields[configv1.ClusterStatusConditionType, configv1.ConditionStatus] {
	return conditionFields[configv1.ClusterStatusConditionType, configv1.ConditionStatus]{&c.Type, &c.Status, &c.Reason, &c.Message, &c.LastTransitionTime, nil}
}

func nodeFields(c *corev1.NodeCondition) conditionFields[corev1.NodeConditionType, corev1.ConditionStatus] {
	return conditionFields[corev1.NodeConditionType, corev1.ConditionStatus]{&c.Type, &c.Status, &c.Reason, &c.Message, &c.LastTransitionTime, &c.LastHeartbeatTime}
}

func poolFields(c *mcfgv1.MachineConfigPoolCondition) conditionFields[mcfgv1.MachineConfigPoolConditionType, corev1.ConditionStatus] {
	return conditionFields[mcfgv1.MachineConfigPoolConditionType, corev1.ConditionStatus]{&c.Type, &c.Status, &c.Reason, &c.Message, &c.LastTransitionTime, nil}
}

func deploymentFields(c *appsv1.DeploymentCondition) conditionFields[appsv1.DeploymentConditionType, corev1.ConditionStatus] {
	return conditionFields[appsv1.DeploymentConditionType, corev1.ConditionStatus]{&c.Type, &c.Status, &c.Reason, &c.Message, &c.LastTransitionTime, &c.LastUpdateTime}
}

// SetClusterCondition sets a ClusterVersion or ClusterOperator condition.
func SetClusterCondition(conds *[]configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType, status configv1.ConditionStatus, reason, message string, now time.Time) bool {
	return setCondition(conds, clusterFields, t, status, reason, message, now) != nil
}

// FindClusterCondition returns the condition of type t, or nil.
func FindClusterCondition(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	return findCondition(conds, clusterFields, t)
}

// SetNodeCondition sets a Node condition; the heartbeat moves with every change.
func SetNodeCondition(conds *[]corev1.NodeCondition, t corev1.NodeConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) bool {
	return setCondition(conds, nodeFields, t, status, reason, message, now) != nil
}

// FindNodeCondition returns the condition of type t, or nil.
func FindNodeCondition(conds []corev1.NodeCondition, t corev1.NodeConditionType) *corev1.NodeCondition {
	return findCondition(conds, nodeFields, t)
}

// SetPoolCondition sets a MachineConfigPool condition.
func SetPoolCondition(conds *[]mcfgv1.MachineConfigPoolCondition, t mcfgv1.MachineConfigPoolConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) bool {
	return setCondition(conds, poolFields, t, status, reason, message, now) != nil
}

// FindPoolCondition returns the condition of type t, or nil.
func FindPoolCondition(conds []mcfgv1.MachineConfigPoolCondition, t mcfgv1.MachineConfigPoolConditionType) *mcfgv1.MachineConfigPoolCondition {
	return findCondition(conds, poolFields, t)
}

// SetDeploymentCondition sets a Deployment condition; lastUpdateTime moves
// with every change.
func SetDeploymentCondition(conds *[]appsv1.DeploymentCondition, t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) bool {
	return setCondition(conds, deploymentFields, t, status, reason, message, now) != nil
}
