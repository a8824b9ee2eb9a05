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

package hosted

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/utils/ptr"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/openshift/hypershift/api/util/ipnet"
	"github.com/update-status/apiserver/pkg/hypershift"
)

// Components are the ControlPlaneComponents of a simulated hosted cluster:
// the core components the control-plane operator registers
// (registerComponents in hostedcontrolplane_controller.go), in the order this
// simulator rolls them.
var Components = []string{
	"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler",
	"openshift-apiserver", "openshift-oauth-apiserver", "oauth-openshift",
	"openshift-controller-manager", "openshift-route-controller-manager",
	"cluster-policy-controller", "cluster-version-operator",
	"hosted-cluster-config-operator", "control-plane-pki-operator", "featuregate-generator",
}

// moreComponents follow Components when a control plane has more
// (Options.Components): operators of the hosted cluster's payload that a
// control plane of the control-plane operator runs on the management side.
var moreComponents = []string{
	"cluster-network-operator", "cluster-node-tuning-operator", "dns-operator", "ingress-operator",
	"machine-approver", "cloud-credential-operator", "cluster-storage-operator", "csi-snapshot-controller-operator",
	"cluster-image-registry-operator", "olm-operator", "catalog-operator", "packageserver",
	"olm-collect-profiles", "certified-operators-catalog", "community-operators-catalog", "redhat-marketplace-catalog",
	"redhat-operators-catalog", "ignition-server", "ignition-server-proxy", "konnectivity-agent",
	"router", "cluster-autoscaler",
}

// ComponentNames names n ControlPlaneComponents: Components, then further
// operators, then component-N.
func ComponentNames(n int) []string {
	out := make([]string, 0, n)
	for i := range n {
		switch {
		case i < len(Components):
			out = append(out, Components[i])
		case i < len(Components)+len(moreComponents):
			out = append(out, moreComponents[i-len(Components)])
		default:
			out = append(out, fmt.Sprintf("component-%d", i+1))
		}
	}
	return out
}

// ReleaseImage is the release image of an OCP version.
func ReleaseImage(v string) string {
	return "quay.io/openshift-release-dev/ocp-release:" + v + "-x86_64"
}

// badReleaseImage is the image of the bad-release-image fault: no payload
// answers to it.
func badReleaseImage(v string) string {
	return "quay.io/openshift-release-dev/ocp-release:" + v + "-does-not-exist"
}

// KubeletVersion is the kubelet version of an OCP version (4.x runs
// Kubernetes 1.(x+13)).
func KubeletVersion(v string) string {
	sv, err := version.ParseGeneric(v)
	if err != nil {
		return "v0.0.0"
	}
	return fmt.Sprintf("v1.%d.%d", sv.Minor()+13, sv.Patch()%10)
}

// configHash stands for the NodePool's config hash of a version.
func configHash(v string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(v))
	return fmt.Sprintf("%08x", h.Sum32())
}

// suffix makes a five-letter name suffix as CAPI's name generator would.
func suffix(parts ...string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(strings.Join(parts, "/")))
	n := h.Sum64()
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	out := make([]byte, 5)
	for i := range out {
		out[i] = letters[n%uint64(len(letters))]
		n /= uint64(len(letters))
	}
	return string(out)
}

func meta(t time.Time) metav1.Time { return metav1.NewTime(t.UTC().Truncate(time.Second)) }

// condition returns the condition of type typ in conds, appended (with
// only its type set) when missing; key reads a condition's type.
func condition[C any](conds *[]C, typ string, key func(*C) string, init func(*C)) *C {
	for i := range *conds {
		if key(&(*conds)[i]) == typ {
			return &(*conds)[i]
		}
	}
	var c C
	init(&c)
	*conds = append(*conds, c)
	return &(*conds)[len(*conds)-1]
}

// transitionTime returns the condition's new transition time: now when its
// status changes, else the old one.
func transitionTime[S comparable](old, new S, last metav1.Time, now time.Time) metav1.Time {
	if old != new || last.IsZero() {
		return meta(now)
	}
	return last
}

// setCondition sets a metav1.Condition, keeping the transition time when the
// status does not change.
func setCondition(conds *[]metav1.Condition, now time.Time, typ string, status metav1.ConditionStatus, reason, message string, gen int64) {
	c := condition(conds, typ, func(c *metav1.Condition) string { return c.Type }, func(c *metav1.Condition) { c.Type = typ })
	c.LastTransitionTime = transitionTime(c.Status, status, c.LastTransitionTime, now)
	c.Status, c.Reason, c.Message, c.ObservedGeneration = status, reason, message, gen
}

