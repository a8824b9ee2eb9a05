package sources

import (
	"k8s.io/component-base/metrics"
)

var (
	alertReads = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      "update_status",
		Name:           "alert_reads_total",
		Help:           "Reads of the alerts endpoint (--alerts-url) by result (success, failure).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"result"})
	alertsLastSuccess = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace:      "update_status",
		Name:           "alerts_last_success_timestamp_seconds",
		Help:           "When the alerts endpoint was last read successfully (Unix seconds); absent before the first success.",
		StabilityLevel: metrics.ALPHA,
	})
)

// RegisterMetrics registers the metrics of the sources with register, for
// example legacyregistry.Register.
func RegisterMetrics(register func(metrics.Registerable) error) error {
	for _, m := range []metrics.Registerable{alertReads, alertsLastSuccess} {
		if err := register(m); err != nil {
			return err
		}
	}
	return nil
}
