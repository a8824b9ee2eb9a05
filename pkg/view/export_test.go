package view

// Recompute runs one computation synchronously, for benchmarks.
func (v *View) Recompute() { v.recompute(triggerSources) }

// TriggerPending reports whether a trigger waits to be taken by the loop.
// Called from Publish (on the loop's goroutine, at the end of a
// computation), it tells whether the loop has more work queued.
func (v *View) TriggerPending() bool { return len(v.trigger) > 0 }
