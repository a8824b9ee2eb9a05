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
	"maps"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
)

// This file is the standalone adapter: it fills the Cluster the rules read
// from the objects of a standalone OpenShift cluster. It is the only part of
// the engine that knows ClusterVersions, ClusterOperators and
// MachineConfigPools (docs/insights.md#the-cluster-model).

// Sources is a snapshot of every object the engine reads of a standalone
// cluster; build it with a SourcesBuilder. Slices may be in any order; the engine sorts what it needs. Objects are never modified, and an
// object handed in must not change afterwards: a changed object is a new
// object, as in an informer cache. (An Engine recognises an object it saw
// before by its pointer, and another object of the same Node by its name, UID
// and resourceVersion.)
type Sources struct {
	// ClusterVersion is the ClusterVersion named ClusterVersionName; nil
	// when absent.
	ClusterVersion *configv1.ClusterVersion
	// ClusterOperators are all ClusterOperators.
	ClusterOperators []*configv1.ClusterOperator
	// MachineConfigPools are all MachineConfigPools.
	MachineConfigPools []*mcfgv1.MachineConfigPool
	// MachineConfigVersions maps a MachineConfig name to the value of its
	// ReleaseImageVersionAnnotation (only that annotation of a MachineConfig
	// matters).
	MachineConfigVersions map[string]string
	// Nodes are all Nodes.
	Nodes []*Node
	// MCODeployment is the Deployment MCONamespace/MCODeploymentName; nil
	// when absent.
	MCODeployment *appsv1.Deployment
	// Alerts are firing or pending Prometheus alerts; nil when unknown.
	Alerts []Alert
	// UpdateInformers are the contributions of external informers
	// (docs/insights.md#external-informers).
	UpdateInformers []*informersv1alpha1.UpdateInformer
	// ContributionLeases are the coordination.k8s.io Leases through which
	// the components renew their UpdateInformers (IsContributionLease).
	ContributionLeases []*coordinationv1.Lease
}

const failingCondition = configv1.ClusterStatusConditionType("Failing")

// componentConditions are the conditions a Component carries, in the order
// of standaloneComponent.conds.
var componentConditions = [3]configv1.ClusterStatusConditionType{
	configv1.OperatorAvailable, configv1.OperatorDegraded, configv1.OperatorProgressing,
}

// standalone remembers the model values it built from the objects of a
// standalone cluster, by object pointer, so that an unchanged object costs a
// map lookup and no allocation.
type standalone struct {
	gen uint64

	// cp is the control plane read from cv (when hasCP), filled in place:
	// the engine reads it afresh at every evaluation and keeps none of it.
	cv                   *configv1.ClusterVersion
	cvRV                 string
	cp                   ControlPlane
	hasCP                bool
	progressing, failing metav1.Condition

	mcoImage string
	cos      map[*configv1.ClusterOperator]*standaloneComponent
	pools    map[*mcfgv1.MachineConfigPool]*standalonePool

	// last is the last model, its slices reused by the next one.
	last Cluster
}

// standaloneComponent holds the component of one ClusterOperator and the
// memory it points to, in one allocation.
type standaloneComponent struct {
	c        Component
	platform bool // false: the operator is not part of the payload
	rv       string
	seen     uint64
	conds    [3]metav1.Condition
	versions [1]string
}

type standalonePool struct {
	p    *Pool
	seen uint64
}

// cluster fills the model from src. The model is valid until the next call.
func (s *standalone) cluster(src *Sources) *Cluster {
	s.gen++
	c := &s.last
	*c = Cluster{
		Components:         c.Components[:0],
		Pools:              c.Pools[:0],
		Nodes:              src.Nodes,
		ConfigVersions:     src.MachineConfigVersions,
		Alerts:             src.Alerts,
		UpdateInformers:    src.UpdateInformers,
		ContributionLeases: src.ContributionLeases,
	}
	// An object is known by its pointer and resourceVersion; one without a
	// resourceVersion is read again every time.
	if cv := src.ClusterVersion; cv != s.cv || cv == nil || cv.ResourceVersion != s.cvRV || cv.ResourceVersion == "" {
		s.cv, s.cvRV, s.hasCP = cv, "", cv != nil
		if cv != nil {
			s.cvRV = cv.ResourceVersion
			s.fillControlPlane(cv)
		}
	}
	if s.hasCP {
		c.ControlPlane = &s.cp
	}

	c.HasComponents = s.components(c, src)
	s.poolsOf(c, src.MachineConfigPools)
	return c
}

