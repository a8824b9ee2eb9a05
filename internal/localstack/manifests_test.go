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

package localstack

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
)

func TestReadManifests(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		vars      map[string]string
		wantNames []string // kind/name in order
		wantErr   string
	}{
		{
			name: "multi-document file, List and directory order",
			files: map[string]string{
				"b.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n2}\n",
				"a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns1}\n---\n# only a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns2}\n",
				"c.txt":  "not a manifest",
			},
			wantNames: []string{"Namespace/ns1", "Namespace/ns2", "Node/n1", "Node/n2"},
		},
		{
			name:      "variables",
			files:     map[string]string{"a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: '${NAME}', annotations: {re: '^a$', lone: '$b'}}\n"},
			vars:      map[string]string{"NAME": "filled"},
			wantNames: []string{"Namespace/filled"},
		},
		{
			name:    "missing variable",
			files:   map[string]string{"a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: '${NAME}-${OTHER}'}\n"},
			vars:    map[string]string{"NAME": "x"},
			wantErr: "no value for OTHER",
		},
		{
			name:    "object without kind",
			files:   map[string]string{"a.yaml": "apiVersion: v1\nmetadata: {name: x}\n"},
			wantErr: "Kind' is missing",
		},
		{
			name:    "bad YAML names the file",
			files:   map[string]string{"bad.yaml": "apiVersion: v1\nkind: [\n"},
			wantErr: "bad.yaml",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			objs, err := ReadManifests(tt.vars, dir)
			if testio.WantError(t, err, tt.wantErr) {
				return
			}
			if got := names(objs); !reflect.DeepEqual(got, tt.wantNames) {
				t.Errorf("objects = %v, want %v", got, tt.wantNames)
			}
		})
	}
}

