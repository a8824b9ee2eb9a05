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

package insights

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/hypershift"
)

// The hosted fixtures follow the background notes on hosted control planes
// (HyperShift hostedcluster_controller.go, controlplaneversion.go,
// support/controlplane-component/status.go, nodepool capi.go and
// inplace.go; Cluster API machine_phase_types.go and condition_consts.go):
// HostedCluster "prod" in namespace "clusters", its control plane in
// "clusters-prod", one NodePool "workers" updating 4.20.1 to 4.20.2.

const (
	hNS, hName, hCPNS = "clusters", "prod", "clusters-prod"
	vOld, vNew        = "4.20.1", "4.20.2"
)

var hT0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func hImage(v string) string { return "quay.io/openshift-release-dev/ocp-release:" + v + "-x86_64" }

func hCond(typ string, status metav1.ConditionStatus, reason, msg string, at time.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: mt(at)}
}

// hostedUpdating is a HostedCluster updating from vOld to vNew since
// started, as HyperShift reports it with controlPlaneVersion.
func hostedUpdating(started time.Time) *hypershift.HostedCluster {
	installed := hT0.Add(-30 * 24 * time.Hour)
	hc := &hypershift.HostedCluster{}
	hc.Namespace, hc.Name, hc.UID = hNS, hName, "hc-uid"
	hc.CreationTimestamp = mt(installed)
	hc.Spec.Release.Image = hImage(vNew)
	hc.Status.Version = &hyperv1.ClusterVersionStatus{
		Desired: configv1.Release{Version: vNew, Image: hImage(vNew)},
		History: []configv1.UpdateHistory{
			{State: configv1.PartialUpdate, StartedTime: mt(started), Version: vNew, Image: hImage(vNew)},
			{State: configv1.CompletedUpdate, StartedTime: mt(installed), CompletionTime: ptr(mt(installed.Add(time.Hour))), Version: vOld, Image: hImage(vOld)},
		},
	}
	hc.ControlPlaneVersion = &hypershift.ControlPlaneVersionStatus{
		Desired: configv1.Release{Version: vNew, Image: hImage(vNew)},
		History: []hypershift.ControlPlaneUpdateHistory{
			{State: configv1.PartialUpdate, StartedTime: mt(started), Version: vNew, Image: hImage(vNew)},
			{State: configv1.CompletedUpdate, StartedTime: mt(installed), CompletionTime: ptr(mt(started)), Version: vOld, Image: hImage(vOld)},
		},
	}
	hc.Status.Conditions = []metav1.Condition{
		hCond(string(hyperv1.HostedClusterProgressing), metav1.ConditionTrue, "Progressing", "", started),
		hCond(string(hyperv1.ClusterVersionProgressing), metav1.ConditionTrue, "FromClusterVersion", "Working towards "+vNew, started),
		hCond(string(hyperv1.ClusterVersionSucceeding), metav1.ConditionTrue, "FromClusterVersion", "", installed),
		hCond(string(hyperv1.ValidReleaseImage), metav1.ConditionTrue, "AsExpected", "", installed),
	}
	return hc
}

// hostedCompleted marks the update of hc completed at done.
func hostedCompleted(hc *hypershift.HostedCluster, done time.Time) {
	hc.Status.Version.History[0].State = configv1.CompletedUpdate
	hc.Status.Version.History[0].CompletionTime = ptr(mt(done))
	hc.ControlPlaneVersion.History[0].State = configv1.CompletedUpdate
	hc.ControlPlaneVersion.History[0].CompletionTime = ptr(mt(done))
	hc.Status.Conditions[1] = hCond(string(hyperv1.ClusterVersionProgressing), metav1.ConditionFalse, "FromClusterVersion", "Cluster version is "+vNew, done)
}

// component is a ControlPlaneComponent at version v; rolling leaves its
// rollout incomplete since at (the version is written once it completes).
func component(name, v string, rolling bool, at time.Time) *hypershift.ControlPlaneComponent {
	c := &hypershift.ControlPlaneComponent{}
	c.Namespace, c.Name, c.UID, c.ResourceVersion = hCPNS, name, types.UID("cpc-"+name), "1"
	c.Status.Version = v
	c.Status.Conditions = []metav1.Condition{hCond("Available", metav1.ConditionTrue, "AsExpected", "", hT0.Add(-time.Hour))}
	if rolling {
		c.Status.Conditions = append(c.Status.Conditions, hCond("RolloutComplete", metav1.ConditionFalse, "WaitingForRolloutComplete",
			"1 out of 3 new replicas have been updated", at))
	} else {
		c.Status.Conditions = append(c.Status.Conditions, hCond("RolloutComplete", metav1.ConditionTrue, "AsExpected", "", at))
	}
	return c
}

