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
	"encoding/json"
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/update-status/apiserver/pkg/insights"
)

// Annotations and labels of the machine-config operator, controller and daemon.
const (
	mcPrefix                    = "machineconfiguration.openshift.io/"
	annoControlPlaneTopology    = mcPrefix + "controlPlaneTopology"
	annoLastSyncedCCRV          = mcPrefix + "lastSyncedControllerConfigResourceVersion"
	annoGeneratedByController   = mcPrefix + "generated-by-controller-version"
	labelMCOBuiltIn             = mcPrefix + "mco-built-in"
	labelRequiredForUpgrade     = "operator.machineconfiguration.openshift.io/required-for-upgrade"
	labelPoolPrefix             = "pools.operator.machineconfiguration.openshift.io/"
	labelNodeRolePrefix         = "node-role.kubernetes.io/"
	drainPrefix                 = "drain-"
	uncordonPrefix              = "uncordon-"
	releaseIncludeHA            = "include.release.openshift.io/self-managed-high-availability"
	releaseIncludeSNO           = "include.release.openshift.io/single-node-developer"
	releaseIncludeIBM           = "include.release.openshift.io/ibm-cloud-managed"
	releaseExcludeHosted        = "exclude.release.openshift.io/internal-openshift-hosted"
	capabilityAnnotation        = "capability.openshift.io/name"
	manifestsInPayload          = 913
	region                      = "us-east-2"
	upstreamGraph               = "https://api.openshift.com/api/upgrades_info/v1/graph"
	controllerVersionAnnotation = "c2fd1e4b2a7b3d7b6f0f1f0f35b1a6d7e3c9a8b0"
)

var (
	gvCV  = configv1.GroupVersion.WithKind("ClusterVersion")
	gvCO  = configv1.GroupVersion.WithKind("ClusterOperator")
	gvMCP = mcfgv1.GroupVersion.WithKind("MachineConfigPool")
	gvMC  = mcfgv1.GroupVersion.WithKind("MachineConfig")
)

// baseConfigs are the MachineConfigs a rendered config of a role is built from.
func baseConfigs(role string) []string {
	return []string{
		"00-" + role,
		"01-" + role + "-container-runtime",
		"01-" + role + "-kubelet",
		"97-" + role + "-generated-kubelet",
		"98-" + role + "-generated-kubelet",
		"99-" + role + "-generated-registries",
		"99-" + role + "-ssh",
	}
}

// capabilities of a default installation.
var capabilities = []configv1.ClusterVersionCapability{
	"Build", "CSISnapshot", "CloudControllerManager", "CloudCredential", "Console", "DeploymentConfig",
	"ImageRegistry", "Ingress", "Insights", "MachineAPI", "NodeTuning", "OperatorLifecycleManager",
	"OperatorLifecycleManagerV1", "Storage", "baremetal", "marketplace", "openshift-samples",
}

