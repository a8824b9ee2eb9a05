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

package insights

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSourcesBuilder(t *testing.T) {
	var b SourcesBuilder
	other := &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "other"}}
	cv := &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: ClusterVersionName}}
	mco := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: MCONamespace, Name: MCODeploymentName}}
	kept := &Node{Name: "cached"}
	adds := []struct {
		obj  any
		kept bool
	}{
		{other, true},
		{cv, true},
		{&configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "later"}}, true},
		{(*configv1.ClusterVersion)(nil), false},
		{&configv1.ClusterOperator{}, true},
		{&mcfgv1.MachineConfigPool{}, true},
		{&mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "mc-1", Annotations: map[string]string{ReleaseImageVersionAnnotation: "4.19.1", "other": "x"}}}, true},
		{&mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "mc-2"}}, true},
		{&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "from-api"}}, true},
		{(*corev1.Node)(nil), false},
		{kept, true},
		{(*Node)(nil), false},
		{&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: MCONamespace, Name: "machine-config-controller"}}, false},
		{mco, true},
		{&corev1.Pod{}, false},
		{nil, false},
	}
	for i, a := range adds {
		if got := b.Add(a.obj); got != a.kept {
			t.Errorf("add %d (%T): kept %v, want %v", i, a.obj, got, a.kept)
		}
	}
	src := b.Build()
	if src.ClusterVersion != cv {
		t.Errorf("ClusterVersion %v, want the one named %q", src.ClusterVersion.Name, ClusterVersionName)
	}
	if src.MCODeployment != mco {
		t.Errorf("MCODeployment %v", src.MCODeployment)
	}
	if len(src.ClusterOperators) != 1 || len(src.MachineConfigPools) != 1 || len(src.Nodes) != 2 {
		t.Errorf("counts: %d operators, %d pools, %d nodes", len(src.ClusterOperators), len(src.MachineConfigPools), len(src.Nodes))
	}
	if len(src.Nodes) == 2 && (src.Nodes[0].Name != "from-api" || src.Nodes[1] != kept) {
		t.Errorf("nodes %+v, want the corev1.Node's NodeOf, then the Node itself", src.Nodes)
	}
	if v, ok := src.MachineConfigVersions["mc-2"]; len(src.MachineConfigVersions) != 2 || src.MachineConfigVersions["mc-1"] != "4.19.1" || !ok || v != "" {
		t.Errorf("MachineConfigVersions %v", src.MachineConfigVersions)
	}
	if src.Alerts != nil {
		t.Errorf("alerts known without AddAlerts: %v", src.Alerts)
	}

	b.Add(other)
	b.AddAlerts()
	src = b.Build()
	if src.ClusterVersion != other || src.Alerts == nil || len(src.Nodes) != 0 {
		t.Errorf("after Build the builder starts afresh; then the first ClusterVersion counts and AddAlerts() makes alerts known: %+v", src)
	}
}