// nodePool is the NodePool "workers" of the given upgrade type.
func nodePool(upgrade hyperv1.UpgradeType, drainTimeout time.Duration) *hypershift.NodePool {
	np := &hypershift.NodePool{}
	np.Namespace, np.Name, np.UID = hNS, "workers", "np-uid"
	np.CreationTimestamp = mt(hT0.Add(-30 * 24 * time.Hour))
	np.Spec.ClusterName = hName
	np.Spec.Release.Image = hImage(vNew)
	np.Spec.Management.UpgradeType = upgrade
	if drainTimeout > 0 {
		np.Spec.NodeDrainTimeout = &metav1.Duration{Duration: drainTimeout}
	}
	np.Status.Version = vOld
	np.Status.Conditions = []hyperv1.NodePoolCondition{{Type: hyperv1.NodePoolUpdatingVersionConditionType, Status: corev1.ConditionTrue,
		Reason: "AsExpected", Message: "Updating version in progress. Target version: " + vNew, LastTransitionTime: mt(hT0)}}
	return np
}

func template(v string) capiv1.MachineTemplateSpec {
	var t capiv1.MachineTemplateSpec
	t.Annotations = map[string]string{hypershift.NodePoolAnnotation: hNS + "/workers", hypershift.ReleaseVersionAnnotation: v}
	t.Spec.Version = ptr(v)
	return t
}

// machineDeployment is the Replace pool's MachineDeployment, its template at v.
func machineDeployment(v string) *capiv1.MachineDeployment {
	md := &capiv1.MachineDeployment{}
	md.Namespace, md.Name = hCPNS, "workers"
	md.Annotations = map[string]string{hypershift.NodePoolAnnotation: hNS + "/workers"}
	md.Spec.Template = template(v)
	return md
}

// machineSet is the InPlace pool's MachineSet, updating from current to
// target config.
func machineSet(v, current, target string) *capiv1.MachineSet {
	ms := &capiv1.MachineSet{}
	ms.Namespace, ms.Name = hCPNS, "workers"
	ms.Annotations = map[string]string{hypershift.NodePoolAnnotation: hNS + "/workers",
		hypershift.NodePoolCurrentConfigVersionAnnotation: current, hypershift.NodePoolTargetConfigVersionAnnotation: target}
	ms.Spec.Template = template(v)
	return ms
}

// machine is a Machine of the pool at version v in the given phase; a
// Running one has its node (named node, or after the Machine).
func machine(name, node, v string, phase capiv1.MachinePhase, at time.Time) *capiv1.Machine {
	m := &capiv1.Machine{}
	m.Namespace, m.Name, m.UID, m.ResourceVersion = hCPNS, name, types.UID("m-"+name), "7"
	m.CreationTimestamp = mt(at)
	m.Labels = map[string]string{capiv1.MachineDeploymentNameLabel: "workers"}
	m.Annotations = map[string]string{hypershift.NodePoolAnnotation: hNS + "/workers", hypershift.ReleaseVersionAnnotation: v}
	m.Spec.Version = ptr(v)
	m.Status.Phase = string(phase)
	ready := corev1.ConditionFalse
	if phase == capiv1.MachinePhaseRunning {
		if node == "" {
			node = name
		}
		m.Status.NodeRef = &corev1.ObjectReference{Kind: "Node", Name: node}
		ready = corev1.ConditionTrue
	}
	m.Status.Conditions = capiv1.Conditions{
		{Type: capiv1.MachineNodeHealthyCondition, Status: ready, LastTransitionTime: mt(at)},
		{Type: capiv1.InfrastructureReadyCondition, Status: ready, LastTransitionTime: mt(at)},
	}
	if ready == corev1.ConditionFalse {
		m.Status.Conditions[0].Reason = capiv1.WaitingForNodeRefReason
		m.Status.Conditions[0].Severity = capiv1.ConditionSeverityInfo
		m.Status.Conditions[1].Reason = capiv1.WaitingForInfrastructureFallbackReason
		m.Status.Conditions[1].Severity = capiv1.ConditionSeverityInfo
	}
	return m
}

// draining deletes m and starts its drain at start.
func draining(m *capiv1.Machine, start time.Time) *capiv1.Machine {
	m.DeletionTimestamp = ptr(mt(start))
	m.Status.Phase = string(capiv1.MachinePhaseDeleting)
	m.Status.Deletion = &capiv1.MachineDeletionStatus{NodeDrainStartTime: ptr(mt(start))}
	m.Status.Conditions = append(m.Status.Conditions, capiv1.Condition{Type: capiv1.DrainingSucceededCondition, Status: corev1.ConditionFalse,
		Severity: capiv1.ConditionSeverityInfo, Reason: capiv1.DrainingReason,
		Message: "Drain not completed yet:\n* Pods with deletionTimestamp that still exist: router-default-x", LastTransitionTime: mt(start)})
	return m
}

