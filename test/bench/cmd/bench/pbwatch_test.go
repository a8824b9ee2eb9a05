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
	"bytes"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/apiserver"
)

// TestProtobufMeta encodes watch events the way the server does
// (the apiserver's protobuf stream serializer) and reads them back with the
// benchmark's frame reader.
func TestProtobufMeta(t *testing.T) {
	info, ok := runtime.SerializerInfoForMediaType(apiserver.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok || info.StreamSerializer == nil {
		t.Fatal("no protobuf stream serializer")
	}
	enc := apiserver.Codecs.EncoderForVersion(info.Serializer, v1alpha1.SchemeGroupVersion)
	var stream bytes.Buffer
	fw := info.StreamSerializer.NewFrameWriter(&stream)
	objs := []runtime.Object{
		&v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: "1000001", Labels: map[string]string{"a": "b"}}},
		&v1alpha1.NodeProgressInsight{ObjectMeta: metav1.ObjectMeta{Name: "worker-3", ResourceVersion: "2000001", Labels: map[string]string{v1alpha1.LabelPool: "worker"}}},
	}
	for _, obj := range objs {
		var raw bytes.Buffer
		if err := enc.Encode(obj, &raw); err != nil {
			t.Fatal(err)
		}
		ev := &metav1.WatchEvent{Type: string(watch.Modified), Object: runtime.RawExtension{Raw: raw.Bytes()}}
		if err := info.StreamSerializer.Encode(ev, fw); err != nil {
			t.Fatal(err)
		}
	}
	var buf []byte
	for i, want := range []uint64{1000001, 2000001} {
		var err error
		buf, err = readFrame(&stream, buf)
		if err != nil {
			t.Fatal(err)
		}
		got, name, err := protobufMeta(buf)
		if wantName := []string{"cluster", "worker-3"}[i]; err != nil || got != want || string(name) != wantName {
			t.Fatalf("resourceVersion %d, name %q, %v; want %d, %q", got, name, err, want, wantName)
		}
	}
	if _, _, err := protobufMeta([]byte("not a frame")); err == nil {
		t.Error("garbage gave no error")
	}
}
