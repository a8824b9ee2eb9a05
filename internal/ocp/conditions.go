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

// SetClusterCondition sets a ClusterVersion or ClusterOperator condition.
func SetClusterCondition(conds *[]configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType, status configv1.ConditionStatus, reason, message string, now time.Time) bool {
	for i := range *conds {
		c := &(*conds)[i]
		if c.Type != t {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == message {
			return false
		}
		if c.Status != status {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		c.Status, c.Reason, c.Message = status, reason, message
		return true
	}
	*conds = append(*conds, configv1.ClusterOperatorStatusCondition{
		Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(now),
	})
	return true
}

// FindClusterCondition returns the condition of type t, or nil.
func FindClusterCondition(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// SetNodeCondition sets a Node condition; the heartbeat moves with every change.
func SetNodeCondition(conds *[]corev1.NodeCondition, t corev1.NodeConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) bool {
	for i := range *conds {
		c := &(*conds)[i]
		if c.Type != t {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == message {
			return false
		}
		if c.Status != status {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		c.Status, c.Reason, c.Message = status, reason, message
		c.LastHeartbeatTime = metav1.NewTime(now)
		return true
	}
	*conds = append(*conds, corev1.NodeCondition{
		Type: t, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(now), LastHeartbeatTime: metav1.NewTime(now),
	})
	return true
}

// FindNodeCondition returns the condition of type t, or nil.
func FindNodeCondition(conds []corev1.NodeCondition, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// SetPoolCondition sets a MachineConfigPool condition.
func SetPoolCondition(conds *[]mcfgv1.MachineConfigPoolCondition, t mcfgv1.MachineConfigPoolConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) bool {
	for i := range *conds {
		c := &(*conds)[i]
		if c.Type != t {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == message {
			return false
		}
		if c.Status != status {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		c.Status, c.Reason, c.Message = status, reason, message
		return true
	}
	*conds = append(*conds, mcfgv1.MachineConfigPoolCondition{
		Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(now),
	})
	return true
}

// SetDeploymentCondition sets a Deployment condition; lastUpdateTime moves
// with every change.
func SetDeploymentCondition(conds *[]appsv1.DeploymentCondition, t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) bool {
	for i := range *conds {
		c := &(*conds)[i]
		if c.Type != t {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == message {
			return false
		}
		if c.Status != status {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		c.Status, c.Reason, c.Message = status, reason, message
		c.LastUpdateTime = metav1.NewTime(now)
		return true
	}
	*conds = append(*conds, appsv1.DeploymentCondition{
		Type: t, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(now), LastUpdateTime: metav1.NewTime(now),
	})
	return true
}
