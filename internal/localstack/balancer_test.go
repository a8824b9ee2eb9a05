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
	"bufio"
	"fmt"
	"net"
	"testing"

	"github.com/update-status/apiserver/internal/testio"
)

// TestBalancer spreads connections over two backends that answer with
// their name, passes over a backend that no longer accepts, and counts
// the open connections of each.
func TestBalancer(t *testing.T) {
	var backends []string
	listeners := map[string]net.Listener{}
	for _, name := range []string{"a", "b"} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				go func() {
					defer func() { _ = c.Close() }()
					_, _ = fmt.Fprintln(c, name)
					_, _ = bufio.NewReader(c).ReadString('\n') // until the client closes
				}()
			}
		}()
		backends = append(backends, l.Addr().String())
		listeners[name] = l
	}
	b, err := StartBalancer(backends...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	dial := func() (net.Conn, string) {
		t.Helper()
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", b.Port()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return c, line[:len(line)-1]
	}

	_, first := dial()
	c2, second := dial()
	if first == second {
		t.Errorf("two connections went to %s", first)
	}
	active := b.Active()
	if active[backends[0]] != 1 || active[backends[1]] != 1 {
		t.Errorf("active %v, want one each", active)
	}
	_ = c2.Close()
	testio.Eventually(t, "the closed connection no longer counted", func() bool {
		n := 0
		for _, v := range b.Active() {
			n += v
		}
		return n == 1
	})

	_ = listeners["a"].Close()
	for range 3 {
		if _, got := dial(); got != "b" {
			t.Errorf("with a gone, a connection went to %s", got)
		}
	}
}
