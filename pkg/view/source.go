package view

import (
	"time"

	"github.com/update-status/apiserver/pkg/insights"
)

// Snapshot is what a Source hands to the view for one computation.
type Snapshot struct {
	// Inputs are the engine's inputs. The view never modifies them.
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
}

// Source provides snapshots of the source caches. Snapshot must be safe to
// call from any goroutine.
type Source interface {
	Snapshot() Snapshot
}

// Computer computes the status from a snapshot of the inputs.
// *insights.Engine implements it. The view calls it from one goroutine only.
type Computer interface {
	Compute(src *insights.Sources, now time.Time) insights.Result
}

// SourceFunc adapts a function to Source.
type SourceFunc func() Snapshot

// Snapshot implements Source.
func (f SourceFunc) Snapshot() Snapshot { return f() }

// ComputerFunc adapts a function to Computer.
type ComputerFunc func(src *insights.Sources, now time.Time) insights.Result

// Compute implements Computer.
func (f ComputerFunc) Compute(src *insights.Sources, now time.Time) insights.Result {
	return f(src, now)
}
