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
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Environment variables the local stack reads.
const (
	// EnvKubeBinDir names the directory holding etcd and kube-apiserver
	// (`KUBE_BIN_DIR=$(hack/build-kube.sh)`). Required.
	EnvKubeBinDir = "KUBE_BIN_DIR"
	// EnvServerBinary optionally names a prebuilt update-status-apiserver;
	// without it the local stack builds ./cmd/apiserver.
	EnvServerBinary = "UPDATE_STATUS_APISERVER"
	// EnvDrainInformerBinary optionally names a prebuilt
	// update-status-drain-informer; otherwise it is built from the repository.
	EnvDrainInformerBinary = "UPDATE_STATUS_DRAIN_INFORMER"
	// EnvKubectl optionally names the kubectl to run (default: kubectl on PATH).
	EnvKubectl = "KUBECTL"
)

// MainModule is the module path of this repository.
const MainModule = "github.com/update-status/apiserver"

// KubeBinaries returns the paths of etcd and kube-apiserver in $KUBE_BIN_DIR,
// or an error saying how to get them.
func KubeBinaries() (etcd, kubeAPIServer string, err error) {
	dir := os.Getenv(EnvKubeBinDir)
	if dir == "" {
		return "", "", fmt.Errorf("%s is not set: build the binaries with `export %s=$(hack/build-kube.sh)` "+
			"(or run `make test-integration`)", EnvKubeBinDir, EnvKubeBinDir)
	}
	etcd, kubeAPIServer = filepath.Join(dir, "etcd"), filepath.Join(dir, "kube-apiserver")
	for _, p := range []string{etcd, kubeAPIServer} {
		if !isExecutable(p) {
			return "", "", fmt.Errorf("%s=%s has no executable %s: run hack/build-kube.sh", EnvKubeBinDir, dir, filepath.Base(p))
		}
	}
	return etcd, kubeAPIServer, nil
}

// ToolBinary returns $env, or the first of names found on PATH, or an
// error saying how to get it: hack/ensure-<names[0]>.sh, or the Debian
// package names[0].
func ToolBinary(env string, names ...string) (string, error) {
	if bin := os.Getenv(env); bin != "" {
		if !isExecutable(bin) {
			return "", fmt.Errorf("%s=%s is not an executable: run hack/ensure-%s.sh", env, bin, names[0])
		}
		return bin, nil
	}
	for _, name := range names {
		if bin, err := exec.LookPath(name); err == nil {
			return bin, nil
		}
	}
	return "", fmt.Errorf("no %s on PATH and %s is not set: `export %s=$(hack/ensure-%s.sh)` "+
		"(Debian: apt-get install --no-install-recommends %s)", names[0], env, env, names[0], names[0])
}

// isExecutable says whether path is a file someone may execute.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// RepoRoot returns the root of this repository: the nearest directory, from
// the working directory up, whose go.mod declares MainModule.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if mod, err := modulePath(filepath.Join(dir, "go.mod")); err == nil && mod == MainModule {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", MainModule)
		}
		dir = parent
	}
}

func modulePath(goMod string) (string, error) {
	f, err := os.Open(goMod)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", errors.New("no module line")
}

// BuildServer builds the main package under ./cmd/apiserver of repoRoot into
// dir and returns the binary's path, or returns $UPDATE_STATUS_APISERVER when
// that is set.
func BuildServer(repoRoot, dir string) (string, error) {
	return buildCommand(repoRoot, dir, "./cmd/apiserver", "update-status-apiserver", EnvServerBinary)
}

// BuildDrainInformer builds ./cmd/update-status-drain-informer of repoRoot
// into dir and returns the binary's path, or returns
// $UPDATE_STATUS_DRAIN_INFORMER when that is set.
func BuildDrainInformer(repoRoot, dir string) (string, error) {
	return buildCommand(repoRoot, dir, "./cmd/update-status-drain-informer", "update-status-drain-informer", EnvDrainInformerBinary)
}

// buildCommand builds the one main package under pkgDir into dir/name, or
// returns $env when that is set.
func buildCommand(repoRoot, dir, pkgDir, name, env string) (string, error) {
	if bin := os.Getenv(env); bin != "" {
		return bin, nil
	}
	list := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, pkgDir+"/...")
	list.Dir = repoRoot
	out, err := list.Output()
	if err != nil {
		return "", fmt.Errorf("go list %s/...: %w", pkgDir, err)
	}
	mains := strings.Fields(string(out))
	if len(mains) != 1 {
		return "", fmt.Errorf("want one main package under %s, found %v", pkgDir, mains)
	}
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", bin, mains[0])
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", mains[0], err, out)
	}
	return bin, nil
}
