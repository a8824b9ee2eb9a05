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
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// protobufMagic starts every object the apimachinery protobuf serializer
// writes: the object is a runtime.Unknown after it.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// protobufMeta finds the resourceVersion and the name of the object in one
// frame of a protobuf watch stream without decoding the object: the frame is
// a metav1.WatchEvent in raw protobuf (object = field 2, a RawExtension whose
// raw = field 1), holding a runtime.Unknown around the object, whose
// metadata (field 1) has the name as field 1 and the resourceVersion as
// field 6. Each step reads a length-delimited field in place; name points
// into frame.
func protobufMeta(frame []byte) (rv uint64, name []byte, err error) {
	ext := field(frame, 2)
	obj, err := unknownRaw(field(ext, 1))
	if err != nil {
		return 0, nil, fmt.Errorf("object: %w", err)
	}
	meta := field(obj, 1)
	raw := field(meta, 6)
	if raw == nil {
		return 0, nil, fmt.Errorf("no resourceVersion")
	}
	rv, err = strconv.ParseUint(string(raw), 10, 64)
	return rv, field(meta, 1), err
}

// unknownRaw returns the raw bytes of a runtime.Unknown after the magic.
func unknownRaw(b []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(b, protobufMagic)
	if !ok {
		return nil, fmt.Errorf("no protobuf magic")
	}
	return field(rest, 2), nil
}

// field returns the bytes of the first length-delimited field num of the
// message b, or nil.
func field(b []byte, num protowire.Number) []byte {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil
		}
		b = b[l:]
		if typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return nil
			}
			if n == num {
				return v
			}
			b = b[l:]
			continue
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return nil
		}
		b = b[l:]
	}
	return nil
}

// readFrame reads one length-delimited frame (a 4-byte big-endian length,
// then the frame) into buf, growing it when needed.
func readFrame(r io.Reader, buf []byte) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return buf, err
	}
	n := int(binary.BigEndian.Uint32(head[:]))
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	_, err := io.ReadFull(r, buf)
	return buf, err
}
