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

package updatestatus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/pkg/apis/update"
)

// TestEncodingCacheRevisions checks which revision's encodings a read
// shares: the newest revision read, never displaced by an older one.
func TestEncodingCacheRevisions(t *testing.T) {
	var c encodingCache
	shared := map[string]*revisionEncodings{}
	tests := []struct {
		rv, note string
		// same names the earlier read whose encodings this one must share;
		// "" means encodings of its own.
		same string
	}{
		{rv: "5", note: "first"},
		{rv: "5", note: "again", same: "first"},
		{rv: "4", note: "older"},
		{rv: "5", note: "after the older one", same: "first"},
		{rv: "6", note: "newer"},
		{rv: "6", note: "newer again", same: "newer"},
		{rv: "5", note: "the one before"},
		{rv: "x", note: "unparsable"},
		{rv: "6", note: "newest still", same: "newer"},
	}
	for _, tt := range tests {
		got := c.of(tt.rv)
		if tt.same != "" {
			if got != shared[tt.same] {
				t.Errorf("%s (rv %s): encodings not shared with %q", tt.note, tt.rv, tt.same)
			}
			continue
		}
		for note, e := range shared {
			if got == e {
				t.Errorf("%s (rv %s): shares the encodings of %q", tt.note, tt.rv, note)
			}
		}
		shared[tt.note] = got
	}
}

// TestCacheEncode checks that each encoder encodes a revision once and
// every GET of it gets those bytes, errors included, up to maxEncodings
// encoders.
func TestCacheEncode(t *testing.T) {
	var c encodingCache
	calls := map[runtime.Identifier]int{}
	encoder := func(id runtime.Identifier) func(runtime.Object, io.Writer) error {
		return func(obj runtime.Object, w io.Writer) error {
			calls[id]++
			if id == "failing" {
				return errors.New("cannot encode")
			}
			_, err := fmt.Fprintf(w, "%s of %s", id, obj.(*update.UpdateStatus).ResourceVersion)
			return err
		}
	}
	get := func(rv string, id runtime.Identifier) (string, error) {
		us := &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: rv}}
		obj := &cachedStatus{UpdateStatus: us, encodings: c.of(rv)}
		var out bytes.Buffer
		err := obj.CacheEncode(id, encoder(id), &out)
		return out.String(), err
	}

	tests := []struct {
		rv        string
		id        runtime.Identifier
		want      string
		wantErr   bool
		wantCalls int
	}{
		{rv: "7", id: "json", want: "json of 7", wantCalls: 1},
		{rv: "7", id: "json", want: "json of 7", wantCalls: 1},
		{rv: "7", id: "protobuf", want: "protobuf of 7", wantCalls: 1},
		{rv: "7", id: "failing", wantErr: true, wantCalls: 1},
		{rv: "7", id: "failing", wantErr: true, wantCalls: 1},
		{rv: "8", id: "json", want: "json of 8", wantCalls: 2},
		{rv: "8", id: "json", want: "json of 8", wantCalls: 2},
	}
	for i, tt := range tests {
		got, err := get(tt.rv, tt.id)
		if (err != nil) != tt.wantErr || got != tt.want || calls[tt.id] != tt.wantCalls {
			t.Errorf("step %d (rv %s, %s): %q, %v after %d encodings; want %q, error %v, %d encodings",
				i, tt.rv, tt.id, got, err, calls[tt.id], tt.want, tt.wantErr, tt.wantCalls)
		}
	}

	// Past maxEncodings encoders (json is one already), a new one encodes
	// every time.
	for i := 1; i < maxEncodings; i++ {
		if _, err := get("8", runtime.Identifier(fmt.Sprint("other-", i))); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if got, err := get("8", "one too many"); err != nil || got != "one too many of 8" {
			t.Fatalf("%q, %v", got, err)
		}
	}
	if calls["one too many"] != 2 || calls["json"] != 2 {
		t.Errorf("encodings past the bound: %d, json: %d; want 2 and 2", calls["one too many"], calls["json"])
	}
}
