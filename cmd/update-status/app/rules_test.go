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
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/update-status/apiserver/pkg/monitoring"
)

func TestAlertRules(t *testing.T) {
	for _, tc := range []struct {
		args []string
		// kind is the top-level kind, "" for a rules file.
		kind string
		want []string
	}{
		{[]string{"alert-rules"}, "", []string{"[1h]", "for: 10m", "--stall-after=1h --for=10m"}},
		{[]string{"alert-rules", "--stall-after=2h", "--for=15m", "--job=us"}, "", []string{"[2h]", "for: 15m", `job="us"`}},
		{[]string{"alert-rules", "--fleet-stalled-share=0.25"}, "", []string{">= 0.25\n", "at least 25%", "--fleet-stalled-share=0.25"}},
		{[]string{"alert-rules", "--format=prometheusrule", "--namespace=ops", "--name=r"}, "PrometheusRule", []string{"namespace: ops", "name: r"}},
	} {
		out, errOut, code := run(t, Deps{}, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q", tc.args, w)
			}
		}
		var doc struct {
			Kind   string                 `json:"kind"`
			Groups []monitoring.RuleGroup `json:"groups"`
			Spec   struct {
				Groups []monitoring.RuleGroup `json:"groups"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		groups := doc.Groups
		if tc.kind != "" {
			groups = doc.Spec.Groups
		}
		if doc.Kind != tc.kind || len(groups) != 1 || len(groups[0].Rules) != len(monitoring.Alerts()) {
			t.Errorf("%v: kind %q, groups %+v", tc.args, doc.Kind, groups)
		}
	}
}

func TestAlertRulesErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"alert-rules", "--format=json"}, `invalid --format "json"`},
		{[]string{"alert-rules", "--stall-after=500ms"}, "stall-after 500ms is not a whole number of seconds"},
		{[]string{"alert-rules", "--job=a b"}, `job "a b"`},
		{[]string{"alert-rules", "--for=soon"}, "invalid argument"},
		{[]string{"alert-rules", "--fleet-stalled-share=2"}, "fleet-stalled-share 2 is not in (0, 1]"},
	} {
		_, errOut, code := run(t, Deps{}, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}