// replaceMidRollout is a Replace pool mid-rollout: one old Machine
// pending, one draining, a surge Machine provisioning and one new Machine
// running under a node name unlike its Machine's.
func replaceMidRollout(now time.Time, drainTimeout time.Duration, drainStart time.Time) *HostedSources {
	hc := hostedUpdating(hT0)
	return &HostedSources{
		HostedCluster: hc,
		Components: []*hypershift.ControlPlaneComponent{
			component("etcd", vNew, false, hT0.Add(5*time.Minute)),
			component("kube-apiserver", vNew, false, hT0.Add(10*time.Minute)),
			component("kube-scheduler", vOld, true, now.Add(-2*time.Minute)),
		},
		NodePools:          []*hypershift.NodePool{nodePool(hyperv1.UpgradeTypeReplace, drainTimeout)},
		MachineDeployments: []*capiv1.MachineDeployment{machineDeployment(vNew)},
		Machines: []*capiv1.Machine{
			machine("workers-old-a", "ip-10-0-0-1.ec2.internal", vOld, capiv1.MachinePhaseRunning, hT0.Add(-24*time.Hour)),
			draining(machine("workers-old-b", "ip-10-0-0-2.ec2.internal", vOld, capiv1.MachinePhaseRunning, hT0.Add(-24*time.Hour)), drainStart),
			machine("workers-new-c", "", vNew, capiv1.MachinePhaseProvisioning, now.Add(-2*time.Minute)),
			machine("workers-new-d", "ip-10-0-1-7.ec2.internal", vNew, capiv1.MachinePhaseRunning, hT0.Add(20*time.Minute)),
		},
	}
}

// inPlaceMidReboot is an InPlace pool mid-update: one Machine updated, one
// rebooting (NodeHealthy False), one pending.
func inPlaceMidReboot(now time.Time) *HostedSources {
	hc := hostedUpdating(hT0)
	rebooting := machine("workers-b", "", vOld, capiv1.MachinePhaseRunning, hT0.Add(-24*time.Hour))
	rebooting.Status.Conditions[0] = capiv1.Condition{Type: capiv1.MachineNodeHealthyCondition, Status: corev1.ConditionFalse,
		Severity: capiv1.ConditionSeverityWarning, Reason: capiv1.NodeConditionsFailedReason,
		Message: "Node workers-b: condition Ready is False: kubelet stopped posting node status", LastTransitionTime: mt(now.Add(-time.Minute))}
	ms := machineSet(vNew, "aaaa", "bbbb")
	ms.Annotations[hypershift.NodePoolUpgradeInProgressTrueAnnotation] = "Upgrading nodes in nodepool workers to version " + vNew + ". Total Nodes: 3. Upgraded: 1"
	return &HostedSources{
		HostedCluster: hc,
		Components:    []*hypershift.ControlPlaneComponent{component("etcd", vNew, false, hT0), component("kube-apiserver", vNew, false, hT0)},
		NodePools:     []*hypershift.NodePool{nodePool(hyperv1.UpgradeTypeInPlace, 0)},
		MachineSets:   []*capiv1.MachineSet{ms},
		Machines: []*capiv1.Machine{
			machine("workers-a", "", vNew, capiv1.MachinePhaseRunning, hT0.Add(10*time.Minute)),
			rebooting,
			machine("workers-c", "", vOld, capiv1.MachinePhaseRunning, hT0.Add(-24*time.Hour)),
		},
	}
}

// mustValidHosted fails the test when the result is not a valid object.
func mustValidHosted(t testing.TB, res Result) {
	t.Helper()
	mustValid(t, res)
	for _, in := range res.Insights {
		if in.UID == "" || !conventions.IsDNSLabel(in.UID) {
			t.Fatalf("insight with uid %q", in.UID)
		}
	}
}

// phases returns each node insight's Updating reason by node name.
func phases(res Result) map[string]string {
	out := map[string]string{}
	for _, f := range all(&res.Status) {
		if f.node != nil {
			out[f.node.Name] = cond(f.node.Conditions, string(v1alpha1.NodeStatusInsightUpdating)).Reason
		}
	}
	return out
}

func healthKinds(res Result) map[v1alpha1.HealthKind]*v1alpha1.HealthStatusInsight {
	out := map[v1alpha1.HealthKind]*v1alpha1.HealthStatusInsight{}
	for _, f := range healthOf(res, "") {
		out[conventions.KindOf(f.uid)] = f.h
	}
	return out
}

