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
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/update-status/apiserver/pkg/insights"
)

// The steps of a node's update, as the machine-config controller, the drain
// controller, the daemon and the kubelet write them. Each changes the node in
// place.

// RequestConfig hands the node its new desired configuration (node controller).
func RequestConfig(n *corev1.Node, config string) {
	n.Annotations[insights.DesiredConfigAnnotation] = config
}

// StartDrain: the daemon notices the new desired config and asks for a drain;
// the drain controller cordons the node.
func StartDrain(n *corev1.Node) {
	a := n.Annotations
	a[insights.MCDStateAnnotation] = insights.MCDStateWorking
	a[insights.MCDReasonAnnotation] = ""
	a[insights.DesiredDrainAnnotation] = drainPrefix + a[insights.DesiredConfigAnnotation]
	n.Spec.Unschedulable = true
}

// DegradeDrain: the drain did not finish within the timeout; the daemon
// reports the node Degraded.
func DegradeDrain(n *corev1.Node) {
	n.Annotations[insights.MCDStateAnnotation] = insights.MCDStateDegraded
	n.Annotations[insights.MCDReasonAnnotation] = fmt.Sprintf("failed to drain node: %s after 1 hour. Please see machine-config-controller logs for more information", n.Name)
}

// FinishDrain records a completed drain; the daemon goes on to apply the
// configuration.
func FinishDrain(n *corev1.Node) {
	a := n.Annotations
	a[insights.LastAppliedDrainAnnotation] = a[insights.DesiredDrainAnnotation]
	a[insights.MCDStateAnnotation] = insights.MCDStateWorking
	a[insights.MCDReasonAnnotation] = ""
}

// StartReboot: the daemon wrote the configuration and reboots the node.
func StartReboot(n *corev1.Node) {
	n.Annotations[insights.MCDStateAnnotation] = insights.MCDStateRebooting
}

// FinishConfig: after the reboot the daemon reports the desired configuration
// current and asks to uncordon.
func FinishConfig(n *corev1.Node) {
	a := n.Annotations
	target := a[insights.DesiredConfigAnnotation]
	a[insights.CurrentConfigAnnotation] = target
	a[insights.MCDStateAnnotation] = insights.MCDStateDone
	a[insights.MCDReasonAnnotation] = ""
	a[insights.DesiredDrainAnnotation] = uncordonPrefix + target
}

// Uncordon: the drain controller makes the node schedulable again.
func Uncordon(n *corev1.Node) {
	n.Spec.Unschedulable = false
	n.Annotations[insights.LastAppliedDrainAnnotation] = uncordonPrefix + n.Annotations[insights.DesiredConfigAnnotation]
}

// SetKubeletLost marks every kubelet condition Unknown, as the node lifecycle
// controller does when a kubelet stops posting status.
func SetKubeletLost(node *corev1.Node, now time.Time) {
	const msg = "Kubelet stopped posting node status."
	for _, t := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeReady} {
		SetNodeCondition(&node.Status.Conditions, t, corev1.ConditionUnknown, "NodeStatusUnknown", msg, now)
	}
}

// SetKubeletBack writes what a kubelet posts after boot: healthy pressure
// conditions and Ready (False until the network plugin is up).
func SetKubeletBack(node *corev1.Node, now time.Time, ready bool) {
	setKubeletHealthy(node, now)
	if ready {
		SetNodeCondition(&node.Status.Conditions, corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", now)
		return
	}
	SetNodeCondition(&node.Status.Conditions, corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady",
		"container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: no CNI configuration file in /etc/kubernetes/cni/net.d/. Has your network provider started?", now)
}

func setKubeletHealthy(node *corev1.Node, now time.Time) {
	SetNodeCondition(&node.Status.Conditions, corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", now)
	SetNodeCondition(&node.Status.Conditions, corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", now)
	SetNodeCondition(&node.Status.Conditions, corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available", now)
}

// NodeState is a node's place in an update, in the order a node goes
// through them (Degraded and NotReady are off the path).
type NodeState int

// Node states.
const (
	// Pending: not yet handed the new configuration.
	Pending NodeState = iota
	// Draining: cordoned, its pods being evicted.
	Draining
	// Applying: drained, the daemon writes the configuration.
	Applying
	// Rebooting: the daemon rebooted the node; the kubelet is gone.
	Rebooting
	// Updated: back, on the new configuration and schedulable.
	Updated
	// Degraded: the drain is blocked past its timeout.
	Degraded
	// NotReady: the kubelet stopped posting status; the configuration is untouched.
	NotReady
)

// SetNodeState moves a node settled on its old configuration to state s of
// the update to config (of release version), taking every step on the way
// at now.
func SetNodeState(n *corev1.Node, s NodeState, config, version string, now time.Time) {
	if s == NotReady {
		SetKubeletLost(n, now)
		return
	}
	if s == Pending {
		return
	}
	RequestConfig(n, config)
	StartDrain(n)
	switch s {
	case Degraded:
		DegradeDrain(n)
		return
	case Draining:
		return
	}
	FinishDrain(n)
	if s == Applying {
		return
	}
	StartReboot(n)
	SetKubeletLost(n, now)
	if s == Rebooting {
		return
	}
	SetNodeInfo(n, version, n.Status.NodeInfo.BootID+"-1")
	SetKubeletBack(n, now, true)
	FinishConfig(n)
	Uncordon(n)
}
