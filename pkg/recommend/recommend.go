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

// Package recommend renders the text of `oc adm upgrade recommend` from the
// readiness kinds of update.openshift.io/v1alpha1 (UpdateReadiness and
// UpdateCandidate). It is a client of the API: it links the API types only,
// never the server or the rules that compute the objects.
package recommend

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/blang/semver/v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// Options are oc's flags.
type Options struct {
	// ShowOutdatedReleases lists every release, one line each.
	ShowOutdatedReleases bool
	// Version selects one target release (a SemVer version).
	Version string
	// Accept names the issues the caller accepts.
	Accept []string
	// Quiet prints nothing but the error (with Version only).
	Quiet bool
}

// Validate checks the flags as oc does and returns the parsed version (nil
// without one).
func (o Options) Validate() (*semver.Version, error) {
	if o.Version == "" {
		if o.Quiet {
			return nil, errors.New("--quiet can only be set when --version is set")
		}
		return nil, nil
	}
	if o.ShowOutdatedReleases {
		return nil, errors.New("when --version is set, --show-outdated-releases is unnecessary")
	}
	v, err := semver.Parse(o.Version)
	if err != nil {
		return nil, fmt.Errorf("cannot parse SemVer target %q: %v", o.Version, err)
	}
	return &v, nil
}

// ErrNoClusterVersion is oc's error when the cluster has no ClusterVersion (no
// UpdateReadiness is served).
var ErrNoClusterVersion = errors.New("No cluster version information available - you must be connected to an OpenShift version 4 server to fetch the current version") //nolint:staticcheck // oc's message, byte for byte

func findCondition(r *v1alpha1.UpdateReadiness, t string) *v1alpha1.ClusterVersionCondition {
	for i := range r.Status.ClusterVersionConditions {
		if r.Status.ClusterVersionConditions[i].Type == t {
			return &r.Status.ClusterVersionConditions[i]
		}
	}
	return nil
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// concern is one precheck entry that found cause for concern.
type concern struct {
	typ, reason, message, issue string
	status                      metav1.ConditionStatus
	index                       int32
}

// Render writes oc's text for the readiness r and the candidates to out (and
// oc's warnings to errOut). The returned error is oc's: the caller prints it
// as "error: ..." and exits non-zero.
func Render(stdout, stderr io.Writer, r *v1alpha1.UpdateReadiness, candidates []v1alpha1.UpdateCandidate, o Options) error {
	version, err := o.Validate()
	if err != nil {
		return err
	}
	if r == nil {
		return ErrNoClusterVersion
	}
	if o.Quiet {
		stdout, stderr = io.Discard, io.Discard
	}
	out, errOut := &printer{w: stdout}, &printer{w: stderr}
	err = render(out, errOut, r, candidates, o, version)
	return errors.Join(err, out.err, errOut.err)
}

// printer writes and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil && p.err == nil {
		p.err = err
	}
	return n, err
}

func (p *printer) check(err error) {
	if err != nil && p.err == nil {
		p.err = err
	}
}

func (p *printer) f(format string, args ...any) { _, _ = fmt.Fprintf(p, format, args...) }