func TestComputeHostedPhases(t *testing.T) {
	now := hT0.Add(30 * time.Minute)
	tests := []struct {
		name          string
		src           func() *HostedSources
		want          map[string]string
		cpAssessment  v1alpha1.ControlPlaneAssessment
		cpCompletion  int32
		poolAssess    v1alpha1.PoolAssessment
		poolCompleted int32
	}{
		{
			name: "Replace mid-rollout: node names change",
			src:  func() *HostedSources { return replaceMidRollout(now, 0, now.Add(-time.Minute)) },
			want: map[string]string{
				"ip-10-0-0-1.ec2.internal": string(v1alpha1.NodeUpdatePending),
				"ip-10-0-0-2.ec2.internal": string(v1alpha1.NodeDraining),
				"workers-new-c":            string(v1alpha1.NodeUpdating),
				"ip-10-0-1-7.ec2.internal": string(v1alpha1.NodeCompleted),
			},
			cpAssessment: v1alpha1.ControlPlaneAssessmentProgressing, cpCompletion: 67,
			poolAssess: v1alpha1.PoolProgressing, poolCompleted: 25,
		},
		{
			name: "InPlace mid-reboot",
			src:  func() *HostedSources { return inPlaceMidReboot(now) },
			want: map[string]string{
				"workers-a": string(v1alpha1.NodeCompleted),
				"workers-b": string(v1alpha1.NodeRebooting),
				"workers-c": string(v1alpha1.NodeUpdatePending),
			},
			// Every component runs the target: the control plane is done
			// while the CVO still waits for the nodes.
			cpAssessment: v1alpha1.ControlPlaneAssessmentCompleted, cpCompletion: 100,
			poolAssess: v1alpha1.PoolProgressing, poolCompleted: 33,
		},
		{
			name: "completed",
			src: func() *HostedSources {
				src := replaceMidRollout(now, 0, now)
				hostedCompleted(src.HostedCluster, now.Add(-time.Minute))
				src.Components[2] = component("kube-scheduler", vNew, false, hT0.Add(15*time.Minute))
				src.Machines = []*capiv1.Machine{
					machine("workers-new-c", "ip-10-0-1-8.ec2.internal", vNew, capiv1.MachinePhaseRunning, hT0.Add(25*time.Minute)),
					src.Machines[3],
				}
				src.NodePools[0].Status.Version = vNew
				src.NodePools[0].Status.Conditions[0].Status = corev1.ConditionFalse
				return src
			},
			want: map[string]string{
				"ip-10-0-1-8.ec2.internal": string(v1alpha1.NodeCompleted),
				"ip-10-0-1-7.ec2.internal": string(v1alpha1.NodeCompleted),
			},
			cpAssessment: v1alpha1.ControlPlaneAssessmentCompleted, cpCompletion: 100,
			poolAssess: v1alpha1.PoolCompleted, poolCompleted: 100,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := NewEngine().ComputeHosted(tt.src(), now)
			mustValidHosted(t, res)
			if got := phases(res); !equalMaps(got, tt.want) {
				t.Errorf("phases = %v, want %v", got, tt.want)
			}
			cv := cvOf(t, res)
			if cv == nil {
				t.Fatal("no control-plane insight")
			}
			if cv.Assessment != tt.cpAssessment || cv.Completion != tt.cpCompletion {
				t.Errorf("control plane %s %d%%, want %s %d%%", cv.Assessment, cv.Completion, tt.cpAssessment, tt.cpCompletion)
			}
			if want := (v1alpha1.ResourceRef{Group: "hypershift.openshift.io", Resource: "hostedclusters", Namespace: hNS, Name: hName}); cv.Resource != want {
				t.Errorf("control plane references %+v", cv.Resource)
			}
			if got := cv.Versions.Target.Version; got != vNew {
				t.Errorf("target %q", got)
			}
			mcp := mcpOf(res, "workers")
			if mcp == nil {
				t.Fatal("no pool insight")
			}
			if mcp.Assessment != tt.poolAssess || mcp.Completion != tt.poolCompleted {
				t.Errorf("pool %s %d%%, want %s %d%%", mcp.Assessment, mcp.Completion, tt.poolAssess, tt.poolCompleted)
			}
			if mcp.Resource.Resource != "nodepools" || mcp.Resource.Namespace != hNS || mcp.Scope != v1alpha1.WorkerPoolScope {
				t.Errorf("pool insight %+v scope %s", mcp.Resource, mcp.Scope)
			}
			if len(res.Status.WorkerPools) != 1 || res.Status.WorkerPools[0].Resource.Resource != "nodepools" {
				t.Errorf("worker pools %+v", res.Status.WorkerPools)
			}
			for _, f := range all(&res.Status) {
				switch {
				case f.node != nil:
					if r := f.node.Resource; r.Group != "cluster.x-k8s.io" || r.Resource != "machines" || r.Namespace != hCPNS || !strings.HasPrefix(r.Name, "workers-") {
						t.Errorf("node %s references %+v", f.node.Name, r)
					}
				case f.co != nil:
					if r := f.co.Resource; r.Resource != "controlplanecomponents" || r.Namespace != hCPNS || r.Name != f.co.Name {
						t.Errorf("component %s references %+v", f.co.Name, r)
					}
				}
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestComputeHostedHealth(t *testing.T) {
	now := hT0.Add(60 * time.Minute)
	type want struct {
		level v1alpha1.InsightImpactLevel
		scope v1alpha1.ScopeType
	}
	byName := func(src *HostedSources, name string) *capiv1.Machine {
		for _, m := range src.Machines {
			if m.Name == name {
				return m
			}
		}
		t.Fatalf("no machine %s", name)
		return nil
	}
	// stuck has kube-scheduler's rollout incomplete for d.
	stuck := func(d time.Duration) *HostedSources {
		src := replaceMidRollout(now, 0, now)
		src.Components[2] = component("kube-scheduler", vOld, true, now.Add(-d))
		return src
	}
	// withHC replaces the HostedCluster's condition i by c.
	withHC := func(i int, c metav1.Condition) *HostedSources {
		src := replaceMidRollout(now, 0, now)
		src.HostedCluster.Status.Conditions[i] = c
		return src
	}
	tests := []struct {
		name   string
		src    func() *HostedSources
		want   map[v1alpha1.HealthKind]want
		absent []v1alpha1.HealthKind
		// degraded names a node whose Degraded condition must be True.
		degraded string
	}{
		{
			name:   "drain within nodeDrainTimeout",
			src:    func() *HostedSources { return replaceMidRollout(now, 10*time.Minute, now.Add(-5*time.Minute)) },
			absent: []v1alpha1.HealthKind{v1alpha1.HealthMachineDrain, v1alpha1.HealthMachineProvision, v1alpha1.HealthComponentRollout},
		},
		{
			name: "drain held past nodeDrainTimeout",
			src:  func() *HostedSources { return replaceMidRollout(now, 10*time.Minute, now.Add(-11*time.Minute)) },
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthMachineDrain: {v1alpha1.ErrorImpactLevel, v1alpha1.WorkerPoolScope}},
		},
		{
			name: "drain without nodeDrainTimeout",
			src:  func() *HostedSources { return replaceMidRollout(now, 0, now.Add(-31*time.Minute)) },
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthMachineDrain: {v1alpha1.WarningImpactLevel, v1alpha1.WorkerPoolScope}},
		},
		{
			name: "Machine that fails to provision",
			src: func() *HostedSources {
				src := replaceMidRollout(now, 0, now)
				m := byName(src, "workers-new-c")
				m.Status.Conditions[1] = capiv1.Condition{Type: capiv1.InfrastructureReadyCondition, Status: corev1.ConditionFalse,
					Severity: capiv1.ConditionSeverityWarning, Reason: "InstanceProvisionFailed",
					Message: "Failed to provision the agent: no agent available", LastTransitionTime: mt(now.Add(-time.Minute))}
				return src
			},
			want:     map[v1alpha1.HealthKind]want{v1alpha1.HealthMachineProvision: {v1alpha1.ErrorImpactLevel, v1alpha1.WorkerPoolScope}},
			degraded: "workers-new-c",
		},
		{
			name: "Machine in phase Failed with a failure reason",
			src: func() *HostedSources {
				src := replaceMidRollout(now, 0, now)
				m := byName(src, "workers-new-c")
				m.Status.Phase = string(capiv1.MachinePhaseFailed)
				m.Status.FailureMessage = ptr("instance terminated") //nolint:staticcheck // a v1beta1 Machine's failure
				return src
			},
			want:     map[v1alpha1.HealthKind]want{v1alpha1.HealthMachineProvision: {v1alpha1.ErrorImpactLevel, v1alpha1.WorkerPoolScope}},
			degraded: "workers-new-c",
		},
		{
			name: "Machine provisioning for too long",
			src: func() *HostedSources {
				src := replaceMidRollout(now, 0, now)
				byName(src, "workers-new-c").CreationTimestamp = mt(now.Add(-31 * time.Minute))
				return src
			},
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthMachineProvision: {v1alpha1.WarningImpactLevel, v1alpha1.WorkerPoolScope}},
		},
		{
			name: "component rollout stuck",
			src:  func() *HostedSources { return stuck(11 * time.Minute) },
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthComponentRollout: {v1alpha1.WarningImpactLevel, v1alpha1.ControlPlaneScope}},
		},
		{
			name: "component rollout stuck for long",
			src:  func() *HostedSources { return stuck(31 * time.Minute) },
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthComponentRollout: {v1alpha1.ErrorImpactLevel, v1alpha1.ControlPlaneScope}},
		},
		{
			name: "bad release image",
			src: func() *HostedSources {
				src := replaceMidRollout(now, 0, now)
				c := src.HostedCluster.Status.Conditions
				c[0] = hCond("Progressing", metav1.ConditionFalse, "Blocked", "release image is invalid", now.Add(-time.Minute))
				c[3] = hCond("ValidReleaseImage", metav1.ConditionFalse, "InvalidImage", "failed to look up release image metadata", now.Add(-time.Minute))
				return src
			},
			want:   map[v1alpha1.HealthKind]want{v1alpha1.HealthHostedReleaseImage: {v1alpha1.ErrorImpactLevel, v1alpha1.ControlPlaneScope}},
			absent: []v1alpha1.HealthKind{v1alpha1.HealthHostedBlocked},
		},
		{
			name: "update blocked",
			src: func() *HostedSources {
				return withHC(0, hCond("Progressing", metav1.ConditionFalse, "Blocked", "ClusterVersionUpgradeable is False", now.Add(-time.Minute)))
			},
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthHostedBlocked: {v1alpha1.ErrorImpactLevel, v1alpha1.ControlPlaneScope}},
		},
		{
			name: "ClusterVersionFailing copied up from the hosted cluster",
			src: func() *HostedSources {
				return withHC(2, hCond("ClusterVersionSucceeding", metav1.ConditionFalse, "ClusterOperatorDegraded",
					"Cluster operator ingress is degraded", now.Add(-time.Minute)))
			},
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthCVFailing: {v1alpha1.WarningImpactLevel, v1alpha1.ControlPlaneScope}},
		},
		{
			name: "ClusterVersionFailing of the HostedControlPlane",
			src: func() *HostedSources {
				src := replaceMidRollout(now, 0, now)
				src.HostedCluster.Status.Conditions = src.HostedCluster.Status.Conditions[:2]
				src.HostedControlPlane = &hypershift.HostedControlPlane{}
				src.HostedControlPlane.Status.Conditions = []metav1.Condition{hCond("ClusterVersionFailing", metav1.ConditionTrue, "UpdatePayloadFailed",
					"Could not update deployment", now.Add(-time.Minute))}
				return src
			},
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthCVFailing: {v1alpha1.WarningImpactLevel, v1alpha1.ControlPlaneScope}},
		},
		{
			name: "NodePool version skew and release image",
			src: func() *HostedSources {
				src := replaceMidRollout(now, 0, now)
				np := src.NodePools[0]
				np.Status.Conditions = append(np.Status.Conditions,
					hyperv1.NodePoolCondition{Type: "SupportedVersionSkew", Status: corev1.ConditionFalse, Reason: "UnsupportedSkew",
						Message: "NodePool minor version 4.18 is more than 2 behind the control plane 4.21", LastTransitionTime: mt(now)},
					hyperv1.NodePoolCondition{Type: "ValidReleaseImage", Status: corev1.ConditionFalse, Reason: "ValidationFailed",
						Message: "NodePool version 4.22.0 is newer than the control plane", LastTransitionTime: mt(now)})
				return src
			},
			want: map[v1alpha1.HealthKind]want{
				v1alpha1.HealthNodePoolVersionSkew:  {v1alpha1.ErrorImpactLevel, v1alpha1.WorkerPoolScope},
				v1alpha1.HealthNodePoolReleaseImage: {v1alpha1.ErrorImpactLevel, v1alpha1.WorkerPoolScope},
			},
		},
		{
			name: "in-place update failed",
			src: func() *HostedSources {
				src := inPlaceMidReboot(now)
				src.MachineSets[0].Annotations[hypershift.NodePoolUpgradeInProgressFalseAnnotation] =
					"Node workers-c in nodepool degraded: failed to apply the update: disk full"
				return src
			},
			want:     map[v1alpha1.HealthKind]want{v1alpha1.HealthNodePoolInPlaceFailed: {v1alpha1.ErrorImpactLevel, v1alpha1.WorkerPoolScope}},
			degraded: "workers-c",
		},
		{
			name: "in-place update failed, from the NodePool condition",
			src: func() *HostedSources {
				src := inPlaceMidReboot(now)
				src.NodePools[0].Status.Conditions[0] = hyperv1.NodePoolCondition{Type: hyperv1.NodePoolUpdatingVersionConditionType,
					Status: corev1.ConditionFalse, Reason: "InplaceUpgradeFailed", Message: "Node workers-b in nodepool degraded: reboot failed",
					LastTransitionTime: mt(now)}
				return src
			},
			want:     map[v1alpha1.HealthKind]want{v1alpha1.HealthNodePoolInPlaceFailed: {v1alpha1.ErrorImpactLevel, v1alpha1.WorkerPoolScope}},
			degraded: "workers-b",
		},
		{
			name: "unknown upgrade type",
			src: func() *HostedSources {
				src := replaceMidRollout(now, 0, now)
				src.NodePools[0].Spec.Management.UpgradeType = "Recreate"
				return src
			},
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthNodePoolUpgradeType: {v1alpha1.WarningImpactLevel, v1alpha1.WorkerPoolScope}},
		},
		{
			name: "Machine of no NodePool",
			src: func() *HostedSources {
				src := replaceMidRollout(now, 0, now)
				m := machine("other-x", "", vNew, capiv1.MachinePhaseRunning, hT0)
				m.Annotations, m.Labels = nil, nil
				src.Machines = append(src.Machines, m)
				return src
			},
			want: map[v1alpha1.HealthKind]want{v1alpha1.HealthMachinesNoPool: {v1alpha1.InfoImpactLevel, v1alpha1.ControlPlaneScope}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := NewEngine().ComputeHosted(tt.src(), now)
			mustValidHosted(t, res)
			got := healthKinds(res)
			for kind, w := range tt.want {
				h := got[kind]
				if h == nil {
					t.Errorf("no %s insight; have %v", kind, keys(got))
					continue
				}
				if h.Impact.Level != w.level || h.Scope.Type != w.scope {
					t.Errorf("%s: level %s scope %s, want %s %s", kind, h.Impact.Level, h.Scope.Type, w.level, w.scope)
				}
				if h.Impact.Summary == "" || h.Impact.Description == "" {
					t.Errorf("%s: incomplete %+v", kind, h.Impact)
				}
			}
			for _, kind := range tt.absent {
				if got[kind] != nil {
					t.Errorf("unexpected %s insight: %s", kind, got[kind].Impact.Summary)
				}
			}
			if tt.degraded != "" {
				n := nodeOf(res, tt.degraded)
				if n == nil || cond(n.Conditions, string(v1alpha1.NodeStatusInsightDegraded)).Status != metav1.ConditionTrue {
					t.Errorf("node %s is not degraded: %+v", tt.degraded, n)
				}
			}
		})
	}
}

