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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/install"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
)

// TestEncodingCacheRevisions checks which revision's encodings a read
// shares: those of the 8 newest revisions read, never displaced by an
// older one.
func TestEncodingCacheRevisions(t *testing.T) {
	c := encodingCache{keep: 8} // the table below assumes 8
	shared := map[string]*revisionEncodings{}
	tests := []struct {
		rv, note string
		// same names the earlier read whose encodings this one must share;
		// "" means encodings of its own.
		same string
	}{
		{rv: "5", note: "first"},
		{rv: "5", note: "again", same: "first"},
		{rv: "4", note: "older, with room"},
		{rv: "4", note: "older again", same: "older, with room"},
		{rv: "6", note: "6"}, {rv: "7", note: "7"}, {rv: "8", note: "8"}, {rv: "9", note: "9"}, {rv: "10", note: "10"},
		{rv: "11", note: "eighth kept"},
		{rv: "3", note: "older than all kept"},
		{rv: "12", note: "newer, displacing 4"},
		{rv: "4", note: "displaced"},
		{rv: "5", note: "still kept", same: "first"},
		{rv: "x", note: "unparsable"},
		{rv: "12", note: "newest still", same: "newer, displacing 4"},
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
	c := encodingCache{keep: DefaultEncodingRevisions}
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

// TestCompressedAnswer checks what a GET leaves in its Compressed: the
// encoding it was answered with and that encoding's gzip form, made once
// per revision and encoding and shared by the GETs of it; nothing when the
// encoding failed or the request has no Compressed.
func TestCompressedAnswer(t *testing.T) {
	c := encodingCache{keep: DefaultEncodingRevisions}
	encode := func(obj runtime.Object, w io.Writer) error {
		if obj.(*update.UpdateStatus).ResourceVersion == "0" {
			return errors.New("cannot encode")
		}
		_, err := io.WriteString(w, strings.Repeat("status of "+obj.(*update.UpdateStatus).ResourceVersion+" ", 1000))
		return err
	}
	get := func(rv string, withCompressed bool) (string, *Compressed) {
		ctx, answer := context.Background(), (*Compressed)(nil)
		if withCompressed {
			ctx, answer = WithCompressed(ctx)
		}
		obj := &cachedStatus{UpdateStatus: &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}, encodings: c.of(rv), answer: compressedFrom(ctx)}
		var out bytes.Buffer
		_ = obj.CacheEncode("json", encode, &out)
		return out.String(), answer
	}
	gunzip := func(gz []byte) string {
		r, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	body, answer := get("7", true)
	n, gz, ok := answer.Answer()
	if !ok || n != len(body) || gunzip(gz) != body || len(gz) >= len(body) {
		t.Fatalf("first GET of 7: %v, %d bytes of %d, gzip of %d bytes", ok, n, len(body), len(gz))
	}
	_, again := get("7", true)
	if _, gz2, ok := again.Answer(); !ok || &gz2[0] != &gz[0] {
		t.Errorf("second GET of 7: %v, gzip form made again", ok)
	}
	body8, answer8 := get("8", true)
	if _, gz8, ok := answer8.Answer(); !ok || gunzip(gz8) != body8 {
		t.Errorf("GET of 8: %v, not its own gzip form", ok)
	}
	_, failed := get("0", true)
	if _, _, ok := failed.Answer(); ok {
		t.Error("a failed encoding has a gzip form")
	}
	if body, _ := get("9", false); body == "" {
		t.Error("a GET without Compressed is not answered")
	}
	if _, _, ok := (*Compressed)(nil).Answer(); ok {
		t.Error("no Compressed has an answer")
	}
	if _, _, ok := (&Compressed{}).Answer(); ok {
		t.Error("a Compressed no GET filled has an answer")
	}
}

// TestPublishedPrepares checks which encodings of a new revision are made
// ahead of its first GET: those, and only those, of the served version's
// encoders that a GET read the revision before in (the identifiers being
// the library's GET encoders'), with their gzip forms where a GET was sent
// one; so also after revisions nobody read while a read one is kept, and
// nothing once none is.
func TestPublishedPrepares(t *testing.T) {
	scheme := install.NewScheme()
	codecs := serializer.NewCodecFactory(scheme)
	r := &REST{encodings: &encodingCache{keep: DefaultEncodingRevisions}, encoders: newWatchEncodings(codecs, v1alpha1.SchemeGroupVersion)}
	encoderOf := func(mediaType string) runtime.Encoder {
		info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
		if !ok {
			t.Fatalf("no serializer for %s", mediaType)
		}
		return codecs.EncoderForVersion(info.Serializer, v1alpha1.SchemeGroupVersion) // as the GET handler does
	}
	jsonEnc, protoEnc, yamlEnc := encoderOf(runtime.ContentTypeJSON), encoderOf(runtime.ContentTypeProtobuf), encoderOf(runtime.ContentTypeYAML)
	status := func(rv string) *update.UpdateStatus {
		return &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: rv}}
	}
	get := func(rv string, enc runtime.Encoder, compressed bool) {
		_, answer := WithCompressed(context.Background())
		obj := &cachedStatus{UpdateStatus: status(rv), encodings: r.encodings.of(rv), answer: answer}
		if err := obj.CacheEncode(enc.Identifier(), enc.Encode, io.Discard); err != nil {
			t.Fatal(err)
		}
		if compressed {
			if _, _, ok := answer.Answer(); !ok {
				t.Fatalf("GET of %s: no gzip form", rv)
			}
		}
	}
	made := func(rv string, enc runtime.Encoder) (encoded, compressed bool) {
		e := r.encodings.of(rv)
		e.mu.Lock()
		defer e.mu.Unlock()
		got, ok := e.byID[enc.Identifier()]
		return ok && got.raw != nil, ok && got.gz != nil
	}

	get("1", protoEnc, true)
	get("1", jsonEnc, false)
	work := r.prepare(status("2"))
	if work == nil {
		t.Fatal("nothing prepared after a read revision")
	}
	work()
	for _, tc := range []struct {
		name                      string
		enc                       runtime.Encoder
		wantEncoded, wantCompress bool
	}{
		{"protobuf, read with gzip", protoEnc, true, true},
		{"json, read plain", jsonEnc, true, false},
		{"yaml, not read", yamlEnc, false, false},
	} {
		if encoded, compressed := made("2", tc.enc); encoded != tc.wantEncoded || compressed != tc.wantCompress {
			t.Errorf("revision 2, %s: encoded %v, compressed %v; want %v, %v", tc.name, encoded, compressed, tc.wantEncoded, tc.wantCompress)
		}
	}
	// A client that polls more slowly than revisions come skips some: what
	// it read stays wanted while its revision is kept (revision 1, until
	// revision 9 displaces it), however many nobody read came since.
	for rev := 3; rev <= DefaultEncodingRevisions+1; rev++ {
		rv := strconv.Itoa(rev)
		work := r.prepare(status(rv))
		if work == nil {
			t.Fatalf("revision %s not prepared, revision 1 read and kept", rv)
		}
		work()
		if encoded, compressed := made(rv, protoEnc); !encoded || !compressed {
			t.Errorf("revision %s, protobuf read with gzip in revision 1: encoded %v, compressed %v", rv, encoded, compressed)
		}
	}
	if work := r.prepare(status(strconv.Itoa(DefaultEncodingRevisions + 2))); work != nil {
		t.Errorf("revision %d prepared after the %d kept before it, none read", DefaultEncodingRevisions+2, DefaultEncodingRevisions)
	}
	if work := r.prepare(status("x")); work != nil {
		t.Error("an unparsable revision prepared")
	}
}

