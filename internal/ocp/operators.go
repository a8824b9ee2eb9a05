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

import "github.com/update-status/apiserver/pkg/insights"

// Operator describes one ClusterOperator of the payload.
type Operator struct {
	// Name is the ClusterOperator's name.
	Name string
	// Level orders the update: the cluster-version operator updates the
	// operators of one level together and moves to the next level when all of
	// them report the new version (runlevels, roughly as in a real payload).
	Level int
	// Weight scales the update duration (static-pod operators roll three
	// control-plane nodes and take longer).
	Weight float64
	// Capability is the optional capability that enables the operator.
	Capability string
	// SingleNode, HypershiftExcluded and IBMCloud select the release include
	// and exclude annotations the operator's manifest carries.
	SingleNode, HypershiftExcluded, IBMCloud bool
	// Namespace is the operator's namespace (its first related object).
	Namespace string
	// Operands lists the extra entries of status.versions that carry the
	// release version.
	Operands []string
	// KubeOperand is an entry of status.versions that carries the Kubernetes
	// version (static-pod operators).
	KubeOperand string
	// ProgressingReason and ProgressingMessage give the reason and message of Progressing=True while the
	// operator updates.
	ProgressingReason, ProgressingMessage string
}

// Progressing messages of the operators while they update (fmt formats).
const (
	StaticPodMessage = "NodeInstallerProgressing: 3 nodes are at revision %d; 0 nodes have achieved new revision %d"
	DeployMessage    = "Deployment %q is progressing: 1 of 2 updated replicas are available"
	DaemonSetMessage = "DaemonSet %q is not available (awaiting 1 nodes)"
)

