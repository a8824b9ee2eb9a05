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

package validation_test

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/update-status/apiserver/pkg/apis/update/install"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

const examplePath = "../testdata/example.yaml"

var (
	scheme = install.NewScheme()
	// strictCodecs reject unknown and duplicate fields, so the example cannot
	// carry a key the types do not have.
	strictCodecs = serializer.NewCodecFactory(scheme, serializer.EnableStrict)

	exampleOnce sync.Once
	exampleObj  *v1alpha1.UpdateStatus
	exampleErr  error
)

// decodeExample decodes the example object of ../testdata through the scheme.
func decodeExample() (*v1alpha1.UpdateStatus, error) {
	data, err := os.ReadFile(examplePath)
	if err != nil {
		return nil, err
	}
	obj, gvk, err := strictCodecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", examplePath, err)
	}
	us, ok := obj.(*v1alpha1.UpdateStatus)
	if !ok {
		return nil, fmt.Errorf("decoded %s into %T (%v), want *v1alpha1.UpdateStatus", examplePath, obj, gvk)
	}
	return us, nil
}

// example returns a fresh copy of the decoded example.
func example(tb testing.TB) *v1alpha1.UpdateStatus {
	tb.Helper()
	exampleOnce.Do(func() { exampleObj, exampleErr = decodeExample() })
	if exampleErr != nil {
		tb.Fatal(exampleErr)
	}
	return exampleObj.DeepCopy()
}

// Accessors into the example, named after what they reach.

func cpInsights(o *v1alpha1.UpdateStatus) *[]v1alpha1.ControlPlaneInsight {
	return &o.Status.ControlPlane.Informers[0].Insights
}

func cpUnion(o *v1alpha1.UpdateStatus, i int) *v1alpha1.ControlPlaneInsightUnion {
	return &(*cpInsights(o))[i].Insight
}

func wpInsights(o *v1alpha1.UpdateStatus) *[]v1alpha1.WorkerPoolInsight {
	return &o.Status.WorkerPools[0].Informers[0].Insights
}

func wpUnion(o *v1alpha1.UpdateStatus, i int) *v1alpha1.WorkerPoolInsightUnion {
	return &(*wpInsights(o))[i].Insight
}

func cv(o *v1alpha1.UpdateStatus) *v1alpha1.ClusterVersionStatusInsight {
	return cpUnion(o, 0).ClusterVersionStatusInsight
}

func etcd(o *v1alpha1.UpdateStatus) *v1alpha1.ClusterOperatorStatusInsight {
	return cpUnion(o, 1).ClusterOperatorStatusInsight
}

func mcp(o *v1alpha1.UpdateStatus) *v1alpha1.MachineConfigPoolStatusInsight {
	return wpUnion(o, 0).MachineConfigPoolStatusInsight
}

func node(o *v1alpha1.UpdateStatus) *v1alpha1.NodeStatusInsight {
	return wpUnion(o, 1).NodeStatusInsight
}

func health(o *v1alpha1.UpdateStatus) *v1alpha1.HealthStatusInsight {
	return wpUnion(o, 4).HealthInsight
}

// addCPInsight appends a control-plane insight carrying a copy of the given
// worker-pool insight's payload.
func addCPInsight(o *v1alpha1.UpdateStatus, uid string, from int) *v1alpha1.ControlPlaneInsightUnion {
	src := wpUnion(o, from).DeepCopy()
	*cpInsights(o) = append(*cpInsights(o), v1alpha1.ControlPlaneInsight{
		UID:        uid,
		AcquiredAt: (*wpInsights(o))[from].AcquiredAt,
		Insight: v1alpha1.ControlPlaneInsightUnion{
			Type:                           src.Type,
			MachineConfigPoolStatusInsight: src.MachineConfigPoolStatusInsight,
			NodeStatusInsight:              src.NodeStatusInsight,
			HealthInsight:                  src.HealthInsight,
		},
	})
	ins := *cpInsights(o)
	return &ins[len(ins)-1].Insight
}

// condition returns a valid condition of the given type.
func condition(typ string) metav1.Condition {
	return metav1.Condition{
		Type: typ, Status: metav1.ConditionTrue, Reason: "AsExpected",
		LastTransitionTime: metav1.NewTime(time.Date(2025, 3, 12, 8, 0, 5, 0, time.UTC)),
	}
}

func ref(group, resource, name string) v1alpha1.ResourceRef {
	return v1alpha1.ResourceRef{Group: group, Resource: resource, Name: name}
}

func mcpRef(name string) v1alpha1.PoolResourceRef {
	return v1alpha1.PoolResourceRef{ResourceRef: ref("machineconfiguration.openshift.io", "machineconfigpools", name)}
}

// errorStrings renders errors as "Type path", sorted, for comparison.
func errorStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	sort.Strings(out)
	return out
}

func timePtr(t metav1.Time) *metav1.Time { return &t }