// TestWatchEventEncodings checks which identifiers of the watch handler's
// event encoder the server encodes itself (the handler's encode is not
// called) and which it leaves to the handler, and that the watch events of
// one revision share its encodings whichever object the watch cache hands
// out.
func TestWatchEventEncodings(t *testing.T) {
	scheme := install.NewScheme()
	codecs := serializer.NewCodecFactory(scheme)
	gv := v1alpha1.SchemeGroupVersion
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("no JSON serializer")
	}
	object := codecs.EncoderForVersion(info.Serializer, gv).Identifier()
	stream := codecs.EncoderForVersion(info.StreamSerializer.Serializer, gv).Identifier()
	other := codecs.EncoderForVersion(info.Serializer, update.SchemeGroupVersion).Identifier()
	eventID := func(name string, embedded, encoder runtime.Identifier, eventType watch.EventType) runtime.Identifier {
		raw, err := json.Marshal(map[string]string{"name": name, "embeddedEncoder": string(embedded), "encoder": string(encoder), "eventType": string(eventType)})
		if err != nil {
			t.Fatal(err)
		}
		return runtime.Identifier(raw)
	}
	r := &REST{encodings: &encodingCache{keep: DefaultEncodingRevisions}, encoders: newWatchEncodings(codecs, gv)}
	us := &update.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: "9"}}

	for _, tc := range []struct {
		name string
		id   runtime.Identifier
		own  bool
	}{
		{"the object in JSON, as GET and the watch embed it", object, true},
		{"a MODIFIED event in JSON", eventID("watch", object, stream, watch.Modified), true},
		{"an ADDED event in JSON", eventID("watch", object, stream, watch.Added), true},
		{"a DELETED event", eventID("watch", object, stream, watch.Deleted), false},
		{"an event of another version", eventID("watch", other, stream, watch.Modified), false},
		{"an event with an unknown encoder", eventID("watch", object, "table", watch.Modified), false},
		{"another name", eventID("watch-embedded", object, stream, watch.Modified), false},
		{"not JSON", "{", false},
	} {
		calls := 0
		encode := func(obj runtime.Object, w io.Writer) error {
			calls++
			_, err := io.WriteString(w, "the handler's")
			return err
		}
		// Two watchers, one given the store's object and one the watch
		// cache's wrapper of it: one encoding.
		var outs []string
		for _, obj := range []runtime.Object{us, cacheable{us}} {
			shared, ok := r.watchObject(obj).(*cachedStatus)
			if !ok || shared.UpdateStatus != us {
				t.Fatalf("%s: watch object %T", tc.name, shared)
			}
			var out bytes.Buffer
			if err := shared.CacheEncode(tc.id, encode, &out); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			outs = append(outs, out.String())
		}
		if wantCalls := map[bool]int{true: 0, false: 1}[tc.own]; calls != wantCalls || outs[0] != outs[1] {
			t.Errorf("%s: the handler encoded %d times (want %d), watchers got %.40q and %.40q", tc.name, calls, wantCalls, outs[0], outs[1])
		}
		if tc.own && !strings.Contains(outs[0], `"resourceVersion":"9"`) {
			t.Errorf("%s: %.80q", tc.name, outs[0])
		}
	}
}

// cacheable wraps an object as the watch cache does for its watchers.
type cacheable struct{ *update.UpdateStatus }

func (c cacheable) CacheEncode(_ runtime.Identifier, encode func(runtime.Object, io.Writer) error, w io.Writer) error {
	return encode(c.GetObject(), w)
}
func (c cacheable) GetObject() runtime.Object { return c.DeepCopyObject() }
