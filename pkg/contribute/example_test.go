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

package contribute_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	informersv1alpha1 "github.com/update-status/apiserver/pkg/apis/informers/v1alpha1"
	updatev1alpha1 "github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/contribute"
	"github.com/update-status/apiserver/pkg/generated/clientset/versioned/fake"
)

// A component reports that the drain of a worker node is blocked. With a
// real cluster the clientsets come from versioned.NewForConfig and
// kubernetes.NewForConfig, and Run (instead of Write) keeps the
// contribution renewed through its Lease until the component stops.
func Example() {
	ctx := context.Background()
	clientset, kube := fake.NewSimpleClientset(), kubefake.NewClientset()

	c, err := contribute.New(clientset.InformersV1alpha1(), kube, "drain-watcher", "drains", contribute.WithLease(time.Minute))
	if err != nil {
		panic(err)
	}
	now := metav1.Now()
	c.Set(nil, []informersv1alpha1.WorkerPoolContribution{{
		Name: "worker",
		Insights: []updatev1alpha1.WorkerPoolInsight{{
			UID:        "drain-worker-0",
			AcquiredAt: now,
			Insight: updatev1alpha1.WorkerPoolInsightUnion{
				Type: updatev1alpha1.HealthInsightType,
				HealthInsight: &updatev1alpha1.HealthStatusInsight{
					StartedAt: now,
					Scope: updatev1alpha1.InsightScope{
						Type:      updatev1alpha1.WorkerPoolScope,
						Resources: []updatev1alpha1.ResourceRef{{Resource: "nodes", Name: "worker-0"}},
					},
					Impact: updatev1alpha1.InsightImpact{
						Level:   updatev1alpha1.ErrorImpactLevel,
						Type:    updatev1alpha1.UpdateStalledImpactType,
						Summary: "Drain of worker-0 waits on a PodDisruptionBudget",
					},
				},
			},
		}},
	}})
	if err := c.Write(ctx); err != nil {
		panic(err)
	}

	ui, err := clientset.InformersV1alpha1().UpdateInformers("drain-watcher").Get(ctx, "drains", metav1.GetOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("informer:", c.InformerName())
	fmt.Println("lease:", *ui.Spec.LeaseDurationSeconds, "s")
	fmt.Println("pool:", ui.Spec.WorkerPools[0].Name, "insights:", len(ui.Spec.WorkerPools[0].Insights))

	// On shutdown (Run does it when its context ends).
	if err := c.Withdraw(ctx); err != nil {
		panic(err)
	}
	// Output:
	// informer: drains.drain-watcher
	// lease: 60 s
	// pool: worker insights: 1
}
