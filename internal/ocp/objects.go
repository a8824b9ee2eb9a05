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
	"strconv"
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
	mcPrefix                  = "machineconfiguration.openshift.io/"
	annoControlPlaneTopology  = mcPrefix + "controlPlaneTopology"
	annoLastSyncedCCRV        = mcPrefix + "lastSyncedControllerConfigResourceVersion"
	annoGeneratedByController = mcPrefix + "generated-by-controller-version"
	labelMCOBuiltIn           = mcPrefix + "mco-built-in"
	labelRequiredForUpgrade   = "operator.machineconfiguration.openshift.io/required-for-upgrade"
	labelPoolPrefix           = "pools.operator.machineconfiguration.openshift.io/"
	labelNodeRolePrefix       = "node-role.kubernetes.io/"
	drainPrefix               = "drain-"
	uncordonPrefix            = "uncordon-"
	releaseIncludeHA          = "include.release.openshift.io/self-managed-high-availability"
	releaseIncludeSNO         = "include.release.openshift.io/single-node-developer"
	releaseIncludeIBM         = "include.release.openshift.io/ibm-cloud-managed"
	releaseExcludeHosted      = "exclude.release.openshift.io/internal-openshift-hosted"
	capabilityAnnotation      = "capability.openshift.io/name"
	// ManifestsInPayload is how many manifests the release payload has.
	ManifestsInPayload          = 913
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

// BaseConfigNames are the MachineConfigs a rendered config of a role is built from.
func BaseConfigNames(role string) []string {
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

// Release describes release v as the ClusterVersion lists it.
func Release(v string) configv1.Release {
	return configv1.Release{
		Version:  v,
		Image:    ReleaseImage(v),
		URL:      configv1.URL(errataURL(v)),
		Channels: []string{channel(v)},
	}
}

// ClusterVersionOwner is the owner reference the cluster-version operator
// puts on what it creates.
func ClusterVersionOwner(uid types.UID) []metav1.OwnerReference {
	return []metav1.OwnerReference{{
		APIVersion: configv1.GroupVersion.String(), Kind: "ClusterVersion",
		Name: insights.ClusterVersionName, UID: uid, Controller: ptr.To(true),
	}}
}

// ClusterVersionOptions describe a cluster at rest: the release it runs and
// its past.
type ClusterVersionOptions struct {
	UID, ClusterID types.UID
	// Version is the release the cluster runs; Available the update it offers
	// (whose channel it follows).
	Version, Available string
	// InstallVersion is the release installed first, at InstalledAt; when it
	// is not Version, an update to Version ran from UpdateStarted to
	// UpdateCompleted.
	InstallVersion  string
	InstalledAt     time.Time
	UpdateStarted   time.Time
	UpdateCompleted time.Time
}

// ClusterVersion returns the ClusterVersion of a cluster that runs
// o.Version, with the install and the update to o.Version in its history.
func ClusterVersion(o ClusterVersionOptions) *configv1.ClusterVersion {
	history := []configv1.UpdateHistory{{
		State: configv1.CompletedUpdate, Version: o.Version, Image: ReleaseImage(o.Version),
		StartedTime: metav1.NewTime(o.UpdateStarted), CompletionTime: ptr.To(metav1.NewTime(o.UpdateCompleted)), Verified: true,
	}}
	if o.InstallVersion != "" && o.InstallVersion != o.Version {
		history = append(history, configv1.UpdateHistory{
			State: configv1.CompletedUpdate, Version: o.InstallVersion, Image: ReleaseImage(o.InstallVersion),
			StartedTime:    metav1.NewTime(o.InstalledAt),
			CompletionTime: ptr.To(metav1.NewTime(o.InstalledAt.Add(38 * time.Minute))), Verified: false,
		})
	}
	settled := metav1.NewTime(o.UpdateCompleted)
	installed := metav1.NewTime(o.InstalledAt)
	cv := &configv1.ClusterVersion{
		TypeMeta: metav1.TypeMeta{APIVersion: gvCV.GroupVersion().String(), Kind: gvCV.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: insights.ClusterVersionName, UID: o.UID, Generation: 2, CreationTimestamp: installed,
		},
		Spec: configv1.ClusterVersionSpec{
			ClusterID:     configv1.ClusterID(o.ClusterID),
			Channel:       channel(o.Available),
			Upstream:      upstreamGraph,
			DesiredUpdate: &configv1.Update{Version: o.Version, Image: ReleaseImage(o.Version)},
		},
		Status: configv1.ClusterVersionStatus{
			Desired:            Release(o.Version),
			History:            history,
			ObservedGeneration: 2,
			VersionHash:        VersionHash(o.Version),
			Capabilities: configv1.ClusterVersionCapabilitiesStatus{
				EnabledCapabilities: capabilities, KnownCapabilities: capabilities,
			},
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.RetrievedUpdates, Status: configv1.ConditionTrue, LastTransitionTime: installed},
				{Type: "ImplicitlyEnabledCapabilities", Status: configv1.ConditionFalse, Reason: "AsExpected", Message: "Capabilities match configured spec", LastTransitionTime: installed},
				{Type: "ReleaseAccepted", Status: configv1.ConditionTrue, Reason: "PayloadLoaded", Message: payloadLoaded(o.Version), LastTransitionTime: metav1.NewTime(o.UpdateStarted)},
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Message: "Done applying " + o.Version, LastTransitionTime: installed},
				{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue, LastTransitionTime: settled},
				{Type: "Failing", Status: configv1.ConditionFalse, LastTransitionTime: settled},
				{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Message: "Cluster version is " + o.Version, LastTransitionTime: settled},
			},
		},
	}
	SetUpdates(cv, o.Version, o.UpdateCompleted)
	return cv
}

