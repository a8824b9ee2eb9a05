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

package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/internal/ocp"
	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/drain"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/insights"
)

// drainWait bounds how long the drain informer may take to name a blocker,
// as the issue asks.
const drainWait = 10 * time.Second

// TestDrainInformer runs update-status-drain-informer as its own process with
// its own ServiceAccount against a worker of the simulated cluster made to
// drain, with a running pod on it that a PodDisruptionBudget at
// disruptionsAllowed 0 holds: the insight names the node, the pod and the
// budget; releasing the budget clears it; the informer killed, its
// contribution lapses; its ServiceAccount can write nothing else.
func TestDrainInformer(t *testing.T) {
	ctx := t.Context()
	const ns = "drain-test"
	nodeName := workerNode(1)
	contributionNamespace(t, ns)
	kube := clientFor(t, kubernetes.NewForConfig, cp.RESTConfig(&cp.Users.Admin))
	admin := updateClient(t, &cp.Users.Admin)

	// The machine-config daemon's drain of the node: cordoned, with a drain
	// it asked for and has not done. Restored at the end.
	node, err := kube.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	original := node.DeepCopy()
	t.Cleanup(func() {
		cur, err := kube.CoreV1().Nodes().Get(context.Background(), nodeName, metav1.GetOptions{})
		if err != nil {
			return
		}
		cur.Spec.Unschedulable, cur.Annotations = original.Spec.Unschedulable, original.Annotations
		_, _ = kube.CoreV1().Nodes().Update(context.Background(), cur, metav1.UpdateOptions{})
	})
	node.Spec.Unschedulable = true
	node.Annotations[insights.DesiredDrainAnnotation] = "drain-integration-test"
	if _, err := kube.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// A running, ready pod of a ReplicaSet on it, and its budget at 0 (the
	// local stack has no controller manager: the test writes both statuses
	// as the kubelet and the disruption controller would).
	pod, err := kube.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-0", Labels: map[string]string{"app": "web"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: types.UID("6f1c0e3a-0000-4000-8000-000000000001")}}},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "web", Image: "registry.invalid/web"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &now,
		Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, Image: "registry.invalid/web", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}}
	if _, err := kube.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	minAvailable := intstr.FromInt32(1)
	pdb, err := kube.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setBudget := func(allowed int32) {
		t.Helper()
		cur, err := kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, pdb.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cur.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: cur.Generation, DisruptionsAllowed: allowed,
			CurrentHealthy: 1, DesiredHealthy: 1 - allowed, ExpectedPods: 1}
		if _, err := kube.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setBudget(0)

	informer, err := cp.StartDrainInformer(ctx, "--lease=3s", "--resync=1s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { informer.Stop(5 * time.Second) })
	name := informersv1alpha1.InformerName(localstack.DrainInformerNamespace, localstack.DrainInformerName)
	if !strings.Contains(name, "drain") {
		t.Errorf("the drain informer's name %q does not say drain", name)
	}
	drainInsight := func() *v1alpha1.HealthInsight { return drainInsightAbout(ctx, admin, nodeName) }
	var got *v1alpha1.HealthInsight
	begin := time.Now()
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, drainWait, true, func(context.Context) (bool, error) {
		got = drainInsight()
		return got != nil, nil
	}); err != nil {
		t.Fatalf("no insight of %s about %s within %v; informer log:\n%s", name, nodeName, drainWait, informer.LogTail(20))
	}
	t.Logf("the blocked drain was named after %v: %s", time.Since(begin).Round(time.Millisecond), got.Status.Impact.Summary)
	named := map[string]bool{}
	for _, r := range got.Status.Scope.Resources {
		named[r.Resource+"/"+r.Namespace+"/"+r.Name] = true
	}
	for _, want := range []string{"nodes//" + nodeName, "pods/" + ns + "/web-0", "poddisruptionbudgets/" + ns + "/web"} {
		if !named[want] {
			t.Errorf("the insight does not name %s: %s", want, dump(got.Status.Scope.Resources))
		}
	}

	t.Run("its ServiceAccount writes nothing else", func(t *testing.T) {
		asInformer, asKube := serviceAccountClients(ctx, t, localstack.DrainInformerNamespace, localstack.DrainInformerServiceAccount)
		calls := []struct {
			name string
			call func() error
		}{
			{"read the contributions of another namespace", func() error {
				_, err := asInformer.InformersV1alpha1().UpdateInformers("default").List(ctx, metav1.ListOptions{})
				return err
			}},
			{"write a contribution in another namespace", func() error {
				_, err := asInformer.InformersV1alpha1().UpdateInformers("default").Create(ctx,
					&informersv1alpha1.UpdateInformer{ObjectMeta: metav1.ObjectMeta{Name: "drain"}}, metav1.CreateOptions{})
				return err
			}},
			{"write a Lease in another namespace", func() error {
				_, err := asKube.CoordinationV1().Leases("default").Create(ctx,
					&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "drain"}}, metav1.CreateOptions{})
				return err
			}},
			{"delete a pod", func() error { return asKube.CoreV1().Pods(ns).Delete(ctx, "web-0", metav1.DeleteOptions{}) }},
			{"cordon a node", func() error {
				_, err := asKube.CoreV1().Nodes().Patch(ctx, nodeName, types.MergePatchType, []byte(`{"spec":{"unschedulable":false}}`), metav1.PatchOptions{})
				return err
			}},
		}
		for _, c := range calls {
			if err := c.call(); !apierrors.IsForbidden(err) {
				t.Errorf("%s: %v, want Forbidden", c.name, err)
			}
		}
	})

	t.Run("released", func(t *testing.T) {
		setBudget(1)
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, drainWait, true, func(context.Context) (bool, error) {
			return drainInsight() == nil, nil
		}); err != nil {
			t.Fatalf("the insight about %s is still served %v after the budget allows a disruption", nodeName, drainWait)
		}
		setBudget(0)
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, drainWait, true, func(context.Context) (bool, error) {
			return drainInsight() != nil, nil
		}); err != nil {
			t.Fatalf("the insight about %s did not come back when the budget held again", nodeName)
		}
	})

	t.Run("killed: the contribution lapses", func(t *testing.T) {
		informer.Kill()
		waitForStatus(ctx, t, contributionWait, "the drain informer's insight gone and the server's insight that it stopped reporting",
			func(us *v1alpha1.UpdateStatus) bool {
				in := serverInsightAbout(us, localstack.DrainInformerNamespace, localstack.DrainInformerName)
				return in != nil && strings.HasPrefix(in.UID, string(v1alpha1.HealthInformerExpired)) && drainInsight() == nil
			})
		_ = admin.InformersV1alpha1().UpdateInformers(localstack.DrainInformerNamespace).Delete(ctx, localstack.DrainInformerName, metav1.DeleteOptions{})
	})
}

