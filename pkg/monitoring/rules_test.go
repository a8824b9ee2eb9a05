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

package monitoring

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// runbookDir is docs/runbooks, relative to this package.
const runbookDir = "../../docs/runbooks"

func defaultRules(t *testing.T) RuleGroups {
	t.Helper()
	groups, err := Rules(RuleOptions{})
	if err != nil {
		t.Fatalf("Rules(defaults): %v", err)
	}
	return groups
}

func TestRunbooksExist(t *testing.T) {
	for _, alert := range Alerts() {
		path := filepath.Join(runbookDir, alert+".md")
		f, err := os.Open(path)
		if err != nil {
			t.Errorf("alert %s has no runbook: %v", alert, err)
			continue
		}
		sc := bufio.NewScanner(f)
		first := ""
		if sc.Scan() {
			first = sc.Text()
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
		if want := "# " + alert; first != want {
			t.Errorf("%s: first line is %q, want %q", path, first, want)
		}
	}
}

func TestRulesLinkTheirRunbooks(t *testing.T) {
	groups := defaultRules(t)
	var seen []string
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			seen = append(seen, r.Alert)
			url := r.Annotations["runbook_url"]
			if want := "docs/runbooks/" + r.Alert + ".md"; !strings.HasSuffix(url, want) {
				t.Errorf("%s: runbook_url %q does not end with %s", r.Alert, url, want)
			}
		}
	}
	if !reflect.DeepEqual(seen, Alerts()) {
		t.Errorf("alerts of the rules: %v, want Alerts() %v", seen, Alerts())
	}
}

func TestRuleOptionsValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    RuleOptions
		bad  string // a substring of the error; empty: accepted
	}{
		{name: "defaults", o: RuleOptions{}},
		{name: "explicit defaults", o: RuleOptions{StallAfter: DefaultStallAfter, For: DefaultFor, Job: DefaultJob, RunbookBase: DefaultRunbookBase}},
		{name: "stall-after below a second", o: RuleOptions{StallAfter: 500 * time.Millisecond}, bad: "stall-after"},
		{name: "negative for", o: RuleOptions{For: -time.Second}, bad: "for"},
		{name: "job with a space", o: RuleOptions{Job: "update status"}, bad: "job"},
		{name: "fractional interval", o: RuleOptions{Interval: 1500 * time.Millisecond}, bad: "interval"},
		{name: "a fleet share above 1", o: RuleOptions{FleetStalledShare: 1.5}, bad: "fleet-stalled-share"},
		{name: "a negative fleet share", o: RuleOptions{FleetStalledShare: -0.1}, bad: "fleet-stalled-share"},
		{name: "the whole fleet", o: RuleOptions{FleetStalledShare: 1}},
		{name: "a NaN fleet share", o: RuleOptions{FleetStalledShare: math.NaN()}, bad: "fleet-stalled-share"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Rules(tc.o)
			switch {
			case tc.bad == "" && err != nil:
				t.Fatalf("Rules(%+v): %v, want no error", tc.o, err)
			case tc.bad != "" && err == nil:
				t.Fatalf("Rules(%+v): no error, want one about %s", tc.o, tc.bad)
			case tc.bad != "" && !strings.Contains(err.Error(), tc.bad):
				t.Fatalf("Rules(%+v): %v, want an error about %s", tc.o, err, tc.bad)
			}
		})
	}
}

func TestRulesFileWithLocalDurations(t *testing.T) {
	o := RuleOptions{StallAfter: 15 * time.Second, For: 2 * time.Second, Interval: time.Second}
	out, err := RulesFile(o, "")
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{"[15s]", "offset 15s", "for: 2s", "interval: 1s"} {
		if !strings.Contains(text, want) {
			t.Errorf("rules file lacks %q:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"[1h]", "for: 10m"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("rules file has the default %q:\n%s", unwanted, text)
		}
	}
	var parsed RuleGroups
	if err := yaml.Unmarshal(out, &parsed); err != nil {
		t.Fatalf("rules file does not parse: %v", err)
	}
	if len(parsed.Groups) != 1 || parsed.Groups[0].Interval != "1s" {
		t.Fatalf("groups = %+v, want one with interval 1s", parsed.Groups)
	}
	for _, r := range parsed.Groups[0].Rules {
		want := "2s"
		if r.Alert == AlertServerDown {
			want = "1m" // never less than a minute
		}
		if r.For != want {
			t.Errorf("%s: for %q, want %s", r.Alert, r.For, want)
		}
	}
}

func TestPrometheusRule(t *testing.T) {
	out, err := PrometheusRule(RuleOptions{}, "update-status-apiserver", "update-status", "a header")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "# a header\n") {
		t.Errorf("output does not start with the header:\n%s", out)
	}
	var obj struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ObjectMeta `json:"metadata"`
		Spec            RuleGroups        `json:"spec"`
	}
	if err := yaml.Unmarshal(out, &obj); err != nil {
		t.Fatalf("PrometheusRule does not parse: %v", err)
	}
	if obj.APIVersion != "monitoring.coreos.com/v1" || obj.Kind != "PrometheusRule" {
		t.Errorf("apiVersion %q kind %q, want monitoring.coreos.com/v1 PrometheusRule", obj.APIVersion, obj.Kind)
	}
	if obj.Metadata.Name != "update-status-apiserver" || obj.Metadata.Namespace != "update-status" {
		t.Errorf("metadata %+v", obj.Metadata)
	}
	if want := defaultRules(t); !reflect.DeepEqual(obj.Spec, want) {
		t.Errorf("spec differs from Rules():\ngot  %+v\nwant %+v", obj.Spec, want)
	}
}
