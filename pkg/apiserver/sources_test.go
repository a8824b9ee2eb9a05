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
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	mcfgfake "github.com/openshift/client-go/machineconfiguration/clientset/versioned/fake"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sources"
)

// recordingEngine runs the real engine and remembers how many nodes the
// last snapshot held.
type recordingEngine struct {
	engine *insights.Engine
	mu     sync.Mutex
	nodes  int
	cv     *configv1.ClusterVersion
	n      int
}

func (e *recordingEngine) Compute(src *insights.Sources, now time.Time) insights.Result {
	e.mu.Lock()
	e.nodes, e.cv = len(src.Nodes), src.ClusterVersion
	e.n++
	e.mu.Unlock()
	return e.engine.Compute(src, now)
}

func (e *recordingEngine) calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n
}

func (e *recordingEngine) seen() (int, *configv1.ClusterVersion) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.nodes, e.cv
}

// TestWithFakeClientsets runs the real sources over fake clientsets of a
// cluster without the MachineConfig APIs, the real engine, and the handler
// chain.
func TestWithFakeClientsets(t *testing.T) {
	// The OpenShift fake clientsets cannot do WatchList.
	clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, false)
	created := metav1.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	kube := kubefake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", ResourceVersion: "41"}})
	kube.Resources = []*metav1.APIResourceList{{GroupVersion: "config.openshift.io/v1", APIResources: []metav1.APIResource{
		{Name: "clusterversions"}, {Name: "clusteroperators"}}}}
	config := configfake.NewClientset(
		&configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version", UID: "6f0e1c2d-cv", ResourceVersion: "10", CreationTimestamp: created}},
		&configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "etcd", ResourceVersion: "11"}},
	)
	srcs, err := sources.New(sources.Clients{Kube: kube, Config: config, MachineConfiguration: mcfgfake.NewClientset()},
		sources.Options{Clock: clock.RealClock{}})
	if err != nil {
		t.Fatal(err)
	}
	engine := &recordingEngine{engine: insights.NewEngine()}
	s := newTestServer(t, serverOptions{sources: srcs, computer: engine})
	s.waitReady(t)

	us := decode[v1alpha1.UpdateStatus](t, s.do(t, http.MethodGet, objPath, "", nil))
	if us.UID == "" || us.UID == "6f0e1c2d-cv" || !us.CreationTimestamp.Equal(&created) {
		t.Errorf("metadata = %+v", us.ObjectMeta)
	}
	if !strings.HasPrefix(us.ResourceVersion, "41") || len(us.ResourceVersion) != len("41")+6 {
		t.Errorf("resourceVersion %q does not derive from the newest input (41)", us.ResourceVersion)
	}
	if len(us.Status.Conditions) != 1 {
		t.Fatalf("conditions = %+v", us.Status.Conditions)
	}
	c := us.Status.Conditions[0]
	if c.Type != "Available" || c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.AvailableReasonSourceUnavailable ||
		!strings.Contains(c.Message, "machineconfigpools.machineconfiguration.openshift.io") {
		t.Errorf("Available = %+v", c)
	}
	nodes, cv := engine.seen()
	if nodes != 1 || cv == nil || cv.Name != "version" {
		t.Errorf("the engine saw %d nodes and ClusterVersion %v", nodes, cv)
	}

	// A node change the engine does not read (images, stripped by the
	// transform) triggers a computation whose content is unchanged: the
	// resourceVersion stays.
	before := engine.calls()
	node, err := kube.CoreV1().Nodes().Get(context.Background(), "worker-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node = node.DeepCopy()
	node.ResourceVersion = "43"
	node.Status.Images = []corev1.ContainerImage{{Names: []string{"quay.io/new"}}}
	if _, err := kube.CoreV1().Nodes().UpdateStatus(context.Background(), node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	testio.Eventually(t, "a computation after the node change", func() bool { return engine.calls() > before })
	again := decode[v1alpha1.UpdateStatus](t, s.do(t, http.MethodGet, objPath, "", nil))
	if again.ResourceVersion != us.ResourceVersion {
		t.Errorf("resourceVersion moved from %s to %s without a content change", us.ResourceVersion, again.ResourceVersion)
	}

	// A new node reaches the engine.
	if _, err := kube.CoreV1().Nodes().Create(context.Background(),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-2", ResourceVersion: "50"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testio.Eventually(t, "the engine to see the new node", func() bool { n, _ := engine.seen(); return n == 2 })
}