// newUID returns a random UUID drawn from the seeded source.
func (s *Simulator) newUID() types.UID {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(s.rng.IntN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// release describes release v as the ClusterVersion lists it.
func release(v string) configv1.Release {
	return configv1.Release{
		Version:  v,
		Image:    releaseImage(v),
		URL:      configv1.URL(errataURL(v)),
		Channels: []string{channel(v)},
	}
}

// ownerCV is the owner reference the cluster-version operator puts on what it creates.
func (s *Simulator) ownerCV() []metav1.OwnerReference {
	return []metav1.OwnerReference{{
		APIVersion: configv1.GroupVersion.String(), Kind: "ClusterVersion",
		Name: insights.ClusterVersionName, UID: s.cv.UID, Controller: ptr.To(true),
	}}
}

// buildClusterVersion returns the ClusterVersion of a cluster that runs
// FromVersion, with the install and the update to FromVersion in its history.
func (s *Simulator) buildClusterVersion() *configv1.ClusterVersion {
	o := &s.opts
	history := []configv1.UpdateHistory{}
	prevEnd := s.previousUpdateEnd()
	prevStart := prevEnd.Add(-s.plannedDuration)
	history = append(history, configv1.UpdateHistory{
		State: configv1.CompletedUpdate, Version: o.FromVersion, Image: releaseImage(o.FromVersion),
		StartedTime: metav1.NewTime(prevStart), CompletionTime: ptr.To(metav1.NewTime(prevEnd)), Verified: true,
	})
	if o.InstallVersion != "" && o.InstallVersion != o.FromVersion {
		history = append(history, configv1.UpdateHistory{
			State: configv1.CompletedUpdate, Version: o.InstallVersion, Image: releaseImage(o.InstallVersion),
			StartedTime:    metav1.NewTime(s.installedAt),
			CompletionTime: ptr.To(metav1.NewTime(s.installedAt.Add(38 * time.Minute))), Verified: false,
		})
	}
	settled := metav1.NewTime(prevEnd)
	installed := metav1.NewTime(s.installedAt)
	cv := &configv1.ClusterVersion{
		TypeMeta: metav1.TypeMeta{APIVersion: gvCV.GroupVersion().String(), Kind: gvCV.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: insights.ClusterVersionName, UID: s.newUID(), Generation: 2, CreationTimestamp: installed,
		},
		Spec: configv1.ClusterVersionSpec{
			ClusterID:     configv1.ClusterID(s.newUID()),
			Channel:       channel(o.ToVersion),
			Upstream:      upstreamGraph,
			DesiredUpdate: &configv1.Update{Version: o.FromVersion, Image: releaseImage(o.FromVersion)},
		},
		Status: configv1.ClusterVersionStatus{
			Desired:            release(o.FromVersion),
			History:            history,
			ObservedGeneration: 2,
			VersionHash:        digest("hash", o.FromVersion)[:11] + "=",
			Capabilities: configv1.ClusterVersionCapabilitiesStatus{
				EnabledCapabilities: capabilities, KnownCapabilities: capabilities,
			},
			AvailableUpdates: []configv1.Release{release(o.ToVersion)},
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.RetrievedUpdates, Status: configv1.ConditionTrue, LastTransitionTime: installed},
				{Type: "ImplicitlyEnabledCapabilities", Status: configv1.ConditionFalse, Reason: "AsExpected", Message: "Capabilities match configured spec", LastTransitionTime: installed},
				{Type: "ReleaseAccepted", Status: configv1.ConditionTrue, Reason: "PayloadLoaded", Message: payloadLoaded(o.FromVersion), LastTransitionTime: metav1.NewTime(prevStart)},
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Message: "Done applying " + o.FromVersion, LastTransitionTime: installed},
				{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue, LastTransitionTime: settled},
				{Type: "Failing", Status: configv1.ConditionFalse, LastTransitionTime: settled},
				{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Message: "Cluster version is " + o.FromVersion, LastTransitionTime: settled},
			},
		},
	}
	return cv
}

// previousUpdateEnd is when the update to FromVersion completed: a week
// before creation.
func (s *Simulator) previousUpdateEnd() time.Time {
	return s.installedAt.Add(38 * 24 * time.Hour).Add(s.plannedDuration)
}

func payloadLoaded(v string) string {
	return fmt.Sprintf("Payload loaded version=%q image=%q architecture=%q", v, releaseImage(v), "amd64")
}

// operatorVersions returns the status.versions of an operator at release v.
func operatorVersions(spec *operatorSpec, v string) []configv1.OperandVersion {
	out := []configv1.OperandVersion{{Name: insights.OperatorVersionName, Version: v}}
	for _, op := range spec.operands {
		out = append(out, configv1.OperandVersion{Name: op, Version: v})
	}
	if spec.kubeOperand != "" {
		out = append(out, configv1.OperandVersion{Name: spec.kubeOperand, Version: kubeVersion(v)})
	}
	if spec.name == insights.MCOClusterOperatorName {
		out = append(out, configv1.OperandVersion{Name: insights.OperatorImageVersionName, Version: mcoImage(v)})
	}
	return out
}

// buildClusterOperator returns a settled ClusterOperator at FromVersion.
func (s *Simulator) buildClusterOperator(spec *operatorSpec) *configv1.ClusterOperator {
	annotations := map[string]string{releaseIncludeHA: "true"}
	if spec.singleNode {
		annotations[releaseIncludeSNO] = "true"
	}
	if spec.ibmCloud {
		annotations[releaseIncludeIBM] = "true"
	}
	if spec.hypershiftExcluded {
		annotations[releaseExcludeHosted] = "true"
	}
	if spec.capability != "" {
		annotations[capabilityAnnotation] = spec.capability
	}
	installed := metav1.NewTime(s.installedAt.Add(time.Duration(4+s.rng.IntN(30)) * time.Minute))
	settled := metav1.NewTime(s.previousUpdateEnd().Add(-time.Duration(s.rng.IntN(1800)) * time.Second))
	from := s.opts.FromVersion
	co := &configv1.ClusterOperator{
		TypeMeta: metav1.TypeMeta{APIVersion: gvCO.GroupVersion().String(), Kind: gvCO.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: spec.name, UID: s.newUID(), Generation: 1, CreationTimestamp: metav1.NewTime(s.installedAt),
			Annotations: annotations, OwnerReferences: s.ownerCV(),
		},
		Status: configv1.ClusterOperatorStatus{
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, Reason: "AsExpected", LastTransitionTime: installed},
				{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Reason: "AsExpected", Message: "All is well", LastTransitionTime: settled},
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well", LastTransitionTime: installed},
				{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well", LastTransitionTime: installed},
			},
			Versions: operatorVersions(spec, from),
			RelatedObjects: []configv1.ObjectReference{
				{Group: "", Resource: "namespaces", Name: spec.namespace},
				{Group: "config.openshift.io", Resource: "clusteroperators", Name: spec.name},
			},
		},
	}
	if spec.name == insights.MCOClusterOperatorName {
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{
			{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Message: "Cluster version is " + from, LastTransitionTime: settled},
			{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: settled},
			{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, LastTransitionTime: installed},
			{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: mcoDeployedMessage(from), LastTransitionTime: installed},
		}
	}
	return co
}