// VersionHash is the ClusterVersion's status.versionHash at release v.
func VersionHash(v string) string { return Digest("hash", v)[:11] + "=" }

// StartUpdate records an update request to release to on cv, as the
// cluster-version operator does: the new desired release, a Partial history
// entry, Progressing=True and the updates offered from release to.
func StartUpdate(cv *configv1.ClusterVersion, to string, now time.Time) {
	cv.Spec.DesiredUpdate = &configv1.Update{Version: to, Image: ReleaseImage(to)}
	cv.Generation++
	cv.Status.ObservedGeneration = cv.Generation
	cv.Status.Desired = Release(to)
	cv.Status.History = append([]configv1.UpdateHistory{{
		State: configv1.PartialUpdate, Version: to, Image: ReleaseImage(to),
		StartedTime: metav1.NewTime(now), CompletionTime: nil, Verified: true,
	}}, cv.Status.History...)
	// The cluster-version operator asks the update service for the updates
	// from the desired release.
	SetUpdates(cv, to, now)
	SetClusterCondition(&cv.Status.Conditions, "ReleaseAccepted", configv1.ConditionTrue, "PayloadLoaded", payloadLoaded(to), now)
	SetClusterCondition(&cv.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionTrue, "",
		fmt.Sprintf("Working towards %s: 1 of %d done (0%% complete)", to, ManifestsInPayload), now)
}

// CompleteUpdate marks the update in cv's history Completed at now.
func CompleteUpdate(cv *configv1.ClusterVersion, now time.Time) {
	to := cv.Status.Desired.Version
	if len(cv.Status.History) > 0 {
		cv.Status.History[0].State = configv1.CompletedUpdate
		cv.Status.History[0].CompletionTime = &metav1.Time{Time: now}
	}
	SetClusterCondition(&cv.Status.Conditions, configv1.OperatorAvailable, configv1.ConditionTrue, "", "Done applying "+to, now)
	SetClusterCondition(&cv.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionFalse, "", "Cluster version is "+to, now)
	cv.Status.VersionHash = VersionHash(to)
}

func payloadLoaded(v string) string {
	return fmt.Sprintf("Payload loaded version=%q image=%q architecture=%q", v, ReleaseImage(v), "amd64")
}

// OperatorVersions returns the status.versions of an operator at release v.
func OperatorVersions(spec *Operator, v string) []configv1.OperandVersion {
	out := []configv1.OperandVersion{{Name: insights.OperatorVersionName, Version: v}}
	for _, op := range spec.Operands {
		out = append(out, configv1.OperandVersion{Name: op, Version: v})
	}
	if spec.KubeOperand != "" {
		out = append(out, configv1.OperandVersion{Name: spec.KubeOperand, Version: KubeVersion(v)})
	}
	if spec.Name == insights.MCOClusterOperatorName {
		out = append(out, configv1.OperandVersion{Name: insights.OperatorImageVersionName, Version: MCOImage(v)})
	}
	return out
}

// ClusterOperatorOptions place a settled ClusterOperator in time.
type ClusterOperatorOptions struct {
	UID types.UID
	// Owner is the ClusterVersion's UID.
	Owner   types.UID
	Version string
	// Created is when the operator was created, Available when it became
	// available and Settled when it last stopped progressing.
	Created, Available, Settled time.Time
}

