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

// Package viewtest has test doubles for the view: a snapshotter whose snapshot the
// test sets, a computer that returns the Results the test scripts, and
// clusters of any size caught in the middle of an update by the simulator
// (pkg/simulator's Midway), with the engine's status of them, for the
// engine's, the view's and the server's tests and benchmarks.
package viewtest

import (
	"context"
	"sync"
	"time"

	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/view"
)

// Snapshotter is a view.Snapshotter whose snapshot the test sets. Its zero value
// returns an empty, synced snapshot.
type Snapshotter struct {
	mu        sync.Mutex
	snap      view.Snapshot
	listeners []func(source, object string)
	calls     int
}

var _ view.Snapshotter = &Snapshotter{}

// NewSnapshotter returns a Snapshotter with an empty, synced snapshot at input
// resourceVersion maxRV.
func NewSnapshotter(maxRV uint64) *Snapshotter {
	return &Snapshotter{snap: view.Snapshot{Inputs: &insights.Sources{}, MaxResourceVersion: maxRV, InitialSyncDone: true}}
}

// Snapshot implements view.Snapshotter.
func (s *Snapshotter) Snapshot() view.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.snap
}

// Set replaces the snapshot and notifies the listeners, as a source event
// would.
func (s *Snapshotter) Set(snap view.Snapshot) {
	s.Update(func(cur *view.Snapshot) { *cur = snap })
}

// Source is the source a Snapshotter's Set and Update name to the
// listeners.
const Source = "test"

// Update changes the snapshot with f and notifies the listeners as Source.
func (s *Snapshotter) Update(f func(*view.Snapshot)) { s.UpdateFrom(Source, f) }

// UpdateFrom changes the snapshot with f and notifies the listeners as a
// change of source.
func (s *Snapshotter) UpdateFrom(source string, f func(*view.Snapshot)) {
	s.mu.Lock()
	f(&s.snap)
	listeners := s.listeners
	s.mu.Unlock()
	for _, l := range listeners {
		l(source, "")
	}
}

// UpdateSilently changes the snapshot with f without notifying the
// listeners, as an input that triggers no computation does (a renewed
// Lease).
func (s *Snapshotter) UpdateSilently(f func(*view.Snapshot)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.snap)
}

// Calls returns how many snapshots were taken.
func (s *Snapshotter) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// AddListener registers f, like sources.Set.AddListener.
func (s *Snapshotter) AddListener(f func(source, object string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, f)
}

// SyncCheck reports the snapshot's InitialSyncDone, like sources.Set.
func (s *Snapshotter) SyncCheck() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.snap.InitialSyncDone {
		return errNotSynced
	}
	return nil
}

// Run does nothing; the test drives the source.
func (s *Snapshotter) Run(ctx context.Context) { <-ctx.Done() }

type notSynced struct{}

func (notSynced) Error() string { return "viewtest: not synced" }

var errNotSynced error = notSynced{}

// Computer is a view.Computer that returns what Func returns (an empty
// Result when Func is nil) and counts its calls.
type Computer struct {
	mu    sync.Mutex
	Func  func(src *insights.Sources, now time.Time) insights.Result
	calls int
}

var _ view.Computer = &Computer{}

// Compute implements view.Computer.
func (c *Computer) Compute(src *insights.Sources, now time.Time) insights.Result {
	c.mu.Lock()
	c.calls++
	f := c.Func
	c.mu.Unlock()
	if f == nil {
		return insights.Result{}
	}
	return f(src, now)
}

// SetFunc replaces Func safely while the view runs.
func (c *Computer) SetFunc(f func(src *insights.Sources, now time.Time) insights.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Func = f
}

// Calls returns how many computations ran.
func (c *Computer) Calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}
