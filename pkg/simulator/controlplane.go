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

package simulator

import (
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/klog/v2"

	"github.com/update-status/apiserver/internal/ocp"
	"github.com/update-status/apiserver/pkg/insights"
)

// This file plays the cluster-version operator and the operators it updates.

// startUpdate records the update request on the ClusterVersion: the new
// desired release, a Partial history entry and Progressing=True.
func (s *Simulator) startUpdate(now time.Time) {
	to := s.opts.ToVersion
	cv := s.cv
	ocp.StartUpdate(cv, to, now)
	s.changes.mark(cv, false, true, true)
	s.update = updateState{requested: true, startedAt: now, acceptDue: now.Add(s.scale(s.opts.Timing.Accept))}
	klog.V(1).InfoS("Update requested", "from", s.opts.FromVersion, "to", to)
}

// maxLevel is the last operator level (machine-config).
func maxLevel() int { return ocp.Operators[len(ocp.Operators)-1].Level }

// reconcileCVO moves the update from one operator level to the next and keeps
// the ClusterVersion's Progressing message current.
func (s *Simulator) reconcileCVO(now time.Time) {
	u := &s.update
	if !u.requested || u.completed {
		return
	}
	if u.level == 0 {
		if now.Before(u.acceptDue) {
			return
		}
		u.level = 1
		s.startLevel(1, now)
	}
	for u.level < maxLevel() && s.levelDone(u.level) {
		u.level++
		s.startLevel(u.level, now)
	}
	s.setCVProgressing(now)
}

// startLevel starts the update of every operator of a level.
func (s *Simulator) startLevel(level int, now time.Time) {
	for _, op := range s.operators {
		if op.spec.Level != level || op.updated || op.updating {
			continue
		}
		if op.spec.Name == insights.MCOClusterOperatorName {
			s.startMCO(now)
			continue
		}
		op.updating = true
		op.due = now.Add(op.duration)
		reason, message := op.spec.ProgressingReason, op.spec.ProgressingMessage
		switch {
		case reason == "NodeInstaller":
			message = fmt.Sprintf(message, op.revision, op.revision+1)
		case message != "":
			message = fmt.Sprintf(message, "/"+op.spec.Namespace+"/"+op.spec.Name)
		default:
			reason = "Deploying"
			message = fmt.Sprintf(ocp.DeployMessage, op.spec.Namespace+"/"+op.spec.Name)
		}
		if ocp.SetClusterCondition(&op.obj.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionTrue, reason, message, now) {
			s.changes.mark(op.obj, false, false, true)
		}
	}
}

// levelDone reports whether every operator of a level runs the target.
func (s *Simulator) levelDone(level int) bool {
	for _, op := range s.operators {
		if op.spec.Level == level && !op.updated {
			return false
		}
	}
	return true
}

// reconcileOperators completes the operator updates that are due. An
// unavailable operator does not report the new version until it recovers.
func (s *Simulator) reconcileOperators(now time.Time) {
	to := s.opts.ToVersion
	for _, op := range s.operators {
		if !op.updating || now.Before(op.due) || s.operatorUnavailable(op.spec.Name) {
			continue
		}
		op.updating, op.updated = false, true
		op.obj.Status.Versions = ocp.OperatorVersions(op.spec, to)
		message := "All is well"
		if op.spec.ProgressingReason == "NodeInstaller" {
			message = fmt.Sprintf("NodeInstallerProgressing: 3 nodes are at revision %d", op.revision+1)
		}
		ocp.SetClusterCondition(&op.obj.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionFalse, "AsExpected", message, now)
		s.changes.mark(op.obj, false, false, true)
	}
}

// setCVProgressing writes the cluster-version operator's Progressing message
// for the update in flight.
func (s *Simulator) setCVProgressing(now time.Time) {
	to := s.opts.ToVersion
	updated := 0
	var waiting []string
	for _, op := range s.operators {
		if op.updated {
			updated++
		} else if op.spec.Level == s.update.level {
			waiting = append(waiting, op.spec.Name)
		}
	}
	done := 1 + (ocp.ManifestsInPayload-1)*updated/len(s.operators)
	if updated < len(s.operators) && done >= ocp.ManifestsInPayload {
		done = ocp.ManifestsInPayload - 1
	}
	message := fmt.Sprintf("Working towards %s: %d of %d done (%d%% complete)", to, done, ocp.ManifestsInPayload, done*100/ocp.ManifestsInPayload)
	reason := ""
	switch {
	case len(waiting) == 1:
		reason = "ClusterOperatorUpdating"
		message += ", waiting on " + waiting[0]
	case len(waiting) > 1:
		reason = "ClusterOperatorsUpdating"
		message += ", waiting on " + strings.Join(waiting, ", ")
	}
	if f := s.activeFault(FaultClusterVersionFailing); f != nil {
		reason = f.reason
		message = fmt.Sprintf("Unable to apply %s: %s", to, f.message)
	}
	if ocp.SetClusterCondition(&s.cv.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionTrue, reason, message, now) {
		s.changes.mark(s.cv, false, false, true)
	}
}

// reconcileCVOCompletion marks the update Completed once the last operator
// (machine-config) reported the target version.
func (s *Simulator) reconcileCVOCompletion(now time.Time) {
	u := &s.update
	if !u.versionDone || u.completed || now.Before(u.completeDue) {
		return
	}
	u.completed = true
	to := s.opts.ToVersion
	cv := s.cv
	ocp.CompleteUpdate(cv, now)
	s.changes.mark(cv, false, false, true)
	klog.V(1).InfoS("Control plane updated", "version", to, "duration", now.Sub(u.startedAt))
}

// reconcileNetworkOperator makes the network operator report Progressing while
// nodes reboot, as its daemon sets do on a real cluster (after its own update).
func (s *Simulator) reconcileNetworkOperator(now time.Time) {
	op := s.opIndex["network"]
	if op == nil || !op.updated {
		return
	}
	down := 0
	for _, n := range s.nodes {
		if n.stage == stageDown || n.stage == stageBooting {
			down++
		}
	}
	var changed bool
	if down > 0 {
		changed = ocp.SetClusterCondition(&op.obj.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionTrue, "Deploying",
			fmt.Sprintf("DaemonSet %q is not available (awaiting %d nodes)", "/openshift-multus/multus", down), now)
	} else {
		changed = ocp.SetClusterCondition(&op.obj.Status.Conditions, configv1.OperatorProgressing, configv1.ConditionFalse, "AsExpected", "All is well", now)
	}
	if changed {
		s.changes.mark(op.obj, false, false, true)
	}
}
