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
	"fmt"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/insights"
)

// MachineConfigNodeCRDFile is the manifest of the MachineConfigNode CRD
// (Default feature set), relative to the openshift/api module root; it is
// applied only where MachineConfigNodes are simulated.
const MachineConfigNodeCRDFile = "machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfignodes-Default.crd.yaml"

// MCNConditionTypes are the condition types the machine-config operator
// creates on every MachineConfigNode, in its order.
var MCNConditionTypes = []mcfgv1.StateProgress{
	mcfgv1.MachineConfigNodeUpdatePrepared, mcfgv1.MachineConfigNodeUpdateExecuted,
	mcfgv1.MachineConfigNodeUpdatePostActionComplete, mcfgv1.MachineConfigNodeUpdateComplete,
	mcfgv1.MachineConfigNodeResumed, mcfgv1.MachineConfigNodeUpdateDrained,
	mcfgv1.MachineConfigNodeUpdateFilesAndOS, mcfgv1.MachineConfigNodeUpdateCordoned,
	mcfgv1.MachineConfigNodeUpdateRebooted, mcfgv1.MachineConfigNodeUpdated,
	mcfgv1.MachineConfigNodeUpdateUncordoned, mcfgv1.MachineConfigNodeNodeDegraded,
}

// MachineConfigNode is the node's MachineConfigNode as the operator creates
// it for a node that runs config: every condition False (NotYetOccurred).
func MachineConfigNode(node *corev1.Node, pool string, uid types.UID, now time.Time) *mcfgv1.MachineConfigNode {
	config := node.Annotations[insights.CurrentConfigAnnotation]
	m := &mcfgv1.MachineConfigNode{
		TypeMeta:   metav1.TypeMeta{APIVersion: mcfgv1.GroupVersion.String(), Kind: "MachineConfigNode"},
		ObjectMeta: metav1.ObjectMeta{Name: node.Name, UID: uid, CreationTimestamp: metav1.NewTime(now)},
		Spec: mcfgv1.MachineConfigNodeSpec{
			Node:          mcfgv1.MCOObjectReference{Name: node.Name},
			Pool:          mcfgv1.MCOObjectReference{Name: pool},
			ConfigVersion: mcfgv1.MachineConfigNodeSpecMachineConfigVersion{Desired: config},
		},
		Status: mcfgv1.MachineConfigNodeStatus{
			ObservedGeneration: 1,
			ConfigVersion:      &mcfgv1.MachineConfigNodeStatusMachineConfigVersion{Current: config, Desired: config},
		},
	}
	for _, t := range MCNConditionTypes {
		m.Status.Conditions = append(m.Status.Conditions, metav1.Condition{Type: string(t), Status: metav1.ConditionFalse,
			Reason: "NotYetOccurred", Message: fmt.Sprintf("This node has not yet entered the %s phase", t), LastTransitionTime: metav1.NewTime(now)})
	}
	return m
}

// setMCN writes one condition as the operator does: status, reason and
// message, and the transition time on every write.
func setMCN(m *mcfgv1.MachineConfigNode, t mcfgv1.StateProgress, status metav1.ConditionStatus, reason, msg string, now time.Time) {
	c := metav1.Condition{Type: string(t), Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(now)}
	for i := range m.Status.Conditions {
		if m.Status.Conditions[i].Type == c.Type {
			m.Status.Conditions[i] = c
			return
		}
	}
	m.Status.Conditions = append(m.Status.Conditions, c)
}

// The steps of a node's update as the MachineConfigNode shows them, each
// after the matching step of node.go (their reasons and messages are the
// operator's).

// MCNRequestConfig: the node controller hands the node its new desired
// configuration; the daemon finds it compatible.
func MCNRequestConfig(m *mcfgv1.MachineConfigNode, config string, now time.Time) {
	m.Spec.ConfigVersion.Desired = config
	m.Status.ConfigVersion.Desired = config
	setMCN(m, mcfgv1.MachineConfigNodeUpdatePrepared, metav1.ConditionTrue, "UpdatePrepared", "Update Compatible. Post Cfg Actions: [] Drain Required: true", now)
}

// MCNStartDrain: the drain controller cordons the node and starts draining.
func MCNStartDrain(m *mcfgv1.MachineConfigNode, node *corev1.Node, now time.Time) {
	setMCN(m, mcfgv1.MachineConfigNodeUpdateCordoned, metav1.ConditionTrue, "UpdateExecutedCordoned",
		fmt.Sprintf("Cordoned node. The node is reporting Unschedulable = %t", node.Spec.Unschedulable), now)
	setMCN(m, mcfgv1.MachineConfigNodeUpdateExecuted, metav1.ConditionUnknown, "Drained", "Draining Node as part of update executed phase", now)
	setMCN(m, mcfgv1.MachineConfigNodeUpdateDrained, metav1.ConditionUnknown, "UpdateExecutedDrained",
		fmt.Sprintf("Draining node. The drain will not be complete until desired drainer %s matches current drainer %s",
			node.Annotations[insights.DesiredDrainAnnotation], node.Annotations[insights.LastAppliedDrainAnnotation]), now)
}

