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
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/pkg/apis/update/install"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
	"github.com/update-status/apiserver/pkg/untruncate"
	"github.com/update-status/apiserver/pkg/view"
)

// scheme converts the per-insight objects the view builds (internal types)
// to v1alpha1.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	install.Install(s)
	return s
}()

// updateStatusKind stands for UpdateStatus among the per-insight kinds.
const updateStatusKind = resources.NumInsightKinds

// parseKind reads --kind: a kind, its resource (plural or singular) or its
// short name, in any case.
func parseKind(s string) (resources.InsightKind, error) {
	n, ok := resources.Find(s)
	if ok && n == resources.UpdateStatus {
		return updateStatusKind, nil
	}
	if k, insight := resources.InsightKindOf(n.Kind); ok && insight {
		return k, nil
	}
	kinds := []string{resources.UpdateStatus.Kind}
	for k := resources.InsightKind(0); k < resources.NumInsightKinds; k++ {
		kinds = append(kinds, k.Kind())
	}
	return 0, fmt.Errorf("invalid --kind %q: must be one of %s, or its resource or short name", s, strings.Join(kinds, ", "))
}

// insightObjects returns the v1alpha1 per-insight objects of one
// computation, by kind; meta is the metadata of its UpdateStatus.
func insightObjects(res *insights.Result, meta metav1.ObjectMeta) ([resources.NumInsightKinds][]runtime.Object, error) {
	objs, err := view.Objects(res, meta)
	if err != nil {
		return objs, err
	}
	for k := range objs {
		for i, obj := range objs[k] {
			out, err := scheme.ConvertToVersion(obj, v1alpha1.SchemeGroupVersion)
			if err != nil {
				return objs, fmt.Errorf("converting a %s: %w", resources.InsightKind(k).Kind(), err)
			}
			objs[k][i] = out
		}
	}
	return objs, nil
}

// insightList returns the v1alpha1 list of the objects of kind k.
func insightList(k resources.InsightKind, objs []runtime.Object) (runtime.Object, error) {
	gvk := v1alpha1.SchemeGroupVersion.WithKind(k.Kind() + "List")
	list, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := meta.SetList(list, objs); err != nil {
		return nil, err
	}
	list.GetObjectKind().SetGroupVersionKind(gvk)
	return list, nil
}

// completeOffline returns obj completed with the insights it left out, from
// the per-insight objects of the same computation, as a served report
// completes it from the per-insight resources.
func completeOffline(obj *v1alpha1.UpdateStatus, res *insights.Result) (*v1alpha1.UpdateStatus, error) {
	if !untruncate.Truncated(&obj.Status) {
		return obj, nil
	}
	byKind, err := insightObjects(res, obj.ObjectMeta)
	if err != nil {
		return nil, err
	}
	var objs untruncate.Objects
	for _, list := range byKind {
		for _, o := range list {
			switch o := o.(type) {
			case *v1alpha1.ClusterVersionProgressInsight:
				objs.ClusterVersions = append(objs.ClusterVersions, *o)
			case *v1alpha1.ClusterOperatorProgressInsight:
				objs.ClusterOperators = append(objs.ClusterOperators, *o)
			case *v1alpha1.MachineConfigPoolProgressInsight:
				objs.MachineConfigPools = append(objs.MachineConfigPools, *o)
			case *v1alpha1.NodeProgressInsight:
				objs.Nodes = append(objs.Nodes, *o)
			case *v1alpha1.HealthInsight:
				objs.Health = append(objs.Health, *o)
			}
		}
	}
	out := *obj
	out.Status = *untruncate.Status(&obj.Status, &objs)
	return &out, nil
}
