package testio

import "testing"

func TestEventuallyPollsUntilTheConditionHolds(t *testing.T) {
	calls := 0
	Eventually(t, "the third call", func() bool {
		calls++
		return calls == 3
	})
	if calls != 3 {
		t.Errorf("the condition was called %d times, want 3: once at once, then until it held", calls)
	}
}
