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
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"github.com/update-status/apiserver/cmd/update-status/app"
	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/informers/externalversions"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// hostedControlPlane returns the ClusterVersion insight of a hosted
// cluster's status, nil when it has none.
func hostedControlPlane(s *v1alpha1.UpdateStatusStatus) *v1alpha1.ClusterVersionStatusInsight {
	if s.ControlPlane == nil {
		return nil
	}
	for _, inf := range s.ControlPlane.Informers {
		for _, in := range inf.Insights {
			if cv := in.Insight.ClusterVersionStatusInsight; cv != nil {
				return cv
			}
		}
	}
	return nil
}

// nodePhases keeps, per hosted node object, the Updating reasons it went
// through, each change once.
type nodePhases struct {
	mu     sync.Mutex
	phases map[string][]string // namespace/name -> reasons
}

func (p *nodePhases) record(obj any) {
	n, ok := obj.(*v1alpha1.HostedNodeProgressInsight)
	if !ok {
		return
	}
	reason := ""
	for _, c := range n.Status.Conditions {
		if c.Type == string(v1alpha1.NodeStatusInsightUpdating) {
			reason = c.Reason
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	key := n.Namespace + "/" + n.Name
	if seq := p.phases[key]; len(seq) == 0 || seq[len(seq)-1] != reason {
		p.phases[key] = append(seq, reason)
	}
}

// of returns the sequences of the node objects in namespace ns.
func (p *nodePhases) of(ns string) map[string][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string][]string{}
	for key, seq := range p.phases {
		if strings.HasPrefix(key, ns+"/") {
			out[key] = slices.Clone(seq)
		}
	}
	return out
}

// waitFor polls cond until it holds and fails t after timeout: the waits of
// a simulated update in real time, longer than testio.Eventually's.
func waitFor(ctx context.Context, t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, timeout, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// TestHostedUpdates follows two hosted clusters through their updates on
// the shared management cluster (the hosted CRDs installed while the server
// runs, so it discovers them late): a Replace NodePool whose first drain is
// held past its nodeDrainTimeout, and an InPlace one, each in a namespace of
// its own. The generated informer and `kubectl get hcus -A -w` follow both
// to Completed; every node object is seen in each phase its Machine passes
// through; the held drain yields its Health insight; a reader bound in one
// namespace reads that namespace's hosted cluster only; the standalone
// UpdateStatus carries nothing of the hosted clusters.
func TestHostedUpdates(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	admin := hostedAdmin(ctx, t)
	const replaceNS, inplaceNS = "hosted-e2e-a", "hosted-e2e-b"
	// Speed 60: a drain lasts a second, a reboot two, the held drain ten,
	// past the NodePool's nodeDrainTimeout of five.
	sim := newHostedSim(t, admin, 8, hosted.Options{
		Clusters: []hosted.ClusterOptions{
			{Name: "rep", Namespace: replaceNS, UpgradeType: hyperv1.UpgradeTypeReplace, Nodes: 2, Faults: []hosted.Fault{hosted.FaultHeldDrain}},
			{Name: "inp", Namespace: inplaceNS, UpgradeType: hyperv1.UpgradeTypeInPlace, Nodes: 2},
		},
		Speed: 60,
	})
	if err := sim.Create(ctx); err != nil {
		t.Fatal(err)
	}

	client := updateClient(t, &cp.Users.Admin)
	// The generated informers of every namespace: the hosted clusters'
	// control-plane assessments and the node objects' phases.
	factory := externalversions.NewSharedInformerFactory(client, 0)
	var mu sync.Mutex
	assessments := map[string][]v1alpha1.ControlPlaneAssessment{}
	onStatus := func(obj any) {
		s, ok := obj.(*v1alpha1.HostedClusterUpdateStatus)
		if !ok {
			return
		}
		cv := hostedControlPlane(&s.Status)
		if cv == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		key := s.Namespace + "/" + s.Name
		if seq := assessments[key]; len(seq) == 0 || seq[len(seq)-1] != cv.Assessment {
			assessments[key] = append(seq, cv.Assessment)
		}
	}
	statusInformer := factory.Update().V1alpha1().HostedClusterUpdateStatuses().Informer()
	if _, err := statusInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onStatus, UpdateFunc: func(_, obj any) { onStatus(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	var drainInsights sync.Map // insight uid -> summary, of replaceNS
	if _, err := factory.Update().V1alpha1().HostedHealthInsights().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if h, ok := obj.(*v1alpha1.HostedHealthInsight); ok && h.Namespace == replaceNS && strings.HasPrefix(h.Status.InsightUID, "health-machine-drain") {
				drainInsights.Store(h.Status.InsightUID, h.Status.Impact.Summary)
			}
		},
	}); err != nil {
		t.Fatal(err)
	}
	nodes := &nodePhases{phases: map[string][]string{}}
	if _, err := factory.Update().V1alpha1().HostedNodeProgressInsights().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: nodes.record, UpdateFunc: func(_, obj any) { nodes.record(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("informer of %v did not sync", typ)
		}
	}
	kubectlCtx, stopKubectl := context.WithCancel(ctx)
	defer stopKubectl()
	stdout, stderr := startKubectl(kubectlCtx, t, stopKubectl, "get", "hcus", "-A", "-w", "-o", "json", "--output-watch-events")
	kubectlEvents := decodeEvents(stdout)

	// Both hosted clusters and their nodes are served, idle, before the
	// update starts: once the server has discovered the hosted APIs (it
	// looks every 30 s; until then it serves the hosted kinds empty).
	waitFor(ctx, t, "both hosted clusters and their four nodes Completed", time.Minute, func() bool {
		done := 0
		for _, ns := range []string{replaceNS, inplaceNS} {
			for _, seq := range nodes.of(ns) {
				if seq[len(seq)-1] == string(v1alpha1.NodeCompleted) {
					done++
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		return done == 4 && len(assessments[replaceNS+"/rep"]) > 0 && len(assessments[inplaceNS+"/inp"]) > 0
	})
	if err := sim.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- sim.Run(ctx) }()

	// While the drain is held past the timeout: the Health insight, and the
	// report of that hosted cluster, in oc's layout, prints it.
	var summary string
	defer func() {
		if t.Failed() {
			list, err := client.UpdateV1alpha1().HostedHealthInsights("").List(ctx, metav1.ListOptions{})
			if err == nil {
				for _, h := range list.Items {
					t.Logf("health insight %s/%s: %s", h.Namespace, h.Name, h.Status.Impact.Summary)
				}
			}
			t.Logf("node phases: %v %v", nodes.of(replaceNS), nodes.of(inplaceNS))
		}
	}()
	waitFor(ctx, t, "the held drain's Health insight", time.Minute, func() bool {
		drainInsights.Range(func(_, v any) bool { summary = v.(string); return false })
		return summary != ""
	})
	var out, errOut strings.Builder
	if code := app.Run(ctx, app.Deps{Out: &out, ErrOut: &errOut}, []string{"report", "--hosted-cluster", replaceNS + "/rep",
		"--kubeconfig", cp.KubeconfigPath(localstack.AdminUser), "--details=all"}); code != 0 {
		t.Fatalf("update-status report --hosted-cluster: exit %d: %s", code, errOut.String())
	}
	t.Logf("update-status report --hosted-cluster %s/rep:\n%s", replaceNS, out.String())
	for _, want := range []string{"= Control Plane =", "= Node Pool Upgrade =", "= Update Health =", summary} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if err := <-ran; err != nil {
		t.Fatal(err)
	}

	// The informer follows each hosted cluster to Completed, through
	// Progressing (and, for the held drain, whatever the stall shows).
	for _, key := range []string{replaceNS + "/rep", inplaceNS + "/inp"} {
		waitFor(ctx, t, key+" Completed", 2*time.Minute, func() bool {
			mu.Lock()
			defer mu.Unlock()
			seq := assessments[key]
			return len(seq) > 2 && seq[len(seq)-1] == v1alpha1.ControlPlaneAssessmentCompleted &&
				slices.Contains(seq, v1alpha1.ControlPlaneAssessmentProgressing)
		})
	}
	// So does kubectl -w.
	completed := map[string]bool{}
	deadline := time.After(time.Minute)
	for len(completed) < 2 {
		select {
		case ev, ok := <-kubectlEvents:
			if !ok {
				t.Fatalf("kubectl get hcus -A -w ended: %s", stderr.String())
			}
			var s v1alpha1.HostedClusterUpdateStatus
			if err := json.Unmarshal(ev.Object, &s); err != nil {
				t.Fatalf("kubectl event: %v", err)
			}
			if cv := hostedControlPlane(&s.Status); cv != nil && cv.Assessment == v1alpha1.ControlPlaneAssessmentCompleted &&
				slices.Contains([]string{replaceNS + "/rep", inplaceNS + "/inp"}, s.Namespace+"/"+s.Name) {
				completed[s.Namespace+"/"+s.Name] = true
			}
		case <-deadline:
			t.Fatalf("kubectl get hcus -A -w showed %v Completed within a minute", completed)
		}
	}

	// Every node, in each phase it passed through. Replace: the old
	// Machines were Completed, then drained (and gone); the new ones were
	// Updating (provisioning), then Completed. InPlace: the same Machines
	// rebooted, then were Completed at the target.
	testio.Eventually(t, "every node's phases", func() bool {
		var oldDrained, newDone, rebooted int
		for _, seq := range nodes.of(replaceNS) {
			switch {
			case seq[0] == string(v1alpha1.NodeCompleted) && slices.Contains(seq, string(v1alpha1.NodeDraining)):
				oldDrained++
			case seq[0] == string(v1alpha1.NodeUpdating) && seq[len(seq)-1] == string(v1alpha1.NodeCompleted):
				newDone++
			}
		}
		for _, seq := range nodes.of(inplaceNS) {
			if i := slices.Index(seq, string(v1alpha1.NodeRebooting)); i > 0 && seq[len(seq)-1] == string(v1alpha1.NodeCompleted) {
				rebooted++
			}
		}
		return oldDrained == 2 && newDone == 2 && rebooted == 2
	})
	t.Logf("node phases: %v %v", nodes.of(replaceNS), nodes.of(inplaceNS))

	// The held drain's Health insight is gone once the drain ended.
	health, err := client.UpdateV1alpha1().HostedHealthInsights(replaceNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range health.Items {
		if strings.HasPrefix(h.Status.InsightUID, "health-machine-drain") {
			t.Errorf("%s: the drain insight outlived the drain", h.Name)
		}
	}

	// A reader bound in one namespace reads that namespace's hosted
	// cluster, and no other.
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "hosted-reader", Namespace: replaceNS},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "hostedclusterupdatestatus-reader"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: localstack.HostedReaderUser}},
	}
	if _, err := cp.Kube.RbacV1().RoleBindings(replaceNS).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	reader := updateClient(t, &cp.Users.HostedReader)
	testio.Eventually(t, "the reader lists its namespace's hosted cluster", func() bool {
		list, err := reader.UpdateV1alpha1().HostedClusterUpdateStatuses(replaceNS).List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) == 1 && list.Items[0].Name == "rep"
	})
	for _, ns := range []string{inplaceNS, metav1.NamespaceAll} {
		if _, err := reader.UpdateV1alpha1().HostedClusterUpdateStatuses(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("the reader of %s lists hcus in %q: %v, want Forbidden", replaceNS, ns, err)
		}
		if _, err := reader.UpdateV1alpha1().HostedNodeProgressInsights(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("the reader of %s lists hnpi in %q: %v, want Forbidden", replaceNS, ns, err)
		}
	}

	// The standalone UpdateStatus says nothing of the hosted clusters.
	us, err := client.UpdateV1alpha1().UpdateStatuses().Get(ctx, statusName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(us.Status)
	if err != nil {
		t.Fatal(err)
	}
	for _, word := range []string{hyperv1.GroupVersion.Group, "rep", "inp"} {
		if strings.Contains(string(b), `"`+word+`"`) {
			t.Errorf("the standalone UpdateStatus mentions %q", word)
		}
	}
}
