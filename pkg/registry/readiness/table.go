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

package readiness

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/registry/internal/cells"
)

var candidateTable = cells.KindOf([]metav1.TableColumnDefinition{
	cells.NameColumn,
	{Name: "Version", Type: "string", Description: "Version of the release."},
	{Name: "Recommended", Type: "string", Description: "True when no known risk applies to this cluster, False when one does, Unknown when the cluster could not tell."},
	{Name: "Issues", Type: "string", Description: "The known risks that apply to this cluster (? when the cluster could not evaluate one)."},
	{Name: "Reason", Type: "string", Priority: 1, Description: "Reason of the verdict when not recommended."},
	{Name: "Image", Type: "string", Priority: 1, Description: "Pull spec of the release image."},
}, func(o *update.UpdateCandidate, _ time.Time) []interface{} {
	var issues []string
	for _, r := range o.Status.Risks {
		switch r.Applies {
		case metav1.ConditionTrue:
			issues = append(issues, r.Name)
		case metav1.ConditionUnknown:
			issues = append(issues, r.Name+"?")
		}
	}
	return []interface{}{o.Name, o.Status.Version, cells.OrUnknown(string(o.Status.Recommended)), orNone(issues), o.Status.Reason, o.Status.Image}
})

var readinessTable = cells.KindOf([]metav1.TableColumnDefinition{
	cells.NameColumn,
	{Name: "Version", Type: "string", Description: "Version the cluster runs or is updating to."},
	{Name: "Channel", Type: "string", Description: "Update channel."},
	{Name: "Prechecks", Type: "string", Description: "Precheck groups without cause for concern / all."},
	{Name: "Issues", Type: "string", Description: "Issues that apply to any update (the names --accept takes)."},
}, func(o *update.UpdateReadiness, _ time.Time) []interface{} {
	happy := 0
	for _, p := range o.Status.Prechecks {
		if p.Status == metav1.ConditionTrue {
			happy++
		}
	}
	prechecks := fmt.Sprintf("%d/%d", happy, len(o.Status.Prechecks))
	if o.Status.PrechecksIncomplete != "" {
		prechecks += " (incomplete)"
	}
	return []interface{}{o.Name, cells.OrUnknown(o.Status.Version), o.Status.Channel, prechecks, orNone(o.Status.Issues)}
})

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}
