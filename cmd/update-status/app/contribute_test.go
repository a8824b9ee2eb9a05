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

package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
)

// demoManifest is the example contribution of artifacts/examples.
var demoManifest = filepath.Join("..", "..", "..", "artifacts", "examples", "informers", "updateinformer-demo.yaml")

func fakeDeps(cs *fake.Clientset) Deps {
	return Deps{
		NewClient:     func(string) (versioned.Interface, error) { return cs, nil },
		NewKubeClient: func(string) (kubernetes.Interface, error) { return kubefake.NewClientset(), nil },
	}
}

func TestContributeOnce(t *testing.T) {
	cs := fake.NewSimpleClientset()
	out, errOut, code := run(t, fakeDeps(cs), "contribute", "--kubeconfig", "unused", "--informer", "probe",
		"--namespace", "team-a", "-f", demoManifest, "--once")
	if code != 0 {
		t.Fatalf("exit code %d: %s", code, errOut)
	}
	if want := "updateinformer team-a/probe written: informer probe.team-a, lease 1m0s\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	ui, err := cs.InformersV1alpha1().UpdateInformers("team-a").Get(t.Context(), "probe", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ui.Spec.ControlPlane == nil || len(ui.Spec.ControlPlane.Insights) != 1 || len(ui.Spec.WorkerPools) != 1 ||
		ui.Spec.WorkerPools[0].Name != "worker" || ui.Spec.RenewTime == nil || *ui.Spec.LeaseDurationSeconds != 60 {
		t.Errorf("spec = %+v", ui.Spec)
	}
}

func TestContributeRunsUntilCancelled(t *testing.T) {
	cs := fake.NewSimpleClientset()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errOut bytes.Buffer
	deps := fakeDeps(cs)
	deps.Out, deps.ErrOut = &out, &errOut
	code := make(chan int, 1)
	go func() {
		code <- Run(ctx, deps, []string{"contribute", "--kubeconfig", "unused", "--informer", "probe", "-n", "team-a",
			"-f", demoManifest, "--lease", "90s"})
	}()
	client := cs.InformersV1alpha1().UpdateInformers("team-a")
	err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		ui, err := client.Get(ctx, "probe", metav1.GetOptions{})
		return err == nil && *ui.Spec.LeaseDurationSeconds == 90, nil
	})
	if err != nil {
		t.Fatalf("waiting for the object: %v", err)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit code %d: %s", c, errOut.String())
	}
	if _, err := client.Get(t.Context(), "probe", metav1.GetOptions{}); err == nil {
		t.Error("the object is still there after the command returned")
	}
	if !strings.HasSuffix(out.String(), "updateinformer team-a/probe deleted\n") {
		t.Errorf("output %q", out.String())
	}
}

func TestContributeErrors(t *testing.T) {
	dir := t.TempDir()
	notInformer := filepath.Join(dir, "cv.yaml")
	if err := os.WriteFile(notInformer, []byte("apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unknownField := filepath.Join(dir, "typo.yaml")
	if err := os.WriteFile(unknownField, []byte("apiVersion: "+informersv1alpha1.SchemeGroupVersion.String()+
		"\nkind: UpdateInformer\nspec:\n  leaseDurationSecond: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"contribute", "--kubeconfig", "unused", "-n", "team-a"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no informer", []string{"-f", demoManifest}, "--kubeconfig, --informer and -f are required"},
		{"no file", []string{"--informer", "probe"}, "--kubeconfig, --informer and -f are required"},
		{"missing file", []string{"--informer", "probe", "-f", filepath.Join(dir, "absent.yaml")}, "no such file"},
		{"not an UpdateInformer", []string{"--informer", "probe", "-f", notInformer}, `kind "ClusterVersion"`},
		{"unknown field", []string{"--informer", "probe", "-f", unknownField}, `unknown field "leaseDurationSecond"`},
		{"built-in name", []string{"--informer", "alerts", "-f", demoManifest, "--once"}, `"alerts" is a built-in informer's`},
		{"lease too short", []string{"--informer", "probe", "-f", demoManifest, "--lease", "10ms"}, "lease 10ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := run(t, fakeDeps(fake.NewSimpleClientset()), append(base, tc.args...)...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit code %d, stderr %q; want an error with %q", code, errOut, tc.want)
			}
		})
	}
}
