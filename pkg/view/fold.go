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
	"sync"
	"time"
)

// Fold is the fold rule of a computation loop (docs/watch.md): a change
// that arrives when the last computation ended at least delay ago, or that
// is isolated, is computed at once; any other (one of a burst) waits until
// delay after the end of the last computation, and every change in that
// wait is folded into one computation. A change is isolated unless both it
// and the change before it came within gap of their predecessors: a steady
// stream slower than one change per gap is computed change by change, even
// with one change late; a faster one once per delay after its first two
// changes. The View and the hosted clusters' publisher each keep one.
//
// Changed may be called from any goroutine; Wait and Computed from the
// computing one.
type Fold struct {
	delay, gap time.Duration

	mu         sync.Mutex
	lastChange time.Time // the last Changed
	shortGap   bool      // it came within gap of the one before
	isolated   bool      // the last Changed is computed at once
	lastEnd    time.Time // when the last computation ended
}

// NewFold returns the rule of the window delay and the quiet gap gap (0:
// no change is isolated).
func NewFold(delay, gap time.Duration) *Fold { return &Fold{delay: delay, gap: gap} }

// Changed records a change at now.
func (f *Fold) Changed(now time.Time) {
	if f.gap <= 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	short := !f.lastChange.IsZero() && now.Sub(f.lastChange) < f.gap
	// One short gap is a steady stream's jitter (a change delivered late,
	// then the next on time); two in a row are a burst.
	f.isolated = !short || !f.shortGap
	f.lastChange, f.shortGap = now, short
}

// Wait returns how long after now the changes recorded are computed: 0 for
// an isolated change or after a quiet window.
func (f *Fold) Wait(now time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	wait := f.lastEnd.Add(f.delay).Sub(now)
	if wait <= 0 || f.isolated {
		return 0
	}
	return wait
}

// Computed records that a computation ended at end.
func (f *Fold) Computed(end time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastEnd = end
}
