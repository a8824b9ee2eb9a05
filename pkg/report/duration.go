package report

import (
	"strings"
	"time"
)

// shortDuration formats d as oc does: Go's duration text without trailing
// zero units and without a fraction of a second; zero is "now".
func shortDuration(d time.Duration) string {
	s := d.String()
	switch {
	case s == "0s":
		return "now"
	case strings.HasSuffix(s, "h0m0s"):
		return s[:len(s)-4]
	case strings.HasSuffix(s, "m0s"):
		return s[:len(s)-2]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		whole, err := time.ParseDuration(s[:i] + "s")
		if err != nil {
			return s
		}
		return shortDuration(whole)
	}
	return s
}

// roundedDuration is how oc shows the control plane's duration: to the
// minute above ten minutes, to the second below.
func roundedDuration(d time.Duration) time.Duration {
	if d > 10*time.Minute {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}
