// Package cputime reads the CPU time of the process, for benchmarks that
// report work in CPU time: on a busy machine it is far steadier than the
// wall clock.
package cputime

import "time"

// Now returns the CPU time the process has used so far, all threads
// included (so garbage collection counts too); 0 where it is unknown.
func Now() time.Duration { return now() }
