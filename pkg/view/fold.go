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
// wait is folded into one computation. An isolated change also ends a wait
// for the window that is under way.
//
// Each source (an informer, the alerts) is judged on its own changes. The
// rule counts a source's short gaps (shorter than gap) up, and its long
// ones down, between 0 and burstCount+1; a change is isolated while the
// count stays below burstCount. A change of the object that the source's
// last counted change was about, within gap of it, is a burst of that
// object: it is folded and counts nothing. So a source's steady stream
// slower than one change per gap is computed change by change, even with
// one change late or another object's step (a master node's few writes)
// among its changes, and whatever other sources do; a faster one (a burst)
// once per delay after its first burstCount changes, however its gaps
// jitter.
//
// Changed may be called from any goroutine; Wait, Sleep, Begin and
// Computed from the computing one.
type Fold struct {
	delay, gap time.Duration

	mu       sync.Mutex
	sources  map[string]*foldSource
	isolated bool      // an isolated change waits for a computation
	pending  time.Time // the first change since the last Begin; zero when none
	lastEnd  time.Time // when the last computation ended
}

// Pending is what a computation covers (Begin): the moment of the first
// change recorded since the previous computation began (zero when none, as
// for a computation by the clock), and whether one of the changes was
// isolated (computed at once) rather than all of a burst (computed at the
// end of the window, or at once when the window had passed).
type Pending struct {
	Since    time.Time
	Isolated bool
}

// burstCount is the count of short gaps from which a source's changes are
// a burst: one short gap is a stream's jitter (a change late, the next on
// time), two another object's change among the stream's.
const burstCount = 3

// foldSource is what the rule keeps of one source's changes.
type foldSource struct {
	last   time.Time // its last counted change
	object string    // what that change was about
	shorts int       // the count of short gaps
}

// NewFold returns the rule of the window delay and the quiet gap gap (0:
// no change is isolated).
func NewFold(delay, gap time.Duration) *Fold {
	return &Fold{delay: delay, gap: gap, sources: map[string]*foldSource{}}
}

// Changed records a change at now of object (a namespace/name, or empty
// when unknown) from source.
func (f *Fold) Changed(now time.Time, source, object string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending.IsZero() {
		f.pending = now
	}
	if f.gap <= 0 {
		return
	}
	s := f.sources[source]
	if s == nil {
		s = &foldSource{}
		f.sources[source] = s
	}
	short := !s.last.IsZero() && now.Sub(s.last) < f.gap
	if short && object != "" && object == s.object {
		return
	}
	if short {
		s.shorts = min(s.shorts+1, burstCount+1)
	} else {
		s.shorts = max(s.shorts-1, 0)
	}
	if s.shorts < burstCount {
		f.isolated = true
	}
	s.last, s.object = now, object
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
		// The clock may have moved between reading it and arming the
		// timer (the goroutine descheduled there, a fake clock stepped):
		// a wait that ended meanwhile ends now, not a whole wait later.
		if f.Wait(clk.Now()) <= 0 {
			t.Stop()
			return true
		}
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
// so far, which it returns.
func (f *Fold) Begin() Pending {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := Pending{Since: f.pending, Isolated: f.isolated}
	f.isolated, f.pending = false, time.Time{}
	return p
}

// Computed records that a computation ended at end.
func (f *Fold) Computed(end time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastEnd = end
}
