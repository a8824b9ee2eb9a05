// Copyright The update-status-apiserver Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

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