func render(out, errOut *printer, r *v1alpha1.UpdateReadiness, candidates []v1alpha1.UpdateCandidate, o Options, version *semver.Version) error {
	accept := sets.New(o.Accept...)
	acceptContext := func(issue string) string {
		if accept.Has(issue) {
			return "accepted "
		}
		return ""
	}
	issues := sets.New(r.Status.Issues...)

	if c := findCondition(r, "Failing"); c == nil {
		errOut.f("%swarning: No current %s info, see `oc describe clusterversion` for more details.\n", acceptContext(v1alpha1.IssueFailing), "Failing")
	} else if c.Status != metav1.ConditionFalse {
		out.f("%s%s=%s:\n\n  Reason: %s\n  Message: %s\n\n", acceptContext(v1alpha1.IssueFailing), c.Type, c.Status, c.Reason, indent(c.Message))
	}
	if c := findCondition(r, "Progressing"); c != nil && c.Status == metav1.ConditionTrue && c.Message != "" {
		out.f("%sinfo: An update is in progress.  You may wish to let this update complete before requesting a new update.\n  %s\n\n", acceptContext(v1alpha1.IssueProgressing), indent(c.Message))
	}
	if r.Status.PrechecksIncomplete != "" {
		out.f("Failed to check for at least some preconditions: %v\n", r.Status.PrechecksIncomplete)
	}
	renderPrechecks(out, r.Status.Prechecks, accept)
	if c := findCondition(r, "RetrievedUpdates"); c != nil && c.Status != metav1.ConditionTrue {
		errOut.f("warning: Cannot refresh available updates:\n  Reason: %s\n  Message: %s\n\n", c.Reason, indent(c.Message))
	}
	if r.Status.Channel != "" {
		if r.Status.Upstream == "" {
			out.f("Upstream update service is unset, so the cluster will use an appropriate default.\n")
		} else {
			out.f("Upstream update service: %s\n", r.Status.Upstream)
		}
		if len(r.Status.AvailableChannels) > 0 {
			out.f("Channel: %s (available channels: %s)\n", r.Status.Channel, strings.Join(r.Status.AvailableChannels, ", "))
		} else {
			out.f("Channel: %s\n", r.Status.Channel)
		}
	}

	buckets := map[uint64]map[uint64][]*v1alpha1.UpdateCandidate{}
	for i := range candidates {
		c := &candidates[i]
		v, err := semver.Parse(c.Status.Version)
		if err != nil {
			errOut.f("warning: Cannot parse SemVer available update %q: %v", c.Status.Version, err)
			continue
		}
		if buckets[v.Major] == nil {
			buckets[v.Major] = map[uint64][]*v1alpha1.UpdateCandidate{}
		}
		buckets[v.Major][v.Minor] = append(buckets[v.Major][v.Minor], c)
	}
	if version != nil {
		return renderVersion(out, *version, buckets, issues, accept)
	}
	if len(buckets) == 0 {
		out.f("No updates available. You may still upgrade to a specific release image with --to-image or wait for new updates to be available.\n")
		return nil
	}
	renderBuckets(out, buckets, o.ShowOutdatedReleases)
	return nil
}

// renderPrechecks writes the prechecks: the groups without concern, those
// accepted, and those with concern, each of these with its detail.
func renderPrechecks(out *printer, prechecks []v1alpha1.Precheck, accept sets.Set[string]) {
	var happy, accepted, unhappy []string
	var concerns []concern
	for _, p := range prechecks {
		switch {
		case p.Status == metav1.ConditionTrue:
			happy = append(happy, fmt.Sprintf("recommended/%s (%s)", p.Name, p.Reason))
		case len(p.Alerts) == 0:
			concerns = append(concerns, concern{typ: "recommended/" + p.Name, status: p.Status, reason: p.Reason, message: p.Message, issue: p.Issue, index: -1})
		default:
			for _, a := range p.Alerts {
				concerns = append(concerns, concern{
					typ: fmt.Sprintf("recommended/%s/%s/%d", p.Name, a.Name, a.Index), status: metav1.ConditionFalse,
					reason: a.Reason, message: a.Message, issue: a.Name, index: a.Index,
				})
			}
		}
	}
	sort.SliceStable(concerns, func(i, j int) bool { return concerns[i].index < concerns[j].index })
	for _, c := range concerns {
		if accept.Has(c.issue) {
			accepted = append(accepted, c.typ)
		} else {
			unhappy = append(unhappy, c.typ)
		}
	}
	if len(happy) > 0 {
		sort.Strings(happy)
		out.f("The following conditions found no cause for concern in updating this cluster to later releases: %s\n\n", strings.Join(happy, ", "))
	}
	if len(accepted) > 0 {
		sort.Strings(accepted)
		out.f("The following conditions found cause for concern in updating this cluster to later releases, but were explicitly accepted via --accept: %s\n\n", strings.Join(accepted, ", "))
	}
	if len(unhappy) > 0 {
		sort.Strings(unhappy)
		out.f("The following conditions found cause for concern in updating this cluster to later releases: %s\n\n", strings.Join(unhappy, ", "))
		for _, c := range concerns {
			out.f("%s=%s:\n\n  Reason: %s\n  Message: %s\n\n", c.typ, c.status, c.reason, indent(c.message))
		}
	}
}

