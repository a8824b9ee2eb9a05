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
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

func TestAlertNames(t *testing.T) {
	for name, want := range map[string]string{
		"PodDisruptionBudgetAtLimit": "pod-disruption-budget-at-limit",
		"KubeAPIDown":                "kube-a-p-i-down",
		"Watchdog":                   "watchdog",
		"KubeletDown5":               "kubelet-down5",
		"up":                         "0x7570",
		"Foo_Bar":                    "0x466f6f5f426172",
		"":                           "0x",
	} {
		got := EncodeAlertName(name)
		if got != want {
			t.Errorf("EncodeAlertName(%q) = %q, want %q", name, got, want)
		}
		if back := DecodeAlertName(got); back != name {
			t.Errorf("DecodeAlertName(%q) = %q, want %q", got, back, name)
		}
		if name != "" && !IsDNSSubdomain(got) {
			t.Errorf("%q is not a resource name", got)
		}
	}
	long := strings.Repeat("x", 200)
	if got := EncodeAlertName(long); !strings.HasPrefix(got, "1x") || !IsDNSSubdomain(got) {
		t.Errorf("a name too long to carry gives %q", got)
	}
}

func FuzzAlertName(f *testing.F) {
	f.Add("PodDisruptionBudgetAtLimit")
	f.Add("a:b_c")
	f.Fuzz(func(t *testing.T, name string) {
		got := EncodeAlertName(name)
		if len(got) > 253 {
			t.Fatalf("%q is too long", got)
		}
		if name != "" && !IsDNSSubdomain(got) {
			t.Fatalf("%q is not a resource name", got)
		}
		if !strings.HasPrefix(got, "1x") && DecodeAlertName(got) != name {
			t.Fatalf("%q does not decode to %q", got, name)
		}
	})
}

func TestReasonMessage(t *testing.T) {
	for _, tc := range []struct{ reason, message, encoded string }{
		{"NodeInstaller", "2 nodes are at revision 3", "(NodeInstaller) 2 nodes are at revision 3"},
		{"", "Working towards 4.14.1", "Working towards 4.14.1"},
		{"", "(not a reason) text", "() (not a reason) text"},
		{"AsExpected", "", "(AsExpected)"},
		{"", "", ""},
		{"Odd)Reason", "m", "(Odd]Reason) m"},
	} {
		got := EncodeReasonMessage(tc.reason, tc.message)
		if got != tc.encoded {
			t.Errorf("Encode(%q, %q) = %q, want %q", tc.reason, tc.message, got, tc.encoded)
		}
		r, m := DecodeReasonMessage(got)
		if r != strings.ReplaceAll(tc.reason, ")", "]") || m != tc.message {
			t.Errorf("Decode(%q) = %q, %q", got, r, m)
		}
	}
}

func FuzzReasonMessage(f *testing.F) {
	f.Add("Reason", "message")
	f.Add("", "(x) y")
	f.Fuzz(func(t *testing.T, reason, message string) {
		r, m := DecodeReasonMessage(EncodeReasonMessage(reason, message))
		if r != strings.ReplaceAll(reason, ")", "]") || m != message {
			// A reason containing ") " cannot round trip; ")" is replaced.
			if !strings.Contains(reason, ") ") {
				t.Fatalf("(%q, %q) came back as (%q, %q)", reason, message, r, m)
			}
		}
	})
}

func TestTruncate(t *testing.T) {
	if got := Truncate("short", 10); got != "short" {
		t.Errorf("got %q", got)
	}
	s := strings.Repeat("é", 100) // 200 bytes
	got := Truncate(s, 51)
	if len(got) > 51 || !utf8.ValidString(got) || !IsTruncated(got) || !strings.HasPrefix(s, TruncatedPrefix(got)) {
		t.Errorf("Truncate gave %q (%d bytes)", got, len(got))
	}
	if got := Truncate("abcdef", 3); got != "abc" {
		t.Errorf("a limit below the marker's length cuts plainly: %q", got)
	}
	if got := Short("first line\nsecond", 100); got != "first line" {
		t.Errorf("Short: %q", got)
	}
	if got := Short(strings.Repeat("a", 150), 100); len(got) != 100 || !strings.HasSuffix(got, "...") {
		t.Errorf("Short: %q", got)
	}
}

func TestUID(t *testing.T) {
	if got := UID("node", "", "nodes", "", "ip-10-0-1-2.ec2.internal"); got != "node-ip-10-0-1-2-ec2-internal" {
		t.Errorf("got %q", got)
	}
	long := "build0-gstfj-w-b-infra-2stfh.c.openshift-ci-build-farm.internal"
	if got := UID("node", "", "nodes", "", long); got != "node-"+Hash16("", "nodes", "", long) || len(got) > MaxUIDLength {
		t.Errorf("got %q", got)
	}
	if got := UID("co", "g", "r", "", "Upper_Case"); !IsDNSLabel(got) {
		t.Errorf("got %q", got)
	}
	for _, uid := range []string{"health-co-degraded-etcd", "health-cv-failing-version", "health-alert-x-1234abcd", "health-omitted-workerpools-worker-nodes"} {
		if KindOf(uid) == v1alpha1.HealthUnknownKind {
			t.Errorf("KindOf(%q) unknown", uid)
		}
	}
	if KindOf("health-co-degraded-etcd") != v1alpha1.HealthCODegraded || KindOf("health-cv-nofailing-version") != v1alpha1.HealthCVNoFailing || KindOf("co-etcd") != v1alpha1.HealthUnknownKind {
		t.Error("KindOf mixes up kinds")
	}
}

func TestRemaining(t *testing.T) {
	ref := time.Date(2024, 1, 1, 12, 0, 0, 368975, time.UTC)
	for _, tc := range []struct {
		ahead time.Duration
		want  time.Duration
	}{
		{0, 0},
		{5 * time.Minute, 6 * time.Minute},
		{9*time.Minute + 40*time.Second, 12 * time.Minute}, // 11m36s, rounded to the minute
		{time.Hour, 72 * time.Minute},
		{-1200 * time.Millisecond, -time.Second},
		{-time.Second, 0},
		{-12 * time.Minute, -10 * time.Minute},
		{-time.Hour, -50 * time.Minute},
		{200 * 365 * 24 * time.Hour, 100 * 365 * 24 * time.Hour},
	} {
		got := Remaining(ref, tc.ahead, ref)
		if got != tc.want {
			t.Errorf("Remaining(%v ahead) = %v, want %v", tc.ahead, got, tc.want)
		}
	}
}

func TestReferences(t *testing.T) {
	if ReferenceText(NoRunbookReference) != NoRunbookText || !IsURL(NoRunbookReference) {
		t.Error("the no-runbook reference")
	}
	ref := TextReference("see the wiki, page 3")
	if !IsURL(ref) || ReferenceText(ref) != "see the wiki, page 3" {
		t.Errorf("TextReference gave %q", ref)
	}
	if ReferenceText("https://<mock_data>/runbook.md") != "https://<mock_data>/runbook.md" || !IsURL("https://<mock_data>/runbook.md") {
		t.Error("a URL is printed as it is")
	}
	if !IsUnknownTime(UnknownTime) || !IsUnknownTime(time.Time{}) || IsUnknownTime(UnknownTime.Add(time.Second)) {
		t.Error("IsUnknownTime")
	}
}
