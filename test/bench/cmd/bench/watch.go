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

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// write is one source write of the churn: the etcd resourceVersion it got,
// the moment the request was sent, the node it changed (an index into
// churn.nodes) and the spec.unschedulable it set.
type write struct {
	rv            uint64
	at            time.Time
	node          int32
	unschedulable bool
}

// event is one watch event as a watcher received it: the input part of its
// resourceVersion (the highest etcd resourceVersion among the inputs of the
// computation, docs/watch.md), the moment it arrived, and, for a watcher of
// a per-node resource, the node it is about (an index into churn.nodes; -1
// for a node the churn does not write, or when not recorded).
type event struct {
	input uint64
	at    time.Time
	node  int32
}

// inputFactor is the multiplier of the etcd resourceVersion in the served
// resourceVersion (pkg/view/rv.go).
const inputFactor = 1_000_000

// deliveryLags pairs each write with the first event whose inputs include it
// and returns the lags; delivered[i] tells whether an event covered
// writes[i]. Both slices must be ordered (writes by rv, events by arrival).
// It suits a resource whose every event carries the whole state
// (updatestatuses): any event whose inputs reach the write brings it.
func deliveryLags(writes []write, events []event) (lags []time.Duration, delivered []bool) {
	delivered = make([]bool, len(writes))
	e := 0
	for i, w := range writes {
		for e < len(events) && events[e].input < w.rv {
			e++
		}
		if e == len(events) {
			continue
		}
		delivered[i] = true
		lags = append(lags, events[e].at.Sub(w.at))
	}
	return lags, delivered
}

// nodeDeliveryLags is deliveryLags for a resource with one object per node
// (nodeprogressinsights), whose events carry one node each: an event about
// another node, even from the same revision or a later one, says nothing
// about the write. A write is delivered by the first event about its node
// whose input part reaches the write's rv. A write that changed nothing the
// node's object shows produces no event, and stays undelivered (see
// tallyDelivery). events must be in arrival order; it is not modified.
func nodeDeliveryLags(writes []write, events []event) (lags []time.Duration, delivered []bool) {
	delivered = make([]bool, len(writes))
	// The events of each node, in arrival order: the watch cache sends
	// them in resourceVersion order, so their inputs do not decrease.
	byNode := make(map[int32][]event)
	for _, e := range events {
		if e.node >= 0 {
			byNode[e.node] = append(byNode[e.node], e)
		}
	}
	for i, w := range writes {
		for _, e := range byNode[w.node] {
			if e.input >= w.rv {
				delivered[i] = true
				lags = append(lags, e.at.Sub(w.at))
				break
			}
		}
	}
	return lags, delivered
}

// tallyDelivery counts, over the watchers' delivered flags (one slice per
// watcher, each as long as the writes), the writes no watcher received an
// event for (noEvent: the write changed nothing the watched objects show,
// or its event came after the window for everyone), and the (write,
// watcher) pairs where another watcher got the write and this one did not
// (missed).
func tallyDelivery(delivered [][]bool, writes int) (missed, noEvent int) {
	got := make([]bool, writes)
	for _, d := range delivered {
		for i, ok := range d {
			got[i] = got[i] || ok
		}
	}
	for i, ok := range got {
		if !ok {
			noEvent++
			continue
		}
		for _, d := range delivered {
			if !d[i] {
				missed++
			}
		}
	}
	return missed, noEvent
}

// watcher is one open WATCH of a resource and what it received.
type watcher struct {
	mu     sync.Mutex
	events []event
	bytes  int64
	synced chan struct{}
	err    error
	// rewatches counts the streams after the first: like a reflector, a
	// watcher whose stream ends (the watch cache closes watchers that fall
	// too far behind) watches again from the last resourceVersion it got.
	rewatches int
	last      uint64 // the last resourceVersion received
	syncOnce  sync.Once

	// collection is set for a watcher of a whole collection
	// (nodeprogressinsights): its streams start from now
	// (sendInitialEvents=false), with no initial events, and it is
	// connected as soon as the server answers 200. Without it the watcher
	// follows one object, and its first event is the object's initial
	// ADDED.
	collection bool
	// nodes, when set, maps an object's name to the node index recorded in
	// its events.
	nodes map[string]int32
}

func (w *watcher) markSynced() { w.syncOnce.Do(func() { close(w.synced) }) }

// fromNow is the query that starts a collection watch at the current
// revision, without the initial ADDED of every object (docs/watch.md, WATCH).
const fromNow = "&sendInitialEvents=false&resourceVersionMatch=NotOlderThan"

