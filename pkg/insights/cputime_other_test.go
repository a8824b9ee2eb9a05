//go:build !unix

package insights_test

import "time"

var start = time.Now()

// cpuTime falls back to the wall clock where rusage is not available.
func cpuTime() time.Duration { return time.Since(start) }
