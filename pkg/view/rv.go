package view

import "strconv"

// ResourceVersion layout (docs/watch.md explains the reasoning):
//
//	rv = E*inputFactor + step*stepFactor + digest
//
// E is the highest etcd resourceVersion among the inputs of the computation,
// step counts content changes while E stays the same (a change by the passing
// of time alone, or an input that arrived late), and digest (1..999) is taken
// from a hash of the content, so that two replicas that publish the same
// (E, step) with different content publish different resourceVersions.
const (
	inputFactor = 1_000_000
	stepFactor  = 1_000
	maxStep     = inputFactor/stepFactor - 1
	digestRange = stepFactor - 1
	// maxInput keeps E*inputFactor inside uint64.
	maxInput = (1<<64-1)/inputFactor - 1
)

// nextResourceVersion returns the resourceVersion of a new revision whose
// inputs reach input and whose content hashes to digest, given the
// resourceVersion prev of the revision before it (0 when there is none).
// The result is always greater than prev and never 0.
func nextResourceVersion(prev, input, digest uint64) uint64 {
	if input > maxInput {
		input = maxInput
	}
	d := 1 + digest%digestRange
	base := input * inputFactor
	prevBase := prev / inputFactor * inputFactor
	if prev == 0 || base > prevBase {
		return base + d
	}
	// The inputs did not move past the previous revision: step within its base.
	step := (prev%inputFactor)/stepFactor + 1
	if step <= maxStep {
		return prevBase + step*stepFactor + d
	}
	// A thousand changes without a newer input: leave the base. This keeps the
	// order but is local to this replica (documented in docs/watch.md).
	return prevBase + inputFactor + d
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
