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

import (
	"encoding/hex"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

var healthKinds = []v1alpha1.HealthKind{
	v1alpha1.HealthNodeUnavailable, v1alpha1.HealthNodeDegraded, v1alpha1.HealthPoolPaused, v1alpha1.HealthAlert, v1alpha1.HealthCVNoFailing,
	v1alpha1.HealthCVFailing, v1alpha1.HealthCOUnavailable, v1alpha1.HealthCODegraded, v1alpha1.HealthPreviousPartial, v1alpha1.HealthCVMissing,
	v1alpha1.HealthCVNoProgressing, v1alpha1.HealthCVBadHistory, v1alpha1.HealthCONone, v1alpha1.HealthPoolBadSelector, v1alpha1.HealthInformerExpired, v1alpha1.HealthInformerRefused,
	v1alpha1.HealthUnrepresentable, v1alpha1.HealthInsightsOmitted, v1alpha1.HealthPoolsOmitted,
	v1alpha1.HealthHostedClusterMissing, v1alpha1.HealthHostedNoVersion, v1alpha1.HealthHostedReleaseImage, v1alpha1.HealthHostedBlocked,
	v1alpha1.HealthComponentRollout, v1alpha1.HealthComponentsNone, v1alpha1.HealthNodePoolReleaseImage, v1alpha1.HealthNodePoolVersionSkew,
	v1alpha1.HealthNodePoolInPlaceFailed, v1alpha1.HealthNodePoolUpgradeType, v1alpha1.HealthMachineProvision, v1alpha1.HealthMachineDrain,
	v1alpha1.HealthMachinesNoPool,
}

// KindOf returns the kind of the Health insight with the given uid, or
// v1alpha1.HealthUnknownKind.
func KindOf(uid string) v1alpha1.HealthKind {
	for _, k := range healthKinds {
		if uid == string(k) || strings.HasPrefix(uid, string(k)+"-") {
			return k
		}
	}
	return v1alpha1.HealthUnknownKind
}

// EncodeReasonMessage carries a source condition's reason inside a condition
// message, for conditions whose own reason must come from the API's
// vocabulary: "(Reason) message", or "(Reason)" when the message is empty. A
// message without a reason is kept as is, unless it starts with "(", then it
// gets an empty "() " prefix so that DecodeReasonMessage can never mistake
// it. A ")" inside the reason becomes "]".
func EncodeReasonMessage(reason, message string) string {
	if reason == "" {
		if strings.HasPrefix(message, "(") {
			return "() " + message
		}
		return message
	}
	reason = "(" + strings.ReplaceAll(reason, ")", "]") + ")"
	if message == "" {
		return reason
	}
	return reason + " " + message
}

// DecodeReasonMessage splits what EncodeReasonMessage joined.
func DecodeReasonMessage(s string) (reason, message string) {
	if !strings.HasPrefix(s, "(") {
		return "", s
	}
	if i := strings.Index(s, ") "); i >= 0 {
		return s[1:i], s[i+2:]
	}
	if strings.HasSuffix(s, ")") {
		return s[1 : len(s)-1], ""
	}
	return "", s
}

// Remaining is oc's "Est. Time Remaining" of a control-plane update that
// started at started and is estimated to take total, evaluated at ref (the
// moment the update completed, or now while it runs), with oc's arithmetic:
// the remaining seconds, total minus the seconds since started, are padded by
// 20 % (an overdue remainder is shrunk by the same factor), truncated to whole
// seconds and rounded to the minute when they exceed ten minutes. A negative
// result means the update is behind its projection: under -10m oc calls it
// "Stalled", otherwise "Progressing - Slow".
func Remaining(started time.Time, total time.Duration, ref time.Time) time.Duration {
	rem := total.Seconds() - ref.Sub(started).Seconds()
	factor := 1.2
	if rem < 0 {
		factor = 1 / factor
	}
	secs := rem * factor
	const limit = 100 * 365 * 24 * 3600 // keep the conversion far from overflow
	secs = math.Max(-limit, math.Min(limit, secs))
	e := time.Duration(secs) * time.Second
	if e > 10*time.Minute {
		return e.Round(time.Minute)
	}
	return e
}

// InsightRemaining is Remaining for a ClusterVersion insight at ref: from its
// estimatedDurationNanoseconds, or, from a server that does not set it, from
// estimatedCompletedAt (whole seconds, so within a second of oc's). ok is
// false when the insight carries no estimate.
func InsightRemaining(cv *v1alpha1.ClusterVersionStatusInsight, ref time.Time) (d time.Duration, ok bool) {
	switch {
	case cv.EstimatedDurationNanoseconds != nil:
		return Remaining(cv.StartedAt.Time, time.Duration(*cv.EstimatedDurationNanoseconds), ref), true
	case cv.EstimatedCompletedAt != nil:
		return Remaining(cv.StartedAt.Time, cv.EstimatedCompletedAt.Sub(cv.StartedAt.Time), ref), true
	}
	return 0, false
}

// EncodeAlertName turns a Prometheus alert name into a valid resource name
// (an RFC 1123 subdomain) that DecodeAlertName turns back: an UpperCamelCase
// name becomes lower-case words joined by "-" ("PodDisruptionBudgetAtLimit"
// -> "pod-disruption-budget-at-limit"); any other name becomes "0x" followed
// by the hex of its bytes, split by "." into labels of at most 62
// characters. Names too long for either form become "1x" followed by a
// hash, which cannot be decoded.
func EncodeAlertName(name string) string {
	if k := kebab(name); k != "" && IsDNSLabel(k) && unkebab(k) == name {
		return k
	}
	h := "0x" + hex.EncodeToString([]byte(name))
	var b strings.Builder
	for len(h) > 62 {
		b.WriteString(h[:62])
		b.WriteByte('.')
		h = h[62:]
	}
	b.WriteString(h)
	if b.Len() <= 253 {
		return b.String()
	}
	return "1x" + Hash16(name)
}

// DecodeAlertName reverses EncodeAlertName.
func DecodeAlertName(s string) string {
	switch {
	case strings.HasPrefix(s, "0x"):
		if b, err := hex.DecodeString(strings.ReplaceAll(s[2:], ".", "")); err == nil {
			return string(b)
		}
		return s
	case strings.HasPrefix(s, "1x"):
		return s
	default:
		return unkebab(s)
	}
}

// kebab lower-cases an UpperCamelCase name, starting a new "-" word at every
// capital letter; it returns "" for anything else.
func kebab(name string) string {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return ""
	}
	var b strings.Builder
	b.Grow(len(name) + 8)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			if i > 0 {
				b.WriteByte('-')
			}
			b.WriteByte(c - 'A' + 'a')
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			return ""
		}
	}
	return b.String()
}

