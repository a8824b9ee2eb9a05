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
	"testing"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"reflect"
)

// TestVirtualClock moves a virtual clock step by step and checks which
// timers and tickers have fired after each move.
func TestVirtualClock(t *testing.T) {
	c := NewVirtualClock(testStart)
	timer := c.NewTimer(10 * time.Second)
	stopped := c.NewTimer(10 * time.Second)
	reset := c.NewTimer(time.Hour)
	ticker := c.NewTicker(4 * time.Second)
	now := c.NewTimer(0)
	fired := func(ch <-chan time.Time) (time.Time, bool) {
		select {
		case at := <-ch:
			return at, true
		default:
			return time.Time{}, false
		}
	}
	if _, ok := fired(now.C()); !ok {
		t.Error("a timer of 0 did not fire at once")
	}
	if !stopped.Stop() || stopped.Stop() {
		t.Error("Stop: want true for a due timer, then false")
	}
	reset.Reset(5 * time.Second)

	for i, step := range []struct {
		by                                     time.Duration
		wantTimer, wantReset, wantTick, wantGo bool
	}{
		{by: 3 * time.Second},
		{by: 2 * time.Second, wantReset: true, wantTick: true}, // 5s: the reset timer, the 4s tick
		{by: 2 * time.Second}, // 7s
		{by: 5 * time.Second, wantTimer: true, wantTick: true}, // 12s: the timer, the 8s tick (12s is taken by the buffer's one)
		{by: time.Second}, // 13s
	} {
		c.Step(step.by)
		_, gotTimer := fired(timer.C())
		_, gotReset := fired(reset.C())
		_, gotTick := fired(ticker.C())
		_, gotStopped := fired(stopped.C())
		if gotTimer != step.wantTimer || gotReset != step.wantReset || gotTick != step.wantTick || gotStopped {
			t.Errorf("step %d (at %v): timer %v, reset %v, tick %v, stopped %v; want %v, %v, %v, false",
				i, c.Since(testStart), gotTimer, gotReset, gotTick, gotStopped, step.wantTimer, step.wantReset, step.wantTick)
		}
	}
	ticker.Stop()
	c.Sleep(time.Minute)
	if _, ok := fired(ticker.C()); ok {
		t.Error("a stopped ticker fired")
	}
	if got := c.Since(testStart); got != 73*time.Second {
		t.Errorf("after Sleep: %v since the start, want 1m13s", got)
	}
}

// TestRunVirtualOnTheVirtualClock runs the same update on the virtual
// clock and on k8s.io/utils' fake clock: the same simulated objects and
// the same end time.
func TestRunVirtualOnTheVirtualClock(t *testing.T) {
	run := func(c VirtualClock) (*State, time.Time) {
		o := Options{Nodes: 12, Seed: 5, Clock: c, MinStepInterval: -1, Sink: newFakeAPI().sink}
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RunVirtual(context.Background(), c, 0); err != nil {
			t.Fatalf("RunVirtual: %v", err)
		}
		return s.Snapshot(), c.Now()
	}
	fake, fakeEnd := run(clocktesting.NewFakeClock(testStart))
	virtual, virtualEnd := run(NewVirtualClock(testStart))
	if !virtualEnd.Equal(fakeEnd) || !reflect.DeepEqual(virtual, fake) {
		t.Errorf("on the virtual clock the update ended at %v (fake clock: %v); objects equal: %v",
			virtualEnd, fakeEnd, reflect.DeepEqual(virtual, fake))
	}
}

var _ clock.WithTicker = NewVirtualClock(time.Time{})