// MCNDrainFailed: a drain attempt failed with the drainer's error.
func MCNDrainFailed(m *mcfgv1.MachineConfigNode, node *corev1.Node, drainErr string, now time.Time) {
	setMCN(m, mcfgv1.MachineConfigNodeUpdateExecuted, metav1.ConditionUnknown, "Drained", "Node Drain has not succeeded", now)
	setMCN(m, mcfgv1.MachineConfigNodeUpdateDrained, metav1.ConditionUnknown, "UpdateExecutedDrained",
		fmt.Sprintf("Error: Node Drain has not succeeded. Error is: %s The drain will not be complete until desired drainer %s matches current drainer %s",
			drainErr, node.Annotations[insights.DesiredDrainAnnotation], node.Annotations[insights.LastAppliedDrainAnnotation]), now)
}

// EvictionTimeoutError is the drainer's error when the eviction of pods
// ("namespace/name") was refused until its timeout.
func EvictionTimeoutError(pods []string, timeout time.Duration) string {
	errs := make([]string, 0, len(pods))
	for _, p := range pods {
		ns, name, _ := strings.Cut(p, "/")
		errs = append(errs, fmt.Sprintf("error when evicting pods/%q -n %q: global timeout reached: %v", name, ns, timeout))
	}
	return "[" + strings.Join(errs, ", ") + "]"
}

// MCNDegraded: the daemon reports the node Degraded with reason.
func MCNDegraded(m *mcfgv1.MachineConfigNode, reason string, now time.Time) {
	setMCN(m, mcfgv1.MachineConfigNodeNodeDegraded, metav1.ConditionTrue, "NodeDegraded", reason, now)
}

// MCNFinishDrain: the drain completed.
func MCNFinishDrain(m *mcfgv1.MachineConfigNode, node *corev1.Node, now time.Time) {
	setMCN(m, mcfgv1.MachineConfigNodeUpdateExecuted, metav1.ConditionUnknown, "Drained", "Drained Node as part of update executed phase", now)
	setMCN(m, mcfgv1.MachineConfigNodeUpdateDrained, metav1.ConditionTrue, "UpdateExecutedDrained",
		"Drained node. The drain is complete as the desired drainer matches current drainer: "+node.Annotations[insights.DesiredDrainAnnotation], now)
	setMCN(m, mcfgv1.MachineConfigNodeNodeDegraded, metav1.ConditionFalse, "NodeDegraded", "The node is not degraded", now)
}

// MCNStartReboot: the daemon wrote the files and OS and reboots.
func MCNStartReboot(m *mcfgv1.MachineConfigNode, now time.Time) {
	setMCN(m, mcfgv1.MachineConfigNodeUpdateFilesAndOS, metav1.ConditionTrue, "UpdateExecutedAppliedFilesAndOS", "Applied files and new OS config to node. OS did not need an update. SSH Keys did not need an update", now)
	setMCN(m, mcfgv1.MachineConfigNodeUpdateExecuted, metav1.ConditionTrue, "UpdateExecuted", "Updated the Files and OS on disk as a part of the in progress phase", now)
	setMCN(m, mcfgv1.MachineConfigNodeUpdatePostActionComplete, metav1.ConditionUnknown, "RebootedNode", "Upgrade requires a reboot. Currently doing this as the post update action.", now)
	setMCN(m, mcfgv1.MachineConfigNodeUpdateRebooted, metav1.ConditionUnknown, "UpdatePostActionCompleteRebootedNode", "Upgrade requires a reboot. Currently doing this as the post update action.", now)
}

// MCNFinishConfig: after the reboot the daemon reports the configuration
// current.
func MCNFinishConfig(m *mcfgv1.MachineConfigNode, config string, now time.Time) {
	m.Status.ConfigVersion.Current = config
	setMCN(m, mcfgv1.MachineConfigNodeUpdateRebooted, metav1.ConditionTrue, "UpdatePostActionCompleteRebootedNode", "Node has rebooted", now)
	setMCN(m, mcfgv1.MachineConfigNodeUpdatePostActionComplete, metav1.ConditionTrue, "UpdatePostActionComplete", "Completed the post update action", now)
	setMCN(m, mcfgv1.MachineConfigNodeResumed, metav1.ConditionTrue, "Resumed", "In desired config "+config+". Resumed normal operations.", now)
}

// MCNUncordon: the node is uncordoned and the update is complete; Updated
// True resets every other condition to False, its message prefixed with
// the configuration, as the operator does.
func MCNUncordon(m *mcfgv1.MachineConfigNode, config string, now time.Time) {
	setMCN(m, mcfgv1.MachineConfigNodeUpdateUncordoned, metav1.ConditionTrue, "UpdateCompleteUncordoned", "UnCordoned node. The node is reporting Unschedulable = false", now)
	for i := range m.Status.Conditions {
		c := &m.Status.Conditions[i]
		if c.Status != metav1.ConditionFalse {
			c.Status = metav1.ConditionFalse
			c.LastTransitionTime = metav1.NewTime(now)
			c.Message = fmt.Sprintf("Action during update to %s: %s", config, c.Message)
		}
	}
	setMCN(m, mcfgv1.MachineConfigNodeUpdated, metav1.ConditionTrue, "Updated", fmt.Sprintf("Node %s Updated", m.Name), now)
}