func keys[V any](m map[v1alpha1.HealthKind]V) []v1alpha1.HealthKind {
	var out []v1alpha1.HealthKind
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestComputeHostedDrainTimeoutNextChange: a drain within its timeout asks
// to be evaluated again when the timeout passes, and then reports it.
func TestComputeHostedDrainTimeoutNextChange(t *testing.T) {
	start := hT0.Add(50 * time.Minute)
	now := start.Add(5 * time.Minute)
	src := replaceMidRollout(now, 10*time.Minute, start)
	src.Components[2] = component("kube-scheduler", vNew, false, hT0.Add(15*time.Minute))
	e := NewEngine()
	res := e.ComputeHosted(src, now)
	if len(healthOf(res, v1alpha1.HealthMachineDrain)) != 0 {
		t.Fatal("drain reported before its timeout")
	}
	timeout := start.Add(10 * time.Minute)
	if res.NextChange.IsZero() || res.NextChange.After(timeout.Add(time.Nanosecond)) {
		t.Fatalf("next change %v, want at most %v", res.NextChange, timeout.Add(time.Nanosecond))
	}
	res = e.ComputeHosted(src, timeout.Add(time.Nanosecond))
	if len(healthOf(res, v1alpha1.HealthMachineDrain)) != 1 {
		t.Fatal("drain past its timeout not reported")
	}
	mustValidHosted(t, res)
}

func TestComputeHostedBadInput(t *testing.T) {
	now := hT0.Add(30 * time.Minute)
	tests := []struct {
		name string
		src  *HostedSources
		want []v1alpha1.HealthKind
		// assessment is the control plane's, "" when it has no insight.
		assessment v1alpha1.ControlPlaneAssessment
	}{
		{name: "nil sources", src: nil, want: []v1alpha1.HealthKind{v1alpha1.HealthHostedClusterMissing}},
		{name: "no HostedCluster", src: func() *HostedSources {
			src := replaceMidRollout(now, 0, now)
			src.HostedCluster = nil
			return src
		}(), want: []v1alpha1.HealthKind{v1alpha1.HealthHostedClusterMissing}},
		{name: "HostedCluster without status", src: &HostedSources{HostedCluster: func() *hypershift.HostedCluster {
			hc := &hypershift.HostedCluster{}
			hc.Namespace, hc.Name = hNS, hName
			hc.Spec.Release.Image = hImage(vNew)
			return hc
		}()}, want: []v1alpha1.HealthKind{v1alpha1.HealthHostedNoVersion, v1alpha1.HealthCVBadHistory, v1alpha1.HealthComponentsNone}},
		{name: "old cluster: no controlPlaneVersion, ControlPlaneComponents or release-version", src: func() *HostedSources {
			src := replaceMidRollout(now, 0, now)
			src.HostedCluster.ControlPlaneVersion = nil
			src.Components = nil
			for _, m := range src.Machines {
				delete(m.Annotations, hypershift.ReleaseVersionAnnotation)
			}
			return src
		}(), want: []v1alpha1.HealthKind{v1alpha1.HealthComponentsNone}, assessment: v1alpha1.ControlPlaneAssessmentProgressing},
		{name: "old cluster, completed", src: func() *HostedSources {
			src := replaceMidRollout(now, 0, now)
			hostedCompleted(src.HostedCluster, now)
			src.HostedCluster.ControlPlaneVersion = nil
			src.Components = nil
			return src
		}(), want: []v1alpha1.HealthKind{v1alpha1.HealthComponentsNone}, assessment: v1alpha1.ControlPlaneAssessmentCompleted},
		{name: "unparsable versions", src: func() *HostedSources {
			src := replaceMidRollout(now, 0, now)
			src.HostedCluster.ControlPlaneVersion = nil
			src.HostedCluster.Status.Version.History[0].Version = "latest"
			src.HostedCluster.Status.Version.Desired.Version = "latest"
			src.MachineDeployments[0].Spec.Template.Spec.Version = ptr("v4..x")
			for _, m := range src.Machines {
				m.Annotations[hypershift.ReleaseVersionAnnotation] = "not-a-version"
			}
			return src
		}(), want: []v1alpha1.HealthKind{v1alpha1.HealthCVBadHistory}},
		{name: "Machines without nodes, NodePools or anything else", src: &HostedSources{
			HostedCluster: hostedUpdating(hT0),
			Machines:      []*capiv1.Machine{nil, {}, machine("m", "", "", capiv1.MachinePhasePending, hT0)},
			MachineSets:   []*capiv1.MachineSet{nil, {}},
			NodePools:     []*hypershift.NodePool{nil, {}},
			Components:    []*hypershift.ControlPlaneComponent{nil, {}},
		}, want: []v1alpha1.HealthKind{v1alpha1.HealthMachinesNoPool}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := NewEngine().ComputeHosted(tt.src, now)
			mustValidHosted(t, res)
			got := healthKinds(res)
			for _, kind := range tt.want {
				if got[kind] == nil {
					t.Errorf("no %s insight; have %v", kind, keys(got))
				}
			}
			cv := cvOf(t, res)
			switch {
			case tt.assessment == "" && cv != nil && cv.Assessment != v1alpha1.ControlPlaneAssessmentUnknown && tt.src != nil && tt.src.HostedCluster == nil:
				t.Errorf("control plane assessed without a HostedCluster: %s", cv.Assessment)
			case tt.assessment != "" && (cv == nil || cv.Assessment != tt.assessment):
				t.Errorf("control plane %+v, want %s", cv, tt.assessment)
			}
		})
	}
}

