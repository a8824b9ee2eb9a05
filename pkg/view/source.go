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