// setPoolCondition is setCondition for HyperShift's NodePool conditions.
func setPoolCondition(conds *[]hyperv1.NodePoolCondition, now time.Time, typ string, status corev1.ConditionStatus, reason, message string, gen int64) {
	c := condition(conds, typ, func(c *hyperv1.NodePoolCondition) string { return c.Type }, func(c *hyperv1.NodePoolCondition) { c.Type = typ })
	c.LastTransitionTime = transitionTime(c.Status, status, c.LastTransitionTime, now)
	c.Status, c.Reason, c.Message, c.ObservedGeneration = status, reason, message, gen
}

// setMachineCondition is setCondition for Cluster API's v1beta1 conditions
// (a True condition has no severity, reason or message).
func setMachineCondition(conds *capiv1.Conditions, now time.Time, typ capiv1.ConditionType, status corev1.ConditionStatus, severity capiv1.ConditionSeverity, reason, message string) {
	if status == corev1.ConditionTrue {
		severity, reason, message = capiv1.ConditionSeverityNone, "", ""
	}
	list := []capiv1.Condition(*conds)
	c := condition(&list, string(typ), func(c *capiv1.Condition) string { return string(c.Type) }, func(c *capiv1.Condition) { c.Type = typ })
	c.LastTransitionTime = transitionTime(c.Status, status, c.LastTransitionTime, now)
	c.Status, c.Severity, c.Reason, c.Message = status, severity, reason, message
	*conds = list
}

// machineCondition returns the status of a Machine condition.
func machineCondition(m *capiv1.Machine, typ capiv1.ConditionType) corev1.ConditionStatus {
	for _, c := range m.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return corev1.ConditionUnknown
}

// newHostedCluster builds a HostedCluster at version v, its history
// Completed, as HyperShift shows an installed cluster.
func newHostedCluster(ns, name, v string, installed time.Time) *hyperv1.HostedCluster {
	image := ReleaseImage(v)
	hc := &hyperv1.HostedCluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: hyperv1.GroupVersion.String(), Kind: "HostedCluster"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: hyperv1.HostedClusterSpec{
			Release:    hyperv1.Release{Image: image},
			InfraID:    name + "-" + suffix(ns, name),
			ClusterID:  clusterID(ns, name),
			PullSecret: corev1.LocalObjectReference{Name: name + "-pull-secret"},
			Platform:   hyperv1.PlatformSpec{Type: hyperv1.NonePlatform},
			Networking: hyperv1.ClusterNetworking{
				NetworkType:    hyperv1.OVNKubernetes,
				ClusterNetwork: []hyperv1.ClusterNetworkEntry{{CIDR: mustCIDR("10.132.0.0/14")}},
				ServiceNetwork: []hyperv1.ServiceNetworkEntry{{CIDR: mustCIDR("172.31.0.0/16")}},
			},
			Services: []hyperv1.ServicePublishingStrategyMapping{
				{Service: hyperv1.APIServer, ServicePublishingStrategy: hyperv1.ServicePublishingStrategy{Type: hyperv1.LoadBalancer}},
				{Service: hyperv1.OAuthServer, ServicePublishingStrategy: hyperv1.ServicePublishingStrategy{Type: hyperv1.Route}},
				{Service: hyperv1.Konnectivity, ServicePublishingStrategy: hyperv1.ServicePublishingStrategy{Type: hyperv1.Route}},
				{Service: hyperv1.Ignition, ServicePublishingStrategy: hyperv1.ServicePublishingStrategy{Type: hyperv1.Route}},
			},
			Etcd: hyperv1.EtcdSpec{
				ManagementType: hyperv1.Managed,
				Managed: &hyperv1.ManagedEtcdSpec{Storage: hyperv1.ManagedEtcdStorageSpec{
					Type:             hyperv1.PersistentVolumeEtcdStorage,
					PersistentVolume: &hyperv1.PersistentVolumeEtcdStorageSpec{Size: ptr.To(hyperv1.DefaultPersistentVolumeEtcdStorageSize)},
				}},
			},
		},
	}
	hc.Status.Version = &hyperv1.ClusterVersionStatus{
		Desired: configv1.Release{Version: v, Image: image},
		History: []configv1.UpdateHistory{{
			State: configv1.CompletedUpdate, StartedTime: meta(installed), CompletionTime: ptr.To(meta(installed)),
			Version: v, Image: image, Verified: false,
		}},
		ObservedGeneration: 1,
	}
	return hc
}

// clusterID derives a UUID-shaped cluster ID from the names.
func clusterID(ns, name string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(ns + "/" + name))
	a := h.Sum64()
	_, _ = h.Write([]byte("2"))
	b := h.Sum64()
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", uint32(a>>32), uint16(a>>16), uint16(a), uint16(b>>48), b&0xffffffffffff)
}

