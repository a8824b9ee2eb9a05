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

package view

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"hash"
	"io"
	"time"

	"github.com/update-status/apiserver/pkg/apis/update"
	"github.com/update-status/apiserver/pkg/apis/update/v1alpha1"
	"github.com/update-status/apiserver/pkg/insights"
)

// fingerprint identifies the content of a served object as clients see it on
// the wire, resourceVersion aside. The outer conditions' lastTransitionTime
// is left out: it is the creationTimestamp, which is in. Equal fingerprints
// mean equal content.
type fingerprint [sha256.Size]byte

// digest returns 64 bits of the fingerprint for the resourceVersion.
func (f fingerprint) digest() uint64 { return binary.BigEndian.Uint64(f[:8]) }

// insightSums gives the content fingerprint of an insight the view has
// already fingerprinted as an object of its own: the object named by the
// insight's subject, built from the very content the engine shares between
// results. ok is false for an insight it has not seen.
type insightSums func(in insights.Insight) (sum uint64, ok bool)

// fingerprintOf computes the fingerprint of obj. Every insight already
// fingerprinted as an object of its own counts by that fingerprint (known),
// and a worker pool's insight list that is the very list of the previous
// computation (the engine shares unchanged lists) counts by its earlier
// fingerprint (lists), so the cost follows what changed, not the size of the
// object. The rest is encoded as JSON straight into the hash. obj is the
// served object and status the engine's status it was converted from.
func fingerprintOf(obj *update.UpdateStatus, status *v1alpha1.UpdateStatusStatus, known insightSums, st *fingerprintState) (fingerprint, error) {
	h := sha256.New()
	f := fingerprinter{h: h, enc: json.NewEncoder(h), known: known, buf: st.buf[:0]}
	defer func() { st.buf = f.buf[:0] }()
	writeField(h, string(obj.UID))
	writeField(h, obj.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z"))
	for i := range obj.Status.Conditions {
		c := &obj.Status.Conditions[i]
		writeField(h, c.Type)
		writeField(h, string(c.Status))
		writeField(h, c.Reason)
		writeField(h, c.Message)
	}
	if cp := status.ControlPlane; cp != nil {
		writeField(h, "controlPlane")
		outer := *cp
		outer.Informers = nil
		f.encode(&outer)
		for i := range cp.Informers {
			inf := &cp.Informers[i]
			writeField(h, inf.Name)
			f.buf = f.buf[:0]
			for j := range inf.Insights {
				in := &inf.Insights[j]
				u := &in.Insight
				f.insight(in.UID, in.AcquiredAt.Time, u.Type, insights.Insight{UID: in.UID, ClusterVersion: u.ClusterVersionStatusInsight,
					ClusterOperator: u.ClusterOperatorStatusInsight, MachineConfigPool: u.MachineConfigPoolStatusInsight,
					Node: u.NodeStatusInsight, Health: u.HealthInsight})
			}
			h.Write(f.buf)
		}
	}
	next := listSums{}
	for i := range status.WorkerPools {
		p := &status.WorkerPools[i]
		writeField(h, "pool")
		outer := *p
		outer.Informers = nil
		f.encode(&outer)
		for j := range p.Informers {
			inf := &p.Informers[j]
			writeField(h, inf.Name)
			if len(inf.Insights) == 0 {
				continue
			}
			key := listKey{pool: p.Name, informer: inf.Name}
			list, err := f.list(inf.Insights, st.lists[key])
			if err != nil {
				return fingerprint{}, err
			}
			next[key] = list
			h.Write(list.sum[:])
		}
	}
	if f.err != nil {
		return fingerprint{}, f.err
	}
	st.lists = next
	var fp fingerprint
	h.Sum(fp[:0])
	return fp, nil
}

// listKey names the insight list of one informer in one worker pool.
type listKey struct{ pool, informer string }

// listSum is the fingerprint of one insight list, the list it was taken of
// and the digest of each of its insights (digestSize bytes each, in order).
type listSum struct {
	list    []v1alpha1.WorkerPoolInsight
	digests []byte
	sum     [sha256.Size]byte
}

// digestSize is the size of an insight's digest in a list: a tag byte and
// 64 bits.
const digestSize = 9

// list fingerprints one worker pool insight list. The engine never modifies
// a list it returned and lists insights in a stable order, so an insight
// that sits where it sat in the previous list with the same content pointer
// and envelope keeps its digest: the cost follows what changed, not the
// length of the list.
func (f *fingerprinter) list(list []v1alpha1.WorkerPoolInsight, prev listSum) (listSum, error) {
	if len(prev.list) == len(list) && &prev.list[0] == &list[0] {
		return prev, nil
	}
	out := listSum{list: list, digests: make([]byte, 0, digestSize*len(list))}
	for k := range list {
		in := &list[k]
		if k < len(prev.list) && samePoolInsight(&prev.list[k], in) {
			out.digests = append(out.digests, prev.digests[digestSize*k:digestSize*(k+1)]...)
			continue
		}
		u := &in.Insight
		f.buf = f.buf[:0]
		f.insight(in.UID, in.AcquiredAt.Time, u.Type, insights.Insight{UID: in.UID, MachineConfigPool: u.MachineConfigPoolStatusInsight,
			Node: u.NodeStatusInsight, Health: u.HealthInsight})
		if f.err != nil {
			return listSum{}, f.err
		}
		out.digests = appendDigest(out.digests, f.buf)
	}
	out.sum = sha256.Sum256(out.digests)
	return out, nil
}

// appendDigest appends the digest of one insight's record (as
// fingerprinter.insight wrote it): a known insight's record is already a tag
// and 64 bits; any other is hashed to 64 bits.
func appendDigest(b, record []byte) []byte {
	if len(record) == digestSize {
		return append(b, record...)
	}
	sum := sha256.Sum256(record)
	return append(append(b, record[0]|0x80), sum[:8]...)
}

// samePoolInsight reports whether a and b are served alike: the same
// envelope and the same engine content (pointers to content the engine never
// modifies).
func samePoolInsight(a, b *v1alpha1.WorkerPoolInsight) bool {
	return a.UID == b.UID && a.AcquiredAt.Equal(&b.AcquiredAt) && a.Insight.Type == b.Insight.Type &&
		a.Insight.MachineConfigPoolStatusInsight == b.Insight.MachineConfigPoolStatusInsight &&
		a.Insight.NodeStatusInsight == b.Insight.NodeStatusInsight && a.Insight.HealthInsight == b.Insight.HealthInsight
}

// listSums are the fingerprints of the worker pools' insight lists of the
// last computation.
type listSums map[listKey]listSum

// fingerprintState is what fingerprintOf keeps from one call to the next:
// the fingerprints of the last lists and a buffer.
type fingerprintState struct {
	lists listSums
	buf   []byte
}

type fingerprinter struct {
	h     hash.Hash
	enc   *json.Encoder
	known insightSums
	buf   []byte
	err   error
}

func (f *fingerprinter) encode(v any) {
	if err := f.enc.Encode(v); err != nil && f.err == nil {
		f.err = err
	}
}

// insight appends one insight of a list to f.buf: its envelope, then its
// content (the one set member of c) by its known fingerprint or, when
// unknown, as JSON.
func (f *fingerprinter) insight(uid string, acquired time.Time, typ v1alpha1.InsightType, c insights.Insight) {
	var v any
	switch {
	case c.ClusterVersion != nil:
		v = c.ClusterVersion
	case c.ClusterOperator != nil:
		v = c.ClusterOperator
	case c.MachineConfigPool != nil:
		v = c.MachineConfigPool
	case c.Node != nil:
		v = c.Node
	case c.Health != nil:
		v = c.Health
	default:
		f.buf = appendField(append(f.buf, 'n'), uid)
		return
	}
	if f.known != nil {
		if sum, ok := f.known(c); ok {
			// The insight's object fingerprint covers its uid, acquiredAt
			// and type too (the same insight, served as an object).
			f.buf = append(f.buf, 'k')
			f.buf = binary.BigEndian.AppendUint64(f.buf, sum)
			return
		}
	}
	f.buf = appendField(f.buf, uid)
	f.buf = binary.BigEndian.AppendUint64(f.buf, uint64(acquired.Unix()))
	f.buf = appendField(f.buf, string(typ))
	b, err := json.Marshal(v)
	if err != nil && f.err == nil {
		f.err = err
	}
	f.buf = append(f.buf, 'j')
	f.buf = appendField(f.buf, string(b))
}

func appendField(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// writeField writes s with a length prefix, so that field boundaries are
// unambiguous.
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	_, _ = io.WriteString(h, s) // a hash.Hash's Write never returns an error
}
