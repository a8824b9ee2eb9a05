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

package sourcefiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/update-status/apiserver/internal/fixtures"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const cvYAML = `apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata:
  name: version
status:
  desired: {version: 4.16.1}
  conditions:
  - {type: Progressing, status: "True", lastTransitionTime: "2024-06-01T10:00:00Z"}
`

func TestLoadShapes(t *testing.T) {
	dir := t.TempDir()
	// A single object.
	write(t, dir, "cv.yaml", cvYAML)
	// A v1 List, with an unknown kind inside.
	write(t, dir, "co.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: config.openshift.io/v1
  kind: ClusterOperator
  metadata: {name: etcd}
  status:
    conditions:
    - {type: Available, status: "True", lastTransitionTime: "2024-06-01T11:00:00Z"}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: ignored}
`)
	// A typed list written as JSON in a .yaml file.
	write(t, dir, "pools.yaml", `{"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfigPoolList","items":[
  {"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfigPool","metadata":{"name":"worker"}}]}`)
	// Several documents in one file, the first one empty.
	write(t, dir, "mc.yml", `---
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: rendered-worker-1
  annotations: {machineconfiguration.openshift.io/release-image-version: 4.16.1}
spec: {config: {ignition: {version: 3.4.0}}}
---
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata: {name: rendered-worker-0}
`)
	// A must-gather tree.
	write(t, dir, "must-gather/cluster-scoped-resources/core/nodes/n1.yaml", `apiVersion: v1
kind: Node
metadata: {name: n1, labels: {node-role.kubernetes.io/worker: ""}}
`)
	write(t, dir, "must-gather/namespaces/openshift-machine-config-operator/apps/deployments/machine-config-operator.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: machine-config-operator, namespace: openshift-machine-config-operator}
spec:
  selector: {}
  template:
    spec:
      containers:
      - {name: machine-config-operator, image: mco@sha256:1}
`)
	write(t, dir, "must-gather/namespaces/other/apps/deployments/machine-config-operator.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: machine-config-operator, namespace: other}
`)
	write(t, dir, "must-gather/ignored.log", "not yaml: [")
	// Prometheus alerts.
	write(t, dir, "alerts.json", `{"status":"success","data":{"alerts":[{"labels":{"alertname":"A"},"annotations":{},"state":"firing","activeAt":"2024-06-01T10:00:00.5Z"}]}}`)

	src, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if src.ClusterVersion == nil || src.ClusterVersion.Status.Desired.Version != "4.16.1" {
		t.Errorf("ClusterVersion %+v", src.ClusterVersion)
	}
	if len(src.ClusterOperators) != 1 || src.ClusterOperators[0].Name != "etcd" {
		t.Errorf("ClusterOperators %+v", src.ClusterOperators)
	}
	if len(src.MachineConfigPools) != 1 || src.MachineConfigPools[0].Name != "worker" {
		t.Errorf("MachineConfigPools %+v", src.MachineConfigPools)
	}
	if v, ok := src.MachineConfigVersions["rendered-worker-1"]; !ok || v != "4.16.1" {
		t.Errorf("MachineConfigVersions %v", src.MachineConfigVersions)
	}
	if v, ok := src.MachineConfigVersions["rendered-worker-0"]; !ok || v != "" {
		t.Errorf("a MachineConfig without the annotation must be known with an empty version: %v", src.MachineConfigVersions)
	}
	if len(src.Nodes) != 1 || src.Nodes[0].Name != "n1" {
		t.Errorf("Nodes %+v", src.Nodes)
	}
	if src.MCODeployment == nil || src.MCODeployment.Namespace != "openshift-machine-config-operator" ||
		src.MCODeployment.Spec.Template.Spec.Containers[0].Image != "mco@sha256:1" {
		t.Errorf("MCO Deployment %+v", src.MCODeployment)
	}
	if len(src.Alerts) != 1 || src.Alerts[0].Labels["alertname"] != "A" ||
		!src.Alerts[0].ActiveAt.Equal(time.Date(2024, 6, 1, 10, 0, 0, 5e8, time.UTC)) {
		t.Errorf("Alerts %+v", src.Alerts)
	}
	if want := time.Date(2024, 6, 1, 11, 0, 0, 368975, time.UTC); !MockNow(src).Equal(want) {
		t.Errorf("MockNow %v, want %v", MockNow(src), want)
	}
}

func TestLoadWithoutAlerts(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "cv.yaml", cvYAML)
	src, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if src.Alerts != nil {
		t.Error("without an alerts file the alerts must be unknown (nil)")
	}
}

func TestLoadFirstObjectWins(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", cvYAML)
	write(t, dir, "b.yaml", strings.Replace(cvYAML, "4.16.1", "9.9.9", 1))
	write(t, dir, "c.yaml", strings.Replace(cvYAML, "name: version", "name: other", 1))
	src, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := src.ClusterVersion; got.Name != "version" || got.Status.Desired.Version != "4.16.1" {
		t.Errorf("got %s %s", got.Name, got.Status.Desired.Version)
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(dir string)
		file  string
	}{
		{name: "unparsable YAML", setup: func(dir string) { write(t, dir, "bad.yaml", "a: [b\n") }, file: "bad.yaml"},
		{name: "a known kind with wrong field types", setup: func(dir string) {
			write(t, dir, "node.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: [1]}\n")
		}, file: "node.yaml"},
		{name: "unreadable", setup: func(dir string) {
			if err := os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "dangling.yaml")); err != nil {
				t.Fatal(err)
			}
		}, file: "dangling.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "cv.yaml", cvYAML)
			tc.setup(dir)
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.file) {
				t.Fatalf("error %v does not name %s", err, tc.file)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("a missing directory must be an error")
	}
}

func TestLoadScenario(t *testing.T) {
	dir := fixtures.Dir(t)
	for _, tc := range []struct {
		name                  string
		operators, pools, nds int
		deployment, alerts    bool
	}{
		{name: "4.14.1-workers-started-updating-multiple-pools", operators: 33, pools: 3, nds: 7},
		{name: "4.15.0-ec2-unavailable-mco-20m", operators: 33, pools: 2, nds: 6, alerts: true},
		{name: "to-multi-arch", operators: 33, pools: 2, nds: 6, deployment: true},
		{name: "ocpbugs-60768", operators: 34, pools: 2, nds: 6},
	} {
		src, err := LoadScenario(dir, tc.name)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if src.ClusterVersion == nil || len(src.ClusterOperators) < tc.operators || len(src.MachineConfigPools) != tc.pools ||
			len(src.Nodes) != tc.nds || (src.MCODeployment != nil) != tc.deployment || (src.Alerts != nil) != tc.alerts ||
			len(src.MachineConfigVersions) == 0 {
			t.Errorf("%s: cv %v, %d operators, %d pools, %d nodes, deployment %v, alerts %v", tc.name, src.ClusterVersion != nil,
				len(src.ClusterOperators), len(src.MachineConfigPools), len(src.Nodes), src.MCODeployment != nil, src.Alerts != nil)
		}
	}
	if _, err := LoadScenario(dir, "no-such-scenario"); err == nil {
		t.Error("an unknown scenario must be an error")
	}
}
