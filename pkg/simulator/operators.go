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

import "github.com/update-status/apiserver/pkg/insights"

// operatorSpec describes one ClusterOperator of the simulated payload.
type operatorSpec struct {
	name string
	// level orders the update: the cluster-version operator updates the
	// operators of one level together and moves to the next level when all of
	// them report the new version (runlevels, roughly as in a real payload).
	level int
	// weight scales the update duration (static-pod operators roll three
	// control-plane nodes and take longer).
	weight float64
	// capability is the optional capability that enables the operator.
	capability string
	// singleNode, hypershiftExcluded and ibmCloud select the release include
	// and exclude annotations the operator's manifest carries.
	singleNode, hypershiftExcluded, ibmCloud bool
	// namespace is the operator's namespace (its first related object).
	namespace string
	// operands lists the extra entries of status.versions that carry the
	// release version.
	operands []string
	// kubeOperand is an entry of status.versions that carries the Kubernetes
	// version (static-pod operators).
	kubeOperand string
	// progressing gives the reason and message of Progressing=True while the
	// operator updates.
	progressingReason, progressingMessage string
}

const (
	staticPodMessage = "NodeInstallerProgressing: 3 nodes are at revision %d; 0 nodes have achieved new revision %d"
	deployMessage    = "Deployment %q is progressing: 1 of 2 updated replicas are available"
	daemonSetMessage = "DaemonSet %q is not available (awaiting 1 nodes)"
)

