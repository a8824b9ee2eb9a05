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

package validation

import (
	"regexp"
	"testing"

	utilvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
)

// The hand-written matchers must accept exactly what upstream's patterns
// accept; these are the patterns as upstream writes them
// (docs/api-decisions.md#validation-rules).
var (
	dnsRE    = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	opNameRE = regexp.MustCompile(`^[a-z0-9-]+$`)
	reasonRE = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)
	// nodeVersionRE is P-NODEVERSION verbatim.
	nodeVersionRE = regexp.MustCompile(`^((?:0|[1-9]\d*)[.](?:0|[1-9]\d*)[.](?:0|[1-9]\d*)(?:-(?:(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:[.](?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?)?$`)
)

var patternSeeds = []string{
	"", "a", "A", "-", "a-", "-a", "a-b", "a.b", "ab_c", "abc:", "Ab,c", "A_", "a..b", ".a", "a.",
	"ip-10-0-20-162.us-east-2.compute.internal", "config.openshift.io", "example.com/Ready", "Ready",
	"4.17.5", "4.18.0-ec.2", "4.17.5+b", "04.1.1", "4.1", "4.1.1-", "4.1.1-01", "4.1.1-0a", "<none>", "é",
}

// checkMatchers compares every matcher with its reference on s.
func checkMatchers(t *testing.T, s string) {
	t.Helper()
	if got, want := conventions.MatchesDNSLabel(s), dnsRE.MatchString(s); got != want {
		t.Errorf("conventions.MatchesDNSLabel(%q) = %v, pattern says %v", s, got, want)
	}
	if got, want := conventions.IsOperatorName(s), opNameRE.MatchString(s) && len(s) <= maxOperatorNameLength; got != want {
		t.Errorf("conventions.IsOperatorName(%q) = %v, pattern and length say %v", s, got, want)
	}
	if got, want := isConditionReason(s), reasonRE.MatchString(s); got != want {
		t.Errorf("isConditionReason(%q) = %v, pattern says %v", s, got, want)
	}
	if got, want := isConditionType(s), conditionTypeRE.MatchString(s); got != want {
		t.Errorf("isConditionType(%q) = %v, pattern says %v", s, got, want)
	}
	if got, want := isSimpleSubdomain(s), len(utilvalidation.IsDNS1123Subdomain(s)) == 0; got != want {
		t.Errorf("isSimpleSubdomain(%q) = %v, IsDNS1123Subdomain says %v", s, got, want)
	}
	if s != "" {
		if got, want := versionRE.MatchString(s), nodeVersionRE.MatchString(s); got != want {
			t.Errorf("versionRE(%q) = %v, P-NODEVERSION says %v", s, got, want)
		}
	}
}

func TestMatchersAgreeWithPatterns(t *testing.T) {
	for _, s := range patternSeeds {
		checkMatchers(t, s)
	}
}

// TestVersionPattern pins the interpretation of P-VERSION
// (docs/api-decisions.md#validation-rules).
func TestVersionPattern(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"4.17.5", true}, {"4.18.0-ec.2", true}, {"0.0.0", true}, {"1.2.3-rc.1.x-y", true},
		{"4.17", false}, {"4.17.5+build", false}, {"v4.17.5", false}, {"4.017.5", false},
		{"4.17.5-", false}, {"4.17.5-01", false}, {"x4.17.5", false}, {"<none>", false},
	}
	for _, tt := range tests {
		if got := versionRE.MatchString(tt.in); got != tt.want {
			t.Errorf("versionRE(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzMatchers(f *testing.F) {
	for _, s := range patternSeeds {
		f.Add(s)
	}
	f.Fuzz(checkMatchers)
}