// TestComputeHostedMemory: an Engine keeps a node's insight while its
// Machine and pool are unchanged, and drops it when the pool's state changes
// without the Machine changing (an InPlace MachineSet reaching its target).
func TestComputeHostedMemory(t *testing.T) {
	now := hT0.Add(30 * time.Minute)
	e := NewEngine()
	first := e.ComputeHosted(inPlaceMidReboot(now), now)
	second := e.ComputeHosted(inPlaceMidReboot(now), now)
	nodes := func(res Result) map[string]*Insight {
		out := map[string]*Insight{}
		for _, in := range res.Insights {
			if in.Node != nil {
				out[in.Node.Name] = in
			}
		}
		return out
	}
	a, b := nodes(first), nodes(second)
	if len(a) != 3 {
		t.Fatalf("nodes %v", a)
	}
	for name, in := range a {
		if b[name] != in {
			t.Errorf("node %s: a new insight for unchanged objects", name)
		}
	}
	src := inPlaceMidReboot(now)
	src.MachineSets[0].Annotations[hypershift.NodePoolCurrentConfigVersionAnnotation] = "bbbb"
	res := e.ComputeHosted(src, now)
	fresh := NewEngine().ComputeHosted(src, now)
	if got, want := phases(res), phases(fresh); !equalMaps(got, want) || got["workers-b"] != string(v1alpha1.NodeUpdatePending) {
		t.Errorf("after the MachineSet reached its target: %v, a fresh Engine says %v", got, want)
	}
}