// mcoDeployedMessage is the machine-config operator's Available message.
func mcoDeployedMessage(v string) string {
	return fmt.Sprintf("Cluster has deployed [{operator %s} {operator-image %s}]", v, mcoImage(v))
}

// buildPool returns a MachineConfigPool targeting the rendered config of
// FromVersion.
func (s *Simulator) buildPool(p *poolState) *mcfgv1.MachineConfigPool {
	labels := map[string]string{labelPoolPrefix + p.name: ""}
	var mcSelector *metav1.LabelSelector
	switch p.name {
	case "master", "worker":
		labels[labelMCOBuiltIn] = ""
		mcSelector = &metav1.LabelSelector{MatchLabels: map[string]string{mcfgv1.MachineConfigRoleLabelKey: p.name}}
	default:
		mcSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: mcfgv1.MachineConfigRoleLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"worker", p.name},
		}}}
	}
	if p.required {
		labels[labelRequiredForUpgrade] = ""
	}
	sources := []corev1.ObjectReference{}
	for _, name := range baseConfigs(p.role()) {
		sources = append(sources, corev1.ObjectReference{APIVersion: mcfgv1.GroupVersion.String(), Kind: "MachineConfig", Name: name})
	}
	mcp := &mcfgv1.MachineConfigPool{
		TypeMeta: metav1.TypeMeta{APIVersion: gvMCP.GroupVersion().String(), Kind: gvMCP.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: p.name, UID: s.newUID(), Generation: 3, CreationTimestamp: metav1.NewTime(s.installedAt), Labels: labels,
		},
		Spec: mcfgv1.MachineConfigPoolSpec{
			MachineConfigSelector: mcSelector,
			NodeSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{labelNodeRolePrefix + p.name: ""}},
			MaxUnavailable:        p.maxUnavailableSpec,
			Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{
				ObjectReference: corev1.ObjectReference{Name: p.current},
				Source:          sources,
			},
		},
		Status: mcfgv1.MachineConfigPoolStatus{
			ObservedGeneration: 3,
			Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{
				ObjectReference: corev1.ObjectReference{Name: p.current},
				Source:          sources,
			},
			CertExpirys: []mcfgv1.CertExpiry{},
		},
	}
	return mcp
}

// buildBaseConfig returns one of the MachineConfigs rendered configs are built from.
func (s *Simulator) buildBaseConfig(name, role string) *mcfgv1.MachineConfig {
	return &mcfgv1.MachineConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: gvMC.GroupVersion().String(), Kind: gvMC.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: s.newUID(), Generation: 1, CreationTimestamp: metav1.NewTime(s.installedAt),
			Labels:      map[string]string{mcfgv1.MachineConfigRoleLabelKey: role},
			Annotations: map[string]string{annoGeneratedByController: controllerVersionAnnotation},
		},
		Spec: machineConfigSpec(s.opts.FromVersion),
	}
}

// buildRendered returns the rendered MachineConfig of pool p for release v.
func (s *Simulator) buildRendered(p *poolState, name, v string, created time.Time) *mcfgv1.MachineConfig {
	return &mcfgv1.MachineConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: gvMC.GroupVersion().String(), Kind: gvMC.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: s.newUID(), Generation: 1, CreationTimestamp: metav1.NewTime(created),
			Annotations: map[string]string{
				annoGeneratedByController:              digest("controller", v)[:40],
				insights.ReleaseImageVersionAnnotation: v,
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: mcfgv1.GroupVersion.String(), Kind: "MachineConfigPool", Name: p.name, UID: p.obj.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: machineConfigSpec(v),
	}
}