// ClusterOperator returns operator spec settled at o.Version.
func ClusterOperator(spec *Operator, o ClusterOperatorOptions) *configv1.ClusterOperator {
	annotations := map[string]string{releaseIncludeHA: "true"}
	if spec.SingleNode {
		annotations[releaseIncludeSNO] = "true"
	}
	if spec.IBMCloud {
		annotations[releaseIncludeIBM] = "true"
	}
	if spec.HypershiftExcluded {
		annotations[releaseExcludeHosted] = "true"
	}
	if spec.Capability != "" {
		annotations[capabilityAnnotation] = spec.Capability
	}
	installed := metav1.NewTime(o.Available)
	settled := metav1.NewTime(o.Settled)
	co := &configv1.ClusterOperator{
		TypeMeta: metav1.TypeMeta{APIVersion: gvCO.GroupVersion().String(), Kind: gvCO.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: spec.Name, UID: o.UID, Generation: 1, CreationTimestamp: metav1.NewTime(o.Created),
			Annotations: annotations, OwnerReferences: ClusterVersionOwner(o.Owner),
		},
		Status: configv1.ClusterOperatorStatus{
			Conditions: []configv1.ClusterOperatorStatusCondition{
				{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, Reason: "AsExpected", LastTransitionTime: installed},
				{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Reason: "AsExpected", Message: "All is well", LastTransitionTime: settled},
				{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well", LastTransitionTime: installed},
				{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well", LastTransitionTime: installed},
			},
			Versions: OperatorVersions(spec, o.Version),
			RelatedObjects: []configv1.ObjectReference{
				{Group: "", Resource: "namespaces", Name: spec.Namespace},
				{Group: "config.openshift.io", Resource: "clusteroperators", Name: spec.Name},
			},
		},
	}
	if spec.Name == insights.MCOClusterOperatorName {
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{
			{Type: configv1.OperatorProgressing, Status: configv1.ConditionFalse, Message: "Cluster version is " + o.Version, LastTransitionTime: settled},
			{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: settled},
			{Type: configv1.OperatorDegraded, Status: configv1.ConditionFalse, LastTransitionTime: installed},
			{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: MCODeployedMessage(o.Version), LastTransitionTime: installed},
		}
	}
	return co
}

// MCODeployedMessage is the machine-config operator's Available message.
func MCODeployedMessage(v string) string {
	return fmt.Sprintf("Cluster has deployed [{operator %s} {operator-image %s}]", v, MCOImage(v))
}

// PoolRole is the role of the base MachineConfigs pool renders from.
func PoolRole(pool string) string {
	if pool == "master" {
		return "master"
	}
	return "worker"
}

// PoolOptions describe a MachineConfigPool.
type PoolOptions struct {
	Name    string
	UID     types.UID
	Created time.Time
	// Required pools carry the label the update waits for (master).
	Required       bool
	MaxUnavailable *intstr.IntOrString
	// Config is the rendered MachineConfig the pool and its status target.
	Config string
}

// Pool returns a MachineConfigPool targeting o.Config, with an empty status
// (its controller computes machine counts and conditions from the nodes).
func Pool(o PoolOptions) *mcfgv1.MachineConfigPool {
	labels := map[string]string{labelPoolPrefix + o.Name: ""}
	var mcSelector *metav1.LabelSelector
	switch o.Name {
	case "master", "worker":
		labels[labelMCOBuiltIn] = ""
		mcSelector = &metav1.LabelSelector{MatchLabels: map[string]string{mcfgv1.MachineConfigRoleLabelKey: o.Name}}
	default:
		mcSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: mcfgv1.MachineConfigRoleLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"worker", o.Name},
		}}}
	}
	if o.Required {
		labels[labelRequiredForUpgrade] = ""
	}
	sources := []corev1.ObjectReference{}
	for _, name := range BaseConfigNames(PoolRole(o.Name)) {
		sources = append(sources, corev1.ObjectReference{APIVersion: mcfgv1.GroupVersion.String(), Kind: "MachineConfig", Name: name})
	}
	return &mcfgv1.MachineConfigPool{
		TypeMeta: metav1.TypeMeta{APIVersion: gvMCP.GroupVersion().String(), Kind: gvMCP.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: o.Name, UID: o.UID, Generation: 3, CreationTimestamp: metav1.NewTime(o.Created), Labels: labels,
		},
		Spec: mcfgv1.MachineConfigPoolSpec{
			MachineConfigSelector: mcSelector,
			NodeSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{labelNodeRolePrefix + o.Name: ""}},
			MaxUnavailable:        o.MaxUnavailable,
			Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{
				ObjectReference: corev1.ObjectReference{Name: o.Config},
				Source:          sources,
			},
		},
		Status: mcfgv1.MachineConfigPoolStatus{
			ObservedGeneration: 3,
			Configuration: mcfgv1.MachineConfigPoolStatusConfiguration{
				ObjectReference: corev1.ObjectReference{Name: o.Config},
				Source:          sources,
			},
			CertExpirys: []mcfgv1.CertExpiry{},
		},
	}
}

