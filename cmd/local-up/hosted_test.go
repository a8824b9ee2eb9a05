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

package main

import (
	"slices"
	"testing"

	"github.com/update-status/apiserver/pkg/simulator/hosted"
)

func TestHostedFleet(t *testing.T) {
	for _, tt := range []struct {
		n         int
		heldDrain bool
		waveSize  int
		stuck     int
	}{
		{n: 3, heldDrain: true},
		{n: 3},
		{n: 4, heldDrain: true, waveSize: 10, stuck: 1},
		{n: 200, heldDrain: true, waveSize: 10, stuck: 10},
	} {
		o, err := hostedFleet(tt.n, tt.heldDrain)
		if err != nil {
			t.Fatalf("%d hosted clusters: %v", tt.n, err)
		}
		if len(o.Clusters) != tt.n || o.WaveSize != tt.waveSize || (o.WaveSize > 0) != (o.WaveInterval > 0) {
			t.Errorf("%d hosted clusters: %d clusters in waves of %d every %s", tt.n, len(o.Clusters), o.WaveSize, o.WaveInterval)
		}
		stuck := 0
		for i, c := range o.Clusters {
			if c.Namespace != "tenant-"+c.Name[len("hosted-"):] {
				t.Errorf("%s in namespace %s", c.Name, c.Namespace)
			}
			if i == 0 && tt.heldDrain != slices.Equal(c.Faults, []hosted.Fault{hosted.FaultHeldDrain}) {
				t.Errorf("%s: faults %v, held drain %v", c.Name, c.Faults, tt.heldDrain)
			}
			if slices.Contains(c.Faults, hosted.FaultStuckComponent) {
				stuck++
			}
		}
		if stuck != tt.stuck {
			t.Errorf("%d hosted clusters: %d stuck, want %d", tt.n, stuck, tt.stuck)
		}
	}
}
