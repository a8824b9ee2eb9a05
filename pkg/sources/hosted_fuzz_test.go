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

package sources

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/update-status/apiserver/pkg/insights"
)

// FuzzHostedTransform feeds arbitrary JSON objects through the transform of
// every hosted source and the grouping of a snapshot: nothing may panic,
// each object becomes either its typed form or a Malformed that the
// snapshot reports, and the keys the notifications derive from it are
// "namespace/name" or nothing.
func FuzzHostedTransform(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"a","namespace":"clusters","resourceVersion":"7"},"spec":{"clusterName":"a","replicas":2}}`))
	f.Add([]byte(`{"metadata":{"name":"a","namespace":"clusters"},"spec":{"clusterName":"a","replicas":"two"}}`))
	f.Add([]byte(`{"metadata":{"name":"m","namespace":"clusters-a"},"status":{"phase":"Running","nodeRef":{"name":"n"},"nodeInfo":{"kubeletVersion":"v1.31.0"}}}`))
	f.Add([]byte(`{"metadata":{"name":"a","namespace":"clusters"},"status":{"controlPlaneVersion":{"desired":{"version":"4.19.0"},"history":[{"state":"Partial","version":"4.19.0"}]}}}`))
	f.Add([]byte(`{"metadata":{"name":"c","namespace":"clusters-a"},"status":{"observedGeneration":"x","conditions":[{"type":"RolloutComplete","status":"True"}]}}`))
	f.Add([]byte(`{"metadata":{"name":"np","namespace":"clusters"},"status":{"nodesInfo":{"nodeVersions":[{"ocpVersion":4}]}}}`))

	h, err := NewHosted(fake.NewSimpleDynamicClient(runtime.NewScheme()), HostedOptions{Clock: clocktesting.NewFakeClock(time.Unix(0, 0)), Discovery: &fakeDiscovery{}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]interface{}
		if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
			return
		}
		for _, src := range h.sources {
			u := &unstructured.Unstructured{Object: deepCopyJSON(obj)}
			out, err := src.transform(u)
			if err != nil {
				t.Fatalf("%s: transform error %v", src.name, err)
			}
			again, err := src.transform(out)
			if err != nil || again != out {
				t.Fatalf("%s: the transform is not idempotent", src.name)
			}
			snap := HostedSnapshot{Sources: &insights.HostedSources{}}
			snap.add(out, "a")
			s := snap.Sources
			typed := len(s.NodePools) + len(s.Components) + len(s.Machines) + len(s.MachineSets) + len(s.MachineDeployments)
			for _, one := range []bool{s.HostedCluster != nil, s.HostedControlPlane != nil} {
				if one {
					typed++
				}
			}
			if typed+len(snap.Malformed) != 1 {
				t.Fatalf("%s: %T gave %d typed and %d malformed objects", src.name, out, typed, len(snap.Malformed))
			}
			if key := nodePoolCluster(out); key != "" && !validKey(key) {
				t.Fatalf("%s: node pool cluster key %q", src.name, key)
			}
			if key := hostedKeyOf(out); !validKey(key) {
				t.Fatalf("%s: hosted key %q", src.name, key)
			}
		}
	})
}

// validKey reports whether key has the form namespace/name.
func validKey(key string) bool { return strings.Contains(key, "/") }

func deepCopyJSON(in map[string]interface{}) map[string]interface{} {
	raw, _ := json.Marshal(in)
	var out map[string]interface{}
	_ = json.Unmarshal(raw, &out)
	return out
}