// Operators lists the ClusterOperators of the payload in update order; machine-config is last. The names, annotations and version
// entries follow a real 4.x cluster (fixtures in testdata/oc-status).
var Operators = []Operator{
	{Name: "config-operator", Level: 1, Weight: 0.5, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-config-operator", Operands: []string{"feature-gates"}},
	{Name: "etcd", Level: 2, Weight: 4, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-etcd", Operands: []string{"raw-internal", "etcd"}, ProgressingReason: "NodeInstaller", ProgressingMessage: StaticPodMessage},
	{Name: "kube-apiserver", Level: 2, Weight: 5, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-kube-apiserver", Operands: []string{"raw-internal"}, KubeOperand: "kube-apiserver", ProgressingReason: "NodeInstaller", ProgressingMessage: StaticPodMessage},
	{Name: "kube-controller-manager", Level: 3, Weight: 2.5, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-kube-controller-manager", Operands: []string{"raw-internal"}, KubeOperand: "kube-controller-manager", ProgressingReason: "NodeInstaller", ProgressingMessage: StaticPodMessage},
	{Name: "kube-scheduler", Level: 3, Weight: 2, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-kube-scheduler", Operands: []string{"raw-internal"}, KubeOperand: "kube-scheduler", ProgressingReason: "NodeInstaller", ProgressingMessage: StaticPodMessage},
	{Name: "cloud-controller-manager", Level: 4, Weight: 1, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-cloud-controller-manager-operator"},
	{Name: "cloud-credential", Level: 4, Weight: 0.8, HypershiftExcluded: true, Namespace: "openshift-cloud-credential-operator"},
	{Name: "machine-api", Level: 5, Weight: 1, Capability: "MachineAPI", SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-machine-api"},
	{Name: "control-plane-machine-set", Level: 5, Weight: 1, Capability: "MachineAPI", HypershiftExcluded: true, Namespace: "openshift-machine-api"},
	{Name: "cluster-autoscaler", Level: 5, Weight: 0.7, Capability: "MachineAPI", SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-machine-api"},
	{Name: "machine-approver", Level: 5, Weight: 0.6, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-cluster-machine-approver"},
	{Name: "baremetal", Level: 5, Weight: 0.6, Capability: "baremetal", SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-machine-api"},
	{Name: "openshift-apiserver", Level: 6, Weight: 1.5, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-apiserver-operator", Operands: []string{"openshift-apiserver"}},
	{Name: "openshift-controller-manager", Level: 6, Weight: 1.2, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-controller-manager-operator"},
	{Name: "authentication", Level: 6, Weight: 1.5, SingleNode: true, HypershiftExcluded: true, Namespace: "openshift-authentication-operator", Operands: []string{"oauth-apiserver"}},
	{Name: "service-ca", Level: 6, Weight: 0.6, SingleNode: true, IBMCloud: true, Namespace: "openshift-service-ca-operator"},
	{Name: "kube-storage-version-migrator", Level: 6, Weight: 0.6, IBMCloud: true, Namespace: "openshift-kube-storage-version-migrator-operator"},
	{Name: "csi-snapshot-controller", Level: 6, Weight: 0.7, Capability: "CSISnapshot", SingleNode: true, IBMCloud: true, Namespace: "openshift-cluster-storage-operator", Operands: []string{"csi-snapshot-controller"}},
	{Name: "image-registry", Level: 7, Weight: 1, Capability: "ImageRegistry", SingleNode: true, IBMCloud: true, Namespace: "openshift-image-registry"},
	{Name: "ingress", Level: 7, Weight: 1.2, SingleNode: true, IBMCloud: true, Namespace: "openshift-ingress-operator"},
	{Name: "insights", Level: 7, Weight: 0.5, Capability: "Insights", SingleNode: true, HypershiftExcluded: true, IBMCloud: true, Namespace: "openshift-insights"},
	{Name: "console", Level: 7, Weight: 0.8, Capability: "Console", SingleNode: true, IBMCloud: true, Namespace: "openshift-console-operator"},
	{Name: "storage", Level: 7, Weight: 0.8, Capability: "Storage", SingleNode: true, IBMCloud: true, Namespace: "openshift-cluster-storage-operator"},
	{Name: "node-tuning", Level: 7, Weight: 0.8, Capability: "NodeTuning", SingleNode: true, IBMCloud: true, Namespace: "openshift-cluster-node-tuning-operator", Operands: []string{"openshift-tuned"}},
	{Name: "openshift-samples", Level: 7, Weight: 0.5, Capability: "openshift-samples", IBMCloud: true, Namespace: "openshift-cluster-samples-operator"},
	{Name: "marketplace", Level: 7, Weight: 0.5, Capability: "marketplace", SingleNode: true, IBMCloud: true, Namespace: "openshift-marketplace"},
	{Name: "operator-lifecycle-manager", Level: 7, Weight: 0.6, IBMCloud: true, Namespace: "openshift-operator-lifecycle-manager"},
	{Name: "operator-lifecycle-manager-catalog", Level: 7, Weight: 0.6, IBMCloud: true, Namespace: "openshift-operator-lifecycle-manager"},
	{Name: "operator-lifecycle-manager-packageserver", Level: 7, Weight: 0.6, IBMCloud: true, Namespace: "openshift-operator-lifecycle-manager"},
	{Name: "olm", Level: 7, Weight: 0.5, Capability: "OperatorLifecycleManagerV1", SingleNode: true, Namespace: "openshift-cluster-olm-operator"},
	{Name: "monitoring", Level: 8, Weight: 1.5, SingleNode: true, IBMCloud: true, Namespace: "openshift-monitoring"},
	{Name: "network", Level: 9, Weight: 2.5, SingleNode: true, IBMCloud: true, Namespace: "openshift-network-operator", ProgressingReason: "Deploying", ProgressingMessage: DaemonSetMessage},
	{Name: "dns", Level: 9, Weight: 1.2, SingleNode: true, IBMCloud: true, Namespace: "openshift-dns-operator", ProgressingReason: "Reconciling", ProgressingMessage: DaemonSetMessage},
	{Name: insights.MCOClusterOperatorName, Level: 10, Weight: 1, SingleNode: true, HypershiftExcluded: true, Namespace: insights.MCONamespace},
}