// TestDrainInformerMachineConfigNode installs the MachineConfigNode CRD and
// writes, for a worker the node annotations do not show draining, the
// MachineConfigNode the machine-config operator writes when a drain attempt
// failed (Cordoned True, Drained Unknown with the drainer's error): the
// informer, started after the CRD, names the node and quotes the error;
// Drained True clears it.
func TestDrainInformerMachineConfigNode(t *testing.T) {
	ctx := t.Context()
	admin := updateClient(t, &cp.Users.Admin)
	cfg := cp.RESTConfig(&cp.Users.Admin)
	if err := ocp.InstallMachineConfigNodeCRD(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	mcfg := clientFor(t, mcfgclient.NewForConfig, cfg)
	kube := clientFor(t, kubernetes.NewForConfig, cfg)
	nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var node *corev1.Node
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if _, worker := n.Labels["node-role.kubernetes.io/worker"]; worker && n.Name != workerNode(1) && !drain.IsDraining(n, nil) &&
			n.Annotations[insights.CurrentConfigAnnotation] != "" {
			node = n
		}
	}
	if node == nil {
		t.Fatal("no idle worker in the simulated cluster")
	}

	// The drain controller cordons the node before it drains it (the
	// informer watches only cordoned nodes).
	setUnschedulable := func(ctx context.Context, v bool) error {
		n, err := kube.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Unschedulable = v
		_, err = kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	}
	if err := setUnschedulable(ctx, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := setUnschedulable(context.Background(), false); err != nil {
			t.Error(err)
		}
	})

	const drainErr = `[error when evicting pods/"db-0" -n "shop": global timeout reached: 1m30s]`
	now := time.Now()
	m := ocp.MachineConfigNode(node, "worker", "", now.Add(-time.Hour))
	ocp.MCNStartDrain(m, node, now.Add(-2*time.Minute))
	ocp.MCNDrainFailed(m, node, drainErr, now)
	created, err := mcfg.MachineconfigurationV1().MachineConfigNodes().Create(ctx, m, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = mcfg.MachineconfigurationV1().MachineConfigNodes().Delete(context.Background(), m.Name, metav1.DeleteOptions{})
	})
	m.ObjectMeta = created.ObjectMeta
	if created, err = mcfg.MachineconfigurationV1().MachineConfigNodes().UpdateStatus(ctx, m, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	informer, err := cp.StartDrainInformer(ctx, "--lease=3s", "--resync=1s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		informer.Stop(5 * time.Second)
		_ = admin.InformersV1alpha1().UpdateInformers(localstack.DrainInformerNamespace).Delete(context.Background(), localstack.DrainInformerName, metav1.DeleteOptions{})
	})
	name := informersv1alpha1.InformerName(localstack.DrainInformerNamespace, localstack.DrainInformerName)
	about := func() *v1alpha1.HealthInsight { return drainInsightAbout(ctx, admin, node.Name) }
	var got *v1alpha1.HealthInsight
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, drainWait, true, func(context.Context) (bool, error) {
		got = about()
		return got != nil, nil
	}); err != nil {
		t.Fatalf("no insight of %s about %s within %v; informer log:\n%s", name, node.Name, drainWait, informer.LogTail(20))
	}
	if want := "Drain of " + node.Name + " failed: " + drainErr; got.Status.Impact.Summary != want {
		t.Errorf("summary %q, want %q", got.Status.Impact.Summary, want)
	}
	if !strings.Contains(got.Status.Impact.Description, "MachineConfigNode "+node.Name+" reports the drain has not succeeded: "+drainErr) {
		t.Errorf("description %q does not quote the MachineConfigNode", got.Status.Impact.Description)
	}

	ocp.MCNFinishDrain(created, node, time.Now())
	if _, err := mcfg.MachineconfigurationV1().MachineConfigNodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, drainWait, true, func(context.Context) (bool, error) {
		return about() == nil, nil
	}); err != nil {
		t.Fatalf("the insight about %s is still served %v after Drained turned True", node.Name, drainWait)
	}
}

// drainInsightAbout is the drain informer's served insight whose summary
// names node, or nil.
func drainInsightAbout(ctx context.Context, admin versioned.Interface, node string) *v1alpha1.HealthInsight {
	name := informersv1alpha1.InformerName(localstack.DrainInformerNamespace, localstack.DrainInformerName)
	list, err := admin.UpdateV1alpha1().HealthInsights().List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.LabelInformer + "=" + name})
	if err != nil {
		return nil
	}
	for i := range list.Items {
		if strings.Contains(list.Items[i].Status.Impact.Summary, node) {
			return &list.Items[i]
		}
	}
	return nil
}
