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

package view

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/resources"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// Defaults of Config.
const (
	DefaultFoldDelay  = 150 * time.Millisecond
	DefaultQuietGap   = 35 * time.Millisecond
	DefaultStuckAfter = 2 * time.Minute
	// MaxFoldDelay bounds FoldDelay: a change must show within this time.
	MaxFoldDelay = 250 * time.Millisecond
)

// Revision is one published state of the UpdateStatus. It is immutable.
type Revision struct {
	// ResourceVersion is the revision: the resourceVersion every resource
	// serves its lists at. Objects carry the revision in which they last
	// changed, this one or an earlier one.
	ResourceVersion uint64
	// Object is the served UpdateStatus. Its resourceVersion is the revision
	// in which its content last changed. Never modify it.
	Object *update.UpdateStatus
	// Insights are the changes of the per-insight objects, by kind, since
	// the previous revision; the first synced revision lists every object
	// as changed.
	Insights [resources.NumInsightKinds]Changes
	// Synced says the revision was computed after the initial sync of the
	// sources, so it may be served.
	Synced bool
}

// Config configures a View.
type Config struct {
	// Snapshots provides the snapshots of the source caches. Required.
	Snapshots Snapshotter
	// Computer computes the status. Required; *insights.Engine in production.
	Computer Computer
	// Clock is the time source. Required.
	Clock clock.Clock
	// FoldDelay is the burst window. A source event that arrives when the
	// last computation ended at least FoldDelay ago, or that is isolated
	// (QuietGap), is computed at once; any other (one of a burst) waits
	// until FoldDelay after the end of the last computation, and every
	// event in that wait is folded into one computation. 0 computes at
	// once. At most MaxFoldDelay.
	FoldDelay time.Duration
	// QuietGap separates a stream from a burst, source by source (Fold).
	// An event is isolated, and computed at once without waiting for the
	// fold window (it also ends a wait under way), while its source's
	// running count of gaps shorter than QuietGap stays low. So a source's
	// steady stream slower than one event per QuietGap is computed event by
	// event, whatever other sources do, and a faster one (a burst) once per
	// FoldDelay after its first three events. 0 counts no event as
	// isolated. At most MaxFoldDelay.
	QuietGap time.Duration
	// StuckAfter is how long one computation may run before the liveness
	// check fails. 0 means DefaultStuckAfter.
	StuckAfter time.Duration
	// Publish is called with each new revision, in order, from the view's
	// goroutine. It must not block for long. Optional.
	Publish func(*Revision)
	// Verdicts is called with the engine's verdicts on the UpdateInformers
	// after every computation that succeeded, changed or not, from the
	// view's goroutine. It must not block. Optional.
	Verdicts func([]insights.Verdict)
}

// View computes and holds the current UpdateStatus. Create it with New and
// start it with Run.
type View struct {
	cfg     Config
	trigger chan struct{}
	current atomic.Pointer[Revision]

	started        atomic.Bool
	running        atomic.Bool
	computingSince atomic.Int64 // unix nanoseconds; 0 when idle
	fold           *Fold

	// Owned by the Run goroutine.
	last       *Revision
	lastFP     fingerprint
	objects    insightSet
	fpState    fingerprintState
	nextChange time.Time
}

