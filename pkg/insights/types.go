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

package insights

import (
	"time"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Alert is one Prometheus alert, as listed by /api/v1/alerts.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
	ActiveAt    time.Time         `json:"activeAt"`
}

// Result is the outcome of one evaluation.
//
// Status shares memoized parts (insight structs) with the Engine and with
// earlier results: treat it as read-only, and DeepCopy it before changing
// anything in it.
type Result struct {
	// Status is the computed status, without the outer conditions (those
	// describe the server, not the cluster, and are the server's to add).
	Status v1alpha1.UpdateStatusStatus
	// NextChange is the earliest moment after now at which the result would
	// change by the passing of time alone (a threshold crossing, an estimate
	// rolling over); zero when nothing time-dependent is pending.
	NextChange time.Time
	// Truncations lists the informers whose insights did not fit the API's
	// limits, so that a server can mention them in its Available condition.
	// Each is also reported by a Health insight in the object.
	Truncations []Truncation
	// Insights lists every insight, without the limits of Status, for the
	// per-insight resources.
	Insights []*Insight
	// Verdicts are the engine's verdicts on Sources.UpdateInformers, one per
	// object, sorted by namespace and name: what the server writes into
	// their status.
	Verdicts []Verdict
}

// Truncation says that an informer (or the list of worker pools) left out
// insights to stay within a limit of the API.
type Truncation struct {
	// Where names the list: "controlPlane/<informer>",
	// "workerPools/<pool>/<informer>" or "workerPools".
	Where string
	// Omitted is the number of insights (or pools) left out.
	Omitted int
}
