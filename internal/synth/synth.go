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

// Package synth generates synthetic clusters in the middle of an update, for
// the engine's benchmarks, fuzzing and tests. Generation is deterministic
// for a given seed.
package synth

import (
	"fmt"
	"math/rand"
	"strconv"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/pkg/insights"
)

// Versions of the synthetic update.
const (
	From = "4.16.0"
	To   = "4.16.1"
)

// Options shape a synthetic cluster.
type Options struct {
	// Nodes is the number of nodes, control plane included (at least 3).
	Nodes int
	// ExtraPools is the number of custom worker pools besides "worker".
	ExtraPools int
	// Seed makes the mix of node states reproducible.
	Seed int64
	// Now is the instant the cluster is observed at; zero means a fixed
	// instant.
	Now time.Time
}

// DefaultNow is the observation instant when Options.Now is zero.
var DefaultNow = time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)

var operatorNames = []string{
	"authentication", "baremetal", "cloud-controller-manager", "cloud-credential", "cluster-autoscaler",
	"config-operator", "console", "control-plane-machine-set", "csi-snapshot-controller", "dns", "etcd",
	"image-registry", "ingress", "insights", "kube-apiserver", "kube-controller-manager", "kube-scheduler",
	"kube-storage-version-migrator", "machine-api", "machine-approver", "machine-config", "marketplace",
	"monitoring", "network", "node-tuning", "olm", "openshift-apiserver", "openshift-controller-manager",
	"openshift-samples", "operator-lifecycle-manager", "operator-lifecycle-manager-catalog",
	"operator-lifecycle-manager-packageserver", "service-ca", "storage",
}

// Cluster returns a cluster updating from From to To: the operators are
// updated except machine-config, the control plane's nodes are rolling and
// the worker nodes are in a mix of states (updated, pending, updating,
// draining, rebooting, a few unavailable or degraded).
func Cluster(o Options) (*insights.Sources, time.Time) {
	now := o.Now
	if now.IsZero() {
		now = DefaultNow
	}
	if o.Nodes < 3 {
		o.Nodes = 3
	}
	rng := rand.New(rand.NewSource(o.Seed))
	started := now.Add(-70 * time.Minute)
	var b insights.SourcesBuilder
	b.Add(clusterVersion(now, started))
	b.AddAlerts()
	for i, name := range operatorNames {
		b.Add(operator(name, i, now, started))
	}
	machineConfig := func(name, version string) {
		b.AddMachineConfig(name, map[string]string{insights.ReleaseImageVersionAnnotation: version})
	}
	pools := []string{"master", "worker"}
	for i := 0; i < o.ExtraPools; i++ {
		pools = append(pools, fmt.Sprintf("pool-%d", i+1))
	}
	for _, p := range pools {
		b.Add(Pool(p, now))
		machineConfig("rendered-"+p+"-old", From)
		machineConfig("rendered-"+p+"-new", To)
		// Older rendered configs accumulate in real clusters.
		for k := 0; k < 5; k++ {
			machineConfig(fmt.Sprintf("rendered-%s-%02d", p, k), "4.15."+strconv.Itoa(k))
		}
	}
	for i := 0; i < o.Nodes; i++ {
		pool := "master"
		if i >= 3 {
			pool = pools[1+(i-3)%(len(pools)-1)]
		}
		b.Add(Node(i, pool, state(i, rng), now))
	}
	return b.Build(), now
}

// State is a node's place in the update.
type State int

// Node states.
const (
	Pending State = iota
	Updated
	Working
	Draining
	Rebooting
	NotReady
	Degraded
)

func state(i int, rng *rand.Rand) State {
	if i < 3 {
		return []State{Updated, Working, Pending}[i]
	}
	switch r := rng.Intn(100); {
	case r < 40:
		return Updated
	case r < 45:
		return Working
	case r < 47:
		return Draining
	case r < 49:
		return Rebooting
	case r < 50:
		return NotReady
	case r < 51:
		return Degraded
	default:
		return Pending
	}
}

// NodeName is the name of node i.
func NodeName(i int) string {
	return fmt.Sprintf("ip-10-%d-%d-%d.us-east-2.compute.internal", i/65536, i/256%256, i%256)
}