// TestHostedInsightShowsUnhealthyMachine follows a running Machine whose
// NodeHealthy condition goes False with a message and back to True, as
// Cluster API reports a node that stops and resumes reporting, through one
// Engine: its node insight is unavailable, reason NotReady, exactly while it
// is False. The management-cluster cell of `make bench` times its watchers
// by it.
func TestHostedInsightShowsUnhealthyMachine(t *testing.T) {
	const unhealthy, healthy = "kubelet stopped posting node status", "kubelet posts node status"
	now := hT0.Add(30 * time.Minute)
	e := NewEngine()
	for i, tc := range []struct {
		status corev1.ConditionStatus
		msg    string
	}{
		{corev1.ConditionTrue, ""},
		{corev1.ConditionFalse, unhealthy},
		{corev1.ConditionTrue, healthy},
		{corev1.ConditionFalse, unhealthy},
	} {
		src := replaceMidRollout(now, time.Hour, now)
		m := src.Machines[0]
		m.ResourceVersion = strconv.Itoa(10 + i)
		m.Status.Conditions[0].Status, m.Status.Conditions[0].Message = tc.status, tc.msg
		res := e.ComputeHosted(src, now)
		mustValidHosted(t, res)
		var node *v1alpha1.NodeStatusInsight
		for _, in := range res.Insights {
			if in.Node != nil && in.Node.Name == m.Status.NodeRef.Name {
				node = in.Node
			}
		}
		if node == nil {
			t.Fatalf("step %d: no insight of node %s", i, m.Status.NodeRef.Name)
		}
		raw, err := json.Marshal(node)
		if err != nil {
			t.Fatal(err)
		}
		const notReady = `"reason":"NotReady"`
		if shown := strings.Contains(string(raw), notReady); shown != (tc.status == corev1.ConditionFalse) {
			t.Errorf("step %d (NodeHealthy %s %q): the insight shows %s: %v\n%s", i, tc.status, tc.msg, notReady, shown, raw)
		}
	}
}
