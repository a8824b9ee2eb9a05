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

// Package testio holds helpers shared by tests of several packages: I/O,
// waiting for a condition, the watches of a fake clientset, and the live
// heap.
package testio

import (
	"bytes"
	"iter"
	"strings"
	"sync"
	"testing"
)

// SyncBuffer is a bytes.Buffer that one goroutine may write while another
// reads it, for example the output of a command that runs in the
// background.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WantError fails the test unless err is what want asks for: no error when
// want is empty, else an error whose text contains want. It reports whether
// want asked for an error, after which a test usually has nothing more to
// check.
func WantError(t testing.TB, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("error %v, want one containing %q", err, want)
	}
	return want != ""
}

// ByName yields each object of got with what want holds under its name,
// after failing the test unless got has as many objects as want has names;
// an object whose name want lacks is an error and is not yielded.
func ByName[T interface{ GetName() string }, W any](t testing.TB, got []T, want map[string]W) iter.Seq2[T, W] {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d objects, want %d", len(got), len(want))
	}
	return func(yield func(T, W) bool) {
		t.Helper()
		for _, obj := range got {
			w, ok := want[obj.GetName()]
			if !ok {
				t.Errorf("unexpected object %s", obj.GetName())
				continue
			}
			if !yield(obj, w) {
				return
			}
		}
	}
}
