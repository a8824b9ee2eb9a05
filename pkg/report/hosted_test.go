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

package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of the hosted-cluster and fleet reports")

// hostedNow is the instant the hand-written hosted fixtures are judged at.
var hostedNow = time.Date(2026, 11, 20, 10, 50, 0, 0, time.UTC)

// loadHosted reads a hand-written HostedClusterUpdateStatus from
// testdata/hosted; a field the API does not have fails the test.
func loadHosted(t *testing.T, name string) *v1alpha1.HostedClusterUpdateStatus {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hosted", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var obj v1alpha1.HostedClusterUpdateStatus
	if err := yaml.UnmarshalStrict(data, &obj); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &obj
}

// TestHostedGolden renders the hand-written hosted cluster mid-update and
// compares it with the golden reports (go test -run TestHostedGolden
// -update rewrites them; read the diff before committing it).
func TestHostedGolden(t *testing.T) {
	obj := loadHosted(t, "updating")
	for _, tc := range []struct {
		suffix  string
		details Details
	}{{".output", DetailsNone}, {".detailed-output", DetailsAll}} {
		t.Run(tc.suffix, func(t *testing.T) {
			var got bytes.Buffer
			if err := RenderHosted(&got, obj, hostedNow, tc.details); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "hosted", "updating"+tc.suffix), got.Bytes())
		})
	}
}

// checkGolden compares got with the golden file at path, which -update
// rewrites first.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (-want +got):\n%s", path, unifiedDiff(string(want), string(got)))
	}
}

// TestHostedWords: a hosted cluster's report names its parts as HyperShift
// does and never as a standalone cluster's; a hosted cluster that is not
// updating says so in one line.
func TestHostedWords(t *testing.T) {
	updating := loadHosted(t, "updating")
	done := updating.DeepCopy()
	cv := done.Status.ControlPlane.Informers[0].Insights[0].Insight.ClusterVersionStatusInsight
	cv.Assessment = v1alpha1.ControlPlaneAssessmentCompleted
	cv.Conditions[0].Status = metav1.ConditionFalse
	done.Status.ControlPlane.Conditions[0].Status = metav1.ConditionFalse
	done.Status.WorkerPools = nil

	tests := []struct {
		name          string
		obj           *v1alpha1.HostedClusterUpdateStatus
		details       Details
		want, wantNot []string
	}{{
		name:    "updating",
		obj:     updating,
		details: DetailsAll,
		want: []string{"Completion:       71% (5 components updated, 2 updating, 1 waiting)\n",
			"Component Health: 7 Healthy, 1 Unavailable\n", "\nUpdating Control Plane Components\n",
			"\n= Node Pool Upgrade =\n", "\nNODE POOL   ASSESSMENT", "\nNode Pool Nodes: workers\n",
			"demo-workers-8vq2p   Progressing   Draining   4.20.1    +15m", "demo-workers-r7tqm   Progressing   Updating   ?         +8m",
			"demo-infra-q9z2l   Progressing   Rebooting   4.20.1    +6m"},
		wantNot: []string{"Worker", "WORKER", "Cluster Operators", "operators", "Operator Health", "Control Plane Nodes"},
	}, {
		name: "not updating",
		obj:  done,
		want: []string{"The hosted cluster is not updating.\n"},
	}, {
		name: "nil",
		want: []string{},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := RenderHosted(&out, tc.obj, hostedNow, tc.details)
			if tc.obj == nil {
				if err == nil {
					t.Fatal("a nil object rendered without an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if tc.name == "not updating" && got != tc.want[0] {
				t.Errorf("got %q, want %q", got, tc.want[0])
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the report lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("the report says %q:\n%s", w, got)
				}
			}
		})
	}
}