func renderVersion(out *printer, version semver.Version, buckets map[uint64]map[uint64][]*v1alpha1.UpdateCandidate, issues, accept sets.Set[string]) error {
	if len(buckets) == 0 {
		return fmt.Errorf("no updates available, so cannot display context for the requested release %s", version)
	}
	major, ok := buckets[version.Major]
	if !ok {
		return fmt.Errorf("no updates to %d available, so cannot display context for the requested release %s", version.Major, version)
	}
	minor, ok := major[version.Minor]
	if !ok {
		return fmt.Errorf("no updates to %d.%d available, so cannot display context for the requested release %s", version.Major, version.Minor, version)
	}
	for _, c := range minor {
		if c.Status.Version != version.String() {
			continue
		}
		out.f("\n")
		st := &c.Status
		if st.Recommended == metav1.ConditionTrue {
			out.f("Update to %s has no known issues relevant to this cluster.\nImage: %s\nRelease URL: %s\n", st.Version, st.Image, st.URL)
		} else {
			reason := st.Reason
			if accept.Has(v1alpha1.IssueConditionalUpdateRisk) {
				reason = fmt.Sprintf("accepted %s via ConditionalUpdateRisk", st.Reason)
			}
			out.f("Update to %s Recommended=%s:\nImage: %s\nRelease URL: %s\nReason: %s\nMessage: %s\n", st.Version, st.Recommended, st.Image, st.URL, reason, indent(st.Message))
			issues.Insert(v1alpha1.IssueConditionalUpdateRisk)
		}
		if unaccepted := issues.Difference(accept); unaccepted.Len() > 0 {
			return fmt.Errorf("issues that apply to this cluster but which were not included in --accept: %s", strings.Join(sets.List(unaccepted), ","))
		} else if issues.Len() > 0 {
			out.f("Update to %s has no known issues relevant to this cluster other than the accepted %s.\n", st.Version, strings.Join(sets.List(issues), ","))
		}
		return nil
	}
	return fmt.Errorf("no update to %s available, so cannot display context for the requested release", version)
}

func renderBuckets(out *printer, buckets map[uint64]map[uint64][]*v1alpha1.UpdateCandidate, showOutdated bool) {
	majors := make([]uint64, 0, len(buckets))
	for m := range buckets {
		majors = append(majors, m)
	}
	sort.Slice(majors, func(i, j int) bool { return majors[i] > majors[j] })
	for _, major := range majors {
		minors := make([]uint64, 0, len(buckets[major]))
		for m := range buckets[major] {
			minors = append(minors, m)
		}
		sort.Slice(minors, func(i, j int) bool { return minors[i] > minors[j] })
		for _, minor := range minors {
			list := buckets[major][minor]
			sortByVersion(list)
			out.f("\n")
			out.f("Updates to %d.%d:\n", major, minor)
			lastWasLong, headerQueued := false, true
			// A minimal cell width of 14, as oc has it.
			w := tabwriter.NewWriter(out, 14, 2, 1, ' ', tabwriter.DiscardEmptyColumns)
			t := &printer{w: w}
			t.f("  VERSION\tISSUES\n")
			for i, c := range list {
				st := &c.Status
				recommended := st.Recommended == metav1.ConditionTrue
				if lastWasLong || (!recommended && !showOutdated) {
					out.f("\n")
					if recommended && !headerQueued {
						t.f("  VERSION\tISSUES\n")
						headerQueued = true
					}
					lastWasLong = false
				}
				if i == 2 && !showOutdated {
					out.f("And %d older %d.%d updates you can see with '--show-outdated-releases' or '--version VERSION'.\n", len(list)-2, major, minor)
					lastWasLong = true
					break
				}
				switch {
				case recommended:
					t.f("  %s\t%s\n", st.Version, "no known issues relevant to this cluster")
					if !showOutdated {
						headerQueued = false
						t.check(w.Flush())
					}
				case showOutdated:
					t.f("  %s\t%s\n", st.Version, st.Reason)
				default:
					out.f("  Version: %s\n  Image: %s\n", st.Version, st.Image)
					out.f("  Reason: %s\n  Message: %s\n", st.Reason, indent(strings.TrimSpace(st.Message)))
					lastWasLong = true
				}
			}
			if showOutdated {
				t.check(w.Flush())
			}
		}
	}
}

// sortByVersion sorts newest first; versions that do not parse go last.
func sortByVersion(list []*v1alpha1.UpdateCandidate) {
	sort.Slice(list, func(i, j int) bool {
		a, errA := semver.Parse(list[i].Status.Version)
		b, errB := semver.Parse(list[j].Status.Version)
		switch {
		case errA == nil && errB != nil:
			return true
		case errA != nil && errB == nil:
			return false
		case errA != nil:
			return list[i].Status.Version > list[j].Status.Version
		}
		return a.GT(b)
	})
}
