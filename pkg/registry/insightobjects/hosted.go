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

package insightobjects

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
)

// HostedObject returns the hosted twin of the internal standalone insight
// object obj (a NodeProgressInsight gives a HostedNodeProgressInsight) with
// the metadata meta and obj's status, which the two share.
func HostedObject(obj runtime.Object, meta metav1.ObjectMeta) (runtime.Object, error) {
	switch o := obj.(type) {
	case *update.ClusterVersionProgressInsight:
		return &update.HostedClusterVersionProgressInsight{ObjectMeta: meta, Status: o.Status}, nil
	case *update.ClusterOperatorProgressInsight:
		return &update.HostedClusterOperatorProgressInsight{ObjectMeta: meta, Status: o.Status}, nil
	case *update.MachineConfigPoolProgressInsight:
		return &update.HostedMachineConfigPoolProgressInsight{ObjectMeta: meta, Status: o.Status}, nil
	case *update.NodeProgressInsight:
		return &update.HostedNodeProgressInsight{ObjectMeta: meta, Status: o.Status}, nil
	case *update.HealthInsight:
		return &update.HostedHealthInsight{ObjectMeta: meta, Status: o.Status}, nil
	}
	return nil, fmt.Errorf("not a standalone insight object: %T", obj)
}

// standaloneOf returns the standalone twin of a hosted insight object,
// sharing its metadata and status; anything else as it is.
func standaloneOf(obj runtime.Object) runtime.Object {
	switch o := obj.(type) {
	case *update.HostedClusterVersionProgressInsight:
		return &update.ClusterVersionProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	case *update.HostedClusterOperatorProgressInsight:
		return &update.ClusterOperatorProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	case *update.HostedMachineConfigPoolProgressInsight:
		return &update.MachineConfigPoolProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	case *update.HostedNodeProgressInsight:
		return &update.NodeProgressInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	case *update.HostedHealthInsight:
		return &update.HealthInsight{ObjectMeta: o.ObjectMeta, Status: o.Status}
	}
	return obj
}

// hostedTable is t for the hosted twin of t's kind: the same columns, the
// cells of the standalone twin of each object.
func hostedTable(t cells.Kind) cells.Kind {
	return cells.Kind{Columns: t.Columns, Cells: func(obj runtime.Object, now time.Time) ([]interface{}, bool) {
		return t.Cells(standaloneOf(obj), now)
	}}
}
