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
	"time"
)

// ResourceVersion layout (docs/watch.md explains the reasoning):
//
//	rv = E*inputFactor + step*stepFactor + digest
//
// E is the highest etcd resourceVersion among the inputs of the computation.
// step places the content in the sequence of contents that the same inputs
// go through as time passes: it is derived from the engine's NextChange, the
// moment the content will next change by time alone, which every replica
// computes alike for the same inputs and content (steps 1..499). Steps
// 500..999 leave room for the revisions a replica must order on its own. digest (1..999) is taken
// from a hash of the content, so that replicas that publish the same
// (E, step) with different content publish different resourceVersions.
const (
	inputFactor = 1_000_000
	stepFactor  = 1_000
	// maxStep is the largest step; steps above maxTimeStep are only taken
	// when a replica must order a revision the deterministic value cannot.
	maxStep = inputFactor/stepFactor - 1
	// maxTimeStep is the step of a content with no time-dependent change
	// pending.
	maxTimeStep = 499
	digestRange = stepFactor - 1
	// stepUnit and stepCycle map NextChange onto steps 1..498: 10-second
	// units, modulo 498 (a cycle of 83 minutes).
	stepUnit  = 10 * time.Second
	stepCycle = maxTimeStep - 1
	// maxInput keeps E*inputFactor inside uint64.
	maxInput = (1<<64-1)/inputFactor - 1
)

// timeStep returns the step of a content whose next change by time alone is
// at next (zero when none is pending). Later moments give larger steps, except
// once per cycle, when the steps wrap around.
func timeStep(next time.Time) uint64 {
	if next.IsZero() {
		return maxTimeStep
	}
	units := next.Unix() / int64(stepUnit/time.Second)
	return 1 + uint64(units%stepCycle+stepCycle)%stepCycle
}

// nextResourceVersion returns the resourceVersion of a new revision whose
// inputs reach input, whose time step is step and whose content hashes to
// digest, given the resourceVersion prev of the revision before it (0 when
// there is none). The result is always greater than prev and never 0.
//
// When the deterministic value is not greater than prev (an input that
// arrived late without a newer resourceVersion, two time-only changes within
// one step unit, or the wrap of the step cycle), the step is taken as one more
// than prev's: still ordered, but local to this replica until the inputs move.
func nextResourceVersion(prev, input, step, digest uint64) uint64 {
	if input > maxInput {
		input = maxInput
	}
	step = min(step, maxStep)
	d := 1 + digest%digestRange
	if rv := input*inputFactor + step*stepFactor + d; rv > prev {
		return rv
	}
	prevBase := prev / inputFactor * inputFactor
	next := (prev%inputFactor)/stepFactor + 1
	if next <= maxStep {
		return prevBase + next*stepFactor + d
	}
	// Every step of this base is used: move to the next base.
	return prevBase + inputFactor + d
}

// progressVersion returns the deterministic resourceVersion of unchanged
// content at newer inputs, and whether it should be published: when its
// input part is past that of prev. Two replicas that reach one content
// through different intermediate states (one computed a burst in two
// parts, the other in one) then serve the same list resourceVersion once
// both have seen the same inputs. A later moment alone (the step) does not
// publish: that costs nothing when time passes over an unchanged state.
func progressVersion(prev, input, step, digest uint64) (uint64, bool) {
	if min(input, maxInput) <= prev/inputFactor {
		return 0, false
	}
	return nextResourceVersion(prev, input, step, digest), true
}

// ParseResourceVersion parses a resourceVersion served by this package. The
// empty string parses as 0.
func ParseResourceVersion(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	rv, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, err
	}
	return rv, nil
}

// splitResourceVersion returns the input, step and digest parts of rv.
func splitResourceVersion(rv uint64) (input, step, digest uint64) {
	return rv / inputFactor, (rv % inputFactor) / stepFactor, rv % stepFactor
}