// bigStatus returns a valid UpdateStatus with a full control plane and the
// given number of worker pools of nodesPerPool nodes each.
func bigStatus(pools, nodesPerPool int) *v1alpha1.UpdateStatus {
	t0 := metav1.NewTime(time.Date(2025, 3, 12, 9, 14, 3, 0, time.UTC))
	conds := func(types ...string) []metav1.Condition {
		out := make([]metav1.Condition, len(types))
		for i, typ := range types {
			out[i] = condition(typ)
		}
		return out
	}
	nodeInsight := func(pool, name string, scope v1alpha1.ScopeType) *v1alpha1.NodeStatusInsight {
		return &v1alpha1.NodeStatusInsight{
			Conditions:   conds("Updating", "Available", "Degraded"),
			Name:         name,
			Resource:     ref("", "nodes", name),
			PoolResource: mcpRef(pool),
			Scope:        scope,
			Version:      "4.17.5",
		}
	}
	mcpInsight := func(pool string, scope v1alpha1.ScopeType, total int) *v1alpha1.MachineConfigPoolStatusInsight {
		return &v1alpha1.MachineConfigPoolStatusInsight{
			Conditions: conds("Updating"),
			Name:       pool, Resource: mcpRef(pool), Scope: scope,
			Assessment: v1alpha1.PoolProgressing, Completion: 50,
			Summaries: []v1alpha1.NodeSummary{{Type: v1alpha1.NodesTotal, Count: int32(total)}},
		}
	}

	cvRef := ref("config.openshift.io", "clusterversions", "version")
	master := mcpRef("master")
	cpi := []v1alpha1.ControlPlaneInsight{{
		UID: "cv-version", AcquiredAt: t0,
		Insight: v1alpha1.ControlPlaneInsightUnion{
			Type: v1alpha1.ClusterVersionStatusInsightType,
			ClusterVersionStatusInsight: &v1alpha1.ClusterVersionStatusInsight{
				Conditions: conds("Updating"), Resource: cvRef,
				Assessment: v1alpha1.ControlPlaneAssessmentProgressing,
				Versions: v1alpha1.ControlPlaneUpdateVersions{
					Previous: v1alpha1.Version{Version: "4.16.21"}, Target: v1alpha1.Version{Version: "4.17.5"},
				},
				Completion: 50, StartedAt: t0,
			},
		},
	}}
	for i := range 33 {
		name := fmt.Sprintf("operator-%02d", i)
		cpi = append(cpi, v1alpha1.ControlPlaneInsight{
			UID: "co-" + name, AcquiredAt: t0,
			Insight: v1alpha1.ControlPlaneInsightUnion{
				Type: v1alpha1.ClusterOperatorStatusInsightType,
				ClusterOperatorStatusInsight: &v1alpha1.ClusterOperatorStatusInsight{
					Conditions: conds("Updating", "Healthy"), Name: name,
					Resource: ref("config.openshift.io", "clusteroperators", name),
				},
			},
		})
	}
	nodesInf := []v1alpha1.ControlPlaneInsight{{
		UID: "mcp-master", AcquiredAt: t0,
		Insight: v1alpha1.ControlPlaneInsightUnion{
			Type:                           v1alpha1.MachineConfigPoolStatusInsightType,
			MachineConfigPoolStatusInsight: mcpInsight("master", v1alpha1.ControlPlaneScope, 3),
		},
	}}
	for i := range 3 {
		name := fmt.Sprintf("master-%d.example.internal", i)
		nodesInf = append(nodesInf, v1alpha1.ControlPlaneInsight{
			UID: "node-" + strings.ReplaceAll(name, ".", "-"), AcquiredAt: t0,
			Insight: v1alpha1.ControlPlaneInsightUnion{
				Type: v1alpha1.NodeStatusInsightType, NodeStatusInsight: nodeInsight("master", name, v1alpha1.ControlPlaneScope),
			},
		})
	}
	obj := &v1alpha1.UpdateStatus{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Status: v1alpha1.UpdateStatusStatus{
			Conditions: conds("Available"),
			ControlPlane: &v1alpha1.ControlPlane{
				Conditions: conds("Updating"), Resource: &cvRef, PoolResource: &master,
				Informers: []v1alpha1.ControlPlaneInformer{{Name: "cpi", Insights: cpi}, {Name: "nodes", Insights: nodesInf}},
			},
		},
	}
	for p := range pools {
		pool := fmt.Sprintf("pool-%02d", p)
		insights := make([]v1alpha1.WorkerPoolInsight, 0, nodesPerPool+1)
		insights = append(insights, v1alpha1.WorkerPoolInsight{
			UID: "mcp-" + pool, AcquiredAt: t0,
			Insight: v1alpha1.WorkerPoolInsightUnion{
				Type:                           v1alpha1.MachineConfigPoolStatusInsightType,
				MachineConfigPoolStatusInsight: mcpInsight(pool, v1alpha1.WorkerPoolScope, nodesPerPool),
			},
		})
		for n := range nodesPerPool {
			name := fmt.Sprintf("%s-node-%04d.us-east-2.compute.internal", pool, n)
			insights = append(insights, v1alpha1.WorkerPoolInsight{
				UID: "node-" + strings.ReplaceAll(name, ".", "-"), AcquiredAt: t0,
				Insight: v1alpha1.WorkerPoolInsightUnion{
					Type: v1alpha1.NodeStatusInsightType, NodeStatusInsight: nodeInsight(pool, name, v1alpha1.WorkerPoolScope),
				},
			})
		}
		obj.Status.WorkerPools = append(obj.Status.WorkerPools, v1alpha1.Pool{
			Conditions: conds("Updating"), Name: pool, Resource: mcpRef(pool),
			Informers: []v1alpha1.WorkerPoolInformer{{Name: "nodes", Insights: insights}},
		})
	}
	return obj
}
