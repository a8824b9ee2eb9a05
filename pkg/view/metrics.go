package view

import (
	"k8s.io/component-base/metrics"
)

// Values of the labels of the recomputations metric.
const (
	triggerStart   = "start"
	triggerSources = "sources"
	triggerTime    = "time"

	resultChanged   = "changed"
	resultUnchanged = "unchanged"
	resultFailed    = "failed"
)

var (
	computeDuration = metrics.NewHistogram(&metrics.HistogramOpts{
		Namespace:      "update_status",
		Name:           "computation_duration_seconds",
		Help:           "Time to snapshot the source caches and compute the UpdateStatus.",
		Buckets:        metrics.ExponentialBuckets(0.001, 2, 15),
		StabilityLevel: metrics.ALPHA,
	})
	recomputations = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "update_status",
		Name:           "recomputations_total",
		Help:           "UpdateStatus computations by trigger (start, sources, time) and result (changed, unchanged, failed).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"trigger", "result"})
)

// RegisterMetrics registers the view's metrics with register, for example
// legacyregistry.Register or the Register method of a test registry.
func RegisterMetrics(register func(metrics.Registerable) error) error {
	for _, m := range []metrics.Registerable{computeDuration, recomputations} {
		if err := register(m); err != nil {
			return err
		}
	}
	return nil
}
