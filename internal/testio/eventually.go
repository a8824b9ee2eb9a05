package testio

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// EventuallyTimeout is how long Eventually waits for a condition.
const EventuallyTimeout = 10 * time.Second

// Eventually polls cond every few milliseconds, the first time at once,
// until it holds, and fails tb when it does not within EventuallyTimeout;
// what names the condition in the failure. Tests that need their own
// interval, timeout or failure message call wait.PollUntilContextTimeout.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, EventuallyTimeout, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		tb.Fatalf("timed out after %v waiting for %s", EventuallyTimeout, what)
	}
}
