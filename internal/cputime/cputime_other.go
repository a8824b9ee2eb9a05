//go:build !unix

package cputime

import "time"

var start = time.Now()

// now falls back to the wall clock where rusage is not available.
func now() time.Duration { return time.Since(start) }