// New validates cfg and returns a View.
func New(cfg Config) (*View, error) {
	var errs []error
	if cfg.Snapshots == nil {
		errs = append(errs, errors.New("view: Snapshots is required"))
	}
	if cfg.Computer == nil {
		errs = append(errs, errors.New("view: Computer is required"))
	}
	if cfg.Clock == nil {
		errs = append(errs, errors.New("view: Clock is required"))
	}
	if cfg.FoldDelay < 0 || cfg.FoldDelay > MaxFoldDelay {
		errs = append(errs, fmt.Errorf("view: FoldDelay %v is outside [0, %v]", cfg.FoldDelay, MaxFoldDelay))
	}
	if cfg.QuietGap < 0 || cfg.QuietGap > MaxFoldDelay {
		errs = append(errs, fmt.Errorf("view: QuietGap %v is outside [0, %v]", cfg.QuietGap, MaxFoldDelay))
	}
	if cfg.StuckAfter < 0 {
		errs = append(errs, fmt.Errorf("view: StuckAfter %v is negative", cfg.StuckAfter))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cfg.StuckAfter == 0 {
		cfg.StuckAfter = DefaultStuckAfter
	}
	return &View{cfg: cfg, trigger: make(chan struct{}, 1), fold: NewFold(cfg.FoldDelay, cfg.QuietGap)}, nil
}

// Trigger tells the view that object (a namespace/name; empty when
// unknown) of source (an informer's resource, the alerts) changed. It
// never blocks; triggers that arrive while one is pending are folded into
// it.
func (v *View) Trigger(source, object string) {
	v.fold.Changed(v.cfg.Clock.Now(), source, object)
	select {
	case v.trigger <- struct{}{}:
	default:
	}
}

// Current returns the newest revision, or nil before the first computation.
// It does no work and copies nothing.
func (v *View) Current() *Revision { return v.current.Load() }

// Run computes once, then on every trigger (at once for an isolated event or
// after a quiet window, else at the end of the fold window) and at the
// engine's next-change moments, until ctx is done.
func (v *View) Run(ctx context.Context) {
	v.started.Store(true)
	v.running.Store(true)
	defer v.running.Store(false)
	klog.InfoS("Starting the UpdateStatus view", "foldDelay", v.cfg.FoldDelay)
	defer klog.InfoS("Stopped the UpdateStatus view")

	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	v.recompute(triggerStart)
	for {
		if timer != nil {
			timer.Stop()
			timer = nil
		}
		var timeC <-chan time.Time
		if !v.nextChange.IsZero() {
			d := v.nextChange.Sub(v.cfg.Clock.Now())
			if d < v.cfg.FoldDelay {
				// A moment already past (or about to pass) is re-evaluated
				// soon, but never in a busy loop.
				d = max(v.cfg.FoldDelay, time.Millisecond)
			}
			timer = v.cfg.Clock.NewTimer(d)
			timeC = timer.C()
		}
		select {
		case <-ctx.Done():
			return
		case <-v.trigger:
			if !v.fold.Sleep(ctx, v.cfg.Clock, v.trigger) {
				return
			}
			v.recompute(triggerSources)
		case <-timeC:
			v.recompute(triggerTime)
		}
	}
}

// CheckLive returns an error when the computation loop has stopped or one
// computation has been running for longer than StuckAfter.
func (v *View) CheckLive() error {
	if v.started.Load() && !v.running.Load() {
		return errors.New("the UpdateStatus view loop is not running")
	}
	if since := v.computingSince.Load(); since != 0 {
		if d := v.cfg.Clock.Since(time.Unix(0, since)); d > v.cfg.StuckAfter {
			return fmt.Errorf("an UpdateStatus computation has been running for %v", d.Round(time.Second))
		}
	}
	return nil
}

// recompute takes a snapshot, computes and publishes a revision when the
// content changed.
func (v *View) recompute(trigger string) {
	// Triggers that arrived before the snapshot are covered by it.
	select {
	case <-v.trigger:
	default:
	}
	pending := v.fold.Begin()
	start := v.cfg.Clock.Now()
	v.computingSince.Store(start.UnixNano())
	defer v.computingSince.Store(0)

	snap := v.cfg.Snapshots.Snapshot()
	if snap.Inputs == nil {
		snap.Inputs = &insights.Sources{}
	}
	now := v.cfg.Clock.Now()
	res, computeErr := v.compute(snap.Inputs, now)
	// The fold window starts when the engine is done.
	end := v.cfg.Clock.Now()
	v.fold.Computed(end)
	computeDuration.Observe(end.Sub(start).Seconds())

	var status *v1alpha1.UpdateStatusStatus
	switch {
	case computeErr == nil:
		status = &res.Status
		v.nextChange = res.NextChange
		if v.cfg.Verdicts != nil {
			v.cfg.Verdicts(res.Verdicts)
		}
	case v.last != nil:
		// Keep the layers of the last good computation.
		status = &v1alpha1.UpdateStatusStatus{}
		if err := v1alpha1.Convert_update_UpdateStatusStatus_To_v1alpha1_UpdateStatusStatus(&v.last.Object.Status, status, nil); err != nil {
			computeErr = errors.Join(computeErr, err)
		}
		v.nextChange = time.Time{}
	default:
		status = &v1alpha1.UpdateStatusStatus{}
		v.nextChange = time.Time{}
	}

	meta := objectMeta(snap.Inputs.ClusterVersion)
	var truncations []insights.Truncation
	var list []*insights.Insight
	if computeErr == nil {
		truncations = res.Truncations
		list = res.Insights
	} else {
		// Keep the insight objects of the last good computation.
		list = v.objects.lastList
	}
	available := availableCondition(snap, computeErr, truncations, meta.CreationTimestamp)
	obj, err := buildObject(meta, status, available)
	if err != nil {
		klog.ErrorS(err, "Cannot build the UpdateStatus object")
		recomputations.WithLabelValues(trigger, resultFailed).Inc()
		return
	}
	synced := snap.InitialSyncDone
	// The first synced revision republishes everything under its own
	// resourceVersion (the store forgets the revisions before it).
	firstSynced := synced && (v.last == nil || !v.last.Synced)
	metaChanged := v.last == nil || v.last.Object.UID != meta.UID || !v.last.Object.CreationTimestamp.Equal(&meta.CreationTimestamp)
	changes, err := v.objects.update(list, &meta, metaChanged, firstSynced)
	if err != nil {
		klog.ErrorS(err, "Cannot fingerprint the insight objects")
		recomputations.WithLabelValues(trigger, resultFailed).Inc()
		return
	}
	v.objects.lastList = list
	if metaChanged {
		// The insights' object fingerprints changed with the metadata: the
		// lists are fingerprinted afresh, as a new replica would.
		v.fpState.lists = nil
	}
	fp, err := fingerprintOf(obj, status, v.objects.known, &v.fpState)
	if err != nil {
		klog.ErrorS(err, "Cannot fingerprint the UpdateStatus object")
		recomputations.WithLabelValues(trigger, resultFailed).Inc()
		return
	}
	objectChanged := v.last == nil || fp != v.lastFP
	if !objectChanged && len(changes) == 0 && !firstSynced {
		// Only a source change publishes progress: a look by the clock
		// (an UpdateInformer's lease that would lapse, renewed through a
		// Lease that triggered nothing) stays silent.
		if trigger == triggerSources {
			if rv, ok := progressVersion(v.last.ResourceVersion, snap.MaxResourceVersion, timeStep(v.nextChange), revisionDigest(fp, v.objects.sum)); ok {
				v.publishProgress(rv)
				v.observeChanges(pending)
				return
			}
		}
		recomputations.WithLabelValues(trigger, resultUnchanged).Inc()
		klog.V(4).InfoS("UpdateStatus unchanged", "trigger", trigger, "resourceVersion", v.last.ResourceVersion)
		return
	}

	// Revisions computed before the initial sync are never served: the first
	// synced revision takes its deterministic resourceVersion, unconstrained
	// by them.
	var prevRV uint64
	if v.last != nil && !firstSynced {
		prevRV = v.last.ResourceVersion
	}
	rv := nextResourceVersion(prevRV, snap.MaxResourceVersion, timeStep(v.nextChange), revisionDigest(fp, v.objects.sum))
	rev := &Revision{ResourceVersion: rv, Object: obj, Synced: synced}
	if objectChanged || firstSynced {
		// The engine's results are read-only and never modified afterwards
		// (TestEarlierResultsUnchanged), so the object shares them.
		obj.ResourceVersion = strconv.FormatUint(rv, 10)
	} else {
		rev.Object = v.last.Object
	}
	rev.Insights = v.objects.commit(changes, rv)
	v.last, v.lastFP = rev, fp
	v.current.Store(rev)
	if computeErr != nil {
		recomputations.WithLabelValues(trigger, resultFailed).Inc()
	} else {
		recomputations.WithLabelValues(trigger, resultChanged).Inc()
	}
	klog.V(2).InfoS("UpdateStatus changed", "trigger", trigger, "resourceVersion", rv,
		"maxInputResourceVersion", snap.MaxResourceVersion, "available", available.Reason,
		"updateStatusChanged", objectChanged, "insightObjectsChanged", len(changes))
	if v.cfg.Publish != nil {
		v.cfg.Publish(rev)
	}
	v.observeChanges(pending)
}

// observeChanges records the time from the first change that the revision
// just published covers to now.
func (v *View) observeChanges(p Pending) {
	if p.Since.IsZero() {
		return
	}
	change := changeBurst
	if p.Isolated {
		change = changeIsolated
	}
	changeToRevision.WithLabelValues(change).Observe(v.cfg.Clock.Since(p.Since).Seconds())
}

// publishProgress publishes revision rv with the content of the last one:
// no object changes, so no watch event; the stores move their
// resourceVersion to rv (and send progress bookmarks to the watchers that
// asked for them).
func (v *View) publishProgress(rv uint64) {
	rev := &Revision{ResourceVersion: rv, Object: v.last.Object, Synced: v.last.Synced}
	v.last = rev
	v.current.Store(rev)
	recomputations.WithLabelValues(triggerSources, resultProgress).Inc()
	klog.V(4).InfoS("UpdateStatus unchanged, inputs moved on", "resourceVersion", rv)
	if v.cfg.Publish != nil {
		v.cfg.Publish(rev)
	}
}

// revisionDigest combines the fingerprints of the six views of a revision.
func revisionDigest(fp fingerprint, objects uint64) uint64 {
	return fp.digest() ^ (objects * 0x9e3779b97f4a7c15)
}

// compute runs the engine and turns a panic into an error.
func (v *View) compute(src *insights.Sources, now time.Time) (res insights.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			klog.ErrorS(nil, "The insight engine panicked", "panic", r)
			err = fmt.Errorf("the insight engine failed: %v", r)
		}
	}()
	return v.cfg.Computer.Compute(src, now), nil
}