// Node builds node i of pool in the given state.
func Node(i int, pool string, s State, now time.Time) *corev1.Node {
	name := NodeName(i)
	oldCfg, newCfg := "rendered-"+pool+"-old", "rendered-"+pool+"-new"
	ann := map[string]string{
		insights.CurrentConfigAnnotation:                                              oldCfg,
		insights.DesiredConfigAnnotation:                                              oldCfg,
		insights.MCDStateAnnotation:                                                   insights.MCDStateDone,
		insights.MCDReasonAnnotation:                                                  "",
		insights.DesiredDrainAnnotation:                                               "uncordon-" + oldCfg,
		insights.LastAppliedDrainAnnotation:                                           "uncordon-" + oldCfg,
		"machineconfiguration.openshift.io/controlPlaneTopology":                      "HighlyAvailable",
		"csi.volume.kubernetes.io/nodeid":                                             `{"ebs.csi.aws.com":"i-0123456789abcdef0"}`,
		"k8s.ovn.org/node-primary-ifaddr":                                             `{"ipv4":"10.0.20.162/19"}`,
		"volumes.kubernetes.io/controller-managed-attach-detach":                      "true",
		"cloud.network.openshift.io/egress-ipconfig":                                  `[{"interface":"eni-0","ifaddr":{"ipv4":"10.0.0.0/19"}}]`,
		"machine.openshift.io/machine":                                                "openshift-machine-api/" + name,
		"machineconfiguration.openshift.io/lastSyncedControllerConfigResourceVersion": "12345",
	}
	ready := corev1.ConditionTrue
	unschedulable := false
	switch s {
	case Updated:
		ann[insights.CurrentConfigAnnotation] = newCfg
		ann[insights.DesiredConfigAnnotation] = newCfg
		ann[insights.DesiredDrainAnnotation] = "uncordon-" + newCfg
		ann[insights.LastAppliedDrainAnnotation] = "uncordon-" + newCfg
	case Working:
		ann[insights.DesiredConfigAnnotation] = newCfg
		ann[insights.MCDStateAnnotation] = insights.MCDStateWorking
		ann[insights.DesiredDrainAnnotation] = "drain-" + newCfg
		ann[insights.LastAppliedDrainAnnotation] = "drain-" + newCfg
		unschedulable = true
	case Draining:
		ann[insights.DesiredConfigAnnotation] = newCfg
		ann[insights.MCDStateAnnotation] = insights.MCDStateWorking
		ann[insights.DesiredDrainAnnotation] = "drain-" + newCfg
		unschedulable = true
	case Rebooting:
		ann[insights.DesiredConfigAnnotation] = newCfg
		ann[insights.MCDStateAnnotation] = insights.MCDStateRebooting
		ann[insights.DesiredDrainAnnotation] = "drain-" + newCfg
		ann[insights.LastAppliedDrainAnnotation] = "drain-" + newCfg
		ready = corev1.ConditionFalse
		unschedulable = true
	case NotReady:
		ready = corev1.ConditionUnknown
	case Degraded:
		ann[insights.DesiredConfigAnnotation] = newCfg
		ann[insights.MCDStateAnnotation] = insights.MCDStateDegraded
		ann[insights.MCDReasonAnnotation] = "failed to drain node: " + name + ": pod openshift-ingress/router cannot be evicted"
	}
	labels := map[string]string{
		"beta.kubernetes.io/arch":                  "amd64",
		"beta.kubernetes.io/instance-type":         "m6a.xlarge",
		"beta.kubernetes.io/os":                    "linux",
		"failure-domain.beta.kubernetes.io/region": "us-east-2",
		"failure-domain.beta.kubernetes.io/zone":   "us-east-2a",
		"kubernetes.io/arch":                       "amd64",
		"kubernetes.io/hostname":                   name,
		"kubernetes.io/os":                         "linux",
		"node-role.kubernetes.io/" + pool:          "",
		"node.kubernetes.io/instance-type":         "m6a.xlarge",
		"node.openshift.io/os_id":                  "rhcos",
		"topology.ebs.csi.aws.com/zone":            "us-east-2a",
		"topology.kubernetes.io/region":            "us-east-2",
		"topology.kubernetes.io/zone":              "us-east-2a",
	}
	if pool == "master" {
		labels["node-role.kubernetes.io/control-plane"] = ""
	}
	created := now.Add(-30 * 24 * time.Hour)
	since := metav1.NewTime(now.Add(-time.Duration(20+i%40) * time.Minute))
	conds := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available", LastTransitionTime: metav1.NewTime(created), LastHeartbeatTime: metav1.NewTime(now)},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure", LastTransitionTime: metav1.NewTime(created), LastHeartbeatTime: metav1.NewTime(now)},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available", LastTransitionTime: metav1.NewTime(created), LastHeartbeatTime: metav1.NewTime(now)},
		{Type: corev1.NodeReady, Status: ready, Reason: "KubeletReady", Message: "kubelet is posting ready status", LastTransitionTime: since, LastHeartbeatTime: metav1.NewTime(now)},
	}
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			UID:               types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)),
			ResourceVersion:   strconv.Itoa(100000 + i),
			CreationTimestamp: metav1.NewTime(created),
			Labels:            labels,
			Annotations:       ann,
		},
		Spec: corev1.NodeSpec{Unschedulable: unschedulable, ProviderID: "aws:///us-east-2a/i-0123456789abcdef0"},
		Status: corev1.NodeStatus{
			Conditions: conds,
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.29.5", OSImage: "Red Hat Enterprise Linux CoreOS"},
		},
	}
}