func unkebab(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, word := range strings.Split(s, "-") {
		if word == "" {
			continue
		}
		c := word[0]
		if c >= 'a' && c <= 'z' {
			c = c - 'a' + 'A'
		}
		b.WriteByte(c)
		b.WriteString(word[1:])
	}
	return b.String()
}

// TypeOrder orders the insight types within an informer's list: the
// ClusterVersion 0, ClusterOperators 1, MachineConfigPools 2, Nodes 3, Health
// and anything else 4. The engine lists insights by it, then by uid, and so
// does a client that completes a list (pkg/complete).
func TypeOrder(t v1alpha1.InsightType) int {
	if i := slices.Index(typeOrder, t); i >= 0 {
		return i
	}
	return len(typeOrder)
}

// typeOrder lists the insight types TypeOrder puts before Health.
var typeOrder = []v1alpha1.InsightType{
	v1alpha1.ClusterVersionStatusInsightType, v1alpha1.ClusterOperatorStatusInsightType,
	v1alpha1.MachineConfigPoolStatusInsightType, v1alpha1.NodeStatusInsightType,
}

// IsExternalInformer reports whether informer is an external informer's (an
// UpdateInformer's, docs/insights.md#external-informers) rather than one of
// the server's own: an external informer is named <name>.<namespace>, and no
// built-in informer (cpi, nodes, alerts, update-status) has a dot. The
// server's assessment of the update (cluster version, operators, pools,
// nodes) comes from its own informers; a client that shows it reads an
// external informer's Health insights and leaves its other insights aside.
func IsExternalInformer(informer string) bool {
	return strings.Contains(informer, ".")
}

// LevelRank orders health impact levels by severity: Critical 4, Error 3,
// Warning 2, Info 1, anything else 0. The engine and the report sort health
// insights by it (most severe first, as oc does).
func LevelRank(level v1alpha1.InsightImpactLevel) int {
	return slices.Index(levelsBySeverity, level) + 1
}

// levelsBySeverity lists the impact levels LevelRank ranks, least severe
// first.
var levelsBySeverity = []v1alpha1.InsightImpactLevel{
	v1alpha1.InfoImpactLevel, v1alpha1.WarningImpactLevel, v1alpha1.ErrorImpactLevel, v1alpha1.CriticalInfoLevel,
}

// VersionText is oc's "Target Version" text of an update's versions: the
// target, and where it comes from.
func VersionText(v *v1alpha1.ControlPlaneUpdateVersions) string {
	switch {
	case HasMetadata(v.Previous.Metadata, v1alpha1.InstallationMetadata):
		return v.Target.Version + " (a new install)"
	case HasMetadata(v.Previous.Metadata, v1alpha1.PartialMetadata):
		return v.Target.Version + " (from incomplete " + v.Previous.Version + ")"
	case HasMetadata(v.Target.Metadata, v1alpha1.ArchitectureMetadata):
		return v.Target.Version + " to Multi-Architecture"
	}
	return v.Target.Version + " (from " + v.Previous.Version + ")"
}

// HasMetadata reports whether md has an entry with key.
func HasMetadata(md []v1alpha1.VersionMetadata, key v1alpha1.VersionMetadataKey) bool {
	for _, m := range md {
		if m.Key == key {
			return true
		}
	}
	return false
}
