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

package view

import (
	"context"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Fold is the fold rule of a computation loop (docs/watch.md): a change
// that arrives when the last computation ended at least delay ago, or that
// is isolated, is computed at once; any other (one of a burst) waits until
// delay after the end of the last computation, and every change in that
// wait is folded into one computation. Each source (an informer, the
// alerts) is judged on its own events: a change is isolated unless it and
// the two changes of the same source before it each came within gap of
// their predecessors (burstGaps short gaps in a row). So a source's steady
// stream slower than one change per gap is computed change by change, even
// with one change late or one foreign change of the same source among
// them, and whatever other sources do meanwhile; a faster one once per
// delay after its first three changes. An isolated change also ends a wait for the window that is
// under way. The View and the hosted clusters' publisher each keep one.
//
// Changed may be called from any goroutine; Wait, Sleep, Begin and
// Computed from the computing one.
type Fold struct {
	delay, gap time.Duration

	mu       sync.Mutex
	sources  map[string]*foldSource
	isolated bool      // an isolated change waits for a computation
	lastEnd  time.Time // when the last computation ended
}

// burstGaps is how many short gaps in a row make a burst. One is a steady
// stream's jitter (a change delivered late, then the next on time), two
// a foreign change among a stream's (another pool's node between two of
// the stream's).
const burstGaps = 3

// foldSource is what the rule keeps of one source's changes.
type foldSource struct {
	last      time.Time // its last change
	shortGaps int       // short gaps in a row up to it
}

// NewFold returns the rule of the window delay and the quiet gap gap (0:
// no change is isolated).
func NewFold(delay, gap time.Duration) *Fold {
	return &Fold{delay: delay, gap: gap, sources: map[string]*foldSource{}}
}

// Changed records a change of source at now.
func (f *Fold) Changed(now time.Time, source string) {
	if f.gap <= 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sources[source]
	if s == nil {
		s = &foldSource{}
		f.sources[source] = s
	}
	if !s.last.IsZero() && now.Sub(s.last) < f.gap {
		s.shortGaps++
	} else {
		s.shortGaps = 0
	}
	if s.shortGaps < burstGaps {
		f.isolated = true
	}
	s.last = now
}

// Wait returns how long after now the changes recorded are computed: 0 when
// one of them is isolated or after a quiet window.
func (f *Fold) Wait(now time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	wait := f.lastEnd.Add(f.delay).Sub(now)
	if wait <= 0 || f.isolated {
		return 0
	}
	return wait
}

// Sleep waits on clk until the changes recorded are due (Wait), taking
// the loop's triggers from changes meanwhile: an isolated change ends the
// wait. It returns false when ctx ends first.
func (f *Fold) Sleep(ctx context.Context, clk clock.Clock, changes <-chan struct{}) bool {
	for {
		wait := f.Wait(clk.Now())
		if wait <= 0 {
			return true
		}
		t := clk.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C():
			return true
		case <-changes:
			t.Stop()
		}
	}
}

// Begin records that a computation starts: it covers every change recorded
// so far.
func (f *Fold) Begin() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.isolated = false
}

// Computed records that a computation ended at end.
func (f *Fold) Computed(end time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastEnd = end
}
