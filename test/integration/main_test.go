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

// Package integration tests update-status-apiserver the way users meet it:
// through a real kube-apiserver's aggregation layer, with kubectl, the
// generated client and RBAC. TestMain starts one control plane (see
// internal/localstack) shared by every test; tests that change the
// cluster undo their changes with t.Cleanup.
package integration

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/localstack"
	"github.com/update-status/apiserver/pkg/simulator"
)

var (
	// cp is the control plane every test uses.
	cp *localstack.ControlPlane
	// cluster is the simulated OpenShift cluster inside it (newCluster). It
	// moves only when a test runs it.
	cluster *simulator.Simulator
)

func TestMain(m *testing.M) {
	klog.InitFlags(nil)
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Stop every child process when the test binary is interrupted; the
	// deferred Stop below does not run on a signal.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		if s, ok := <-sig; ok {
			fmt.Fprintf(os.Stderr, "integration: %v: stopping the control plane\n", s)
			if cp != nil {
				cp.Stop()
			}
			os.Exit(2)
		}
	}()

	begin := time.Now()
	var err error
	cp, err = localstack.Start(ctx, localstack.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: cannot start the control plane: %v\n", err)
		return 1
	}
	defer cp.Stop()
	controlPlaneReady := time.Since(begin)

	if cluster, err = newCluster(ctx, cp); err != nil {
		fmt.Fprintf(os.Stderr, "integration: cannot create the simulated cluster: %v\n", err)
		return 1
	}
	if err := cp.StartServer(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "integration: cannot start update-status-apiserver: %v\n\n%s", err, cp.Logs(40))
		return 1
	}
	fmt.Fprintf(os.Stderr, "integration: control plane ready in %v, server serving through the aggregator after %v\n",
		controlPlaneReady.Round(time.Millisecond), time.Since(begin).Round(time.Millisecond))

	code := m.Run()
	// Whatever the tests did, nothing of update.openshift.io reached etcd.
	if bad, err := storedUpdateStatusKeys(ctx); err != nil || len(bad) > 0 {
		fmt.Fprintf(os.Stderr, "integration: after all tests, etcd check: keys %v, error %v\n", bad, err)
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "integration: tests failed; last lines of the logs:\n%s", cp.Logs(25))
	}
	return code
}
