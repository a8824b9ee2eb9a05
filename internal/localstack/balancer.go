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

package localstack

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Balancer spreads TCP connections over backends as a Service does for
// the aggregator: each new connection goes to the next backend that
// accepts one, and stays with it until either side closes it. A backend
// that refuses (a replica that was killed) is passed over.
type Balancer struct {
	l        net.Listener
	backends []string // host:port

	mu     sync.Mutex
	next   int
	active map[string]int // open connections by backend
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
}

// StartBalancer listens on a free loopback port and forwards to backends
// (host:port).
func StartBalancer(backends ...string) (*Balancer, error) {
	if len(backends) == 0 {
		return nil, errors.New("balancer: no backends")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &Balancer{l: l, backends: backends, active: map[string]int{}, conns: map[net.Conn]bool{}}
	b.wg.Add(1)
	go b.serve()
	return b, nil
}

// Port is the port the balancer listens on.
func (b *Balancer) Port() int { return b.l.Addr().(*net.TCPAddr).Port }

// Active returns the open connections of each backend.
func (b *Balancer) Active() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]int, len(b.active))
	for k, v := range b.active {
		out[k] = v
	}
	return out
}

// Close stops listening, closes every connection and waits for them.
func (b *Balancer) Close() {
	_ = b.l.Close()
	b.mu.Lock()
	b.closed = true
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *Balancer) serve() {
	defer b.wg.Done()
	for {
		c, err := b.l.Accept()
		if err != nil {
			return
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.forward(c)
		}()
	}
}

// forward connects c to the next backend that accepts, and copies both
// ways until one side closes.
func (b *Balancer) forward(c net.Conn) {
	defer func() { _ = c.Close() }()
	b.mu.Lock()
	start := b.next
	b.next = (b.next + 1) % len(b.backends)
	b.mu.Unlock()
	var up net.Conn
	var backend string
	for i := range b.backends {
		backend = b.backends[(start+i)%len(b.backends)]
		var err error
		if up, err = net.DialTimeout("tcp", backend, 2*time.Second); err == nil {
			break
		}
	}
	if up == nil {
		return
	}
	defer func() { _ = up.Close() }()
	if !b.track(backend, c, up, 1) {
		return
	}
	defer b.track(backend, c, up, -1)
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		_ = up.Close()
		close(done)
	}()
	_, _ = io.Copy(c, up)
	_ = c.Close()
	<-done
}

// track counts a connection pair in or out; it refuses one once the
// balancer is closed.
func (b *Balancer) track(backend string, c, up net.Conn, delta int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if delta > 0 {
		if b.closed {
			return false
		}
		b.conns[c], b.conns[up] = true, true
	} else {
		delete(b.conns, c)
		delete(b.conns, up)
	}
	b.active[backend] += delta
	return true
}
