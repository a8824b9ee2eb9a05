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

package examplecluster

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/insights"
)

func TestNextVersion(t *testing.T) {
	tests := []struct{ in, want, wantErr string }{
		{"4.20.1", "4.20.2", ""},
		{"4.20.9", "4.20.10", ""},
		{"4.20.0-rc.1", "4.20.0-rc.2", ""},
		{"4.20.x", "", "does not end in a number"},
		{"420", "", "does not end in a number"},
		{"", "", "does not end in a number"},
	}
	for _, tt := range tests {
		got, err := NextVersion(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("NextVersion(%q) = %q, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NextVersion(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestShiftTimes(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{"creationTimestamp": "2025-01-01T00:00:00Z"},
		"status": map[string]any{
			"history":    []any{map[string]any{"startedTime": "2025-01-01T11:40:00Z", "completionTime": nil, "version": "4.20.1"}},
			"conditions": []any{map[string]any{"lastTransitionTime": "2025-01-01T12:00:00Z", "message": "2025-01-01T12:00:00Z"}},
		},
	}
	shiftTimes(obj, time.Hour)
	status := obj["status"].(map[string]any)
	h := status["history"].([]any)[0].(map[string]any)
	c := status["conditions"].([]any)[0].(map[string]any)
	for _, tt := range []struct{ name, got, want string }{
		{"startedTime", h["startedTime"].(string), "2025-01-01T12:40:00Z"},
		{"lastTransitionTime", c["lastTransitionTime"].(string), "2025-01-01T13:00:00Z"},
		{"message (not a time key)", c["message"].(string), "2025-01-01T12:00:00Z"},
		{"creationTimestamp (not a *Time key)", obj["metadata"].(map[string]any)["creationTimestamp"].(string), "2025-01-01T00:00:00Z"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, tt.got, tt.want)
		}
	}
	if h["completionTime"] != nil {
		t.Errorf("null completionTime became %v", h["completionTime"])
	}
}

// newFakeCluster loads artifacts/examples into fake clients.
func newFakeCluster(t *testing.T, now time.Time) (*Cluster, *clocktesting.FakeClock) {
	t.Helper()
	objs, err := localstack.ReadManifests(nil, filepath.Join("..", "..", "artifacts", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	var dynObjs, kubeObjs []runtime.Object
	for _, o := range objs {
		shiftTimes(o.Object, now.Sub(ReferenceInstant))
		switch o.GetKind() {
		case "Node":
			n := &corev1.Node{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, n); err != nil {
				t.Fatal(err)
			}
			kubeObjs = append(kubeObjs, n)
		case "Deployment":
			d := &appsv1.Deployment{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, d); err != nil {
				t.Fatal(err)
			}
			kubeObjs = append(kubeObjs, d)
		default:
			dynObjs = append(dynObjs, o)
		}
	}
	listKinds := map[schema.GroupVersionResource]string{
		ClusterVersions: "ClusterVersionList", ClusterOperators: "ClusterOperatorList",
		MachineConfigPools: "MachineConfigPoolList", MachineConfigs: "MachineConfigList",
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, dynObjs...)
	clock := clocktesting.NewFakeClock(now)
	return &Cluster{Dynamic: dyn, Kube: kubefake.NewClientset(kubeObjs...), Clock: clock}, clock
}

// TestExamplesMatchNamingRules: the example files use the names the driver
// derives.
func TestExamplesMatchNamingRules(t *testing.T) {
	ctx := context.Background()
	c, _ := newFakeCluster(t, ReferenceInstant)
	pools, err := List[mcfgv1.MachineConfigPool](ctx, c.dyn(), MachineConfigPools)
	if err != nil {
		t.Fatal(err)
	}
	if len(pools) != 2 {
		t.Fatalf("%d pools, want 2", len(pools))
	}
	for _, p := range pools {
		if want := RenderedConfig(p.Name, "4.20.0"); p.Spec.Configuration.Name != want {
			t.Errorf("pool %s configuration %s, want %s", p.Name, p.Spec.Configuration.Name, want)
		}
		mc, err := Get[mcfgv1.MachineConfig](ctx, c.dyn(), MachineConfigs, p.Spec.Configuration.Name)
		if err != nil {
			t.Errorf("pool %s: %v", p.Name, err)
		} else if mc.Annotations[insights.ReleaseImageVersionAnnotation] != "4.20.0" {
			t.Errorf("%s release-image-version = %q", mc.Name, mc.Annotations[insights.ReleaseImageVersionAnnotation])
		}
	}
	cv, err := Get[configv1.ClusterVersion](ctx, c.dyn(), ClusterVersions, insights.ClusterVersionName)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range cv.Status.History {
		if h.Image != ReleaseImage(h.Version) {
			t.Errorf("history %s image %s, want %s", h.Version, h.Image, ReleaseImage(h.Version))
		}
	}
	d, err := c.Kube.AppsV1().Deployments(insights.MCONamespace).Get(ctx, insights.MCODeploymentName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if img := d.Spec.Template.Spec.Containers[0].Image; img != MCOImage("4.20.0") {
		t.Errorf("MCO image %s, want %s", img, MCOImage("4.20.0"))
	}
}

// TestStepDrivesUpdateToCompletion runs the driver against fake clients: the
// example update completes, then a second update starts and completes, and
// faults hold it back.
func TestStepDrivesUpdateToCompletion(t *testing.T) {
	ctx := context.Background()
	c, clock := newFakeCluster(t, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	steps := func(max int) int {
		t.Helper()
		for i := 1; i <= max; i++ {
			clock.Step(time.Second)
			p, err := c.Step(ctx)
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if p.Done {
				return i
			}
			if p.Action == "" {
				t.Fatalf("step %d did nothing and the update is not done", i)
			}
		}
		t.Fatalf("not done after %d steps", max)
		return 0
	}
	assertDone := func(version string) {
		t.Helper()
		cv, err := Get[configv1.ClusterVersion](ctx, c.dyn(), ClusterVersions, insights.ClusterVersionName)
		if err != nil {
			t.Fatal(err)
		}
		if h := cv.Status.History[0]; h.Version != version || h.State != configv1.CompletedUpdate || h.CompletionTime == nil {
			t.Errorf("history[0] = %s %s %v, want %s Completed", h.Version, h.State, h.CompletionTime, version)
		}
		if isTrue(cv.Status.Conditions, configv1.OperatorProgressing) {
			t.Error("ClusterVersion still Progressing")
		}
		cos, _ := List[configv1.ClusterOperator](ctx, c.dyn(), ClusterOperators)
		for i := range cos {
			if v := operatorVersion(&cos[i]); v != version || isTrue(cos[i].Status.Conditions, configv1.OperatorProgressing) {
				t.Errorf("ClusterOperator %s at %s (progressing %v)", cos[i].Name, v, isTrue(cos[i].Status.Conditions, configv1.OperatorProgressing))
			}
		}
		nodes, _ := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		for _, n := range nodes.Items {
			pool := n.Name[:strings.LastIndexByte(n.Name, '-')] // master-0 -> master
			if cur := n.Annotations[insights.CurrentConfigAnnotation]; cur != RenderedConfig(pool, version) || n.Annotations[insights.MCDStateAnnotation] != insights.MCDStateDone || n.Spec.Unschedulable {
				t.Errorf("node %s: config %s state %s unschedulable %v", n.Name, cur, n.Annotations[insights.MCDStateAnnotation], n.Spec.Unschedulable)
			}
		}
		pools, _ := List[mcfgv1.MachineConfigPool](ctx, c.dyn(), MachineConfigPools)
		for _, p := range pools {
			if p.Status.UpdatedMachineCount != p.Status.MachineCount || p.Status.MachineCount == 0 {
				t.Errorf("pool %s: %d of %d machines updated", p.Name, p.Status.UpdatedMachineCount, p.Status.MachineCount)
			}
		}
	}

	n := steps(200)
	assertDone("4.20.1")
	t.Logf("example update done in %d steps", n)

	if err := c.StartUpdate(ctx, "4.20.2"); err != nil {
		t.Fatal(err)
	}
	// A paused worker pool holds the update after the control plane is done.
	if err := Mutate(ctx, c.dyn(), MachineConfigPools, "worker", false, func(p *mcfgv1.MachineConfigPool) bool {
		p.Spec.Paused = true
		return true
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		p, err := c.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.Done {
			t.Fatal("update done although the worker pool is paused")
		}
		if p.Action == "" {
			break
		}
	}
	w, err := c.Kube.CoreV1().Nodes().Get(ctx, "worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Annotations[insights.DesiredConfigAnnotation] == RenderedConfig("worker", "4.20.2") {
		t.Error("a node of the paused pool was started")
	}
	if err := Mutate(ctx, c.dyn(), MachineConfigPools, "worker", false, func(p *mcfgv1.MachineConfigPool) bool {
		p.Spec.Paused = false
		return true
	}); err != nil {
		t.Fatal(err)
	}
	steps(200)
	assertDone("4.20.2")
}
