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
	"errors"
	"fmt"
	"time"

	"github.com/update-status/apiserver/pkg/insights"
)

// MidwayStart is the instant a Midway cluster is created at when its Options
// bring no clock.
var MidwayStart = time.Date(2025, 3, 12, 8, 0, 0, 0, time.UTC)

// Midway returns a cluster of o caught in the middle of its update: the
// simulator creates it, injects faults, starts the update and steps in
// virtual time until at least share (0 to 1) of the worker nodes run the new
// configuration, the update completes, or it stalls on a fault. o.Clock must
// be a VirtualClock, or nil for one at MidwayStart; o.Sink, when set,
// receives every step. Equal arguments give equal states. It is how the
// engine's benchmarks, fuzzers and tests get a large cluster in every node
// state without a kube-apiserver.
func Midway(ctx context.Context, o Options, share float64, faults ...Fault) (*State, error) {
	if o.Clock == nil {
		o.Clock = NewVirtualClock(MidwayStart)
	}
	fc, ok := o.Clock.(VirtualClock)
	if !ok {
		return nil, errors.New("simulator: Midway needs a virtual clock")
	}
	if share < 0 || share > 1 {
		return nil, fmt.Errorf("simulator: Midway share %v is not between 0 and 1", share)
	}
	s, err := New(o)
	if err != nil {
		return nil, err
	}
	if err := s.Create(ctx); err != nil {
		return nil, err
	}
	for _, f := range faults {
		if _, err := s.Inject(ctx, f); err != nil {
			return nil, err
		}
	}
	for {
		switch err := s.RunVirtual(ctx, fc, 1); {
		case err == nil, errors.Is(err, ErrStalled), errors.Is(err, ErrStepLimit) && s.workersUpdated() >= share:
			return s.Snapshot(), nil
		case !errors.Is(err, ErrStepLimit):
			return nil, err
		}
	}
}

// workersUpdated is the share of the worker pools' nodes that run their
// pool's new configuration; zero until it is rendered.
func (s *Simulator) workersUpdated() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	updated, total := 0, 0
	for _, p := range s.pools {
		if p.required {
			continue
		}
		total += len(p.nodes)
		for _, n := range p.nodes {
			if p.target != "" && n.stage == stageIdle && n.obj.Annotations[insights.CurrentConfigAnnotation] == p.target {
				updated++
			}
		}
	}
	if total == 0 {
		return 1
	}
	return float64(updated) / float64(total)
}
