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
	"slices"
	"strings"
	"testing"
	"time"

	hyperv1 "github.com/openshift/hypershift/api/hypershift/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/cmd/update-status/app"
	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

// TestFleetReport updates three hosted clusters on the shared management
// cluster, one of them (named to sort last) with its first drain held past
// its NodePool's nodeDrainTimeout, and checks that
// `update-status report --hosted-clusters --kubeconfig` lists the three
// while the drain is held, the held one first: its stall outranks the names.
func TestFleetReport(t *testing.T) {
	const held = "fleet-c/zz-held"
	keys := []string{"fleet-a/calm", "fleet-b/inplace", held}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	admin := hostedAdmin(ctx, t)
	// Speed 60: the held drain's insight comes about 15 s into the update
	// (the control plane, a surge Machine, then five seconds of drain) and
	// stays 15 s; the ten-node NodePools of the others update for longer.
	sim := newHostedSim(t, admin, 8, hosted.Options{
		Clusters: []hosted.ClusterOptions{
			{Name: "calm", Namespace: "fleet-a", UpgradeType: hyperv1.UpgradeTypeReplace, Nodes: 10},
			{Name: "inplace", Namespace: "fleet-b", UpgradeType: hyperv1.UpgradeTypeInPlace, Nodes: 10},
			{Name: "zz-held", Namespace: "fleet-c", UpgradeType: hyperv1.UpgradeTypeReplace, Nodes: 2, Faults: []hosted.Fault{hosted.FaultHeldDrain}},
		},
		Speed:        60,
		DrainTimeout: 5 * time.Minute,
		HeldDrain:    20 * time.Minute,
	})
	if err := sim.Create(ctx); err != nil {
		t.Fatal(err)
	}
	client := updateClient(t, &cp.Users.Admin)
	// The three are served, with their control planes, before the update
	// starts (the server discovers the hosted APIs within 30 s).
	served := func() int {
		n := 0
		for _, key := range keys {
			ns, name, _ := strings.Cut(key, "/")
			if s, err := client.UpdateV1alpha1().HostedClusterUpdateStatuses(ns).Get(ctx, name, metav1.GetOptions{}); err == nil && hostedControlPlane(&s.Status) != nil {
				n++
			}
		}
		return n
	}
	waitFor(ctx, t, "the three hosted clusters served", time.Minute, func() bool { return served() == len(keys) })
	if err := sim.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- sim.Run(ctx) }()

	waitFor(ctx, t, "the held drain's Health insight", time.Minute, func() bool {
		list, err := client.UpdateV1alpha1().HostedHealthInsights("fleet-c").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		return slices.ContainsFunc(list.Items, func(h v1alpha1.HostedHealthInsight) bool {
			return strings.HasPrefix(h.Status.InsightUID, string(v1alpha1.HealthMachineDrain))
		})
	})
	var out, errOut strings.Builder
	if code := app.Run(ctx, app.Deps{Out: &out, ErrOut: &errOut}, []string{"report", "--hosted-clusters",
		"--kubeconfig", cp.KubeconfigPath(localstack.AdminUser)}); code != 0 {
		t.Fatalf("update-status report --hosted-clusters: exit %d: %s", code, errOut.String())
	}
	t.Logf("update-status report --hosted-clusters:\n%s", out.String())
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "HOSTED CLUSTER ") {
		t.Fatalf("no table header: %q", lines[0])
	}
	// Other tests' hosted clusters of the shared management cluster may be
	// listed too: the order of ours is checked.
	var ours []string
	for _, l := range lines[1:] {
		if f := strings.Fields(l); len(f) > 0 && slices.Contains(keys, f[0]) {
			ours = append(ours, f[0])
			if f[0] == held && !strings.Contains(l, "Error (Update Stalled)") {
				t.Errorf("the held hosted cluster's worst health is not the stalled drain: %q", l)
			}
		}
	}
	// The other two follow in the order of their worst health, which the
	// moment decides.
	if len(ours) != len(keys) || ours[0] != held || !slices.Equal(slices.Sorted(slices.Values(ours)), keys) {
		t.Errorf("rows %v, want the three of %v, %s first", ours, keys, held)
	}

	// The updates end (the drain released) before the next test.
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
}
