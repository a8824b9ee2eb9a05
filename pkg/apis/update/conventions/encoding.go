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

// Package conventions holds the conventions by which an UpdateStatus object
// carries what `oc adm upgrade status` concludes but the API has no field for:
// insight uids and what they say about an insight, alert names inside
// resource references, the "unknown start" instant, the missing-runbook
// reference, the operator's own Progressing reason, truncated long texts and
// the control-plane estimate. The engine (pkg/insights) writes objects with
// these conventions and clients (pkg/report) read them back; both sides use
// this package so that the two can never disagree. docs/api-decisions.md
// describes every convention for other tool authors. It also derives what oc
// shows of a node from its Node insight alone (NodeStateOf) and formats
// durations as oc does (ShortDuration), so that the report and the server's
// kubectl tables (pkg/registry) show the same text without the server
// depending on a client.
package conventions

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// UnknownTime stands in for a required instant that no source records (oc
// leaves such times zero and prints "-"). It is the Unix epoch, so it sorts
// as the oldest possible start.
var UnknownTime = time.Unix(0, 0).UTC()

// IsUnknownTime reports whether t is UnknownTime (or earlier, or zero).
func IsUnknownTime(t time.Time) bool { return !t.After(UnknownTime) }

// NoRunbookReference is the remediation reference of an alert insight whose
// alert has no runbook_url annotation: the index of OpenShift's runbooks.
// Reports print NoRunbookText instead, as oc does.
const NoRunbookReference = "https://github.com/openshift/runbooks/tree/master/alerts"

// NoRunbookText is what oc prints for an alert without a runbook.
const NoRunbookText = "<alert does not have a runbook_url annotation>"

// TruncationMarker ends every text the engine had to shorten to fit a field
// limit. Where the full text exists in another field (a status insight
// condition message), Report clients can look it up; FullTextSource says
// where.
const TruncationMarker = " [truncated]"

// Truncate returns s unchanged when it has at most maxBytes bytes; otherwise
// it cuts s at a rune boundary and appends TruncationMarker so that the
// result has at most maxBytes bytes. Counting bytes keeps the result within
// any limit that counts characters.
func Truncate(s string, maxBytes int) string {
	if len(s) <= maxBytes {
		return s
	}
	keep := maxBytes - len(TruncationMarker)
	if keep < 0 {
		return cutRunes(s, maxBytes)
	}
	return cutRunes(s, keep) + TruncationMarker
}

// IsTruncated reports whether s ends with TruncationMarker.
func IsTruncated(s string) bool { return strings.HasSuffix(s, TruncationMarker) }

// TruncatedPrefix returns s without TruncationMarker.
func TruncatedPrefix(s string) string { return strings.TrimSuffix(s, TruncationMarker) }

// Short returns the first line of s, shortened to at most maxBytes bytes with
// "..." when it is longer (used for the 100-character node message).
func Short(s string, maxBytes int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) <= maxBytes {
		return s
	}
	if maxBytes < 3 {
		return cutRunes(s, maxBytes)
	}
	return cutRunes(s, maxBytes-3) + "..."
}

// cutRunes returns the longest prefix of s with at most n bytes that does not
// split a rune.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Hash16 returns the first 16 hex characters of the SHA-256 of the parts
// joined by "/".
func Hash16(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "/")))
	return hex.EncodeToString(sum[:8])
}

// MaxUIDLength is the API's limit on insight uids.
const MaxUIDLength = 63

// UID builds an insight uid (docs/insights.md#where-insights-go): prefix + "-"
// + name with every "." replaced by "-"; when that is not a valid uid (too
// long, or name has characters a uid cannot have), prefix + "-" + the first 16
// hex characters of sha256(group/resource/namespace/name).
func UID(prefix, group, resource, namespace, name string) string {
	if len(prefix)+1+len(name) <= MaxUIDLength {
		candidate := prefix + "-" + strings.ReplaceAll(name, ".", "-")
		if IsDNSLabel(candidate) {
			return candidate
		}
	}
	return prefix + "-" + Hash16(group, resource, namespace, name)
}

// IsDNSLabel reports whether s matches ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ and has
// at most 63 characters.
func IsDNSLabel(s string) bool {
	return len(s) <= 63 && MatchesDNSLabel(s)
}

// MatchesDNSLabel reports whether s matches ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$,
// whatever its length (the P-DNS pattern).
func MatchesDNSLabel(s string) bool {
	if s == "" || !lowerAlnum(s[0]) || !lowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && !lowerAlnum(c) {
			return false
		}
	}
	return true
}

// IsDNSSubdomain reports whether s is at most 253 characters of
// dot-separated DNS labels (the R-SUBDOMAIN rule).
func IsDNSSubdomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if !IsDNSLabel(label) {
			return false
		}
	}
	return true
}

// IsOperatorName reports whether s matches ^[a-z0-9-]+$ with at most 64
// characters (the name pattern of ClusterOperator and MachineConfigPool
// insights).
func IsOperatorName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '-' && !lowerAlnum(c) {
			return false
		}
	}
	return true
}

func lowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// textReferencePrefix starts a remediation reference that carries text
// rather than a link.
const textReferencePrefix = "data:text/plain,"

// TextReference turns a reference that is not a URL (oc prints whatever an
// alert's runbook_url says) into a data: URL carrying that text, which the
// API accepts and ReferenceText turns back.
func TextReference(s string) string { return textReferencePrefix + url.PathEscape(s) }

// ReferenceText is the text a report prints for a remediation reference:
// NoRunbookText for NoRunbookReference, the carried text of a TextReference,
// and the reference itself otherwise.
func ReferenceText(ref string) string {
	if ref == NoRunbookReference {
		return NoRunbookText
	}
	if rest, ok := strings.CutPrefix(ref, textReferencePrefix); ok {
		if s, err := url.PathUnescape(rest); err == nil {
			return s
		}
	}
	return ref
}

// IsURL reports whether s is accepted by the CEL isURL function that
// validates remediation references (url.ParseRequestURI).
func IsURL(s string) bool {
	_, err := url.ParseRequestURI(s)
	return err == nil
}
