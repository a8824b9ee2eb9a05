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

package app

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/internal/testio"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
)

// hostedWatchRun is a `report ... --watch` of hosted clusters running
// against a fake clientset.
type hostedWatchRun struct {
	t           *testing.T
	ctx         context.Context
	cancel      context.CancelFunc
	out, errOut testio.SyncBuffer
	done        chan int
}

// startHostedWatch runs the command of args (--kubeconfig k given) on
// client, judged at now, until stop; it returns once the command watches
// the HostedClusterUpdateStatuses.
func startHostedWatch(t *testing.T, client *fake.Clientset, now time.Time, args ...string) *hostedWatchRun {
	t.Helper()
	r := &hostedWatchRun{t: t, done: make(chan int)}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	t.Cleanup(r.cancel)
	deps := Deps{
		Out: &r.out, ErrOut: &r.errOut,
		Clock:     clocktesting.NewFakePassiveClock(now),
		NewClient: func(string) (versioned.Interface, error) { return client, nil },
	}
	watching := make(chan struct{})
	var once sync.Once
	testio.OnWatch(client, resources.HostedClusterUpdateStatus.Resource, func(watch.Interface) { once.Do(func() { close(watching) }) })
	go func() { r.done <- Run(r.ctx, deps, append(args, "--kubeconfig", "k", "--watch")) }()
	select {
	case <-watching:
	case <-time.After(10 * time.Second):
		t.Fatalf("the command never watched; errors:\n%s", r.errOut.String())
	}
	return r
}

// waitFor waits until ok holds for the parts of the output that sep
// starts.
func (r *hostedWatchRun) waitFor(what, sep string, ok func([]string) bool) {
	r.t.Helper()
	if err := wait.PollUntilContextTimeout(r.ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return ok(r.parts(sep)), nil
	}); err != nil {
		r.t.Fatalf("timed out waiting for %s; output:\n%.3000s\nerrors:\n%s", what, r.out.String(), r.errOut.String())
	}
}

// parts splits the output at each sep, leaving out what precedes the first.
func (r *hostedWatchRun) parts(sep string) []string { return strings.Split(r.out.String(), sep)[1:] }

// stop ends the command and checks it exits 0.
func (r *hostedWatchRun) stop() {
	r.t.Helper()
	r.cancel()
	if code := <-r.done; code != 0 {
		r.t.Errorf("exit %d: %s", code, r.errOut.String())
	}
}
