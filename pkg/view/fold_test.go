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

package view_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sources"
)

// foldHarness is a view with a 150 ms fold window whose computer returns the
// last input number it was given.
type foldHarness struct {
	*harness
	mu sync.Mutex
	n  int
}

const foldWindow = 150 * time.Millisecond

func startFold(t *testing.T) *foldHarness {
	f := &foldHarness{}
	f.harness = start(t, foldWindow, func(*insights.Sources, time.Time) insights.Result {
		f.mu.Lock()
		defer f.mu.Unlock()
		return insights.Result{Status: targetStatus(fmt.Sprintf("4.17.%d", f.n))}
	})
	return f
}

// change is source event i.
func (f *foldHarness) change(i int) {
	f.mu.Lock()
	f.n = i
	f.mu.Unlock()
	f.source.Update(func(s *sources.Snapshot) { s.MaxResourceVersion = uint64(100 + i) })
}

// reflects reports whether the current revision covers source event i.
func (f *foldHarness) reflects(i int) bool {
	return f.view.Current().ResourceVersion/1_000_000 == uint64(100+i)
}

// TestLoneChangeIsComputedAtOnce: a change after a quiet period is computed
// without waiting for the fold window: no timer, no clock step.
func TestLoneChangeIsComputedAtOnce(t *testing.T) {
	f := startFold(t)
	f.clock.Step(time.Second) // quiet
	before := f.computer.Calls()
	f.change(1)
	testio.Eventually(t, "the lone change's revision", func() bool { return f.reflects(1) })
	if got := f.computer.Calls() - before; got != 1 {
		t.Errorf("%d computations for one change, want 1", got)
	}
	if w := f.clock.Waiters(); w != 0 {
		t.Errorf("%d timers wait after a lone change, want none", w)
	}
}

// TestBurstAfterQuietFoldsTheRest: the first change of a burst is computed at
// once; the rest, arriving within the window after that computation, are
// folded into one more computation when the window ends.
func TestBurstAfterQuietFoldsTheRest(t *testing.T) {
	f := startFold(t)
	f.clock.Step(time.Second)
	before := f.computer.Calls()
	f.change(1)
	testio.Eventually(t, "the first change's revision", func() bool { return f.reflects(1) })
	for i := 2; i <= 50; i++ {
		f.change(i)
	}
	f.stepWhenWaiting(t, 1, foldWindow)
	testio.Eventually(t, "the folded revision", func() bool { return f.reflects(50) })
	if got := f.computer.Calls() - before; got != 2 {
		t.Errorf("%d computations for a burst of 50 changes after a quiet period, want 2", got)
	}
}

// TestSteadyStreamIsBoundedByTheWindow: changes every 50 ms for 3 s cost at
// most one computation per window, and the last change shows once the
// window after the stream ends.
func TestSteadyStreamIsBoundedByTheWindow(t *testing.T) {
	f := startFold(t)
	f.clock.Step(time.Second)
	before := f.computer.Calls()
	const every, stream = 50 * time.Millisecond, 3 * time.Second
	n := int(stream / every)
	for i := 1; i <= n; i++ {
		f.change(i)
		f.clock.Step(every)
	}
	// The view's goroutine may lag behind the fake clock and open its last
	// window after the stream's last step: end every window it waits on.
	testio.Eventually(t, "the last change's revision", func() bool {
		if f.reflects(n) {
			return true
		}
		if f.clock.Waiters() > 0 {
			f.clock.Step(foldWindow)
		}
		return false
	})
	if got, most := f.computer.Calls()-before, int((stream+foldWindow)/foldWindow)+2; got > most {
		t.Errorf("%d computations for %d changes over %v, want at most %d (one per %v window)", got, n, stream, most, foldWindow)
	}
}
