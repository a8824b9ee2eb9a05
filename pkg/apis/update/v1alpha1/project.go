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
