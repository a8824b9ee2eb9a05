package updatestatus

import (
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/component-base/metrics"
)

var (
	currentWatchers = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace:      "update_status",
		Name:           "watchers",
		Help:           "Watch streams of UpdateStatus currently open.",
		StabilityLevel: metrics.ALPHA,
	})
	eventsSent = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "update_status",
		Name:           "watch_events_sent_total",
		Help:           "Watch events queued to UpdateStatus watchers, by event type.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"type"})
)

// RegisterMetrics registers the watch metrics with register, for example
// legacyregistry.Register or the Register method of a test registry.
func RegisterMetrics(register func(metrics.Registerable) error) error {
	for _, m := range []metrics.Registerable{currentWatchers, eventsSent} {
		if err := register(m); err != nil {
			return err
		}
	}
	return nil
}

// countEventsSent adds n events of type t; one call per fan-out, not per
// watcher.
func countEventsSent(t watch.EventType, n int) {
	if n > 0 {
		eventsSent.WithLabelValues(string(t)).Add(float64(n))
	}
}
