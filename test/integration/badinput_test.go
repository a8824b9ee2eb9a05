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
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apis/update/validation"
	"github.com/update-status/apiserver/pkg/insights"
)

// TestBadRequests: malformed or odd requests get a clear 4xx Status (or are
// served, where Kubernetes ignores the oddity), never a 5xx.
func TestBadRequests(t *testing.T) {
	tests := []struct {
		name  string
		path  string
		codes []int
	}{
		{"unknown query parameter", collectionPath + "?color=blue", []int{200}},
		{"unknown query parameter on get", localstack.UpdateStatusPath + "?color=blue", []int{200}},
		{"bad label selector", collectionPath + "?labelSelector=!!a%3D%3D", []int{400}},
		{"unsupported field selector", collectionPath + "?fieldSelector=spec.nodeName%3Dx", []int{400}},
		{"bad field selector syntax", collectionPath + "?fieldSelector=%3D%3D%3D", []int{400}},
		{"supported field selector", collectionPath + "?fieldSelector=metadata.name%3Dcluster", []int{200}},
		{"non-numeric resourceVersion", collectionPath + "?resourceVersion=abc", []int{400, 422}},
		{"non-numeric resourceVersion on get", localstack.UpdateStatusPath + "?resourceVersion=abc", []int{400, 422}},
		{"huge limit", collectionPath + "?limit=9223372036854775807", []int{200}},
		{"negative limit", collectionPath + "?limit=-5", []int{200, 400, 422}},
		{"non-numeric limit", collectionPath + "?limit=many", []int{400}},
		{"bogus continue token", collectionPath + "?continue=garbage", []int{400, 410, 422}},
		{"unknown name", "/apis/update.openshift.io/v1alpha1/updatestatuses/not-cluster", []int{404}},
		{"unknown subresource", localstack.UpdateStatusPath + "/scale", []int{404}},
		{"resourceVersionMatch without resourceVersion", collectionPath + "?resourceVersionMatch=Exact", []int{400, 422}},
		{"unknown resourceVersionMatch", collectionPath + "?resourceVersionMatch=Sometimes&resourceVersion=1", []int{400, 422}},
		{"resourceVersionMatch=NotOlderThan with 0", collectionPath + "?resourceVersionMatch=NotOlderThan&resourceVersion=0", []int{200, 400, 422}},
		{"resourceVersionMatch=Exact from the far future", collectionPath + "?resourceVersionMatch=Exact&resourceVersion=999999999999999999", []int{400, 410, 422, 504}},
		{"sendInitialEvents without watch", collectionPath + "?sendInitialEvents=true", []int{400, 422}},
		{"watch from a non-numeric resourceVersion", collectionPath + "?watch=true&resourceVersion=abc", []int{400, 422}},
		{"watch with a bad timeoutSeconds", collectionPath + "?watch=true&timeoutSeconds=soon", []int{400}},
	}
	for _, via := range []struct {
		name string
		cfg  *rest.Config
	}{
		{"aggregator", cp.RESTConfig(&cp.Users.Admin)},
		{"direct", cp.DirectConfig(cp.ServerURL, &cp.Users.Admin)},
	} {
		for _, tt := range tests {
			t.Run(via.name+"/"+tt.name, func(t *testing.T) {
				code, body := call(t, via.cfg, http.MethodGet, tt.path, "", "")
				if code >= 500 && code != http.StatusGatewayTimeout {
					t.Fatalf("GET %s: %d, a server error; body:\n%s", tt.path, code, body)
				}
				if !contains(tt.codes, code) {
					t.Fatalf("GET %s: got %d, want one of %v; body:\n%s", tt.path, code, tt.codes, body)
				}
				if code >= 400 {
					var st metav1.Status
					if err := json.Unmarshal([]byte(body), &st); err != nil || st.Kind != "Status" || st.Message == "" {
						t.Fatalf("GET %s: %d without a Status explaining it: %s", tt.path, code, body)
					}
				}
			})
		}
	}
}

func contains(codes []int, c int) bool {
	for _, x := range codes {
		if x == c {
			return true
		}
	}
	return false
}

