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
	"context"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/insights"
)

func TestMidway(t *testing.T) {
	pct := intstr.FromString("20%")
	pools := []PoolOptions{{Name: "worker", MaxUnavailable: &pct}, {Name: "infra", MaxUnavailable: &pct}}
	tests := []struct {
		name   string
		o      Options
		share  float64
		faults []Fault
		// wantUpdated is the least share of the workers on the new
		// configuration; wantPhase the phase the cluster is caught in.
		wantUpdated float64
		wantPhase   Phase
		wantErr     string
	}{
		{name: "a third of the workers", o: Options{Nodes: 43, Seed: 1, WorkerPools: pools}, share: 0.3,
			wantUpdated: 0.3, wantPhase: PhaseNodes},
		{name: "share zero: caught when the update starts", o: Options{Nodes: 13, Seed: 2}, share: 0, wantPhase: PhaseAccepted},
		{name: "every worker: caught when the update completes", o: Options{Nodes: 8, Seed: 3}, share: 1, wantUpdated: 1, wantPhase: PhaseCompleted},
		{name: "a NotReady node stalls its pool: caught there", o: Options{Nodes: 5, Seed: 4}, share: 0.9,
			faults:    []Fault{{Kind: FaultNodeNotReady, Target: "worker"}},
			wantPhase: PhaseWorkerPools},
		{name: "share above 1", o: Options{Nodes: 5}, share: 1.5, wantErr: "not between 0 and 1"},
		{name: "a real clock", o: Options{Nodes: 5, Clock: clock.RealClock{}}, share: 0.5, wantErr: "virtual clock"},
		{name: "bad options", o: Options{Nodes: -1}, share: 0.5, wantErr: "nodes must be between"},
		{name: "a fault on no pool", o: Options{Nodes: 5}, share: 0.5, faults: []Fault{{Kind: FaultPoolPaused, Target: "gpu"}}, wantErr: "gpu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := Midway(context.Background(), tt.o, tt.share, tt.faults...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.Phase != tt.wantPhase {
				t.Errorf("phase %s, want %s", st.Phase, tt.wantPhase)
			}
			if got := workersOnTarget(st); got < tt.wantUpdated {
				t.Errorf("%.2f of the workers updated, want at least %.2f", got, tt.wantUpdated)
			}
			again, err := Midway(context.Background(), tt.o, tt.share, tt.faults...)
			if err != nil || !reflect.DeepEqual(st, again) {
				t.Errorf("a second Midway with equal arguments differs (error %v)", err)
			}
		})
	}
}

// workersOnTarget is the share of the worker nodes whose daemon is done on
// the configuration of the target version, read from the objects.
func workersOnTarget(st *State) float64 {
	versions := st.MachineConfigVersions()
	updated, total := 0, 0
	for _, n := range st.Nodes {
		if _, master := n.Labels["node-role.kubernetes.io/master"]; master {
			continue
		}
		total++
		a := n.Annotations
		if a[insights.MCDStateAnnotation] == insights.MCDStateDone && versions[a[insights.CurrentConfigAnnotation]] == DefaultToVersion {
			updated++
		}
	}
	if total == 0 {
		return 1
	}
	return float64(updated) / float64(total)
}