func machineConfigSpec(v string) mcfgv1.MachineConfigSpec {
	return mcfgv1.MachineConfigSpec{
		OSImageURL:                     componentImage("rhel-coreos", v),
		BaseOSExtensionsContainerImage: componentImage("rhel-coreos-extensions", v),
		Config:                         runtime.RawExtension{Raw: []byte(`{"ignition":{"version":"3.5.0"}}`)},
		KernelArguments:                []string{},
		Extensions:                     []string{},
	}
}

// buildMCODeployment returns the machine-config-operator Deployment running release v.
func (s *Simulator) buildMCODeployment(v string) *appsv1.Deployment {
	labels := map[string]string{"k8s-app": insights.MCODeploymentName}
	d := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name: insights.MCODeploymentName, Namespace: insights.MCONamespace, UID: s.newUID(), Generation: 1,
			CreationTimestamp: metav1.NewTime(s.installedAt),
			Labels:            labels,
			Annotations: map[string]string{
				releaseIncludeHA: "true", releaseIncludeSNO: "true", releaseExcludeHosted: "true",
				"deployment.kubernetes.io/revision": "1",
			},
			OwnerReferences: s.ownerCV(),
		},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To[int32](1),
			RevisionHistoryLimit: ptr.To[int32](10),
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Strategy:             appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      labels,
					Annotations: map[string]string{"openshift.io/required-scc": "anyuid"},
				},
				Spec: corev1.PodSpec{
					NodeSelector:       map[string]string{labelNodeRolePrefix + "master": ""},
					PriorityClassName:  "system-cluster-critical",
					ServiceAccountName: insights.MCODeploymentName,
					Tolerations: []corev1.Toleration{{
						Key: labelNodeRolePrefix + "master", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule,
					}},
				},
			},
		},
	}
	setMCODeploymentRelease(d, v)
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1,
	}
	setDeploymentCondition(&d.Status.Conditions, appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability.", s.installedAt)
	setDeploymentCondition(&d.Status.Conditions, appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetAvailable", fmt.Sprintf("ReplicaSet %q has successfully progressed.", insights.MCODeploymentName+"-"+digest("rs", v)[:10]), s.installedAt)
	return d
}

// setMCODeploymentRelease points the Deployment's containers at release v,
// as the cluster-version operator does when it applies the new manifest.
func setMCODeploymentRelease(d *appsv1.Deployment, v string) {
	img := mcoImage(v)
	d.Spec.Template.Spec.Containers = []corev1.Container{
		{
			Name:  insights.MCOContainerName,
			Image: img,
			Args: []string{
				"start", "--images-json=/etc/mco/images/images.json",
				"--payload-version=" + v, "--operator-image=" + img,
			},
			Env:                      []corev1.EnvVar{{Name: "RELEASE_VERSION", Value: v}},
			ImagePullPolicy:          corev1.PullIfNotPresent,
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("20m"), corev1.ResourceMemory: resource.MustParse("50Mi"),
			}},
		},
		{
			Name:  "kube-rbac-proxy",
			Image: componentImage("kube-rbac-proxy", v),
			Args: []string{
				"--secure-listen-address=0.0.0.0:9001", "--upstream=http://127.0.0.1:8797",
				"--tls-cert-file=/etc/tls/private/tls.crt", "--tls-private-key-file=/etc/tls/private/tls.key",
			},
			Ports:                    []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9001, Protocol: corev1.ProtocolTCP}},
			ImagePullPolicy:          corev1.PullIfNotPresent,
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		},
	}
}

// nodeName returns the name of the i-th node (an AWS-style private DNS name).
func nodeName(i int) string {
	return fmt.Sprintf("ip-10-0-%d-%d.%s.compute.internal", i/250, 4+i%250, region)
}

