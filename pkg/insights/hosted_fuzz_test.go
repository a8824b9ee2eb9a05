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
	"encoding/json"
	"testing"
	"time"

	capiv1 "sigs.k8s.io/cluster-api/api/v1beta1"

	"github.com/update-status/apiserver/pkg/hypershift"
)

// fuzzHosted is the JSON shape FuzzComputeHosted decodes its input from.
type fuzzHosted struct {
	HostedCluster      *hypershift.HostedCluster           `json:"hc,omitempty"`
	HostedControlPlane *hypershift.HostedControlPlane      `json:"hcp,omitempty"`
	Components         []*hypershift.ControlPlaneComponent `json:"cpc,omitempty"`
	NodePools          []*hypershift.NodePool              `json:"np,omitempty"`
	Machines           []*capiv1.Machine                   `json:"m,omitempty"`
	MachineSets        []*capiv1.MachineSet                `json:"ms,omitempty"`
	MachineDeployments []*capiv1.MachineDeployment         `json:"md,omitempty"`
}

func (f *fuzzHosted) sources() *HostedSources {
	return &HostedSources{HostedCluster: f.HostedCluster, HostedControlPlane: f.HostedControlPlane, Components: f.Components,
		NodePools: f.NodePools, Machines: f.Machines, MachineSets: f.MachineSets, MachineDeployments: f.MachineDeployments}
}

func fuzzSeed(f *testing.F, src *HostedSources) []byte {
	f.Helper()
	b, err := json.Marshal(&fuzzHosted{src.HostedCluster, src.HostedControlPlane, src.Components, src.NodePools, src.Machines,
		src.MachineSets, src.MachineDeployments})
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzComputeHosted decodes arbitrary hosted-cluster objects and checks that
// the adapter and the rules never panic, always produce a valid object whose
// next change is after now, and that an Engine with the memory of another
// hosted cluster state agrees with a fresh one.
func FuzzComputeHosted(f *testing.F) {
	now := hT0.Add(30 * time.Minute)
	f.Add([]byte(`{}`), int64(0))
	f.Add([]byte(`{"hc":{"metadata":{"name":"x"}},"m":[{"metadata":{"name":"m"}}]}`), int64(60))
	f.Add(fuzzSeed(f, replaceMidRollout(now, 10*time.Minute, now.Add(-20*time.Minute))), int64(0))
	f.Add(fuzzSeed(f, replaceMidRollout(now, 0, now)), int64(3600))
	f.Add(fuzzSeed(f, inPlaceMidReboot(now)), int64(-600))
	// The memory's earlier state; its objects have resourceVersions no
	// decoded object has, since an object of the same name and
	// resourceVersion is the same object (as in an informer cache).
	base := replaceMidRollout(now, 10*time.Minute, now.Add(-5*time.Minute))
	for _, c := range base.Components {
		c.ResourceVersion = "base"
	}
	for _, m := range base.Machines {
		m.ResourceVersion = "base"
	}
	f.Fuzz(func(t *testing.T, data []byte, offsetSeconds int64) {
		var in fuzzHosted
		if err := json.Unmarshal(data, &in); err != nil {
			return
		}
		for _, c := range in.Components {
			if c != nil && c.ResourceVersion == "base" {
				c.ResourceVersion = ""
			}
		}
		for _, m := range in.Machines {
			if m != nil && m.ResourceVersion == "base" {
				m.ResourceVersion = ""
			}
		}
		at := now.Add(time.Duration(offsetSeconds%(1<<32)) * time.Second)
		res := NewEngine().ComputeHosted(in.sources(), at)
		mustValidHosted(t, res)
		if !res.NextChange.IsZero() && !res.NextChange.After(at) {
			t.Fatalf("NextChange %v is not after now %v", res.NextChange, at)
		}
		e := NewEngine()
		e.ComputeHosted(base, at)
		fresh, err := json.Marshal(res.Status)
		if err != nil {
			t.Fatal(err)
		}
		memo, err := json.Marshal(e.ComputeHosted(in.sources(), at).Status)
		if err != nil {
			t.Fatal(err)
		}
		if string(fresh) != string(memo) {
			t.Fatalf("an Engine with memory disagrees with a fresh computation:\n%s\n%s", fresh, memo)
		}
	})
}
