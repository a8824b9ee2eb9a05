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

package v1alpha1

// Values this project adds where upstream defines none (listed in
// docs/api.md#untyped-constants). Condition types and reasons are plain
// strings in metav1.Condition, so these are untyped constants.
const (
	// UpdateStatusAvailable is the one outer condition of UpdateStatus.
	UpdateStatusAvailable = "Available"

	// Reasons of the outer Available condition.
	AvailableReasonAsExpected        = "AsExpected"
	AvailableReasonCachesNotSynced   = "CachesNotSynced"
	AvailableReasonSourceUnavailable = "SourceUnavailable"
	AvailableReasonCannotDetermine   = "CannotDetermine"

	// PoolUpdating is the condition type of workerPools[] and of the
	// MachineConfigPool insight.
	PoolUpdating = "Updating"

	// Reasons of the pool Updating condition.
	PoolUpdatingReasonProgressing     = "Progressing"
	PoolUpdatingReasonUpdated         = "Updated"
	PoolUpdatingReasonPending         = "Pending"
	PoolUpdatingReasonPaused          = "Paused"
	PoolUpdatingReasonExcluded        = "Excluded"
	PoolUpdatingReasonCannotDetermine = "CannotDetermine"

	// Reasons of the Node Available condition.
	NodeAvailableReasonAsExpected      = "AsExpected"
	NodeAvailableReasonUnschedulable   = "Unschedulable"
	NodeAvailableReasonNotReady        = "NotReady"
	NodeAvailableReasonCannotDetermine = "CannotDetermine"

	// Reasons of the Node Degraded condition.
	NodeDegradedReasonDegraded        = "Degraded"
	NodeDegradedReasonAsExpected      = "AsExpected"
	NodeDegradedReasonCannotDetermine = "CannotDetermine"
)

// HealthKind names the rule of this server that produced a Health insight. It
// is the prefix of the insight's uid (the rest identifies the subject), so clients can
// tell, for example, a degraded ClusterOperator from an unavailable one
// without parsing the summary.
type HealthKind string

// Health insight kinds. The first nine are the rules of oc; the others are
// this project's additions for inputs oc rejects or limits it does not have.
const (
	// HealthNodeUnavailable reports a node seriously unavailable while it is not
	// updating.
	HealthNodeUnavailable HealthKind = "health-node-unavailable"
	// HealthNodeDegraded reports a node its machine-config daemon calls degraded.
	HealthNodeDegraded HealthKind = "health-node-degraded"
	// HealthPoolPaused reports a paused MachineConfigPool, whose nodes are left
	// out of the update.
	HealthPoolPaused HealthKind = "health-mcp-paused"
	// HealthAlert reports a firing alert that bears on the update.
	HealthAlert HealthKind = "health-alert"
	// HealthCVNoFailing reports the ClusterVersion has no Failing condition.
	HealthCVNoFailing HealthKind = "health-cv-nofailing"
	// HealthCVFailing reports a ClusterVersion whose Failing condition is True.
	HealthCVFailing HealthKind = "health-cv-failing"
	// HealthCOUnavailable reports a ClusterOperator is unavailable.
	HealthCOUnavailable HealthKind = "health-co-unavailable"
	// HealthCODegraded reports a ClusterOperator is degraded.
	HealthCODegraded HealthKind = "health-co-degraded"
	// HealthPreviousPartial reports an update started before the previous one
	// completed.
	HealthPreviousPartial HealthKind = "health-cv-previouspartial"

	// HealthCVMissing reports there is no ClusterVersion.
	HealthCVMissing HealthKind = "health-cv-missing"
	// HealthCVNoProgressing reports the ClusterVersion has no Progressing condition.
	HealthCVNoProgressing HealthKind = "health-cv-noprogressing"
	// HealthCVBadHistory reports a ClusterVersion history that is empty or holds a
	// version that is not semantic.
	HealthCVBadHistory HealthKind = "health-cv-badhistory"
	// HealthCONone reports there are no ClusterOperators.
	HealthCONone HealthKind = "health-co-none"
	// HealthPoolBadSelector reports a MachineConfigPool's node selector cannot be parsed.
	HealthPoolBadSelector HealthKind = "health-mcp-selector"
	// HealthUnrepresentable reports an operator, pool or node whose name the API
	// cannot carry.
	HealthUnrepresentable HealthKind = "health-unrepresentable"
	// HealthInsightsOmitted reports insights left out of UpdateStatus to stay
	// within its limits.
	HealthInsightsOmitted HealthKind = "health-omitted"
	// HealthPoolsOmitted reports worker pools left out of UpdateStatus to stay
	// within its limits.
	HealthPoolsOmitted HealthKind = "health-pools-omitted"
	// HealthInformerExpired reports an external informer whose UpdateInformer
	// lease lapsed: its insights have left the API.
	HealthInformerExpired HealthKind = "health-informer-expired"
	// HealthInformerRefused reports an UpdateInformer whose insights the server
	// does not accept, with the reason.
	HealthInformerRefused HealthKind = "health-informer-refused"
	// HealthUnknownKind is the kind of a uid no rule of this project produces.
	HealthUnknownKind HealthKind = ""
)
