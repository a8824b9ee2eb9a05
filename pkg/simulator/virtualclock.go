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
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// NewVirtualClock returns a VirtualClock at start: the clock of a
// simulation in virtual time (RunVirtual), such as update-simulator's
// --output-dir mode. Its timers and tickers fire when the clock is moved
// to or past their time; Sleep moves the clock.
func NewVirtualClock(start time.Time) VirtualClock {
	return &virtualClock{now: start}
}

type virtualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []*virtualTimer
}

var _ VirtualClock = &virtualClock{}

// virtualTimer is a timer, or a ticker when period is positive.
type virtualTimer struct {
	clock  *virtualClock
	at     time.Time
	period time.Duration
	ch     chan time.Time
}

func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *virtualClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

func (c *virtualClock) SetTime(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(t) {
			kept = append(kept, w)
			continue
		}
		select { // a reader that has not taken the last firing misses this one, as with time.Ticker
		case w.ch <- w.at:
		default:
		}
		if w.period > 0 {
			for !w.at.After(t) {
				w.at = w.at.Add(w.period)
			}
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}

func (c *virtualClock) Step(d time.Duration) { c.SetTime(c.Now().Add(d)) }

// Sleep moves the clock forward by d: nobody else would.
func (c *virtualClock) Sleep(d time.Duration) { c.Step(d) }

func (c *virtualClock) After(d time.Duration) <-chan time.Time { return c.NewTimer(d).C() }

func (c *virtualClock) NewTimer(d time.Duration) clock.Timer { return c.add(d, 0) }

func (c *virtualClock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return c.add(d, d).ch
}

func (c *virtualClock) NewTicker(d time.Duration) clock.Ticker {
	if d <= 0 {
		panic("simulator: non-positive interval for NewTicker")
	}
	return virtualTicker{c.add(d, d)}
}

// virtualTicker is a virtualTimer with a period, as a clock.Ticker.
type virtualTicker struct{ t *virtualTimer }

func (k virtualTicker) C() <-chan time.Time { return k.t.ch }
func (k virtualTicker) Stop()               { k.t.Stop() }

// add returns a new waiter due d from now.
func (c *virtualClock) add(d, period time.Duration) *virtualTimer {
	w := &virtualTimer{clock: c, period: period, ch: make(chan time.Time, 1)}
	c.schedule(w, d)
	return w
}

// schedule makes w due d from now; due now, it fires at once.
func (c *virtualClock) schedule(w *virtualTimer, d time.Duration) {
	c.mu.Lock()
	w.at = c.now.Add(d)
	c.waiters = append(c.waiters, w)
	now := c.now
	c.mu.Unlock()
	if d <= 0 {
		c.SetTime(now)
	}
}

func (w *virtualTimer) C() <-chan time.Time { return w.ch }

// Stop implements clock.Timer and clock.Ticker: it reports whether the
// waiter was still due.
func (w *virtualTimer) Stop() bool {
	c := w.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.waiters {
		if x == w {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			return true
		}
	}
	return false
}

// Reset implements clock.Timer.
func (w *virtualTimer) Reset(d time.Duration) bool {
	was := w.Stop()
	w.clock.schedule(w, d)
	return was
}