// operatorCatalogue lists the ClusterOperators of the simulated payload in
// update order; machine-config is last. The names, annotations and version
// entries follow a real 4.x cluster (fixtures in testdata/oc-status).
var operatorCatalogue = []operatorSpec{
	{name: "config-operator", level: 1, weight: 0.5, singleNode: true, hypershiftExcluded: true, namespace: "openshift-config-operator", operands: []string{"feature-gates"}},
	{name: "etcd", level: 2, weight: 4, singleNode: true, hypershiftExcluded: true, namespace: "openshift-etcd", operands: []string{"raw-internal", "etcd"}, progressingReason: "NodeInstaller", progressingMessage: staticPodMessage},
	{name: "kube-apiserver", level: 2, weight: 5, singleNode: true, hypershiftExcluded: true, namespace: "openshift-kube-apiserver", operands: []string{"raw-internal"}, kubeOperand: "kube-apiserver", progressingReason: "NodeInstaller", progressingMessage: staticPodMessage},
	{name: "kube-controller-manager", level: 3, weight: 2.5, singleNode: true, hypershiftExcluded: true, namespace: "openshift-kube-controller-manager", operands: []string{"raw-internal"}, kubeOperand: "kube-controller-manager", progressingReason: "NodeInstaller", progressingMessage: staticPodMessage},
	{name: "kube-scheduler", level: 3, weight: 2, singleNode: true, hypershiftExcluded: true, namespace: "openshift-kube-scheduler", operands: []string{"raw-internal"}, kubeOperand: "kube-scheduler", progressingReason: "NodeInstaller", progressingMessage: staticPodMessage},
	{name: "cloud-controller-manager", level: 4, weight: 1, singleNode: true, hypershiftExcluded: true, namespace: "openshift-cloud-controller-manager-operator"},
	{name: "cloud-credential", level: 4, weight: 0.8, hypershiftExcluded: true, namespace: "openshift-cloud-credential-operator"},
	{name: "machine-api", level: 5, weight: 1, capability: "MachineAPI", singleNode: true, hypershiftExcluded: true, namespace: "openshift-machine-api"},
	{name: "control-plane-machine-set", level: 5, weight: 1, capability: "MachineAPI", hypershiftExcluded: true, namespace: "openshift-machine-api"},
	{name: "cluster-autoscaler", level: 5, weight: 0.7, capability: "MachineAPI", singleNode: true, hypershiftExcluded: true, namespace: "openshift-machine-api"},
	{name: "machine-approver", level: 5, weight: 0.6, singleNode: true, hypershiftExcluded: true, namespace: "openshift-cluster-machine-approver"},
	{name: "baremetal", level: 5, weight: 0.6, capability: "baremetal", singleNode: true, hypershiftExcluded: true, namespace: "openshift-machine-api"},
	{name: "openshift-apiserver", level: 6, weight: 1.5, singleNode: true, hypershiftExcluded: true, namespace: "openshift-apiserver-operator", operands: []string{"openshift-apiserver"}},
	{name: "openshift-controller-manager", level: 6, weight: 1.2, singleNode: true, hypershiftExcluded: true, namespace: "openshift-controller-manager-operator"},
	{name: "authentication", level: 6, weight: 1.5, singleNode: true, hypershiftExcluded: true, namespace: "openshift-authentication-operator", operands: []string{"oauth-apiserver"}},
	{name: "service-ca", level: 6, weight: 0.6, singleNode: true, ibmCloud: true, namespace: "openshift-service-ca-operator"},
	{name: "kube-storage-version-migrator", level: 6, weight: 0.6, ibmCloud: true, namespace: "openshift-kube-storage-version-migrator-operator"},
	{name: "csi-snapshot-controller", level: 6, weight: 0.7, capability: "CSISnapshot", singleNode: true, ibmCloud: true, namespace: "openshift-cluster-storage-operator", operands: []string{"csi-snapshot-controller"}},
	{name: "image-registry", level: 7, weight: 1, capability: "ImageRegistry", singleNode: true, ibmCloud: true, namespace: "openshift-image-registry"},
	{name: "ingress", level: 7, weight: 1.2, singleNode: true, ibmCloud: true, namespace: "openshift-ingress-operator"},
	{name: "insights", level: 7, weight: 0.5, capability: "Insights", singleNode: true, hypershiftExcluded: true, ibmCloud: true, namespace: "openshift-insights"},
	{name: "console", level: 7, weight: 0.8, capability: "Console", singleNode: true, ibmCloud: true, namespace: "openshift-console-operator"},
	{name: "storage", level: 7, weight: 0.8, capability: "Storage", singleNode: true, ibmCloud: true, namespace: "openshift-cluster-storage-operator"},
	{name: "node-tuning", level: 7, weight: 0.8, capability: "NodeTuning", singleNode: true, ibmCloud: true, namespace: "openshift-cluster-node-tuning-operator", operands: []string{"openshift-tuned"}},
	{name: "openshift-samples", level: 7, weight: 0.5, capability: "openshift-samples", ibmCloud: true, namespace: "openshift-cluster-samples-operator"},
	{name: "marketplace", level: 7, weight: 0.5, capability: "marketplace", singleNode: true, ibmCloud: true, namespace: "openshift-marketplace"},
	{name: "operator-lifecycle-manager", level: 7, weight: 0.6, ibmCloud: true, namespace: "openshift-operator-lifecycle-manager"},
	{name: "operator-lifecycle-manager-catalog", level: 7, weight: 0.6, ibmCloud: true, namespace: "openshift-operator-lifecycle-manager"},
	{name: "operator-lifecycle-manager-packageserver", level: 7, weight: 0.6, ibmCloud: true, namespace: "openshift-operator-lifecycle-manager"},
	{name: "olm", level: 7, weight: 0.5, capability: "OperatorLifecycleManagerV1", singleNode: true, namespace: "openshift-cluster-olm-operator"},
	{name: "monitoring", level: 8, weight: 1.5, singleNode: true, ibmCloud: true, namespace: "openshift-monitoring"},
	{name: "network", level: 9, weight: 2.5, singleNode: true, ibmCloud: true, namespace: "openshift-network-operator", progressingReason: "Deploying", progressingMessage: daemonSetMessage},
	{name: "dns", level: 9, weight: 1.2, singleNode: true, ibmCloud: true, namespace: "openshift-dns-operator", progressingReason: "Reconciling", progressingMessage: daemonSetMessage},
	{name: insights.MCOClusterOperatorName, level: 10, weight: 1, singleNode: true, hypershiftExcluded: true, namespace: insights.MCONamespace},
}
