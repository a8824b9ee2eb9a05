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

package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// storedUpdateStatusKeys returns the etcd keys that would hold UpdateStatus
// objects (any key under the group, or of the resource), and fails when etcd
// holds no ClusterVersion: a check that sees nothing proves nothing.
func storedUpdateStatusKeys(ctx context.Context) ([]string, error) {
	keys, err := cp.Etcd.Keys(ctx, "")
	if err != nil {
		return nil, err
	}
	var sawClusterVersion bool
	var bad []string
	for _, k := range keys {
		if k == "/registry/config.openshift.io/clusterversions/version" {
			sawClusterVersion = true
		}
		if strings.HasPrefix(k, "/registry/update.openshift.io/") || strings.Contains(k, "/updatestatuses/") {
			bad = append(bad, k)
		}
	}
	if !sawClusterVersion {
		return nil, fmt.Errorf("etcd's %d keys do not include the ClusterVersion; the key listing is broken", len(keys))
	}
	return bad, nil
}

// TestNothingStoredInEtcd reads every key of etcd after the object was read,
// watched and written to (refused) by the other tests; TestMain repeats the
// check once every test has run.
func TestNothingStoredInEtcd(t *testing.T) {
	ctx := t.Context()
	getStatus(ctx, t)
	bad, err := storedUpdateStatusKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("etcd holds UpdateStatus data: %v", bad)
	}
}
