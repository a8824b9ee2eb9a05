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
