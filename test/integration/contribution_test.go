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
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/update-status/apiserver/internal/localstack"
	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/contribute"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
)

// contributionWait bounds the waits of the contribution tests: one fold and
// a status write through the kube-apiserver, with room for a loaded machine.
const contributionWait = 20 * time.Second

// contributionNamespace creates a namespace for one test's UpdateInformers
// and deletes it afterwards.
func contributionNamespace(t *testing.T, name string) {
	t.Helper()
	kube := clientFor(t, kubernetes.NewForConfig, cp.RESTConfig(&cp.Users.Admin))
	if _, err := kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

// contributor returns a Contributor of the demo example's insights as
// namespace/name, withdrawn at the end of the test.
func contributor(t *testing.T, client versioned.Interface, kube kubernetes.Interface, namespace, name string, lease time.Duration) *contribute.Contributor {
	t.Helper()
	c, err := contribute.New(client.InformersV1alpha1(), kube, namespace, name, contribute.WithLease(lease))
	if err != nil {
		t.Fatal(err)
	}
	demo := demoInformer(t)
	var cp []v1alpha1.ControlPlaneInsight
	if demo.Spec.ControlPlane != nil {
		cp = demo.Spec.ControlPlane.Insights
	}
	c.Set(cp, demo.Spec.WorkerPools)
	t.Cleanup(func() { _ = c.Withdraw(context.Background()) })
	return c
}

// waitForObjectStatus waits until the UpdateInformer namespace/name has a
// status that pred accepts.
func waitForObjectStatus(t *testing.T, client versioned.Interface, namespace, name, what string,
	pred func(*informersv1alpha1.UpdateInformerStatus) bool) *informersv1alpha1.UpdateInformer {
	t.Helper()
	var last *informersv1alpha1.UpdateInformer
	if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, contributionWait, true, func(ctx context.Context) (bool, error) {
		o, err := client.InformersV1alpha1().UpdateInformers(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = o
		return pred(&o.Status), nil
	}); err != nil {
		t.Fatalf("UpdateInformer %s/%s never showed %s; last:\n%s", namespace, name, what, dump(last))
	}
	return last
}

// healthInsightNames lists the names of the HealthInsight objects of informer.
func healthInsightNames(t *testing.T, client versioned.Interface, informer string) []string {
	t.Helper()
	list, err := client.UpdateV1alpha1().HealthInsights().List(t.Context(), metav1.ListOptions{LabelSelector: v1alpha1.LabelInformer + "=" + informer})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range list.Items {
		names = append(names, o.Name)
	}
	return names
}

// hasInformer reports whether UpdateStatus lists informer under the control
// plane and under pool.
func hasInformer(us *v1alpha1.UpdateStatus, informer, pool string) (controlPlane, inPool bool) {
	if us.Status.ControlPlane != nil {
		for _, inf := range us.Status.ControlPlane.Informers {
			controlPlane = controlPlane || inf.Name == informer
		}
	}
	for _, p := range us.Status.WorkerPools {
		for _, inf := range p.Informers {
			inPool = inPool || p.Name == pool && inf.Name == informer
		}
	}
	return controlPlane, inPool
}

// serverInsightAbout returns the Health insight of the server's informer
// about the UpdateInformer namespace/name, if any.
func serverInsightAbout(us *v1alpha1.UpdateStatus, namespace, name string) *v1alpha1.ControlPlaneInsight {
	if us.Status.ControlPlane == nil {
		return nil
	}
	for _, inf := range us.Status.ControlPlane.Informers {
		if inf.Name != v1alpha1.InformerServer {
			continue
		}
		for i := range inf.Insights {
			h := inf.Insights[i].Insight.HealthInsight
			if h == nil {
				continue
			}
			for _, r := range h.Scope.Resources {
				if r.Resource == informersv1alpha1.ResourceUpdateInformers && r.Namespace == namespace && r.Name == name {
					return &inf.Insights[i]
				}
			}
		}
	}
	return nil
}

// TestExternalInformer contributes the demo example's insights through the
// contributor library and follows them through the API: merged into
// UpdateStatus and served as HealthInsight objects named <uid>.<informer>,
// the object's status Accepted; renewals alone make no watch event; a lapsed
// lease takes the insights away and raises the server's insight naming the
// informer, and a renewal brings them back.
func TestExternalInformer(t *testing.T) {
	const ns = "contrib-demo"
	contributionNamespace(t, ns)
	admin := updateClient(t, &cp.Users.Admin)
	demo := contributor(t, admin, cp.Kube, ns, "demo", time.Minute)
	informer := demo.InformerName()
	if err := demo.Write(t.Context()); err != nil {
		t.Fatal(err)
	}

	waitForStatus(t.Context(), t, contributionWait, "the demo informer under the control plane and the worker pool", func(us *v1alpha1.UpdateStatus) bool {
		c, p := hasInformer(us, informer, "worker")
		return c && p
	})
	want := []string{"demo-drain-blocked." + informer, "demo-etcd-backup-missing." + informer}
	var names []string
	if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, contributionWait, true, func(context.Context) (bool, error) {
		names = healthInsightNames(t, admin, informer)
		return strings.Join(names, ",") == strings.Join(want, ","), nil
	}); err != nil {
		t.Fatalf("HealthInsights of informer %s: %v, want %v", informer, names, want)
	}
	waitForObjectStatus(t, admin, ns, "demo", "Accepted=True, Expired=False, 2 insights", func(st *informersv1alpha1.UpdateInformerStatus) bool {
		return meta.IsStatusConditionTrue(st.Conditions, informersv1alpha1.ConditionAccepted) &&
			meta.IsStatusConditionFalse(st.Conditions, informersv1alpha1.ConditionExpired) &&
			st.Informer == informer && st.Insights != nil && *st.Insights == 2
	})

	t.Run("a server started afresh serves the same objects", func(t *testing.T) {
		in, err := cp.StartInstance(t.Context(), localstack.InstanceOptions{Name: "contributions"})
		if err != nil {
			t.Fatal(err)
		}
		defer in.Process.Stop(5 * time.Second)
		fresh := directClient(t, in.URL, &cp.Users.Admin)
		sel := metav1.ListOptions{LabelSelector: v1alpha1.LabelInformer + "=" + informer}
		var got *v1alpha1.HealthInsightList
		if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, contributionWait, true, func(ctx context.Context) (bool, error) {
			got, err = fresh.UpdateV1alpha1().HealthInsights().List(ctx, sel)
			return err == nil && len(got.Items) == len(want), nil
		}); err != nil {
			t.Fatalf("the fresh server never served the %d insights of %s: %v", len(want), informer, err)
		}
		served, err := admin.UpdateV1alpha1().HealthInsights().List(t.Context(), sel)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got.Items {
			g, w := &got.Items[i], &served.Items[i]
			if g.Name != w.Name || g.UID != w.UID || !equality.Semantic.DeepEqual(g.Status, w.Status) || !equality.Semantic.DeepEqual(g.Labels, w.Labels) {
				t.Errorf("the fresh server serves\n%s\nwhere the running one serves\n%s", dump(g), dump(w))
			}
		}
	})

	t.Run("renewals make no watch event", func(t *testing.T) {
		// A contributor that runs, as components do: it renews its Lease
		// every second (a third of its lease).
		ctx, stop := context.WithCancel(t.Context())
		running := contributor(t, admin, cp.Kube, ns, "running", 3*time.Second)
		done := make(chan error, 1)
		go func() { done <- running.Run(ctx) }()
		defer func() {
			stop()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		}()
		waitForStatus(t.Context(), t, contributionWait, "the running informer's insights", func(us *v1alpha1.UpdateStatus) bool {
			c, p := hasInformer(us, running.InformerName(), "worker")
			return c && p
		})
		leases := cp.Kube.CoordinationV1().Leases(ns)
		renewedAt := func() time.Time {
			l, err := leases.Get(t.Context(), "running", metav1.GetOptions{})
			if err != nil || l.Spec.RenewTime == nil {
				return time.Time{}
			}
			return l.Spec.RenewTime.Time
		}
		us := getStatus(t.Context(), t)
		hiList, err := admin.UpdateV1alpha1().HealthInsights().List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		usWatch, err := admin.UpdateV1alpha1().UpdateStatuses().Watch(t.Context(), metav1.ListOptions{ResourceVersion: us.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer usWatch.Stop()
		hiWatch, err := admin.UpdateV1alpha1().HealthInsights().Watch(t.Context(), metav1.ListOptions{ResourceVersion: hiList.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		defer hiWatch.Stop()
		// 5 renewals through the Lease, and 5 through the object itself
		// (spec.renewTime, as a script without a Lease renews).
		last := renewedAt()
		for i := range 5 {
			if err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, contributionWait, true, func(context.Context) (bool, error) {
				at := renewedAt()
				if at.After(last) {
					last = at
					return true, nil
				}
				return false, nil
			}); err != nil {
				t.Fatalf("renewal %d of the Lease: %v", i+1, err)
			}
			if err := demo.Write(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		// A change after the renewals: the first event of each watch must be
		// this one's, so the renewals made none.
		sentinel := contributor(t, admin, cp.Kube, ns, "sentinel", time.Minute)
		if err := sentinel.Write(t.Context()); err != nil {
			t.Fatal(err)
		}
		firstEvent := func(w watch.Interface, what string) watch.Event {
			t.Helper()
			select {
			case ev := <-w.ResultChan():
				return ev
			case <-time.After(contributionWait):
				t.Fatalf("no %s event after the sentinel contribution", what)
			}
			return watch.Event{}
		}
		ev := firstEvent(usWatch, "UpdateStatus")
		if got, ok := ev.Object.(*v1alpha1.UpdateStatus); !ok {
			t.Fatalf("first UpdateStatus event: %s %T", ev.Type, ev.Object)
		} else if c, _ := hasInformer(got, sentinel.InformerName(), "worker"); !c {
			t.Errorf("the first UpdateStatus event after 10 renewals is not the sentinel's change:\n%s", dump(got))
		}
		ev = firstEvent(hiWatch, "HealthInsight")
		if got, ok := ev.Object.(*v1alpha1.HealthInsight); !ok || !strings.HasSuffix(got.Name, "."+sentinel.InformerName()) {
			t.Errorf("the first HealthInsight event after 10 renewals is %s %v, not the sentinel's", ev.Type, dump(ev.Object))
		}
	})

	t.Run("a lapsed lease", func(t *testing.T) {
		short := contributor(t, admin, cp.Kube, ns, "short", 2*time.Second)
		if err := short.Write(t.Context()); err != nil {
			t.Fatal(err)
		}
		us, _ := waitForStatus(t.Context(), t, contributionWait, "the short informer's insights gone and the server's insight about it",
			func(us *v1alpha1.UpdateStatus) bool {
				c, p := hasInformer(us, short.InformerName(), "worker")
				return !c && !p && serverInsightAbout(us, ns, "short") != nil
			})
		h := serverInsightAbout(us, ns, "short").Insight.HealthInsight
		if !strings.Contains(h.Impact.Summary, short.InformerName()) || !strings.HasPrefix(serverInsightAbout(us, ns, "short").UID, string(v1alpha1.HealthInformerExpired)) {
			t.Errorf("the server's insight does not say that %s stopped reporting:\n%s", short.InformerName(), dump(h))
		}
		if names := healthInsightNames(t, admin, short.InformerName()); len(names) != 0 {
			t.Errorf("HealthInsights of the lapsed informer are still served: %v", names)
		}
		waitForObjectStatus(t, admin, ns, "short", "Expired=True", func(st *informersv1alpha1.UpdateInformerStatus) bool {
			return meta.IsStatusConditionTrue(st.Conditions, informersv1alpha1.ConditionExpired)
		})
		// Renewed: back, and the server's insight gone. A 2-s lease may lapse
		// again before the check, so renew with a longer one.
		renewed := contributor(t, admin, cp.Kube, ns, "short", time.Minute)
		if err := renewed.Write(t.Context()); err != nil {
			t.Fatal(err)
		}
		waitForStatus(t.Context(), t, contributionWait, "the renewed informer back", func(us *v1alpha1.UpdateStatus) bool {
			c, p := hasInformer(us, short.InformerName(), "worker")
			return c && p && serverInsightAbout(us, ns, "short") == nil
		})
	})

	t.Run("refused: a pool that does not exist", func(t *testing.T) {
		bad, err := contribute.New(admin.InformersV1alpha1(), cp.Kube, ns, "bad", contribute.WithLease(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		pools := demoInformer(t).Spec.WorkerPools
		pools[0].Name = "no-such-pool"
		bad.Set(nil, pools)
		t.Cleanup(func() { _ = bad.Withdraw(context.Background()) })
		if err := bad.Write(t.Context()); err != nil {
			t.Fatal(err)
		}
		o := waitForObjectStatus(t, admin, ns, "bad", "Accepted=False", func(st *informersv1alpha1.UpdateInformerStatus) bool {
			return meta.IsStatusConditionFalse(st.Conditions, informersv1alpha1.ConditionAccepted)
		})
		if c := meta.FindStatusCondition(o.Status.Conditions, informersv1alpha1.ConditionAccepted); c.Reason != informersv1alpha1.ReasonUnknownPool ||
			!strings.Contains(c.Message, "no-such-pool") {
			t.Errorf("Accepted condition: %s", dump(c))
		}
		waitForStatus(t.Context(), t, contributionWait, "the server's insight about the refused contribution", func(us *v1alpha1.UpdateStatus) bool {
			in := serverInsightAbout(us, ns, "bad")
			return in != nil && strings.HasPrefix(in.UID, string(v1alpha1.HealthInformerRefused))
		})
		if _, ok := hasInformer(getStatus(t.Context(), t), bad.InformerName(), "no-such-pool"); ok {
			t.Error("the refused contribution's insights are merged")
		}
	})
}

// informerServiceAccount creates the ServiceAccount "informer" in namespace,
// binds it to the update-status-informer ClusterRole there (as the role's
// manifest says to) and returns the clientsets that authenticate as it.
func informerServiceAccount(t *testing.T, namespace string) (versioned.Interface, kubernetes.Interface) {
	t.Helper()
	ctx := t.Context()
	kube := clientFor(t, kubernetes.NewForConfig, cp.RESTConfig(&cp.Users.Admin))
	if _, err := kube.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "informer"}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "informer"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "update-status-informer"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: "informer"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return serviceAccountClients(ctx, t, namespace, "informer")
}

// TestInformerRBAC gives two components their own ServiceAccount, each bound
// to update-status-informer in its own namespace: each contributes, and its
// insights show in kubectl; neither can create, modify or delete the other's
// UpdateInformer, nor write the status, which is the server's.
func TestInformerRBAC(t *testing.T) {
	ctx := t.Context()
	const nsA, nsB = "team-a", "team-b"
	contributionNamespace(t, nsA)
	contributionNamespace(t, nsB)
	a, aKube := informerServiceAccount(t, nsA)
	b, bKube := informerServiceAccount(t, nsB)
	ca, cb := contributor(t, a, aKube, nsA, "drain", time.Minute), contributor(t, b, bKube, nsB, "drain", time.Minute)
	// Each runs as a component does: the object, then its Lease.
	runCtx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer func() { stop(); running.Wait() }()
	for _, c := range []*contribute.Contributor{ca, cb} {
		running.Go(func() {
			if err := c.Run(runCtx); err != nil {
				t.Errorf("%s withdraws its own contribution: %v", c.InformerName(), err)
			}
		})
	}
	for _, ns := range []string{nsA, nsB} {
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, contributionWait, true, func(ctx context.Context) (bool, error) {
			_, err := cp.Kube.CoordinationV1().Leases(ns).Get(ctx, "drain", metav1.GetOptions{})
			return err == nil, nil
		}); err != nil {
			t.Fatalf("the contributor of %s never wrote its object and its Lease: %v", ns, err)
		}
	}
	for _, c := range []*contribute.Contributor{ca, cb} {
		informer := c.InformerName()
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, contributionWait, true, func(ctx context.Context) (bool, error) {
			res := cp.Kubectl(ctx, localstack.AdminUser, "get", "hi", "-l", v1alpha1.LabelInformer+"="+informer, "-o", "name")
			return res.Err == nil && strings.Count(res.Stdout, "."+informer) == 2, nil
		}); err != nil {
			t.Errorf("kubectl get hi -l %s=%s never listed its 2 insights", v1alpha1.LabelInformer, informer)
		}
	}

	// kubectl get updatestatus -o yaml shows both. (update-status report
	// prints health only while the cluster updates, as oc does; its naming
	// of external informers is tested in pkg/report.)
	yamlOut := cp.Kubectl(ctx, localstack.ViewerUser, "get", "updatestatus", "cluster", "-o", "yaml")
	if yamlOut.Err != nil {
		t.Fatal(yamlOut.Err)
	}
	for _, c := range []*contribute.Contributor{ca, cb} {
		if !strings.Contains(yamlOut.Stdout, "name: "+c.InformerName()+"\n") {
			t.Errorf("kubectl get updatestatus -o yaml does not list informer %s", c.InformerName())
		}
	}

	bClient := b.InformersV1alpha1().UpdateInformers(nsA)
	theirs, err := updateClient(t, &cp.Users.Admin).InformersV1alpha1().UpdateInformers(nsA).Get(ctx, "drain", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	own, err := b.InformersV1alpha1().UpdateInformers(nsB).Get(ctx, "drain", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	theirLease, err := cp.Kube.CoordinationV1().Leases(nsA).Get(ctx, "drain", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []struct {
		name string
		call func() error
	}{
		{"renew the other's Lease", func() error {
			l := theirLease.DeepCopy()
			l.Spec.RenewTime = ptr.To(metav1.NowMicro())
			_, err := bKube.CoordinationV1().Leases(nsA).Update(ctx, l, metav1.UpdateOptions{})
			return err
		}},
		{"create a Lease in the other's namespace", func() error {
			l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "shadow", Labels: theirLease.Labels}, Spec: theirLease.Spec}
			_, err := bKube.CoordinationV1().Leases(nsA).Create(ctx, l, metav1.CreateOptions{})
			return err
		}},
		{"create in the other's namespace", func() error {
			_, err := bClient.Create(ctx, &informersv1alpha1.UpdateInformer{ObjectMeta: metav1.ObjectMeta{Name: "shadow"}, Spec: theirs.Spec}, metav1.CreateOptions{})
			return err
		}},
		{"update the other's", func() error {
			_, err := bClient.Update(ctx, theirs.DeepCopy(), metav1.UpdateOptions{})
			return err
		}},
		{"delete the other's", func() error { return bClient.Delete(ctx, "drain", metav1.DeleteOptions{}) }},
		{"write its own status", func() error {
			o := own.DeepCopy()
			o.Status.Informer = "cpi"
			_, err := b.InformersV1alpha1().UpdateInformers(nsB).UpdateStatus(ctx, o, metav1.UpdateOptions{})
			return err
		}},
	}
	for _, tc := range forbidden {
		if err := tc.call(); !apierrors.IsForbidden(err) {
			t.Errorf("%s: %v, want Forbidden", tc.name, err)
		}
	}
}
