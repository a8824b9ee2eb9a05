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
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/update-status/apiserver/cmd/update-status/app"
	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/simulator"
)

// TestReadiness serves the readiness kinds of an idle simulated cluster,
// with a real Prometheus for the precheck alerts: kubectl and the generated
// clientset (protobuf for GET, LIST and WATCH) list the candidate releases (one whose risk applies, one whose
// risk does not), the reader role reads them and a user without a role is
// refused, `update-status recommend --kubeconfig` prints them in oc's layout,
// a watch sees the candidates move on to those of the new release when an
// update starts, and the readiness drops Progressing when it completes.
func TestReadiness(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	own, sim, clk := ownSimulatedCluster(ctx, t, "readiness", simulator.Options{Nodes: 4, Seed: 5})
	prom := startPrometheusOver(ctx, t, own, sim)
	startServerOf(ctx, t, own, localstack.ServerOptions{AlertsURL: prom.AlertsURL(), AlertsInterval: alertsInterval, AlertsKeep: alertsKeep})
	client := updateClientOf(t, own, &own.Users.Admin)
	from := sim.Options().FromVersion

	// The candidates of the idle cluster, through kubectl.
	var rows []map[string]string
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		res := own.Kubectl(ctx, localstack.AdminUser, "get", "updatecandidates")
		if res.Err != nil {
			return false, nil
		}
		rows = parseTable(res.Stdout)
		return len(rows) == 4, nil
	}); err != nil {
		t.Fatalf("kubectl get updatecandidates never listed 4 releases: %v", rows)
	}
	verdicts := map[string]string{}
	for _, r := range rows {
		verdicts[r["ISSUES"]] = r["RECOMMENDED"]
	}
	if verdicts[ocp.RiskApplies] != "False" || verdicts["none"] != "True" {
		t.Errorf("kubectl get updatecandidates: want one row with issue %s not recommended and recommended ones without issues, got %v", ocp.RiskApplies, rows)
	}

	// The generated clientset, in protobuf only, and the reader role.
	pcfg := own.RESTConfig(&own.Users.Admin)
	pcfg.ContentType, pcfg.AcceptContentTypes = runtime.ContentTypeProtobuf, runtime.ContentTypeProtobuf
	pclient := clientFor(t, versioned.NewForConfig, pcfg)
	list, err := pclient.UpdateV1alpha1().UpdateCandidates().List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 4 {
		t.Fatalf("list updatecandidates in protobuf: %v, %d items", err, len(list.Items))
	}
	if r, err := pclient.UpdateV1alpha1().UpdateReadinesses().Get(ctx, v1alpha1.ReadinessObjectName, metav1.GetOptions{}); err != nil || r.Status.Version != from || r.Status.Channel == "" {
		t.Fatalf("get updatereadinesses/cluster in protobuf: %v, %+v", err, r)
	}
	notApplying := 0
	for _, c := range list.Items {
		for _, r := range c.Status.Risks {
			if r.Name == ocp.RiskDoesNotApply && r.Applies == metav1.ConditionFalse && c.Status.Recommended == metav1.ConditionTrue {
				notApplying++
			}
		}
	}
	if notApplying != 1 {
		t.Errorf("want one recommended candidate whose risk %s does not apply, got %d", ocp.RiskDoesNotApply, notApplying)
	}
	viewer := updateClientOf(t, own, &own.Users.Viewer)
	if _, err := viewer.UpdateV1alpha1().UpdateReadinesses().Get(ctx, v1alpha1.ReadinessObjectName, metav1.GetOptions{}); err != nil {
		t.Errorf("viewer get updatereadinesses/cluster: %v", err)
	}
	nobody := updateClientOf(t, own, &own.Users.Nobody)
	if _, err := nobody.UpdateV1alpha1().UpdateCandidates().List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("nobody list updatecandidates = %v, want Forbidden", err)
	}

	// recommend renders them in oc's layout, with the precheck from
	// Prometheus once it fires.
	recommend := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		code := app.Run(ctx, app.Deps{Out: &out, ErrOut: &errOut, NewClient: func(string) (versioned.Interface, error) { return client, nil }},
			append([]string{"recommend", "--kubeconfig", "unused"}, args...))
		return out.String() + errOut.String(), code
	}
	var text string
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		text, _ = recommend()
		return strings.Contains(text, "recommended/UpdatePrecheckAlerts/PodDisruptionBudgetAllowsOneDisruption/0"), nil
	}); err != nil {
		t.Fatalf("recommend never showed the precheck alert:\n%s", text)
	}
	for _, want := range []string{"Upstream update service: ", "Channel: stable-", "  VERSION     ISSUES\n", "  Reason: " + ocp.RiskApplies + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("recommend lacks %q:\n%s", want, text)
		}
	}
	if text, code := recommend("--version", "9.9.9"); code == 0 || !strings.Contains(text, "error: no updates to 9 available") {
		t.Errorf("recommend --version 9.9.9: exit %d\n%s", code, text)
	}

	// A watch sees the candidates move on when the update starts: the
	// cluster-version operator offers the updates from the new release.
	w, err := pclient.UpdateV1alpha1().UpdateCandidates().Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := sim.StartUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	to := sim.Options().ToVersion
	tv, err := version.ParseSemantic(to)
	if err != nil {
		t.Fatal(err)
	}
	wantAdded := fmt.Sprintf("%d.%d.%d", tv.Major(), tv.Minor(), tv.Patch()+3)
	for added := false; !added; {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("the watch closed")
			}
			if c, isCandidate := ev.Object.(*v1alpha1.UpdateCandidate); isCandidate && ev.Type == watch.Added && c.Name == wantAdded {
				added = true
			}
		case <-ctx.Done():
			t.Fatalf("the watch never saw candidate %s added after the update to %s started", wantAdded, to)
		}
	}
	if text, _ := recommend(); !strings.Contains(text, "info: An update is in progress.") {
		t.Errorf("recommend during the update does not say so:\n%s", text)
	}
	if err := sim.RunVirtual(ctx, clk, 0); err != nil && !errors.Is(err, simulator.ErrStalled) {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		r, err := client.UpdateV1alpha1().UpdateReadinesses().Get(ctx, v1alpha1.ReadinessObjectName, metav1.GetOptions{})
		return err == nil && r.Status.Version == to && !slices.Contains(r.Status.Issues, v1alpha1.IssueProgressing), nil
	}); err != nil {
		t.Fatalf("after the update from %s to %s the readiness never showed it completed", from, to)
	}
}
