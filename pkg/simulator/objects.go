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

package simulator

import (
	"encoding/json"
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/update-status/apiserver/internal/ocp"
)

// The objects are built by internal/ocp; the simulator draws their UIDs and
// times from its seeded source, in a fixed order.

// newUID returns a random UUID drawn from the seeded source.
func (s *Simulator) newUID() types.UID {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(s.rng.IntN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// buildClusterVersion returns the ClusterVersion of a cluster that runs
// FromVersion, with the install and the update to FromVersion in its history.
func (s *Simulator) buildClusterVersion() *configv1.ClusterVersion {
	prevEnd := s.previousUpdateEnd()
	return ocp.ClusterVersion(ocp.ClusterVersionOptions{
		UID: s.newUID(), ClusterID: s.newUID(),
		Version: s.opts.FromVersion, Available: s.opts.ToVersion, InstallVersion: s.opts.InstallVersion,
		InstalledAt: s.installedAt, UpdateStarted: prevEnd.Add(-s.plannedDuration), UpdateCompleted: prevEnd,
	})
}

// previousUpdateEnd is when the update to FromVersion completed: a week
// before creation.
func (s *Simulator) previousUpdateEnd() time.Time {
	return s.installedAt.Add(38 * 24 * time.Hour).Add(s.plannedDuration)
}

// buildClusterOperator returns a settled ClusterOperator at FromVersion.
func (s *Simulator) buildClusterOperator(spec *ocp.Operator) *configv1.ClusterOperator {
	available := s.installedAt.Add(time.Duration(4+s.rng.IntN(30)) * time.Minute)
	settled := s.previousUpdateEnd().Add(-time.Duration(s.rng.IntN(1800)) * time.Second)
	return ocp.ClusterOperator(spec, ocp.ClusterOperatorOptions{
		UID: s.newUID(), Owner: s.cv.UID, Version: s.opts.FromVersion,
		Created: s.installedAt, Available: available, Settled: settled,
	})
}

// buildPool returns a MachineConfigPool targeting the rendered config of
// FromVersion.
func (s *Simulator) buildPool(p *poolState) *mcfgv1.MachineConfigPool {
	return ocp.Pool(ocp.PoolOptions{
		Name: p.name, UID: s.newUID(), Created: s.installedAt,
		Required: p.required, MaxUnavailable: p.maxUnavailableSpec, Config: p.current,
	})
}

// buildRendered returns the rendered MachineConfig of pool p for release v.
func (s *Simulator) buildRendered(p *poolState, name, v string, created time.Time) *mcfgv1.MachineConfig {
	return ocp.RenderedConfig(p.obj, name, v, s.newUID(), created)
}

// buildMCODeployment returns the machine-config-operator Deployment running release v.
func (s *Simulator) buildMCODeployment(v string) *appsv1.Deployment {
	return ocp.MCODeployment(v, s.newUID(), s.cv.UID, s.installedAt)
}

// buildNode returns node number i of pool p, settled on the pool's current
// config. roles are the node-role labels it carries.
func (s *Simulator) buildNode(i int, p *poolState, roles []string, created time.Time) *corev1.Node {
	o := &s.opts
	return ocp.Node(ocp.NodeOptions{
		Index: i, Pool: p.name, Roles: roles, InfraID: s.infraID,
		SingleReplica: o.ControlPlaneNodes == 1, Tainted: p.name == "master" && !o.compact(),
		Config: p.current, Version: o.FromVersion, UID: s.newUID(), BootID: string(s.newUID()), Created: created, Images: o.NodeImages,
	})
}

// mcoExtension is the machine-config ClusterOperator's status.extension: one
// line per pool.
func mcoExtension(lines map[string]string) runtime.RawExtension {
	raw, err := json.Marshal(lines)
	if err != nil {
		return runtime.RawExtension{}
	}
	return runtime.RawExtension{Raw: raw}
}

// maxUnavailableOf resolves a pool's maxUnavailable against its size, as the
// machine-config controller does: percentages round down, and the result is
// at least 1.
func maxUnavailableOf(v *intstr.IntOrString, total int) int {
	if v == nil {
		return 1
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, false)
	if err != nil || n < 1 {
		return 1
	}
	return n
}