// newNodePool builds a NodePool of the hosted cluster with replicas nodes,
// its management defaulted as HyperShift defaults it (Replace: RollingUpdate
// with maxSurge 1 and maxUnavailable 0; InPlace: maxUnavailable 1).
func newNodePool(hc *hyperv1.HostedCluster, name string, upgrade hyperv1.UpgradeType, replicas int32, drainTimeout time.Duration) *hyperv1.NodePool {
	np := &hyperv1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: hyperv1.GroupVersion.String(), Kind: "NodePool"},
		ObjectMeta: metav1.ObjectMeta{Namespace: hc.Namespace, Name: name},
		Spec: hyperv1.NodePoolSpec{
			ClusterName: hc.Name,
			Replicas:    ptr.To(replicas),
			Release:     hyperv1.Release{Image: hc.Spec.Release.Image},
			Platform:    hyperv1.NodePoolPlatform{Type: hyperv1.NonePlatform},
			Management:  hyperv1.NodePoolManagement{UpgradeType: upgrade, AutoRepair: false},
		},
	}
	if drainTimeout > 0 {
		np.Spec.NodeDrainTimeout = &metav1.Duration{Duration: drainTimeout}
	}
	switch upgrade {
	case hyperv1.UpgradeTypeReplace:
		np.Spec.Management.Replace = &hyperv1.ReplaceUpgrade{
			Strategy: hyperv1.UpgradeStrategyRollingUpdate,
			RollingUpdate: &hyperv1.RollingUpdate{
				MaxSurge:       ptr.To(intstr.FromInt32(1)),
				MaxUnavailable: ptr.To(intstr.FromInt32(0)),
			},
		}
	case hyperv1.UpgradeTypeInPlace:
		np.Spec.Management.InPlace = &hyperv1.InPlaceUpgrade{MaxUnavailable: ptr.To(intstr.FromInt32(1))}
	}
	return np
}

// newHostedControlPlane builds the HostedControlPlane of hc in namespace cpNS.
func newHostedControlPlane(hc *hyperv1.HostedCluster, cpNS string) *hyperv1.HostedControlPlane {
	return &hyperv1.HostedControlPlane{
		TypeMeta: metav1.TypeMeta{APIVersion: hyperv1.GroupVersion.String(), Kind: "HostedControlPlane"},
		ObjectMeta: metav1.ObjectMeta{Namespace: cpNS, Name: hc.Name,
			Annotations: map[string]string{hypershift.HostedClusterAnnotation: hc.Namespace + "/" + hc.Name}},
		Spec: hyperv1.HostedControlPlaneSpec{
			ReleaseImage: hc.Spec.Release.Image,
			PullSecret:   hc.Spec.PullSecret,
			IssuerURL:    "https://kubernetes.default.svc",
			SSHKey:       corev1.LocalObjectReference{Name: hc.Name + "-ssh-key"},
			InfraID:      hc.Spec.InfraID,
			ClusterID:    hc.Spec.ClusterID,
			Platform:     hc.Spec.Platform,
			DNS:          hyperv1.DNSSpec{BaseDomain: "example.com"},
			Networking:   hc.Spec.Networking,
			Services:     hc.Spec.Services,
			Etcd:         hc.Spec.Etcd,
		},
	}
}

// newComponent builds a ControlPlaneComponent that runs version v.
func newComponent(cpNS, name, v string, now time.Time) *hyperv1.ControlPlaneComponent {
	c := &hyperv1.ControlPlaneComponent{
		TypeMeta:   metav1.TypeMeta{APIVersion: hyperv1.GroupVersion.String(), Kind: "ControlPlaneComponent"},
		ObjectMeta: metav1.ObjectMeta{Namespace: cpNS, Name: name},
	}
	c.Status.Version = v
	c.Status.Resources = []hyperv1.ComponentResource{{Kind: "Deployment", Group: "apps", Name: name}}
	setCondition(&c.Status.Conditions, now, string(hyperv1.ControlPlaneComponentAvailable), metav1.ConditionTrue, "AsExpected", "", 1)
	setCondition(&c.Status.Conditions, now, string(hyperv1.ControlPlaneComponentRolloutComplete), metav1.ConditionTrue, "AsExpected", "", 1)
	return c
}

// mustCIDR parses a constant CIDR.
func mustCIDR(s string) ipnet.IPNet {
	n, err := ipnet.ParseCIDR(s)
	if err != nil {
		panic(err)
	}
	return *n
}
