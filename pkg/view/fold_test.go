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
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/testio"
)

// TestFold walks the fold rule through a computation ending at 0 ms: each
// step records a change at its time (ms) of its object (node-1 unless
// named: a stream's changes are about other objects in turn) from its
// source (the node informer unless named), and asks how long to wait; a
// change due at once is computed then, in no time.
func TestFold(t *testing.T) {
	const delay, gap = 100 * time.Millisecond, 35 * time.Millisecond
	type step struct {
		at     int // ms
		source string
		object string
		wait   time.Duration
	}
	// n is a change of a node by the node informer at ms.
	n := func(ms int, object string, wait time.Duration) step { return step{ms, "", object, wait} }
	// op is a change of ClusterOperator object at ms.
	op := func(ms int, object string, wait time.Duration) step { return step{ms, "operators", object, wait} }
	tests := []struct {
		name  string
		gap   time.Duration
		steps []step
	}{
		{"a change after the window: at once", gap, []step{n(150, "a", 0)}},
		{"an isolated change within the window: at once", gap, []step{n(10, "a", 0)}},
		{"a steady stream slower than the gap: each at once", gap, []step{n(40, "a", 0), n(80, "b", 0), n(90, "c", 0), n(130, "d", 0)}},
		{"one late change of a stream is jitter", gap, []step{n(40, "a", 0), n(50, "b", 0), n(90, "c", 0)}},
		{"a burst: the fourth change waits for the window", gap, []step{
			n(10, "a", 0), n(11, "b", 0), n(12, "c", 0), n(13, "d", 99*time.Millisecond), n(14, "e", 98*time.Millisecond),
		}},
		{"a burst's jitter: still folded", gap, []step{
			n(10, "a", 0), n(11, "b", 0), n(12, "c", 0), n(13, "d", 99*time.Millisecond), n(14, "e", 98*time.Millisecond),
			n(54, "f", 58*time.Millisecond), n(55, "g", 57*time.Millisecond),
		}},
		{"after a burst, two long gaps: at once", gap, []step{
			n(10, "a", 0), n(11, "b", 0), n(12, "c", 0), n(13, "d", 99*time.Millisecond), n(14, "e", 98*time.Millisecond),
			n(200, "f", 0), n(250, "g", 0), n(300, "h", 0),
		}},
		{"another object's step among a stream's changes: each at once", gap, []step{
			n(50, "a", 0), n(100, "b", 0), n(120, "master", 0), n(121, "master", 99*time.Millisecond), n(150, "c", 0), n(200, "d", 0),
		}},
		{"one object changing again and again: folded, at once once a gap passed", gap, []step{
			n(10, "a", 0), n(11, "a", 99*time.Millisecond), n(12, "a", 98*time.Millisecond), n(45, "a", 0), n(60, "a", 85*time.Millisecond),
		}},
		{"a burst past the window: at once", gap, []step{n(97, "a", 0), n(98, "b", 0), n(99, "c", 0), n(200, "d", 0)}},
		{"no gap: every change within the window waits", 0, []step{n(10, "a", 90*time.Millisecond), n(60, "b", 40*time.Millisecond), n(100, "c", 0)}},
		{"another source's burst between a stream's changes: each at once", gap, []step{
			n(40, "a", 0), op(50, "x", 0), op(51, "y", 0), op(52, "z", 0), op(53, "w", 99*time.Millisecond), n(80, "b", 0),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := time.Unix(1000, 0)
			f := NewFold(delay, tt.gap)
			f.Computed(base)
			for _, s := range tt.steps {
				now := base.Add(time.Duration(s.at) * time.Millisecond)
				f.Changed(now, s.source, s.object)
				got := f.Wait(now)
				if got != s.wait {
					t.Errorf("change of %s/%s at %d ms: wait %v, want %v", s.source, s.object, s.at, got, s.wait)
				}
				if got == 0 {
					f.Begin()
					f.Computed(now)
				}
			}
		})
	}
}

// TestFoldPending: Begin returns the first change since the previous Begin
// and whether one of them was isolated, and forgets them.
func TestFoldPending(t *testing.T) {
	base := time.Unix(1000, 0)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	f := NewFold(200*time.Millisecond, 30*time.Millisecond)
	if p := f.Begin(); !p.Since.IsZero() || p.Isolated {
		t.Errorf("no change: %+v", p)
	}
	for _, ms := range []int{10, 11, 12, 13} {
		f.Changed(at(ms), "nodes", strconv.Itoa(ms))
	}
	if p := f.Begin(); !p.Since.Equal(at(10)) || !p.Isolated {
		t.Errorf("a burst's first three changes are isolated, the first at 10 ms: %+v", p)
	}
	f.Changed(at(14), "nodes", "14")
	f.Changed(at(15), "nodes", "15")
	if p := f.Begin(); !p.Since.Equal(at(14)) || p.Isolated {
		t.Errorf("the burst's later changes: %+v, want since 14 ms, not isolated", p)
	}
	if p := f.Begin(); !p.Since.IsZero() {
		t.Errorf("nothing since the last Begin: %+v", p)
	}
	g := NewFold(200*time.Millisecond, 0)
	g.Changed(at(20), "nodes", "a")
	if p := g.Begin(); !p.Since.Equal(at(20)) || p.Isolated {
		t.Errorf("without a quiet gap: %+v, want since 20 ms, not isolated", p)
	}
}

// steppingClock is a fake clock that moves by step just before it arms
// its first timer: the clock moving while the loop goes from reading it
// to arming a timer.
type steppingClock struct {
	*testingclock.FakeClock
	step  time.Duration
	armed atomic.Bool
}

func (c *steppingClock) NewTimer(d time.Duration) clock.Timer {
	if !c.armed.Swap(true) {
		c.Step(c.step)
	}
	return c.FakeClock.NewTimer(d)
}

// TestFoldSleepClockMoved: a wait that ends while Sleep arms its timer
// ends Sleep, though the timer (armed for the wait read before the clock
// moved) is still ahead and the clock moves no more.
func TestFoldSleepClockMoved(t *testing.T) {
	const delay = 200 * time.Millisecond
	start := time.Unix(1000, 0)
	f := NewFold(delay, 0)
	f.Computed(start)
	f.Changed(start.Add(10*time.Millisecond), "nodes", "a")
	clk := &steppingClock{FakeClock: testingclock.NewFakeClock(start.Add(10 * time.Millisecond)), step: delay}
	var returned, due atomic.Bool
	go func() {
		due.Store(f.Sleep(t.Context(), clk, make(chan struct{})))
		returned.Store(true)
	}()
	testio.Eventually(t, "Sleep to return once the window is over", returned.Load)
	if !due.Load() {
		t.Error("Sleep returned false: the changes are due")
	}
}
