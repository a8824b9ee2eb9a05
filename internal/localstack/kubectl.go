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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// KubectlResult is the outcome of one kubectl run.
type KubectlResult struct {
	Stdout, Stderr string
	// Err is nil when kubectl exited 0.
	Err error
}

// Kubectl runs the installed kubectl ($KUBECTL, else kubectl on PATH) as the
// named user against the kube-apiserver (kubectl without credentials would
// prompt for a password; use RESTConfig(nil) for that case). Each user gets its own
// discovery cache under Dir, so nothing is written to $HOME.
func (cp *ControlPlane) Kubectl(ctx context.Context, user string, args ...string) KubectlResult {
	cmd := cp.KubectlCommand(ctx, user, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return KubectlResult{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

// KubectlCommand returns the command Kubectl would run, for callers that
// stream its output (kubectl get -w).
func (cp *ControlPlane) KubectlCommand(ctx context.Context, user string, args ...string) *exec.Cmd {
	kubectl := os.Getenv(EnvKubectl)
	if kubectl == "" {
		kubectl = "kubectl"
	}
	cacheDir := filepath.Join(cp.Dir, "kubectl-cache", sanitize(user))
	full := append([]string{"--kubeconfig=" + cp.KubeconfigPath(user), "--cache-dir=" + cacheDir}, args...)
	cmd := exec.CommandContext(ctx, kubectl, full...)
	cmd.Env = append(os.Environ(), "KUBECTL_KUBERC=false")
	return cmd
}
