package view

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"hash"
	"io"

	"github.com/update-status/apiserver/pkg/apis/update"
)

// fingerprint identifies the content of a served object as clients see it on
// the wire, resourceVersion aside. The outer conditions' lastTransitionTime
// is left out: it is the creationTimestamp, which is in. Equal fingerprints
// mean equal content.
type fingerprint struct {
	sum [sha256.Size]byte
	// size is the length of the JSON encoding of the status layers, a measure
	// of the object's weight in memory and on the wire.
	size int
}

// digest returns 64 bits of the fingerprint for the resourceVersion.
func (f fingerprint) digest() uint64 { return binary.BigEndian.Uint64(f.sum[:8]) }

// fingerprintOf computes the fingerprint of obj. The large layers are encoded
// as JSON straight into the hash, so no copy of the encoding is kept.
func fingerprintOf(obj *update.UpdateStatus) (fingerprint, error) {
	h := sha256.New()
	cw := &countingWriter{w: h}
	writeField(h, string(obj.UID))
	writeField(h, obj.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z"))
	for i := range obj.Status.Conditions {
		c := &obj.Status.Conditions[i]
		writeField(h, c.Type)
		writeField(h, string(c.Status))
		writeField(h, c.Reason)
		writeField(h, c.Message)
	}
	enc := json.NewEncoder(cw)
	if err := enc.Encode(obj.Status.ControlPlane); err != nil {
		return fingerprint{}, err
	}
	if err := enc.Encode(obj.Status.WorkerPools); err != nil {
		return fingerprint{}, err
	}
	var f fingerprint
	h.Sum(f.sum[:0])
	f.size = cw.n
	return f, nil
}

// writeField writes s with a length prefix, so that field boundaries are
// unambiguous.
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	io.WriteString(h, s)
}

type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
