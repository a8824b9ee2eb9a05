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

package conventions

import "github.com/update-status/apiserver/pkg/apis/update/v1alpha1"

// EachInsight hands each Health insight among the insights of informer to
// health, and each other one to other unless informer is external: the
// progress of the update is the server's assessment, an external informer
// adds health, it does not replace the cluster version, operator, pool or
// node insights. healthOf returns an insight's uid and its Health insight,
// nil for another kind (ControlPlaneHealth, WorkerPoolHealth).
func EachInsight[I any](informer string, insights []I, healthOf func(*I) (string, *v1alpha1.HealthStatusInsight),
	health func(informer, uid string, h *v1alpha1.HealthStatusInsight), other func(*I)) {
	external := IsExternalInformer(informer)
	for i := range insights {
		in := &insights[i]
		if uid, h := healthOf(in); h != nil {
			health(informer, uid, h)
		} else if !external {
			other(in)
		}
	}
}

// ControlPlaneHealth is EachInsight's healthOf for the control plane.
func ControlPlaneHealth(in *v1alpha1.ControlPlaneInsight) (string, *v1alpha1.HealthStatusInsight) {
	return in.UID, in.Insight.HealthInsight
}

// WorkerPoolHealth is EachInsight's healthOf for a worker pool.
func WorkerPoolHealth(in *v1alpha1.WorkerPoolInsight) (string, *v1alpha1.HealthStatusInsight) {
	return in.UID, in.Insight.HealthInsight
}
