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

package insights_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
	"github.com/update-status/apiserver/pkg/insights"
)

// mutator applies fuzzer-chosen edits to a synthetic cluster. Each edit
// reads an operation, an index and one of two fuzzer strings.
// fuzzEpoch is the instant the mutator's times count back from.
var fuzzEpoch = time.Date(2025, 3, 12, 10, 0, 0, 0, time.UTC)

type mutator struct {
	ops  []byte
	a, b string
	src  *insights.Sources
	// touched are the objects edited in place; like the API server, the
	// mutator gives each a new resourceVersion (the engine's memory is
	// keyed by it).
	touchedNodes []*insights.Node
	touchedCOs   []*configv1.ClusterOperator
	clearedRV    map[*insights.Node]bool
}

func (m *mutator) next() int {
	if len(m.ops) == 0 {
		return 0
	}
	v := int(m.ops[0])
	m.ops = m.ops[1:]
	return v
}

func (m *mutator) str() string {
	if m.next()%2 == 0 {
		return m.a
	}
	return m.b
}

var nodeAnnotations = []string{
	"machineconfiguration.openshift.io/currentConfig", "machineconfiguration.openshift.io/desiredConfig",
	"machineconfiguration.openshift.io/state", "machineconfiguration.openshift.io/reason",
	"machineconfiguration.openshift.io/desiredDrain", "machineconfiguration.openshift.io/lastAppliedDrain",
	"machineconfiguration.openshift.io/desiredImage", "machineconfiguration.openshift.io/currentImage",
}

