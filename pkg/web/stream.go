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

package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// hub is the browsers connected to one event stream.
type hub struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

// subscriber is one connected browser.
type subscriber struct {
	ch chan event
	// resync is signalled when events were dropped: the browser gets a
	// snapshot instead.
	resync chan struct{}
}

// event is one encoded server-sent event.
type event struct {
	seq  uint64
	data []byte
}

func newHub() hub { return hub{subs: map[*subscriber]struct{}{}} }

// broadcast queues ev for every browser; one whose queue is full gets a
// snapshot instead.
func (b *hub) broadcast(ev event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		select {
		case s.ch <- ev:
		default:
			select {
			case s.resync <- struct{}{}:
			default:
			}
		}
	}
}

// count returns the number of connected browsers.
func (b *hub) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

func (b *hub) subscribe(buffer int) *subscriber {
	s := &subscriber{ch: make(chan event, buffer), resync: make(chan struct{}, 1)}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

func (b *hub) unsubscribe(s *subscriber) {
	b.mu.Lock()
	delete(b.subs, s)
	b.mu.Unlock()
}

func encodeEvent(name string, seq uint64, v any) event {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"marshal": err.Error()})
	}
	var b bytes.Buffer
	b.Grow(len(data) + 64)
	fmt.Fprintf(&b, "event: %s\nid: %d\ndata: ", name, seq)
	b.Write(data)
	b.WriteString("\n\n")
	return event{seq: seq, data: b.Bytes()}
}

// writeTimeout bounds one write to a browser: a browser that reads nothing
// for this long loses its stream (and reconnects).
const writeTimeout = 30 * time.Second

// streamConfig is what serveStream needs of its handler.
type streamConfig struct {
	clock     clock.WithTicker
	heartbeat time.Duration
	buffer    int
	// snapshot returns the whole picture and its sequence number.
	snapshot func() (uint64, any)
}

// serveStream serves one browser the events of b: a snapshot first (and
// again whenever it fell behind), then what b broadcasts, and heartbeats,
// until the request ends.
func serveStream(w http.ResponseWriter, r *http.Request, b *hub, cfg streamConfig) {
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sub := b.subscribe(cfg.buffer)
	defer b.unsubscribe(sub)
	write := func(p []byte) bool {
		if err := rc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		if _, err := w.Write(p); err != nil {
			return false
		}
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return false
		}
		return true
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		klog.V(2).InfoS("A browser reconnected; it gets a fresh snapshot", "lastEventID", last, "remote", r.RemoteAddr, "path", r.URL.Path)
	}
	// The browser retries after 2s when the stream breaks.
	if !write([]byte("retry: 2000\n\n")) {
		return
	}
	var sent uint64
	sendSnapshot := func() bool {
		seq, snap := cfg.snapshot()
		sent = seq
		return write(encodeEvent("snapshot", seq, snap).data)
	}
	if !sendSnapshot() {
		return
	}
	beat := cfg.clock.NewTicker(cfg.heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-sub.resync:
			// Events were dropped: forget the queue, send the whole picture.
			for drained := false; !drained; {
				select {
				case <-sub.ch:
				default:
					drained = true
				}
			}
			if !sendSnapshot() {
				return
			}
		case ev := <-sub.ch:
			if ev.seq <= sent {
				continue // already in the snapshot
			}
			if !write(ev.data) {
				return
			}
		case <-beat.C():
			if !write([]byte("event: ping\ndata: " + strconv.FormatInt(cfg.clock.Now().UnixMilli(), 10) + "\n\n")) {
				return
			}
		}
	}
}
