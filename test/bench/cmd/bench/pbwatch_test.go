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

// TestProtobufResourceVersion encodes watch events the way the server does
// (the apiserver's protobuf stream serializer) and reads them back with the
// benchmark's frame reader.
func TestProtobufResourceVersion(t *testing.T) {
	info, ok := runtime.SerializerInfoForMediaType(apiserver.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok || info.StreamSerializer == nil {
		t.Fatal("no protobuf stream serializer")
	}
	enc := apiserver.Codecs.EncoderForVersion(info.Serializer, v1alpha1.SchemeGroupVersion)
	var stream bytes.Buffer
	fw := info.StreamSerializer.Framer.NewFrameWriter(&stream)
	for _, rv := range []string{"1000001", "2000001"} {
		obj := &v1alpha1.UpdateStatus{ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: rv, Labels: map[string]string{"a": "b"}}}
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
	for _, want := range []uint64{1000001, 2000001} {
		var err error
		buf, err = readFrame(&stream, buf)
		if err != nil {
			t.Fatal(err)
		}
		got, err := protobufResourceVersion(buf)
		if err != nil || got != want {
			t.Fatalf("resourceVersion %d, %v; want %d", got, err, want)
		}
	}
	if _, err := protobufResourceVersion([]byte("not a frame")); err == nil {
		t.Error("garbage gave no error")
	}
}