// components appends to c the components of src's platform operators and
// reports whether src lists any ClusterOperator at all.
func (s *standalone) components(c *Cluster, src *Sources) bool {
	if img := mcoImagePullSpec(src.MCODeployment); img != s.mcoImage {
		s.mcoImage, s.cos = img, nil // every operator's RolloutPending may change
	}
	if s.cos == nil {
		s.cos = make(map[*configv1.ClusterOperator]*standaloneComponent, len(src.ClusterOperators))
	}
	seen, listed := 0, false
	for _, co := range src.ClusterOperators {
		if co == nil {
			continue
		}
		listed = true
		ent := s.cos[co]
		if ent == nil || ent.rv != co.ResourceVersion || co.ResourceVersion == "" {
			ent = &standaloneComponent{rv: co.ResourceVersion}
			ent.platform = ent.read(co, s.mcoImage)
			s.cos[co] = ent
		}
		if ent.seen != s.gen {
			ent.seen = s.gen
			seen++
		}
		if ent.platform {
			c.Components = append(c.Components, &ent.c)
		}
	}
	if seen != len(s.cos) {
		maps.DeleteFunc(s.cos, func(_ *configv1.ClusterOperator, ent *standaloneComponent) bool { return ent.seen != s.gen })
	}
	return listed
}

// poolsOf appends to c the pools of mcps.
func (s *standalone) poolsOf(c *Cluster, mcps []*mcfgv1.MachineConfigPool) {
	if s.pools == nil {
		s.pools = make(map[*mcfgv1.MachineConfigPool]*standalonePool, len(mcps))
	}
	seen := 0
	for _, m := range mcps {
		if m == nil {
			continue
		}
		ent := s.pools[m]
		if ent == nil { // as objects of an informer cache, a pool object does not change
			ent = &standalonePool{p: poolOf(m)}
			s.pools[m] = ent
		}
		if ent.seen != s.gen {
			ent.seen = s.gen
			seen++
		}
		c.Pools = append(c.Pools, ent.p)
	}
	if seen != len(s.pools) {
		maps.DeleteFunc(s.pools, func(_ *mcfgv1.MachineConfigPool, ent *standalonePool) bool { return ent.seen != s.gen })
	}
}

// fillControlPlane reads the control plane of the ClusterVersion cv into
// s.cp, reusing its memory.
func (s *standalone) fillControlPlane(cv *configv1.ClusterVersion) {
	cp := &s.cp
	*cp = ControlPlane{
		Name:                cv.Name,
		DesiredVersion:      cv.Status.Desired.Version,
		DesiredArchitecture: string(cv.Status.Desired.Architecture),
		History:             cp.History[:0],
		Changed:             latest(metaChangeTime(&cv.ObjectMeta), clusterConditionsChangeTime(cv.Status.Conditions)),
	}
	if c := findClusterCondition(cv.Status.Conditions, configv1.OperatorProgressing); c != nil {
		s.progressing = conditionOf(c)
		cp.Progressing = &s.progressing
	}
	if c := findClusterCondition(cv.Status.Conditions, failingCondition); c != nil {
		s.failing = conditionOf(c)
		cp.Failing = &s.failing
	}
	for _, h := range cv.Status.History {
		cp.History = append(cp.History, Update{
			Version:     h.Version,
			Image:       h.Image,
			State:       UpdateState(h.State),
			StartedAt:   h.StartedTime.Time,
			CompletedAt: h.CompletionTime,
		})
		cp.Changed = latest(cp.Changed, h.StartedTime.Time)
		if h.CompletionTime != nil {
			cp.Changed = latest(cp.Changed, h.CompletionTime.Time)
		}
	}
}

