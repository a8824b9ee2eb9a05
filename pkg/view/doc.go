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