// BaseConfig returns one of the MachineConfigs of role that rendered configs
// are built from, at release v.
func BaseConfig(name, role, v string, uid types.UID, created time.Time) *mcfgv1.MachineConfig {
	return &mcfgv1.MachineConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: gvMC.GroupVersion().String(), Kind: gvMC.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: uid, Generation: 1, CreationTimestamp: metav1.NewTime(created),
			Labels:      map[string]string{mcfgv1.MachineConfigRoleLabelKey: role},
			Annotations: map[string]string{annoGeneratedByController: controllerVersionAnnotation},
		},
		Spec: machineConfigSpec(v),
	}
}

// RenderedConfig returns the rendered MachineConfig name of pool for release v.
func RenderedConfig(pool *mcfgv1.MachineConfigPool, name, v string, uid types.UID, created time.Time) *mcfgv1.MachineConfig {
	return &mcfgv1.MachineConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: gvMC.GroupVersion().String(), Kind: gvMC.Kind},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: uid, Generation: 1, CreationTimestamp: metav1.NewTime(created),
			Annotations: map[string]string{
				annoGeneratedByController:              Digest("controller", v)[:40],
				insights.ReleaseImageVersionAnnotation: v,
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: mcfgv1.GroupVersion.String(), Kind: "MachineConfigPool", Name: pool.Name, UID: pool.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: machineConfigSpec(v),
	}
}

func machineConfigSpec(v string) mcfgv1.MachineConfigSpec {
	return mcfgv1.MachineConfigSpec{
		OSImageURL:                     ComponentImage("rhel-coreos", v),
		BaseOSExtensionsContainerImage: ComponentImage("rhel-coreos-extensions", v),
		Config:                         runtime.RawExtension{Raw: []byte(`{"ignition":{"version":"3.5.0"}}`)},
		KernelArguments:                []string{},
		Extensions:                     []string{},
	}
}

// MCODeployment returns the machine-config-operator Deployment running
// release v, created with the cluster at installed and owned by the
// ClusterVersion of UID owner.
func MCODeployment(v string, uid, owner types.UID, installed time.Time) *appsv1.Deployment {
	labels := map[string]string{"k8s-app": insights.MCODeploymentName}
	d := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name: insights.MCODeploymentName, Namespace: insights.MCONamespace, UID: uid, Generation: 1,
			CreationTimestamp: metav1.NewTime(installed),
			Labels:            labels,
			Annotations: map[string]string{
				releaseIncludeHA: "true", releaseIncludeSNO: "true", releaseExcludeHosted: "true",
				"deployment.kubernetes.io/revision": "1",
			},
			OwnerReferences: ClusterVersionOwner(owner),
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
	SetMCODeploymentRelease(d, v)
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1,
	}
	SetDeploymentCondition(&d.Status.Conditions, appsv1.DeploymentAvailable, corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability.", installed)
	SetDeploymentCondition(&d.Status.Conditions, appsv1.DeploymentProgressing, corev1.ConditionTrue, "NewReplicaSetAvailable", fmt.Sprintf("ReplicaSet %q has successfully progressed.", insights.MCODeploymentName+"-"+Digest("rs", v)[:10]), installed)
	return d
}

// SetMCODeploymentRelease points the Deployment's containers at release v,
// as the cluster-version operator does when it applies the new manifest.
func SetMCODeploymentRelease(d *appsv1.Deployment, v string) {
	img := MCOImage(v)
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
			Image: ComponentImage("kube-rbac-proxy", v),
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

// NodeName returns the name of the i-th node (an AWS-style private DNS name).
func NodeName(i int) string {
	return fmt.Sprintf("ip-10-0-%d-%d.%s.compute.internal", i/250, 4+i%250, region)
}

// NodeOptions describe a node settled on its pool's configuration.
type NodeOptions struct {
	// Index numbers the node in the cluster; its name and addresses derive from it.
	Index int
	Pool  string
	// Roles are the node-role labels the node carries.
	Roles []string
	// InfraID prefixes the node's Machine.
	InfraID string
	// SingleReplica is a single-node cluster; Tainted a control-plane node
	// that runs no workloads.
	SingleReplica, Tainted bool
	// Config is the rendered MachineConfig the node runs, of release Version.
	Config, Version string
	UID             types.UID
	BootID          string
	Created         time.Time
	// Images is how many container images the node reports in
	// status.images, as a kubelet does (at most --node-status-max-images,
	// 50 by default): most of a real Node's size. 0 reports none.
	Images int
}

// NodeCapacity is the capacity of a node of 4 CPUs and 16 GiB, as an AWS
// m6i.xlarge reports it.
func NodeCapacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16092488Ki"),
		corev1.ResourcePods: resource.MustParse("250"), corev1.ResourceEphemeralStorage: resource.MustParse("125238252Ki"),
	}
}

