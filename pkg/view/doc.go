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

// Package view is the live view between the source informers and the REST
// storage of UpdateStatus.
//
// A View takes snapshots of the source caches, hands them to the insight
// engine, wraps the result in the served object (metadata and the outer
// Available condition) and publishes a new Revision only when the content
// changed. It folds bursts of source events into one computation after a
// bounded delay, re-evaluates at the moment the engine says the result would
// change by time alone, and derives every resourceVersion from its inputs so
// that replicas agree (docs/watch.md). All time comes from an injected clock.
//
// The view knows nothing about HTTP; package registry/updatestatus serves its
// revisions.
package view