// buildNode returns node number i of pool p, settled on the pool's current
// config. roles are the node-role labels it carries.
func (s *Simulator) buildNode(i int, p *poolState, roles []string, created time.Time) *corev1.Node {
	o := &s.opts
	name := nodeName(i)
	zone := region + string(rune('a'+i%3))
	labels := map[string]string{
		"beta.kubernetes.io/arch":                  "amd64",
		"beta.kubernetes.io/instance-type":         "m6i.xlarge",
		"beta.kubernetes.io/os":                    "linux",
		"failure-domain.beta.kubernetes.io/region": region,
		"failure-domain.beta.kubernetes.io/zone":   zone,
		"kubernetes.io/arch":                       "amd64",
		"kubernetes.io/hostname":                   strings.SplitN(name, ".", 2)[0],
		"kubernetes.io/os":                         "linux",
		"node.kubernetes.io/instance-type":         "m6i.xlarge",
		"node.openshift.io/os_id":                  "rhcos",
		"topology.ebs.csi.aws.com/zone":            zone,
		"topology.kubernetes.io/region":            region,
		"topology.kubernetes.io/zone":              zone,
	}
	for _, r := range roles {
		labels[labelNodeRolePrefix+r] = ""
	}
	topology := "HighlyAvailable"
	if o.ControlPlaneNodes == 1 {
		topology = "SingleReplica"
	}
	cfg := p.current
	machine := fmt.Sprintf("openshift-machine-api/%s-%s-%s-%d", s.infraID, p.role(), zone, i)
	node := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: s.newUID(), CreationTimestamp: metav1.NewTime(created), Labels: labels,
			Annotations: map[string]string{
				"machine.openshift.io/machine":                           machine,
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
				annoControlPlaneTopology:                                 topology,
				insights.CurrentConfigAnnotation:                         cfg,
				insights.DesiredConfigAnnotation:                         cfg,
				insights.DesiredDrainAnnotation:                          uncordonPrefix + cfg,
				insights.LastAppliedDrainAnnotation:                      uncordonPrefix + cfg,
				insights.MCDStateAnnotation:                              insights.MCDStateDone,
				insights.MCDReasonAnnotation:                             "",
				annoLastSyncedCCRV:                                       "41532",
			},
		},
		Spec: corev1.NodeSpec{
			ProviderID: fmt.Sprintf("aws:///%s/i-0%s", zone, digest("instance", name)[:16]),
		},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16092488Ki"),
				corev1.ResourcePods: resource.MustParse("250"), corev1.ResourceEphemeralStorage: resource.MustParse("125238252Ki"),
			},
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("3500m"), corev1.ResourceMemory: resource.MustParse("14941512Ki"),
				corev1.ResourcePods: resource.MustParse("250"), corev1.ResourceEphemeralStorage: resource.MustParse("114345831029"),
			},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", i/250, 4+i%250)},
				{Type: corev1.NodeHostName, Address: name},
				{Type: corev1.NodeInternalDNS, Address: name},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		},
	}
	if p.name == "master" && !o.compact() {
		node.Spec.Taints = []corev1.Taint{{Key: labelNodeRolePrefix + "master", Effect: corev1.TaintEffectNoSchedule}}
	}
	setNodeInfo(node, o.FromVersion, string(s.newUID()))
	booted := created.Add(2 * time.Minute)
	setNodeCondition(&node.Status.Conditions, corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", created)
	setNodeCondition(&node.Status.Conditions, corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", created)
	setNodeCondition(&node.Status.Conditions, corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available", created)
	setNodeCondition(&node.Status.Conditions, corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", booted)
	return node
}

// setNodeInfo fills the node's system info for a node booted into release v.
func setNodeInfo(node *corev1.Node, v, bootID string) {
	node.Status.NodeInfo = corev1.NodeSystemInfo{
		MachineID:               digest("machine", node.Name)[:32],
		SystemUUID:              digest("system", node.Name)[:8] + "-" + digest("system", node.Name)[8:12] + "-" + digest("system", node.Name)[12:16] + "-" + digest("system", node.Name)[16:20] + "-" + digest("system", node.Name)[20:32],
		BootID:                  bootID,
		KernelVersion:           fmt.Sprintf("5.14.0-570.%d.1.el9_6.x86_64", 20+len(v)),
		OSImage:                 rhcosVersion(v),
		ContainerRuntimeVersion: "cri-o://" + kubeVersion(v) + "-2.rhaos" + majorMinor(v) + ".el9",
		KubeletVersion:          "v" + kubeVersion(v),
		OperatingSystem:         "linux",
		Architecture:            "amd64",
	}
}

// majorMinor returns "X.Y" of a version string.
func majorMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// mcoExtension is the machine-config ClusterOperator's status.extension: one
// line per pool.
func mcoExtension(lines map[string]string) runtime.RawExtension {
	raw, err := json.Marshal(lines)
	if err != nil {
		return runtime.RawExtension{}
	}
	return runtime.RawExtension{Raw: raw}
}

// maxUnavailableOf resolves a pool's maxUnavailable against its size, as the
// machine-config controller does: percentages round down, and the result is
// at least 1.
func maxUnavailableOf(v *intstr.IntOrString, total int) int {
	if v == nil {
		return 1
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, false)
	if err != nil || n < 1 {
		return 1
	}
	return n
}
