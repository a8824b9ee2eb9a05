package view

import (
	"time"

	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/sources"
)

// Source provides snapshots of the source caches; *sources.Set implements
// it. Snapshot must be safe to call from any goroutine.
type Source interface {
	Snapshot() sources.Snapshot
}

// Computer computes the status from a snapshot of the inputs.
// *insights.Engine implements it. The view calls it from one goroutine only.
type Computer interface {
	Compute(src *insights.Sources, now time.Time) insights.Result
}

// SourceFunc adapts a function to Source.
type SourceFunc func() sources.Snapshot

// Snapshot implements Source.
func (f SourceFunc) Snapshot() sources.Snapshot { return f() }

// ComputerFunc adapts a function to Computer.
type ComputerFunc func(src *insights.Sources, now time.Time) insights.Result

// Compute implements Computer.
func (f ComputerFunc) Compute(src *insights.Sources, now time.Time) insights.Result {
	return f(src, now)
}