// NodeAllocatable is what the kubelet of a NodeCapacity node leaves to pods.
func NodeAllocatable() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("3500m"), corev1.ResourceMemory: resource.MustParse("14941512Ki"),
		corev1.ResourcePods: resource.MustParse("250"), corev1.ResourceEphemeralStorage: resource.MustParse("114345831029"),
	}
}

// Node returns a node settled on o.Config: Ready, with the machine-config
// daemon's annotations Done.
func Node(o NodeOptions) *corev1.Node {
	i := o.Index
	name := NodeName(i)
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
	for _, r := range o.Roles {
		labels[labelNodeRolePrefix+r] = ""
	}
	topology := "HighlyAvailable"
	if o.SingleReplica {
		topology = "SingleReplica"
	}
	cfg := o.Config
	created := o.Created
	machine := fmt.Sprintf("openshift-machine-api/%s-%s-%s-%d", o.InfraID, PoolRole(o.Pool), zone, i)
	node := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: o.UID, CreationTimestamp: metav1.NewTime(created), Labels: labels,
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
			ProviderID: fmt.Sprintf("aws:///%s/i-0%s", zone, Digest("instance", name)[:16]),
		},
		Status: corev1.NodeStatus{
			Capacity:    NodeCapacity(),
			Allocatable: NodeAllocatable(),
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.0.%d.%d", i/250, 4+i%250)},
				{Type: corev1.NodeHostName, Address: name},
				{Type: corev1.NodeInternalDNS, Address: name},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		},
	}
	if o.Tainted {
		node.Spec.Taints = []corev1.Taint{{Key: labelNodeRolePrefix + "master", Effect: corev1.TaintEffectNoSchedule}}
	}
	SetNodeInfo(node, o.Version, o.BootID)
	node.Status.Images = nodeImages(o.Images)
	booted := created.Add(2 * time.Minute)
	SetNodeCondition(&node.Status.Conditions, corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", created)
	SetNodeCondition(&node.Status.Conditions, corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", created)
	SetNodeCondition(&node.Status.Conditions, corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available", created)
	SetNodeCondition(&node.Status.Conditions, corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", booted)
	return node
}

// nodeImages returns n container images as a kubelet reports them, largest
// first: each by digest and most also by tag, with the sizes of a release's
// payload images. Every node reports the same ones, as the nodes of a pool
// that run the same payload do.
func nodeImages(n int) []corev1.ContainerImage {
	if n <= 0 {
		return nil
	}
	const repo = "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:"
	images := make([]corev1.ContainerImage, n)
	for i := range images {
		names := []string{repo + Digest("image", strconv.Itoa(i))}
		if i%3 != 0 {
			names = append(names, fmt.Sprintf("registry.example.com/workloads/app-%d:v1.%d", i, i%7))
		}
		images[i] = corev1.ContainerImage{Names: names, SizeBytes: int64(1_900_000_000 - (i%60)*31_000_000)}
	}
	return images
}

// SetNodeInfo fills the node's system info for a node booted into release v.
func SetNodeInfo(node *corev1.Node, v, bootID string) {
	node.Status.NodeInfo = corev1.NodeSystemInfo{
		MachineID:               Digest("machine", node.Name)[:32],
		SystemUUID:              Digest("system", node.Name)[:8] + "-" + Digest("system", node.Name)[8:12] + "-" + Digest("system", node.Name)[12:16] + "-" + Digest("system", node.Name)[16:20] + "-" + Digest("system", node.Name)[20:32],
		BootID:                  bootID,
		KernelVersion:           fmt.Sprintf("5.14.0-570.%d.1.el9_6.x86_64", 20+len(v)),
		OSImage:                 rhcosVersion(v),
		ContainerRuntimeVersion: "cri-o://" + KubeVersion(v) + "-2.rhaos" + majorMinor(v) + ".el9",
		KubeletVersion:          "v" + KubeVersion(v),
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