// read fills ent.c with the component of the ClusterOperator co and reports
// whether co is part of the release payload
// (docs/insights.md#platform-operators). mcoImage is the image the
// machine-config operator's Deployment runs (docs/insights.md#mco-image).
func (ent *standaloneComponent) read(co *configv1.ClusterOperator, mcoImage string) bool {
	if !isPlatformOperator(co) {
		return false
	}
	c := &ent.c
	*c = Component{
		Name:            co.Name,
		UID:             co.UID,
		ResourceVersion: co.ResourceVersion,
		RollsOutNodes:   co.Name == MCOClusterOperatorName,
		Versions:        ent.versions[:0],
		Changed:         latest(metaChangeTime(&co.ObjectMeta), clusterConditionsChangeTime(co.Status.Conditions)),
	}
	for _, v := range co.Status.Versions {
		switch {
		case v.Name == OperatorVersionName:
			c.Versions = append(c.Versions, v.Version)
		case v.Name == OperatorImageVersionName && co.Name == MCOClusterOperatorName && v.Version != mcoImage:
			c.RolloutPending = true
		}
	}
	// The last condition of a type counts, as it always has.
	slots := [3]**metav1.Condition{&c.Available, &c.Degraded, &c.Progressing}
	for i := range co.Status.Conditions {
		if k := slices.Index(componentConditions[:], co.Status.Conditions[i].Type); k >= 0 {
			ent.conds[k] = conditionOf(&co.Status.Conditions[i])
			*slots[k] = &ent.conds[k]
		}
	}
	return true
}

// poolOf reads the pool of the MachineConfigPool m.
func poolOf(m *mcfgv1.MachineConfigPool) *Pool {
	p := &Pool{
		Name:         m.Name,
		UID:          m.UID,
		NodeSelector: m.Spec.NodeSelector,
		Paused:       m.Spec.Paused,
		TargetConfig: m.Spec.Configuration.Name,
		Changed:      metaChangeTime(&m.ObjectMeta),
	}
	for i := range m.Status.Conditions {
		if lt := m.Status.Conditions[i].LastTransitionTime.Time; lt.After(p.Changed) {
			p.Changed = lt
		}
	}
	if _, ok := m.Labels[LayeringEnabledLabel]; ok {
		p.Layered = true
		p.TargetImageConfig = m.Annotations[NewestImageEquivalentConfigAnnotation]
	}
	return p
}

// isPlatformOperator reports whether co is part of the release payload
// (docs/insights.md#platform-operators).
func isPlatformOperator(co *configv1.ClusterOperator) bool {
	for k := range co.Annotations {
		if strings.HasPrefix(k, "include.release.openshift.io/") || strings.HasPrefix(k, "exclude.release.openshift.io/") {
			return true
		}
	}
	return false
}

// mcoImagePullSpec is the image of the machine-config-operator container of
// the MCO Deployment, or "" (docs/insights.md#mco-image).
func mcoImagePullSpec(d *appsv1.Deployment) string {
	if d == nil {
		return ""
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == MCOContainerName {
			return c.Image
		}
	}
	return ""
}

// conditionOf is c as a metav1.Condition.
func conditionOf(c *configv1.ClusterOperatorStatusCondition) metav1.Condition {
	return metav1.Condition{
		Type:               string(c.Type),
		Status:             metav1.ConditionStatus(c.Status),
		LastTransitionTime: c.LastTransitionTime,
		Reason:             c.Reason,
		Message:            c.Message,
	}
}

// clusterConditionsChangeTime is the latest transition among conditions of a
// ClusterVersion or ClusterOperator.
func clusterConditionsChangeTime(conds []configv1.ClusterOperatorStatusCondition) time.Time {
	var t time.Time
	for i := range conds {
		if lt := conds[i].LastTransitionTime.Time; lt.After(t) {
			t = lt
		}
	}
	return t
}

// findClusterCondition returns the first condition of the given type, or nil.
func findClusterCondition(conds []configv1.ClusterOperatorStatusCondition, typ configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}