// TestAbsurdSources feeds source objects with absurd fields to the server:
// each time the served object must still pass validation.ValidateUpdateStatus
// and the server must keep serving.
func TestAbsurdSources(t *testing.T) {
	huge := strings.Repeat("x", 10000)
	tests := []struct {
		name   string
		inject func(ctx context.Context) error
		undo   func(ctx context.Context) error
	}{
		{
			name: "garbage versions in ClusterVersion",
			inject: func(ctx context.Context) error {
				return mutateCV(ctx, func(cv *configv1.ClusterVersion) {
					cv.Status.Desired.Version = "not-a-version-" + strings.Repeat("!", 50)
					if len(cv.Status.History) > 0 {
						cv.Status.History[0].Version = "💥 v999.999.999-garbage+++"
					}
				})
			},
		},
		{
			name: "10,000-character message and annotation on an operator",
			inject: func(ctx context.Context) error {
				if err := mutateOperator(ctx, "dns", configv1.OperatorDegraded, configv1.ConditionTrue, "Absurd", huge, time.Now().Add(-faultAge)); err != nil {
					return err
				}
				return mutateObject(ctx, clusterOperators, "dns", false, func(co *configv1.ClusterOperator) bool {
					if co.Annotations == nil {
						co.Annotations = map[string]string{}
					}
					co.Annotations["example.com/absurd"] = huge
					return true
				})
			},
			undo: func(ctx context.Context) error {
				if err := mutateOperator(ctx, "dns", configv1.OperatorDegraded, configv1.ConditionFalse, "AsExpected", "", time.Now()); err != nil {
					return err
				}
				return mutateObject(ctx, clusterOperators, "dns", false, func(co *configv1.ClusterOperator) bool {
					delete(co.Annotations, "example.com/absurd")
					return true
				})
			},
		},
		{
			name: "3,000 conditions on an operator",
			inject: func(ctx context.Context) error {
				return mutateObject(ctx, clusterOperators, "console", true, func(co *configv1.ClusterOperator) bool {
					for i := range 3000 {
						co.Status.Conditions = append(co.Status.Conditions, configv1.ClusterOperatorStatusCondition{
							Type: configv1.ClusterStatusConditionType(fmt.Sprintf("Absurd%d", i)), Status: configv1.ConditionTrue,
							Reason: "Absurd", Message: "condition " + fmt.Sprint(i), LastTransitionTime: metav1.Now()})
					}
					return true
				})
			},
			undo: func(ctx context.Context) error {
				return mutateObject(ctx, clusterOperators, "console", true, func(co *configv1.ClusterOperator) bool {
					kept := co.Status.Conditions[:0]
					for _, c := range co.Status.Conditions {
						if !strings.HasPrefix(string(c.Type), "Absurd") {
							kept = append(kept, c)
						}
					}
					co.Status.Conditions = kept
					return true
				})
			},
		},
		{
			name: "a node in two pools, with garbage MCO annotations",
			inject: func(ctx context.Context) error {
				return mutateNode(ctx, workerNode(0), func(n *corev1.Node) {
					n.Labels["node-role.kubernetes.io/master"] = ""
					n.Labels["node-role.kubernetes.io/control-plane"] = ""
					n.Annotations[insights.CurrentConfigAnnotation] = huge
					n.Annotations[insights.MCDStateAnnotation] = "Exploding"
				}, nil)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			restore := snapshotSources(t)
			before := getStatus(ctx, t)
			if err := tt.inject(ctx); err != nil {
				t.Fatalf("inject: %v", err)
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if tt.undo != nil {
					if err := tt.undo(ctx); err != nil {
						t.Errorf("undo: %v", err)
					}
				}
				restore(ctx)
			})
			// Wait for the server to publish a revision computed from the
			// absurd sources.
			waitForStatus(ctx, t, 5*time.Second, "a new revision", func(us *v1alpha1.UpdateStatus) bool {
				return us.ResourceVersion != before.ResourceVersion
			})
			// An injection may fold into more than one revision, and no
			// condition tells the last: this simulates time passing, more than three fold
			// delays (150 ms), and the object served then is the one checked.
			time.Sleep(500 * time.Millisecond)
			us := getStatus(ctx, t)
			if errs := validation.ValidateUpdateStatus(us); len(errs) > 0 {
				t.Fatalf("the served object is invalid after %s: %v", tt.name, errs.ToAggregate())
			}
			if c := available(us); c == nil {
				t.Fatal("no Available condition")
			}
			b, _ := json.Marshal(us)
			t.Logf("served %d bytes of JSON, %d health insights", len(b), len(healthInsights(us)))
		})
	}
	assertNoPanic(t, cp.Server.LogPath)
}

func mutateCV(ctx context.Context, f func(*configv1.ClusterVersion)) error {
	return mutateObject(ctx, clusterVersions, insights.ClusterVersionName, true, func(cv *configv1.ClusterVersion) bool {
		f(cv)
		return true
	})
}

// snapshotSources saves the ClusterVersion and the Nodes and returns a
// function that puts their status, labels and annotations back.
func snapshotSources(t *testing.T) func(ctx context.Context) {
	t.Helper()
	ctx := t.Context()
	cv, err := getObject[configv1.ClusterVersion](ctx, clusterVersions, "version")
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := cp.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context) {
		if err := mutateCV(ctx, func(now *configv1.ClusterVersion) { now.Status = cv.Status }); err != nil {
			t.Errorf("restore the ClusterVersion: %v", err)
		}
		for _, saved := range nodes.Items {
			err := mutateNode(ctx, saved.Name, func(n *corev1.Node) {
				n.Labels, n.Annotations = saved.Labels, saved.Annotations
			}, nil)
			if err != nil {
				t.Errorf("restore node %s: %v", saved.Name, err)
			}
		}
	}
}
