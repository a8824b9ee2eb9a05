package view

// Recompute runs one computation synchronously, for benchmarks.
func (v *View) Recompute() { v.recompute(triggerSources) }
