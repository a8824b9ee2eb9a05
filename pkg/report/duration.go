package report

import "time"

// roundedDuration is how oc shows the control plane's duration: to the
// minute above ten minutes, to the second below.
func roundedDuration(d time.Duration) time.Duration {
	if d > 10*time.Minute {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}