func (m *mutator) apply() {
	s := m.src
	for steps := 0; len(m.ops) > 0 && steps < 64; steps++ {
		op := m.next()
		i := m.next()
		cv := s.ClusterVersion
		var node *insights.Node
		if len(s.Nodes) > 0 {
			node = s.Nodes[i%len(s.Nodes)]
		}
		var co *configv1.ClusterOperator
		if len(s.ClusterOperators) > 0 {
			co = s.ClusterOperators[i%len(s.ClusterOperators)]
		}
		if node != nil {
			m.touchedNodes = append(m.touchedNodes, node)
		}
		if co != nil {
			m.touchedCOs = append(m.touchedCOs, co)
		}
		switch op % 30 {
		case 0:
			s.ClusterVersion = nil
		case 1:
			if cv != nil && len(cv.Status.History) > 0 {
				cv.Status.History[0].Version = m.str()
			}
		case 2:
			if cv != nil && len(cv.Status.History) > 1 {
				cv.Status.History[1].Version = m.str()
				cv.Status.History[1].Image = m.str()
			}
		case 3:
			if cv != nil {
				cv.Status.History = cv.Status.History[:min(len(cv.Status.History), m.next()%4)]
			}
		case 4:
			if cv != nil {
				cv.Status.Desired.Version = m.str()
			}
		case 5:
			if cv != nil && len(cv.Status.Conditions) > 0 {
				k := m.next() % len(cv.Status.Conditions)
				cv.Status.Conditions = append(cv.Status.Conditions[:k:k], cv.Status.Conditions[k+1:]...)
			}
		case 6:
			if cv != nil && len(cv.Status.Conditions) > 0 {
				c := &cv.Status.Conditions[m.next()%len(cv.Status.Conditions)]
				c.Status, c.Reason, c.Message = configv1.ConditionStatus(m.str()), m.str(), m.str()
			}
		case 7:
			if co != nil {
				co.Name = m.str()
			}
		case 8:
			if co != nil && len(co.Status.Versions) > 0 {
				co.Status.Versions[0].Version = m.str()
				co.Status.Versions = append(co.Status.Versions, configv1.OperandVersion{Name: "operator-image", Version: m.str()})
			}
		case 9:
			if co != nil && len(co.Status.Conditions) > 0 {
				c := &co.Status.Conditions[m.next()%len(co.Status.Conditions)]
				c.Status, c.Reason, c.Message = configv1.ConditionStatus(m.str()), m.str(), m.str()
				c.LastTransitionTime = metav1.NewTime(fuzzEpoch.Add(-time.Duration(m.next()) * time.Minute))
			}
		case 10:
			if len(s.ClusterOperators) > 0 {
				k := i % len(s.ClusterOperators)
				s.ClusterOperators = append(s.ClusterOperators[:k:k], s.ClusterOperators[k+1:]...)
			}
		case 11:
			if len(s.MachineConfigPools) > 0 {
				s.MachineConfigPools[i%len(s.MachineConfigPools)].Name = m.str()
			}
		case 12:
			if len(s.MachineConfigPools) > 0 {
				p := s.MachineConfigPools[i%len(s.MachineConfigPools)]
				switch m.next() % 3 {
				case 0:
					p.Spec.NodeSelector = nil
				case 1:
					p.Spec.NodeSelector = &metav1.LabelSelector{}
				default:
					p.Spec.NodeSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: m.str(), Operator: metav1.LabelSelectorOperator(m.str())}}}
				}
			}
		case 13:
			if len(s.MachineConfigPools) > 0 {
				p := s.MachineConfigPools[i%len(s.MachineConfigPools)]
				p.Spec.Paused = !p.Spec.Paused
				p.Labels = map[string]string{"machineconfiguration.openshift.io/layering-enabled": ""}
				p.Annotations = map[string]string{"machineconfiguration.openshift.io/newestImageEquivalentConfig": m.str()}
			}
		case 14:
			if len(s.MachineConfigPools) > 0 {
				s.MachineConfigPools[i%len(s.MachineConfigPools)].Spec.Configuration.Name = m.str()
			}
		case 15:
			if node != nil {
				node.Name = m.str()
			}
		case 16:
			if node != nil {
				if node.Annotations == nil {
					node.Annotations = map[string]string{}
				}
				node.Annotations[nodeAnnotations[m.next()%len(nodeAnnotations)]] = m.str()
			}
		case 17:
			if node != nil {
				node.Annotations = nil
			}
		case 18:
			if node != nil {
				node.Labels = insights.NodeLabelsOf(map[string]string{m.str(): m.str()}, nil)
			}
		case 19:
			if node != nil && len(node.Conditions) > 0 {
				c := &node.Conditions[m.next()%len(node.Conditions)]
				c.Status, c.Message = corev1.ConditionStatus(m.str()), m.str()
				c.LastTransitionTime = fuzzEpoch.Add(-time.Duration(m.next()) * time.Second)
			}
		case 20:
			if node != nil {
				s.Nodes = append(s.Nodes, node.DeepCopy())
			}
		case 21:
			if len(s.Nodes) > 0 {
				s.Nodes[i%len(s.Nodes)] = nil
			}
		case 22:
			if s.MachineConfigVersions == nil {
				s.MachineConfigVersions = map[string]string{}
			}
			s.MachineConfigVersions[m.str()] = m.str()
		case 23:
			s.Alerts = append(s.Alerts, insights.Alert{
				Labels:      map[string]string{"alertname": m.str(), "severity": []string{"warning", "critical", "info", ""}[m.next()%4], "namespace": m.str()},
				Annotations: map[string]string{"summary": m.str(), "description": m.str(), "runbook_url": m.str()},
				State:       []string{"firing", "pending"}[m.next()%2],
				ActiveAt:    fuzzEpoch.Add(-time.Duration(m.next()) * time.Minute),
			})
		case 24:
			if node != nil {
				node.Unschedulable = !node.Unschedulable
			}
		case 25:
			if co != nil {
				co.Annotations = nil
			}
		case 26:
			if node != nil {
				node.UID = types.UID(m.str())
			}
		case 27:
			if cv != nil && len(cv.Status.History) > 0 {
				h := &cv.Status.History[m.next()%len(cv.Status.History)]
				h.State = configv1.UpdateState(m.str())
				h.CompletionTime = nil
				h.StartedTime = metav1.NewTime(fuzzEpoch.Add(-time.Duration(m.next()) * time.Hour))
			}
		case 28:
			// Up to ~170 KB: beyond every limit of the API, small enough to
			// keep the fuzzer fast.
			part := m.str()
			part = part[:min(len(part), 16)]
			huge := strings.Repeat(part+"\n", 1+m.next()*40)
			if node != nil {
				if node.Annotations == nil {
					node.Annotations = map[string]string{}
				}
				node.Annotations["machineconfiguration.openshift.io/reason"] = huge
				node.Annotations["machineconfiguration.openshift.io/state"] = "Degraded"
			}
			if co != nil && len(co.Status.Conditions) > 0 {
				co.Status.Conditions[0].Message = huge
			}
		case 29:
			if node != nil {
				if m.clearedRV == nil {
					m.clearedRV = map[*insights.Node]bool{}
				}
				m.clearedRV[node] = true
			}
		}
	}
	for i, n := range m.touchedNodes {
		if n != nil {
			n.ResourceVersion = "m" + strconv.Itoa(i)
			if m.clearedRV[n] {
				n.ResourceVersion = ""
			}
		}
	}
	for i, co := range m.touchedCOs {
		co.ResourceVersion = "m" + strconv.Itoa(i)
	}
}