// Changed returns a copy of n with a new resourceVersion whose daemon moved
// one step (pending -> working -> done).
func Changed(n *insights.Node, rv int) *insights.Node {
	c := n.DeepCopy()
	c.ResourceVersion = strconv.Itoa(rv)
	ann := c.Annotations
	switch ann[insights.MCDStateAnnotation] {
	case insights.MCDStateWorking:
		ann[insights.MCDStateAnnotation] = insights.MCDStateDone
		ann[insights.CurrentConfigAnnotation] = ann[insights.DesiredConfigAnnotation]
	default:
		ann[insights.MCDStateAnnotation] = insights.MCDStateWorking
	}
	return c
}

// Pool builds a MachineConfigPool whose nodes carry node-role.kubernetes.io/<name>.
func Pool(name string, now time.Time) *mcfgv1.MachineConfigPool {
	return &mcfgv1.MachineConfigPool{
		TypeMeta: metav1.TypeMeta{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfigPool"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: types.UID("pool-" + name), ResourceVersion: "7",
			CreationTimestamp: metav1.NewTime(now.Add(-30 * 24 * time.Hour)),
		},
		Spec: mcfgv1.MachineConfigPoolSpec{
			NodeSelector:  &metav1.LabelSelector{MatchLabels: map[string]string{"node-role.kubernetes.io/" + name: ""}},
			Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: "rendered-" + name + "-new"}},
		},
	}
}

func clusterVersion(now, started time.Time) *configv1.ClusterVersion {
	completed := metav1.NewTime(started.Add(-20 * 24 * time.Hour))
	return &configv1.ClusterVersion{
		TypeMeta:   metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "ClusterVersion"},
		ObjectMeta: metav1.ObjectMeta{Name: insights.ClusterVersionName, UID: "cv-uid", ResourceVersion: "5", CreationTimestamp: metav1.NewTime(now.Add(-60 * 24 * time.Hour))},
		Status: configv1.ClusterVersionStatus{
			Desired: configv1.Release{Version: To, Image: "quay.io/openshift-release-dev/ocp-release@sha256:new"},
			History: []configv1.UpdateHistory{
				{State: configv1.PartialUpdate, StartedTime: metav1.NewTime(started), Version: To, Image: "quay.io/openshift-release-dev/ocp-release@sha256:new"},
				{State: configv1.CompletedUpdate, StartedTime: metav1.NewTime(completed.Add(-75 * time.Minute)), CompletionTime: &completed, Version: From, Image: "quay.io/openshift-release-dev/ocp-release@sha256:old"},
				{State: configv1.CompletedUpdate, StartedTime: metav1.NewTime(now.Add(-60 * 24 * time.Hour)), CompletionTime: ptrTime(now.Add(-60*24*time.Hour + 40*time.Minute)), Version: "4.15.3", Image: "quay.io/openshift-release-dev/ocp-release@sha256:install"},
			},
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-50 * 24 * time.Hour)), Message: "Done applying " + From},
				{Type: "Failing", Status: configv1.ConditionFalse, LastTransitionTime: metav1.NewTime(now.Add(-2 * time.Hour))},
				{Type: configv1.OperatorProgressing, Status: configv1.ConditionTrue, Reason: "ClusterOperatorUpdating", LastTransitionTime: metav1.NewTime(started), Message: "Working towards " + To + ": 800 of 900 done (88% complete), waiting on machine-config"},
			},
		},
	}
}

func ptrTime(t time.Time) *metav1.Time {
	m := metav1.NewTime(t)
	return &m
}

func operator(name string, i int, now, started time.Time) *configv1.ClusterOperator {
	version := To
	progressing := configv1.ConditionFalse
	progressingAt := started.Add(time.Duration(i) * time.Minute)
	if name == insights.MCOClusterOperatorName {
		version = From
		progressing = configv1.ConditionTrue
		progressingAt = now.Add(-12 * time.Minute)
	}
	degraded := configv1.ConditionFalse
	if name == "monitoring" {
		degraded = configv1.ConditionTrue
	}
	return &configv1.ClusterOperator{
		TypeMeta: metav1.TypeMeta{APIVersion: "config.openshift.io/v1", Kind: "ClusterOperator"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: types.UID("co-" + name), ResourceVersion: strconv.Itoa(1000 + i),
			Annotations:       map[string]string{"include.release.openshift.io/self-managed-high-availability": "true"},
			CreationTimestamp: metav1.NewTime(now.Add(-60 * 24 * time.Hour)),
		},
		Status: configv1.ClusterOperatorStatus{
			Versions: []configv1.OperandVersion{{Name: insights.OperatorVersionName, Version: version}},
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: metav1.NewTime(now.Add(-40 * 24 * time.Hour))},
				{Type: configv1.OperatorDegraded, Status: degraded, Reason: "AsExpected", Message: "All is well", LastTransitionTime: metav1.NewTime(now.Add(-7 * time.Minute))},
				{Type: configv1.OperatorProgressing, Status: progressing, Reason: "AsExpected", Message: "Working towards " + To, LastTransitionTime: metav1.NewTime(progressingAt)},
			},
		},
	}
}
