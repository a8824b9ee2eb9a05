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

// write is one source write of the churn: the etcd resourceVersion it got
// and the moment the request was sent.
type write struct {
	rv uint64
	at time.Time
}

// event is one watch event as a watcher received it: the input part of its
// resourceVersion (the highest etcd resourceVersion among the inputs of the
// computation, docs/watch.md) and the moment it arrived.
type event struct {
	input uint64
	at    time.Time
}

// inputFactor is the multiplier of the etcd resourceVersion in the served
// resourceVersion (pkg/view/rv.go).
const inputFactor = 1_000_000

// deliveryLags pairs each write with the first event whose inputs include it
// and returns the lags, and how many writes no event covered. Both slices
// must be ordered (writes by rv, events by arrival).
func deliveryLags(writes []write, events []event) (lags []time.Duration, missed int) {
	e := 0
	for _, w := range writes {
		for e < len(events) && events[e].input < w.rv {
			e++
		}
		if e == len(events) {
			missed++
			continue
		}
		lags = append(lags, events[e].at.Sub(w.at))
	}
	return lags, missed
}

// watcher is one open WATCH of updatestatuses and what it received.
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
}

func (w *watcher) markSynced() { w.syncOnce.Do(func() { close(w.synced) }) }

// watch follows rawURL until ctx ends, watching again from the last
// resourceVersion received whenever a stream ends.
// A resumed stream that brings nothing (its resourceVersion left the
// cache's window) is followed by a watch from now, with the current object.
func (w *watcher) watch(ctx context.Context, h *httpClient, rawURL string) {
	received := w.run(ctx, h, rawURL)
	for w.err == nil && ctx.Err() == nil {
		w.mu.Lock()
		w.rewatches++
		from := w.last
		w.mu.Unlock()
		u := rawURL
		if received {
			u += "&resourceVersion=" + strconv.FormatUint(from, 10)
		}
		received = w.run(ctx, h, u)
	}
}

var rvKey = []byte(`"resourceVersion":"`)

// run reads the watch stream until ctx ends. It does not decode the
// objects: it finds the object's resourceVersion in each event, in the JSON
// line (the first resourceVersion: metadata comes before status) or in the
// protobuf frame (protobufResourceVersion), as h's media type says.
// It returns whether the stream brought an event.
func (w *watcher) run(ctx context.Context, h *httpClient, rawURL string) bool {
	w.mu.Lock()
	resumed := w.last != 0
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
	// The first event of the first stream is the initial ADDED; a stream
	// that resumes from a resourceVersion has none.
	first := !resumed
	received := false
	record := func(rv uint64, size int) {
		received = true
		w.mu.Lock()
		defer w.mu.Unlock()
		w.last = rv
		if first {
			first = false
			w.markSynced()
			return
		}
		w.events = append(w.events, event{input: rv / inputFactor, at: time.Now()})
		w.bytes += int64(size)
	}
	r := bufio.NewReaderSize(resp.Body, 4<<20)
	if h.accept == acceptProtobuf {
		var frame []byte
		for {
			if frame, err = readFrame(r, frame); err != nil {
				break
			}
			if rv, err := protobufResourceVersion(frame); err == nil {
				record(rv, len(frame)+4)
			}
		}
	} else {
		// bufio.Reader.ReadSlice looks at each byte once; a bufio.Scanner
		// would search the whole partial line again after every read.
		var long []byte // a line longer than the buffer, assembled
		for {
			chunk, err := r.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				long = append(long, chunk...)
				continue
			}
			if err != nil {
				break
			}
			line := chunk
			if long != nil {
				line = append(long, chunk...)
				long = nil
			}
			i := bytes.Index(line, rvKey)
			if i < 0 {
				continue
			}
			rest := line[i+len(rvKey):]
			j := bytes.IndexByte(rest, '"')
			if rv, err := strconv.ParseUint(string(rest[:max(j, 0)]), 10, 64); err == nil {
				record(rv, len(line)+1)
			}
		}
	}
	if !received {
		return fail(fmt.Errorf("watch ended before the first event"))
	}
	return true
}

// churn makes rate node changes per second that the engine sees (it toggles
// spec.unschedulable of worker nodes) and records each write.
type churn struct {
	kube  kubernetes.Interface
	nodes []string
	rate  int
	// next is the index of the next change. It carries over from one run
	// to the next, so that every run writes real changes (a run starting
	// over would set nodes to the state they already have: no-op patches).
	next int

	mu     sync.Mutex
	writes []write
	errs   atomic.Int64
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
		name := c.nodes[i%len(c.nodes)]
		unschedulable := (i/len(c.nodes))%2 == 0
		select {
		case sem <- struct{}{}:
		default:
			c.errs.Add(1) // the API is too slow to keep the rate: count it
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			patch := fmt.Appendf(nil, `{"spec":{"unschedulable":%t}}`, unschedulable)
			at := time.Now()
			n, err := c.kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
			if err != nil {
				if ctx.Err() == nil {
					c.errs.Add(1)
					klog.V(2).ErrorS(err, "Churn patch failed", "node", name)
				}
				return
			}
			rv, err := strconv.ParseUint(n.ResourceVersion, 10, 64)
			if err != nil {
				c.errs.Add(1)
				return
			}
			c.mu.Lock()
			c.writes = append(c.writes, write{rv: rv, at: at})
			c.mu.Unlock()
		})
	}
}

// reset forgets the writes of the previous run.
func (c *churn) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = nil
	c.errs.Store(0)
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
