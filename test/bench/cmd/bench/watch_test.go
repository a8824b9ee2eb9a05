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

package main

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// TestChurnWritesRealChanges checks that every write the churn records
// changes its node, also after a write of the same node was skipped (the API
// too slow) or failed after the apiserver applied it: a no-op patch changes
// nothing, so no watcher could ever see it.
func TestChurnWritesRealChanges(t *testing.T) {
	ctx := context.Background()
	kube := kubefake.NewClientset(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n0", ResourceVersion: "10"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", ResourceVersion: "11"}},
	)
	// failApplied makes the next patch apply and still fail, as one whose
	// answer timed out.
	failApplied := false
	kube.PrependReactor("patch", "nodes", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if !failApplied {
			return false, nil, nil
		}
		failApplied = false
		p := a.(clienttesting.PatchAction)
		obj, err := kube.Tracker().Get(corev1.SchemeGroupVersion.WithResource("nodes"), "", p.GetName())
		if err != nil {
			return true, nil, err
		}
		n := obj.(*corev1.Node).DeepCopy()
		n.Spec.Unschedulable = !n.Spec.Unschedulable
		if err := kube.Tracker().Update(corev1.SchemeGroupVersion.WithResource("nodes"), n, ""); err != nil {
			return true, nil, err
		}
		return true, nil, errors.New("the answer timed out")
	})
	state := func(name string) bool {
		t.Helper()
		n, err := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n.Spec.Unschedulable
	}
	c := &churn{kube: kube, nodes: []string{"n0", "n1"}}
	for _, step := range []struct {
		i     int
		skip  bool
		fail  bool
		write bool // a write is recorded, and it toggled its node
	}{
		{i: 0, write: true}, // n0 cordoned
		{i: 1, skip: true},  // n1 stays schedulable
		{i: 2, write: true}, // n0 uncordoned
		{i: 3, write: true}, // n1 cordoned, not its cycle's uncordon (a no-op)
		{i: 4, fail: true},  // n0 cordoned, but the answer fails
		{i: 5, write: true}, // n1 uncordoned
		{i: 6, write: true}, // n0 uncordoned, as the API shows it cordoned
		{i: 7, write: true}, // n1 cordoned
	} {
		name := c.nodes[step.i%2]
		before, writes := state(name), len(c.writes)
		switch {
		case step.skip:
			c.skip(step.i)
		default:
			failApplied = step.fail
			c.write(ctx, step.i)
		}
		after := state(name)
		if !step.write {
			if len(c.writes) != writes {
				t.Fatalf("write %d: recorded %+v, want nothing recorded", step.i, c.writes[writes:])
			}
			continue
		}
		if len(c.writes) != writes+1 {
			t.Fatalf("write %d: %d writes recorded, want one", step.i, len(c.writes)-writes)
		}
		if w := c.writes[writes]; after == before || w.unschedulable != after || int(w.node) != step.i%2 {
			t.Errorf("write %d of %s: recorded %+v, node went from unschedulable=%v to %v, want a toggle", step.i, name, w, before, after)
		}
	}
	if got := c.errs.Load(); got != 2 {
		t.Errorf("%d writes counted as skipped or failed, want 2", got)
	}
}