// FuzzCompute mutates a synthetic cluster and checks that the engine never
// panics, always produces a valid object, and that an Engine with memory
// agrees with a fresh computation.
func FuzzCompute(f *testing.F) {
	f.Add([]byte{}, "", "", int64(0))
	f.Add([]byte{1, 0, 0}, "not-a-version", "4.16.1", int64(60))
	f.Add([]byte{0, 0, 10, 1, 10, 2}, "", "", int64(-5))
	f.Add([]byte{16, 3, 2, 0, 28, 4, 1, 9}, "Degraded", "x.y", int64(3600))
	f.Add([]byte{12, 0, 2, 1, 0, 15, 2, 1, 20, 5, 26, 1, 0}, "Bogus", "UPPER case", int64(1))
	f.Add([]byte{23, 0, 0, 0, 1, 3, 23, 1, 1, 1, 0, 5, 3, 0, 0}, "PodDisruptionBudgetAtLimit", "https://<x>/r", int64(30))
	base, at := viewtest.Cluster(9, 2, 7)
	f.Fuzz(func(t *testing.T, ops []byte, a, b string, offsetSeconds int64) {
		src, now := copySources(base), at
		// The engine first sees copies: objects handed to it must not
		// change afterwards (a changed object is a new object, as in an
		// informer cache), and the mutations below work in place.
		e := insights.NewEngine()
		e.Compute(copySources(src), now)
		m := &mutator{ops: ops, a: a, b: b, src: src}
		m.apply()
		now = now.Add(time.Duration(offsetSeconds%(1<<32)) * time.Second)
		res := insights.Compute(src, now)
		obj := &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: resources.UpdateStatusName}, Status: res.Status}
		if errs := validation.ValidateUpdateStatus(obj); len(errs) > 0 {
			t.Fatalf("invalid object: %v", errs.ToAggregate())
		}
		if !res.NextChange.IsZero() && !res.NextChange.After(now) {
			t.Fatalf("NextChange %v is not after now %v", res.NextChange, now)
		}
		fresh, err := json.Marshal(res.Status)
		if err != nil {
			t.Fatal(err)
		}
		memo, err := json.Marshal(e.Compute(src, now).Status)
		if err != nil {
			t.Fatal(err)
		}
		if string(fresh) != string(memo) {
			t.Fatal("an Engine with memory disagrees with a fresh computation")
		}
	})
}

// copySources deep-copies every object of src.
func copySources(src *insights.Sources) *insights.Sources {
	out := *src
	if src.ClusterVersion != nil {
		out.ClusterVersion = src.ClusterVersion.DeepCopy()
	}
	out.ClusterOperators = nil
	for _, co := range src.ClusterOperators {
		out.ClusterOperators = append(out.ClusterOperators, co.DeepCopy())
	}
	out.MachineConfigPools = nil
	for _, p := range src.MachineConfigPools {
		out.MachineConfigPools = append(out.MachineConfigPools, p.DeepCopy())
	}
	out.Nodes = nil
	for _, n := range src.Nodes {
		out.Nodes = append(out.Nodes, n.DeepCopy())
	}
	out.Alerts = slices.Clone(src.Alerts)
	out.MachineConfigVersions = map[string]string{}
	for k, v := range src.MachineConfigVersions {
		out.MachineConfigVersions[k] = v
	}
	return &out
}
