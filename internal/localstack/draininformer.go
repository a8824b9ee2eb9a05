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
	"context"
	"path/filepath"

	"k8s.io/klog/v2"
)

// The drain-diagnosis informer's place, as artifacts/local/drain-informer.yaml
// creates it.
const (
	DrainInformerNamespace      = "update-status-drain"
	DrainInformerServiceAccount = "update-status-drain-informer"
	// DrainInformerName is the UpdateInformer's name; its insights are served
	// under the informer name DrainInformerName.DrainInformerNamespace.
	DrainInformerName = "drain"
)

// StartDrainInformer builds (unless $UPDATE_STATUS_DRAIN_INFORMER names a
// binary) and starts update-status-drain-informer as its own process with a
// kubeconfig of its ServiceAccount, which holds only its RBAC of
// artifacts/local/drain-informer.yaml. args are added to its flags (say
// --lease=5s). Stop stops it.
func (cp *ControlPlane) StartDrainInformer(ctx context.Context, args ...string) (*Process, error) {
	bin, err := BuildDrainInformer(cp.RepoRoot, cp.Dir)
	if err != nil {
		return nil, err
	}
	kubeconfig, err := cp.ServiceAccountKubeconfig(ctx, DrainInformerNamespace, DrainInformerServiceAccount)
	if err != nil {
		return nil, err
	}
	all := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--namespace=" + DrainInformerNamespace,
		"--name=" + DrainInformerName,
	}, args...)
	p, err := StartProcess("update-status-drain-informer", filepath.Join(cp.Dir, "update-status-drain-informer.log"), bin, all...)
	if err != nil {
		return nil, err
	}
	cp.DrainInformer = p
	klog.InfoS("Started the drain informer", "informer", DrainInformerName+"."+DrainInformerNamespace, "pid", p.Pid(), "log", p.LogPath)
	return p, nil
}
