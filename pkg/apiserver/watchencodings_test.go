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

package apiserver_test

import (
	"bytes"
	"io"
	"net/http/httptest"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/update-status/apiserver/internal/viewtest"
	"github.com/update-status/apiserver/pkg/apiserver"
)

// TestSharedWatchEncodingsAsPlain compares the watch streams of
// updatestatuses of a server that encodes the events of a revision itself,
// once for all watchers, and of one whose watch handlers encode them: the
// same frames, byte for byte, for the initial ADDED event and a MODIFIED
// one, in JSON and protobuf, for each of two watchers.
func TestSharedWatchEncodingsAsPlain(t *testing.T) {
	type server struct {
		src  *viewtest.Snapshotter
		comp *versionedComputer
		url  string
	}
	start := func(plain bool) server {
		src, comp := viewtest.NewSnapshotter(100), &versionedComputer{target: "4.17.5"}
		s := newTestServer(t, serverOptions{sources: src, computer: comp, plain: plain})
		s.waitReady(t)
		hs := httptest.NewServer(s.handler)
		t.Cleanup(hs.Close)
		return server{src: src, comp: comp, url: hs.URL}
	}
	shared, plain := start(false), start(true)

	for _, mediaType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
		info, ok := runtime.SerializerInfoForMediaType(apiserver.Codecs.SupportedMediaTypes(), mediaType)
		if !ok || info.StreamSerializer == nil {
			t.Fatalf("no stream serializer for %s", mediaType)
		}
		// frames opens a watch and returns its next frame on each call.
		frames := func(s server) func() []byte {
			r := info.StreamSerializer.NewFrameReader(watchUpdateStatuses(t, s.url, mediaType).Body)
			return func() []byte {
				var frame bytes.Buffer
				buf := make([]byte, 64<<10)
				for {
					n, err := r.Read(buf)
					frame.Write(buf[:n])
					if err == io.ErrShortBuffer {
						continue
					}
					if err != nil {
						t.Fatalf("%s: reading a frame: %v", mediaType, err)
					}
					return frame.Bytes()
				}
			}
		}
		want := frames(plain)
		got := []func() []byte{frames(shared), frames(shared)}
		check := func(event string) {
			w := want()
			for i, g := range got {
				if f := g(); !bytes.Equal(f, w) {
					t.Errorf("%s %s event, watcher %d: %d bytes, the handler's encoding %d bytes\n%q\n%q", mediaType, event, i, len(f), len(w), f, w)
				}
			}
		}
		check("ADDED")
		for _, s := range []server{shared, plain} {
			change(s.src, s.comp, "4.18."+mediaType, uint64(200+len(mediaType)))
		}
		check("MODIFIED")
	}
}
