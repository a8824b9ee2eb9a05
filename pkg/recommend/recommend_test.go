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

package recommend

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// TestLinksTheAPIOnly: the renderer is a client of the API.
func TestLinksTheAPIOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"/pkg/view", "/pkg/sources", "/pkg/registry", "/pkg/readiness", "/pkg/insights"} {
			if strings.HasPrefix(dep, "github.com/update-status/apiserver"+banned) {
				t.Errorf("pkg/recommend links %s", dep)
			}
		}
	}
}

func TestRenderBadInput(t *testing.T) {
	ready := &v1alpha1.UpdateReadiness{Status: v1alpha1.UpdateReadinessStatus{
		ClusterVersionConditions: []v1alpha1.ClusterVersionCondition{{Type: "Failing", Status: metav1.ConditionFalse}},
		PrechecksIncomplete:      "Alerts are unavailable: GET https://thanos/api/v1/alerts: 403 Forbidden.",
		Issues:                   []string{v1alpha1.IssueFailedToCompletePrecheck},
	}}
	candidate := v1alpha1.UpdateCandidate{Status: v1alpha1.UpdateCandidateStatus{Version: "4.20.2", Recommended: metav1.ConditionTrue}}
	for _, tc := range []struct {
		name       string
		r          *v1alpha1.UpdateReadiness
		candidates []v1alpha1.UpdateCandidate
		o          Options
		wantOut    string
		wantStderr string
		wantErr    string
	}{
		{name: "no ClusterVersion", wantErr: "No cluster version information available"},
		{name: "quiet without version", r: ready, o: Options{Quiet: true}, wantErr: "--quiet can only be set when --version is set"},
		{name: "version and outdated", r: ready, o: Options{Version: "4.20.2", ShowOutdatedReleases: true}, wantErr: "--show-outdated-releases is unnecessary"},
		{name: "not a version", r: ready, o: Options{Version: "four"}, wantErr: `cannot parse SemVer target "four"`},
		{name: "no updates", r: ready, wantOut: "No updates available."},
		{name: "no updates, version", r: ready, o: Options{Version: "4.20.2"}, wantErr: "no updates available, so cannot display context for the requested release 4.20.2"},
		{name: "unknown patch", r: ready, candidates: []v1alpha1.UpdateCandidate{candidate}, o: Options{Version: "4.20.9"}, wantErr: "no update to 4.20.9 available"},
		{name: "alerts unreadable", r: ready, candidates: []v1alpha1.UpdateCandidate{candidate}, o: Options{Version: "4.20.2"},
			wantOut: "Failed to check for at least some preconditions: Alerts are unavailable", wantErr: "not included in --accept: FailedToCompletePrecheck"},
		{name: "accepted", r: ready, candidates: []v1alpha1.UpdateCandidate{candidate}, o: Options{Version: "4.20.2", Accept: []string{"FailedToCompletePrecheck"}},
			wantOut: "Update to 4.20.2 has no known issues relevant to this cluster other than the accepted FailedToCompletePrecheck."},
		{name: "bad version listed, no Failing", r: &v1alpha1.UpdateReadiness{}, candidates: []v1alpha1.UpdateCandidate{{Status: v1alpha1.UpdateCandidateStatus{Version: "x"}}},
			wantStderr: `Cannot parse SemVer available update "x"`, wantOut: "No updates available."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := Render(&out, &errOut, tc.r, tc.candidates, tc.o)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
			if !strings.Contains(out.String(), tc.wantOut) || !strings.Contains(errOut.String(), tc.wantStderr) {
				t.Errorf("out %q stderr %q, want %q and %q", out.String(), errOut.String(), tc.wantOut, tc.wantStderr)
			}
		})
	}
}
