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
	"strings"
	"unicode/utf8"

	utilvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/update-status/apiserver/pkg/apis/update/conventions"
)

// Patterns of docs/api-decisions.md#validation-rules. The simple ones are
// matched by hand-written loops that accept exactly the language of the pattern
// quoted above each; the complex ones use regexps compiled once.

// semverCore is P-NODEVERSION without its outer optional group: a SemVer core
// with an optional pre-release and no build metadata.
const semverCore = `(?:0|[1-9]\d*)[.](?:0|[1-9]\d*)[.](?:0|[1-9]\d*)` +
	`(?:-(?:(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:[.](?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?`

var (
	// versionRE is P-NODEVERSION for a non-empty value. P-VERSION is "<none>"
	// or this (docs/api-decisions.md#api-types-and-validation, Versions).
	versionRE = regexp.MustCompile(`^` + semverCore + `$`)

	// conditionTypeRE is the metav1.Condition type pattern.
	conditionTypeRE = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`)
)

// noneVersion is the placeholder version of a cluster that was only installed.
const noneVersion = "<none>"

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// isConditionReason reports whether s matches the metav1.Condition reason
// pattern: ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$
func isConditionReason(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	if last := s[len(s)-1]; len(s) > 1 && last != '_' && !isAlnum(last) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; c != '_' && c != ',' && c != ':' && !isAlnum(c) {
			return false
		}
	}
	return true
}

// isConditionType reports whether s matches the metav1.Condition type
// pattern. Plain alphanumeric words, the common case, skip the regexp.
func isConditionType(s string) bool {
	simple := s != ""
	for i := 0; simple && i < len(s); i++ {
		simple = isAlnum(s[i])
	}
	return simple || conditionTypeRE.MatchString(s)
}

// subdomainErrors returns nil when s is an RFC 1123 subdomain (R-SUBDOMAIN)
// and apimachinery's messages otherwise. Most values pass a quick check that
// accepts a subset of what IsDNS1123Subdomain accepts; everything else is
// decided by IsDNS1123Subdomain itself.
func subdomainErrors(s string) []string {
	if isSimpleSubdomain(s) {
		return nil
	}
	return utilvalidation.IsDNS1123Subdomain(s)
}

// isSimpleSubdomain reports whether s is at most 253 bytes of dot-separated
// P-DNS labels.
func isSimpleSubdomain(s string) bool {
	if len(s) > utilvalidation.DNS1123SubdomainMaxLength {
		return false
	}
	for {
		label, rest, found := strings.Cut(s, ".")
		if !conventions.MatchesDNSLabel(label) {
			return false
		}
		if !found {
			return true
		}
		s = rest
	}
}

// tooLong reports whether s has more than maxChars characters, the way an
// OpenAPI maxLength counts them.
func tooLong(s string, maxChars int) bool {
	return len(s) > maxChars && utf8.RuneCountInString(s) > maxChars
}