// watch follows rawURL until ctx ends, watching again from the last
// resourceVersion received whenever a stream ends.
// A resumed stream that brings nothing (its resourceVersion left the
// cache's window) is followed by a watch from now: with the current object,
// or, for a collection, with no initial events.
func (w *watcher) watch(ctx context.Context, h *httpClient, rawURL string) {
	start := rawURL
	if w.collection {
		start += fromNow
	}
	received := w.run(ctx, h, start)
	for w.err == nil && ctx.Err() == nil {
		w.mu.Lock()
		w.rewatches++
		from := w.last
		w.mu.Unlock()
		u := start
		if received && from != 0 {
			u = rawURL + "&resourceVersion=" + strconv.FormatUint(from, 10)
		}
		received = w.run(ctx, h, u)
	}
}

var (
	rvKey       = []byte(`"resourceVersion":"`)
	metadataKey = []byte(`"metadata":{`)
	nameKey     = []byte(`"name":"`)
)

// jsonMeta finds the object's resourceVersion and name in one JSON watch
// event line without decoding it: the first resourceVersion (metadata comes
// before spec and status), and the first name inside the metadata.
func jsonMeta(line []byte) (rv uint64, name []byte, ok bool) {
	i := bytes.Index(line, rvKey)
	if i < 0 {
		return 0, nil, false
	}
	rest := line[i+len(rvKey):]
	j := bytes.IndexByte(rest, '"')
	rv, err := strconv.ParseUint(string(rest[:max(j, 0)]), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	if m := bytes.Index(line, metadataKey); m >= 0 {
		meta := line[m+len(metadataKey):]
		if k := bytes.Index(meta, nameKey); k >= 0 {
			n := meta[k+len(nameKey):]
			if e := bytes.IndexByte(n, '"'); e >= 0 {
				name = n[:e]
			}
		}
	}
	return rv, name, true
}

// run reads the watch stream until ctx ends. It does not decode the
// objects: it finds the object's resourceVersion (and name) in each event,
// in the JSON line (jsonMeta) or in the protobuf frame (protobufMeta), as
// h's media type says. It returns whether the stream brought an event.
func (w *watcher) run(ctx context.Context, h *httpClient, rawURL string) bool {
	w.mu.Lock()
	resumed := w.last != 0 || w.rewatches > 0
	w.mu.Unlock()
	fail := func(err error) bool {
		if !resumed {
			w.err = err
			w.markSynced()
		}
		return false
	}
	resp, err := h.do(ctx, rawURL)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != 200 {
		return fail(fmt.Errorf("watch: %s", resp.Status))
	}
	// The first event of the first stream of one object is the initial
	// ADDED; a stream that resumes from a resourceVersion has none, nor
	// does a collection watch from now.
	first := !resumed && !w.collection
	if w.collection {
		w.markSynced()
	}
	received := false
	record := func(rv uint64, name []byte, size int) {
		received = true
		node := int32(-1)
		if w.nodes != nil {
			if n, ok := w.nodes[string(name)]; ok {
				node = n
			}
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		w.last = rv
		if first {
			first = false
			w.markSynced()
			return
		}
		w.events = append(w.events, event{input: rv / inputFactor, at: time.Now(), node: node})
		w.bytes += int64(size)
	}
	// A buffer that holds a whole UpdateStatus event; a collection's events
	// are small (a longer line is assembled anyway).
	size := 4 << 20
	if w.collection {
		size = 64 << 10
	}
	r := bufio.NewReaderSize(resp.Body, size)
	if h.accept == acceptProtobuf {
		var frame []byte
		for {
			if frame, err = readFrame(r, frame); err != nil {
				break
			}
			if rv, name, err := protobufMeta(frame); err == nil {
				record(rv, name, len(frame)+4)
			}
		}
	} else {
		eachLine(r, func(line []byte) {
			if rv, name, ok := jsonMeta(line); ok {
				record(rv, name, len(line)+1)
			}
		})
	}
	if !received && !w.collection {
		return fail(fmt.Errorf("watch ended before the first event"))
	}
	return received
}

// churn makes rate node changes per second that the engine sees (it toggles
// spec.unschedulable of worker nodes) and records each write.
type churn struct {
	kube  kubernetes.Interface
	nodes []string
	rate  int
	// objects toggles the objects called nodes; nil cordons and uncordons
	// the Nodes of that name through kube.
	objects toggler
	// next is the index of the next change. It carries over from one run
	// to the next, so that every run writes real changes (a run starting
	// over would set nodes to the state they already have: no-op patches).
	next int

	mu     sync.Mutex
	writes []write
	errs   atomic.Int64
	// state is spec.unschedulable of each node (by index) as the churn
	// last left it, and unsure the nodes whose last patch failed (it may
	// have been applied or not). Without them a write skipped or failed
	// in one cycle would make the same node's write of the next cycle a
	// no-op: the apiserver answers it with the old resourceVersion and no
	// watcher ever sees it, so it would count as late or unseen.
	state  map[int]bool
	unsure map[int]bool
}

func (c *churn) run(ctx context.Context) {
	tick := time.NewTicker(time.Second / time.Duration(c.rate))
	defer tick.Stop()
	sem := make(chan struct{}, 32)
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := c.next; ; i++ {
		select {
		case <-ctx.Done():
			c.next = i
			return
		case <-tick.C:
		}
		select {
		case sem <- struct{}{}:
		default:
			c.skip(i) // the API is too slow to keep the rate: count it
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			c.write(ctx, i)
		})
	}
}

// target returns the state write i sets its node to: the opposite of the
// state the churn left it in, read from the API when the last patch failed;
// for a node not written yet, cycleTarget.
func (c *churn) target(ctx context.Context, i int) bool {
	k := i % len(c.nodes)
	c.mu.Lock()
	state, known := c.state[k]
	unsure := c.unsure[k]
	c.mu.Unlock()
	if unsure {
		if on, err := c.toggler().get(ctx, c.nodes[k]); err == nil {
			state, known = on, true
		}
	}
	if !known {
		return c.cycleTarget(i)
	}
	return !state
}

// cycleTarget is the state write i's cycle over the nodes sets: every node
// starts schedulable, and each cycle toggles them all.
func (c *churn) cycleTarget(i int) bool {
	return (i/len(c.nodes))%2 == 0
}

// skip records that write i was not sent: its node stays as it is.
func (c *churn) skip(i int) {
	c.errs.Add(1)
	k := i % len(c.nodes)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.state[k]; !ok && !c.unsure[k] {
		c.setState(k, !c.cycleTarget(i))
	}
}

// setState records node k's state; c.mu is held.
func (c *churn) setState(k int, unschedulable bool) {
	if c.state == nil {
		c.state = map[int]bool{}
	}
	c.state[k] = unschedulable
	delete(c.unsure, k)
}

// write sends write i: its object toggled to the state target says.
func (c *churn) write(ctx context.Context, i int) {
	k := i % len(c.nodes)
	name := c.nodes[k]
	on := c.target(ctx, i)
	at := time.Now()
	rvText, now, err := c.toggler().set(ctx, name, on)
	if err != nil {
		c.mu.Lock()
		if c.unsure == nil {
			c.unsure = map[int]bool{}
		}
		c.unsure[k] = true
		c.mu.Unlock()
		if ctx.Err() == nil {
			c.errs.Add(1)
			klog.V(2).ErrorS(err, "Churn write failed", "object", name)
		}
		return
	}
	rv, err := strconv.ParseUint(rvText, 10, 64)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setState(k, now)
	if err != nil {
		c.errs.Add(1)
		return
	}
	c.writes = append(c.writes, write{rv: rv, at: at, node: int32(k), unschedulable: on})
}

// toggler sets and reads the two-valued state a churn toggles on objects
// named by name.
type toggler interface {
	// set puts the object in state on and returns its resourceVersion and
	// the state the API answered with.
	set(ctx context.Context, name string, on bool) (rv string, now bool, err error)
	get(ctx context.Context, name string) (bool, error)
}

func (c *churn) toggler() toggler {
	if c.objects != nil {
		return c.objects
	}
	return nodeCordon{c.kube}
}

// nodeCordon cordons (on) and uncordons Nodes: a merge patch of
// spec.unschedulable.
type nodeCordon struct{ kube kubernetes.Interface }

func (n nodeCordon) set(ctx context.Context, name string, on bool) (string, bool, error) {
	patch := fmt.Appendf(nil, `{"spec":{"unschedulable":%t}}`, on)
	node, err := n.kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return "", false, err
	}
	return node.ResourceVersion, node.Spec.Unschedulable, nil
}

func (n nodeCordon) get(ctx context.Context, name string) (bool, error) {
	node, err := n.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	return node.Spec.Unschedulable, nil
}

// reset forgets the writes of the previous run.
func (c *churn) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = nil
	c.errs.Store(0)
}

// nodeIndex maps each node the churn writes to its index in nodes.
func (c *churn) nodeIndex() map[string]int32 {
	m := make(map[string]int32, len(c.nodes))
	for i, n := range c.nodes {
		m[n] = int32(i)
	}
	return m
}

// sortedWrites returns the writes ordered by resourceVersion.
func (c *churn) sortedWrites() []write {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := slices.Clone(c.writes)
	slices.SortFunc(w, func(a, b write) int {
		switch {
		case a.rv < b.rv:
			return -1
		case a.rv > b.rv:
			return 1
		}
		return 0
	})
	return w
}
