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

package apiserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	auditpolicy "k8s.io/apiserver/pkg/audit/policy"
	genericfeatures "k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	auditlog "k8s.io/apiserver/plugin/pkg/audit/log"
	"k8s.io/client-go/rest"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
)

const (
	base    = "/apis/update.openshift.io/v1alpha1"
	objPath = base + "/updatestatuses/cluster"
)

// testServer is the real generic apiserver handler chain around the
// UpdateStatus storage, without authentication, authorization or TLS.
type testServer struct {
	srv     *apiserver.UpdateStatusServer
	handler http.Handler
}

type serverOptions struct {
	sources   apiserver.Sources
	computer  view.Computer
	clock     clock.WithTicker
	foldDelay time.Duration
	stall     time.Duration
	// plain turns the encoding cache off: every GET and watch event of the
	// UpdateStatus is encoded by its handler.
	plain bool
	// audit receives the audit events, one JSON line each, of the requests
	// to updatestatuses; none are kept when nil.
	audit io.Writer
}

// newTestServer builds and starts a server. Without sources it uses a
// viewtest.Snapshotter that is synced at input resourceVersion 100; without a
// computer one that returns a small synthetic status.
func newTestServer(tb testing.TB, o serverOptions) *testServer {
	tb.Helper()
	featuregatetesting.SetFeatureGateDuringTest(tb, utilfeature.DefaultFeatureGate, genericfeatures.WatchList, true)
	if o.sources == nil {
		o.sources = viewtest.NewSnapshotter(100)
	}
	if o.computer == nil {
		status := viewtest.Synthetic(3, 1)
		o.computer = view.ComputerFunc(func(*insights.Sources, time.Time) insights.Result {
			return insights.Result{Status: status}
		})
	}
	gc := apiserver.NewGenericConfig()
	gc.LoopbackClientConfig = &rest.Config{Host: "https://127.0.0.1:1"}
	gc.ExternalAddress = "127.0.0.1:443"
	if o.audit != nil {
		gc.AuditBackend = auditlog.NewBackend(o.audit, auditlog.FormatJson, auditv1.SchemeGroupVersion)
		gc.AuditPolicyRuleEvaluator = auditpolicy.NewPolicyRuleEvaluator(&auditinternal.Policy{
			OmitStages: []auditinternal.Stage{auditinternal.StageRequestReceived},
			Rules: []auditinternal.PolicyRule{{
				Level:     auditinternal.LevelRequestResponse,
				Resources: []auditinternal.GroupResources{{Group: update.GroupName, Resources: []string{resources.UpdateStatus.Resource}}},
			}},
		})
	}
	cfg := &apiserver.Config{
		GenericConfig: gc,
		ExtraConfig: apiserver.ExtraConfig{Sources: o.sources, Computer: o.computer, Clock: o.clock,
			FoldDelay: o.foldDelay, WatchStallTimeout: o.stall},
	}
	if o.plain {
		cfg.ExtraConfig.EncodingRevisions = -1
	}
	srv, err := cfg.Complete().New()
	if err != nil {
		tb.Fatal(err)
	}
	srv.GenericAPIServer.PrepareRun()
	ctx, cancel := context.WithCancel(context.Background())
	srv.GenericAPIServer.RunPostStartHooks(ctx)
	tb.Cleanup(func() {
		cancel()
		srv.GenericAPIServer.Destroy()
	})
	return &testServer{srv: srv, handler: srv.GenericAPIServer.Handler}
}

// newSyntheticServer starts a ready server that serves a fixed synthetic
// status with the given number of worker nodes.
func newSyntheticServer(tb testing.TB, workers int, plain bool) *testServer {
	tb.Helper()
	status := viewtest.Synthetic(workers, 1)
	s := newTestServer(tb, serverOptions{plain: plain, computer: view.ComputerFunc(func(*insights.Sources, time.Time) insights.Result {
		return insights.Result{Status: status}
	})})
	s.waitReady(tb)
	return s
}

// newClusterServer builds a server over viewtest.Cluster(workers, pools,
// seed) with the real engine, waits until every node is listed, and returns the server and
// the JSON LIST of its NodeProgressInsights.
func newClusterServer(tb testing.TB, workers, pools int, seed int64, plain bool) (*testServer, []byte) {
	tb.Helper()
	src, _ := viewtest.Cluster(workers, pools, seed)
	source := viewtest.NewSnapshotter(1000)
	source.Set(view.Snapshot{Inputs: src, MaxResourceVersion: 1000, InitialSyncDone: true})
	s := newTestServer(tb, serverOptions{sources: source, computer: insights.NewEngine(), plain: plain})
	s.waitReady(tb)
	var list []byte
	testio.Eventually(tb, "every node listed", func() bool {
		rec := s.do(tb, http.MethodGet, base+"/nodeprogressinsights", "", map[string]string{"Accept": "application/json"})
		list = rec.Body.Bytes()
		return len(decode[v1alpha1.NodeProgressInsightList](tb, rec).Items) == len(src.Nodes)
	})
	return s, list
}

// do sends one request through the handler chain.
func (s *testServer) do(tb testing.TB, method, path, body string, header map[string]string) *httptest.ResponseRecorder {
	tb.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	return rec
}

// waitReady waits until GET of the object stops answering 429 and readyz
// passes.
func (s *testServer) waitReady(tb testing.TB) {
	tb.Helper()
	// UpdateStatus being served does not mean that every kind's watch cache
	// holds the first computation yet: readyz checks each.
	testio.Eventually(tb, "the server to be ready", func() bool {
		return s.do(tb, http.MethodGet, objPath, "", nil).Code == http.StatusOK &&
			s.do(tb, http.MethodGet, "/readyz", "", nil).Code == http.StatusOK
	})
}

func decode[T any](tb testing.TB, rec *httptest.ResponseRecorder) T {
	tb.Helper()
	var out T
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		tb.Fatalf("decoding %q: %v", rec.Body.String(), err)
	}
	return out
}

func target(us *v1alpha1.UpdateStatus) string {
	return us.Status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight.Versions.Target.Version
}
