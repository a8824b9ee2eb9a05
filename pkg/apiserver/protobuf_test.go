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
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	restclientwatch "k8s.io/client-go/rest/watch"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
)

// The Accept headers of a client that prefers protobuf and takes JSON too
// (library-go, many controllers), and of one that takes protobuf only.
const (
	protobufOrJSON = "application/vnd.kubernetes.protobuf, application/json"
	protobufOnly   = "application/vnd.kubernetes.protobuf"
)

// decodeProtobuf decodes a protobuf body into a v1alpha1 object.
func decodeProtobuf[T runtime.Object](t *testing.T, body []byte, into T) T {
	t.Helper()
	s := protobuf.NewSerializer(apiserver.Scheme, apiserver.Scheme)
	out, _, err := s.Decode(body, nil, into)
	if err != nil {
		t.Fatalf("decoding protobuf: %v", err)
	}
	return out.(T)
}

func TestProtobufGetAndList(t *testing.T) {
	s := newSyntheticServer(t, 30, false)
	want := decode[v1alpha1.UpdateStatus](t, s.do(t, http.MethodGet, objPath, "", nil))
	for _, accept := range []string{protobufOrJSON, protobufOnly} {
		t.Run(accept, func(t *testing.T) {
			rec := s.do(t, http.MethodGet, objPath, "", map[string]string{"Accept": accept})
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != runtime.ContentTypeProtobuf {
				t.Fatalf("GET: %d %q", rec.Code, rec.Header().Get("Content-Type"))
			}
			got := decodeProtobuf(t, rec.Body.Bytes(), &v1alpha1.UpdateStatus{})
			if got.ResourceVersion != want.ResourceVersion || target(got) != target(&want) ||
				len(got.Status.WorkerPools) != len(want.Status.WorkerPools) || len(got.Status.Conditions) != len(want.Status.Conditions) {
				t.Fatalf("protobuf object differs from JSON: %s %s", got.ResourceVersion, target(got))
			}

			rec = s.do(t, http.MethodGet, base+"/updatestatuses", "", map[string]string{"Accept": accept})
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != runtime.ContentTypeProtobuf {
				t.Fatalf("LIST: %d %q", rec.Code, rec.Header().Get("Content-Type"))
			}
			list := decodeProtobuf(t, rec.Body.Bytes(), &v1alpha1.UpdateStatusList{})
			if len(list.Items) != 1 || list.Items[0].ResourceVersion != want.ResourceVersion {
				t.Fatalf("LIST: %d items", len(list.Items))
			}
		})
	}
	// Errors are Status objects in the negotiated encoding too.
	rec := s.do(t, http.MethodGet, base+"/updatestatuses/other", "", map[string]string{"Accept": protobufOrJSON})
	if rec.Code != http.StatusNotFound {
		t.Fatalf("missing object: %d", rec.Code)
	}
	if st := decodeProtobuf(t, rec.Body.Bytes(), &metav1.Status{}); st.Reason != metav1.StatusReasonNotFound {
		t.Fatalf("status %+v", st)
	}
}

func TestProtobufWatch(t *testing.T) {
	src, comp, s := newVersionedServer(t)
	hs := httptest.NewServer(s.handler)
	defer hs.Close()
	for i, accept := range []string{protobufOrJSON, protobufOnly} {
		t.Run(accept, func(t *testing.T) {
			resp := watchUpdateStatuses(t, hs.URL, accept)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != runtime.ContentTypeProtobuf+";stream=watch" {
				t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			info, ok := runtime.SerializerInfoForMediaType(apiserver.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
			if !ok || info.StreamSerializer == nil {
				t.Fatal("no protobuf stream serializer")
			}
			frames := info.StreamSerializer.NewFrameReader(resp.Body)
			dec := restclientwatch.NewDecoder(streaming.NewDecoder(frames, info.StreamSerializer.Serializer), info.Serializer)
			typ, obj, err := dec.Decode()
			if err != nil {
				t.Fatalf("the watch ended without an event: %v", err)
			}
			us, ok := obj.(*v1alpha1.UpdateStatus)
			if typ != watch.Added || !ok || us.Name != "cluster" {
				t.Fatalf("first event %s %T", typ, obj)
			}
			want := fmt.Sprintf("4.18.%d", i)
			change(src, comp, want, uint64(200+i))
			typ, obj, err = dec.Decode()
			if err != nil || typ != watch.Modified || target(obj.(*v1alpha1.UpdateStatus)) != want {
				t.Fatalf("second event %s %v", typ, err)
			}
		})
	}
}

// watchUpdateStatuses opens a watch of updatestatuses on the server at url
// that accepts accept; the watch ends with the test.
func watchUpdateStatuses(t *testing.T, url, accept string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+base+"/updatestatuses?watch=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() }) // a test reading a response
	return resp
}