func TestReadManifestsVerbatimWithoutVars(t *testing.T) {
	f := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(f, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {pattern: '${NOT_A_VAR}$'}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	objs, err := ReadManifests(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(objs[0].Object, "data", "pattern"); got != "${NOT_A_VAR}$" {
		t.Errorf("pattern = %q, want it verbatim", got)
	}
}

func TestSortForApply(t *testing.T) {
	objs := []*unstructured.Unstructured{
		obj("apiregistration.k8s.io/v1", "APIService", "svc"),
		obj("rbac.authorization.k8s.io/v1", "RoleBinding", "rb"),
		obj("v1", "Namespace", "ns"),
		obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "crd"),
		obj("v1", "Service", "s"),
	}
	SortForApply(objs)
	want := []string{"Namespace/ns", "CustomResourceDefinition/crd", "RoleBinding/rb", "Service/s", "APIService/svc"}
	if got := names(objs); !reflect.DeepEqual(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}

// TestLocalArtifacts reads the repository's artifacts/local as the harness
// does, so a broken manifest fails here, without a control plane.
func TestLocalArtifacts(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := ReadManifests(map[string]string{"SERVER_PORT": "8443", "CA_BUNDLE": "Zm9v"}, filepath.Join(root, "artifacts", "local"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GetKind()]++
		if o.GetKind() == "APIService" {
			port, _, _ := unstructured.NestedInt64(o.Object, "spec", "service", "port")
			ca, _, _ := unstructured.NestedString(o.Object, "spec", "caBundle")
			if o.GetName() != APIServiceName || port != 8443 || ca != "Zm9v" {
				t.Errorf("APIService %s: port %d, caBundle %q", o.GetName(), port, ca)
			}
		}
		if o.GetKind() == "Service" && o.GetName() != ServerServiceName {
			t.Errorf("Service %s, want %s (the serving certificate names it)", o.GetName(), ServerServiceName)
		}
		if o.GetKind() == "ClusterRole" && o.GetName() == ReaderClusterRole {
			checkReaderRules(t, o)
		}
	}
	for kind, want := range map[string]int{"Namespace": 4, "ServiceAccount": 1, "Service": 1, "APIService": 1, "ClusterRole": 5, "ClusterRoleBinding": 4, "Role": 1, "RoleBinding": 4} {
		if kinds[kind] != want {
			t.Errorf("%d %s objects, want %d", kinds[kind], kind, want)
		}
	}
}

// TestDeployReader checks the reader ClusterRole of artifacts/deploy as
// TestLocalArtifacts checks the local one.
func TestDeployReader(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := ReadManifests(nil, filepath.Join(root, "artifacts", "deploy", "base", "rbac-reader.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].GetKind() != "ClusterRole" {
		t.Fatalf("rbac-reader.yaml: %v", names(objs))
	}
	checkReaderRules(t, objs[0])
}

// checkReaderRules: a reader may get, list and watch UpdateStatus and every
// per-insight resource, and nothing else.
func checkReaderRules(t *testing.T, role *unstructured.Unstructured) {
	t.Helper()
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	if len(rules) != 1 {
		t.Fatalf("%s: rules = %v, want one", role.GetName(), rules)
	}
	rule := rules[0].(map[string]any)
	if !reflect.DeepEqual(rule["verbs"], []any{"get", "list", "watch"}) || !reflect.DeepEqual(rule["apiGroups"], []any{"update.openshift.io"}) {
		t.Errorf("%s: rule = %v, want get, list, watch of update.openshift.io only", role.GetName(), rule)
	}
	got := map[string]bool{}
	for _, r := range rule["resources"].([]any) {
		got[r.(string)] = true
	}
	var want []string
	for _, n := range resources.All() {
		want = append(want, n.Resource)
	}
	for _, r := range want {
		if !got[r] {
			t.Errorf("%s: resources %v lack %s", role.GetName(), rule["resources"], r)
		}
		delete(got, r)
	}
	delete(got, "updatestatuses/status")
	if len(got) > 0 {
		t.Errorf("%s: unexpected resources %v", role.GetName(), got)
	}
}

func obj(apiVersion, kind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetName(name)
	return u
}

func names(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

// TestDeployOpenShiftAlerts checks the alert source of components/openshift:
// the least RBAC the Thanos querier's kube-rbac-proxy asks for, bound to the
// server's ServiceAccount. TestDeployVariants checks the flags that point the
// server at the querier.
func TestDeployOpenShiftAlerts(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := ReadManifests(nil, filepath.Join(root, "artifacts", "deploy", "components", "openshift", "rbac-alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(objs); !reflect.DeepEqual(got, []string{"Role/update-status-apiserver:alerts", "RoleBinding/update-status-apiserver:alerts"}) {
		t.Fatalf("rbac-alerts.yaml: %v", got)
	}
	role, binding := objs[0], objs[1]
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	want := []any{map[string]any{"apiGroups": []any{"monitoring.coreos.com"}, "resources": []any{"prometheuses/api"}, "verbs": []any{"get"}}}
	if role.GetNamespace() != "openshift-monitoring" || !reflect.DeepEqual(rules, want) {
		t.Errorf("Role in %q: rules %v, want get on prometheuses/api in openshift-monitoring only", role.GetNamespace(), rules)
	}
	subjects, _, _ := unstructured.NestedSlice(binding.Object, "subjects")
	roleRef, _, _ := unstructured.NestedStringMap(binding.Object, "roleRef")
	if binding.GetNamespace() != "openshift-monitoring" || roleRef["kind"] != "Role" || roleRef["name"] != role.GetName() ||
		!reflect.DeepEqual(subjects, []any{map[string]any{"kind": "ServiceAccount", "name": "update-status-apiserver", "namespace": "update-status"}}) {
		t.Errorf("RoleBinding in %q: roleRef %v, subjects %v", binding.GetNamespace(), roleRef, subjects)
	}
	// The base leaves the alerts off.
	base, err := os.ReadFile(filepath.Join(root, "artifacts", "deploy", "base", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(base), "--alerts-") {
		t.Error("the base Deployment configures alerts")
	}
}

// TestDeployMemoryGuard: the server's container has a memory limit, and
// the Go runtime's soft limit (GOMEMLIMIT) sits below it with room for
// what the runtime does not count (its own stacks' slack, the binary).
func TestDeployMemoryGuard(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := ReadManifests(nil, filepath.Join(root, "artifacts", "deploy", "base", "deployment.yaml"))
	if err != nil || len(objs) != 1 {
		t.Fatalf("deployment.yaml: %d objects, %v", len(objs), err)
	}
	containers, _, _ := unstructured.NestedSlice(objs[0].Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("%d containers", len(containers))
	}
	c := containers[0].(map[string]any)
	limit, _, _ := unstructured.NestedString(c, "resources", "limits", "memory")
	request, _, _ := unstructured.NestedString(c, "resources", "requests", "memory")
	env, _, _ := unstructured.NestedSlice(c, "env")
	soft := ""
	for _, e := range env {
		if e := e.(map[string]any); e["name"] == "GOMEMLIMIT" {
			soft, _ = e["value"].(string)
		}
	}
	lim, err1 := resource.ParseQuantity(limit)
	req, err2 := resource.ParseQuantity(request)
	// GOMEMLIMIT takes the binary suffixes of resource quantities (MiB ->
	// Mi) and a bare number of bytes.
	softQ, err3 := resource.ParseQuantity(strings.TrimSuffix(soft, "B"))
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatalf("limit %q, request %q, GOMEMLIMIT %q: %v", limit, request, soft, err)
	}
	if req.Cmp(lim) > 0 || softQ.Value() >= lim.Value()*95/100 || softQ.Value() < lim.Value()*3/4 {
		t.Errorf("request %s, limit %s, GOMEMLIMIT %s: want request <= limit and GOMEMLIMIT within 75-95%% of the limit", request, limit, soft)
	}
}
