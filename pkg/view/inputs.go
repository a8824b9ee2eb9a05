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
	"time"

	"github.com/update-status/apiserver/pkg/insights"
)

// Snapshot is the state of the sources at one moment: the engine's inputs and
// what is known about the caches they come from. The view computes one status
// from each.
type Snapshot struct {
	// Inputs are the engine's inputs. Nobody modifies them.
	Inputs *insights.Sources
	// MaxResourceVersion is the highest etcd resourceVersion among the inputs:
	// the objects in Inputs and every deletion the source has observed.
	MaxResourceVersion uint64
	// Unsynced names the caches of served source APIs that have not synced yet
	// (sorted, e.g. "nodes").
	Unsynced []string
	// Unavailable names the source APIs that the cluster does not serve (sorted,
	// e.g. "machineconfigpools.machineconfiguration.openshift.io").
	Unavailable []string
	// InitialSyncDone is true once every source API that was served at start
	// has synced. It never goes back to false.
	InitialSyncDone bool
	// AlertsUnavailable, when not empty, is a sentence saying why the alerts
	// in Inputs are not those of a current read: none is configured, the
	// first read has not finished, or the reads fail (with the error, and
	// whether the alerts of the last good read are still kept). The alerts
	// never hold up the initial sync.
	AlertsUnavailable string
}

// Snapshotter provides snapshots of the source caches; *sources.Set
// implements it. Snapshot must be safe to call from any goroutine.
type Snapshotter interface {
	Snapshot() Snapshot
}

// Computer computes the status from a snapshot of the inputs.
// *insights.Engine implements it. The view calls it from one goroutine only.
type Computer interface {
	Compute(src *insights.Sources, now time.Time) insights.Result
}

// SnapshotFunc adapts a function to Snapshotter.
type SnapshotFunc func() Snapshot

// Snapshot implements Snapshotter.
func (f SnapshotFunc) Snapshot() Snapshot { return f() }

// ComputerFunc adapts a function to Computer.
type ComputerFunc func(src *insights.Sources, now time.Time) insights.Result

// Compute implements Computer.
func (f ComputerFunc) Compute(src *insights.Sources, now time.Time) insights.Result {
	return f(src, now)
}
