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
	"context"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/drain"
	"github.com/update-status/apiserver/pkg/insights"
)

// TestMachineConfigNodes follows the MachineConfigNodes through an update
// with a held drain, as the drain informer reads them from the API.
func TestMachineConfigNodes(t *testing.T) {
	ctx := context.Background()
	s, fc, api := startedSimulator(t, Options{Nodes: 6, Seed: 5, RouterPods: 4, MachineConfigNodes: true})
	id, err := s.BlockDrain(ctx, "worker", 0)
	if err != nil {
		t.Fatal(err)
	}
	mcns := func() map[string]*mcfgv1.MachineConfigNode {
		list, err := api.mcfg.MachineconfigurationV1().MachineConfigNodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*mcfgv1.MachineConfigNode{}
		for i := range list.Items {
			out[list.Items[i].Name] = &list.Items[i]
		}
		return out
	}
	sawDraining := false
	// Every step: one MachineConfigNode per node, in its pool, with every
	// condition type once; a node the daemon drains is draining by its
	// MachineConfigNode too, and one whose drain is done is not.
	check := func(st *State) {
		byName := mcns()
		if len(byName) != len(st.Nodes) {
			t.Fatalf("%d MachineConfigNodes for %d nodes", len(byName), len(st.Nodes))
		}
		for _, n := range st.Nodes {
			m := byName[n.Name]
			if m == nil || m.Spec.Node.Name != n.Name || len(m.Status.Conditions) != 12 {
				t.Fatalf("MachineConfigNode of %s: %+v", n.Name, m)
			}
			byAnnotations := drain.IsDraining(n, nil)
			if byAnnotations && !drain.MCNDraining(m) {
				t.Fatalf("node %s drains but its MachineConfigNode says not: %+v", n.Name, m.Status.Conditions)
			}
			if drain.MCNDraining(m) {
				sawDraining = true
				if !meta.IsStatusConditionTrue(m.Status.Conditions, string(mcfgv1.MachineConfigNodeUpdateCordoned)) || !n.Spec.Unschedulable {
					t.Fatalf("MachineConfigNode of %s drains, not cordoned", n.Name)
				}
				if n.Annotations[insights.LastAppliedDrainAnnotation] == n.Annotations[insights.DesiredDrainAnnotation] {
					t.Fatalf("MachineConfigNode of %s drains after the drain completed", n.Name)
				}
			}
		}
	}
	var heldNode string
	stepUntil(t, s, fc, check, func(*State) bool {
		heldNode = firstHeldNode(s)
		return heldNode != ""
	})
	m := mcns()[heldNode]
	d := meta.FindStatusCondition(m.Status.Conditions, string(mcfgv1.MachineConfigNodeUpdateDrained))
	if d == nil || d.Status != metav1.ConditionUnknown || !strings.HasPrefix(d.Message, "Error: Node Drain has not succeeded. Error is: [error when evicting pods/") ||
		!strings.Contains(d.Message, `-n "openshift-ingress"`) {
		t.Fatalf("Drained of the held node: %+v", d)
	}
	if err := s.Clear(ctx, id); err != nil {
		t.Fatal(err)
	}
	st := stepUntil(t, s, fc, check, nil)
	if !sawDraining {
		t.Error("no MachineConfigNode ever reported a drain")
	}
	for _, n := range st.Nodes {
		m := mcns()[n.Name]
		if !meta.IsStatusConditionTrue(m.Status.Conditions, string(mcfgv1.MachineConfigNodeUpdated)) ||
			m.Status.ConfigVersion.Current != n.Annotations[insights.CurrentConfigAnnotation] || m.Spec.ConfigVersion.Desired != m.Status.ConfigVersion.Current {
			t.Errorf("MachineConfigNode of %s after the update: %+v %+v", n.Name, m.Status.ConfigVersion, m.Status.Conditions)
		}
		for _, c := range m.Status.Conditions {
			if c.Type != string(mcfgv1.MachineConfigNodeUpdated) && c.Status != metav1.ConditionFalse {
				t.Errorf("MachineConfigNode of %s: %s is %s after the update", n.Name, c.Type, c.Status)
			}
		}
	}
}

func TestMachineConfigNodesOff(t *testing.T) {
	_, _, api := startedSimulator(t, Options{Nodes: 6, Seed: 5})
	list, err := api.mcfg.MachineconfigurationV1().MachineConfigNodes().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("MachineConfigNodes without the option: %d, %v", len(list.Items), err)
	}
}
