package rec

import (
	"encoding/base64"
	"strconv"

	"github.com/kwire/kwire/codec/internal/recjson"
	"github.com/kwire/kwire/codec/internal/slab"

	"github.com/kwire/kwire/codec/tree"
)

// jsonSink writes the records' JSON (the form AppendJSON's doc lays out)
// as the reader goes, one unit at a time, keeping one decompression
// buffer per nesting depth.
type jsonSink struct {
	d       *decoder
	out     *[]byte
	flushFn func()
	first   []bool   // per open list: nothing written in it yet
	recs    []bool   // per open list: a batch's records
	scratch [][]byte // decompressed bytes, one buffer per nesting depth
	data    slab.Slab
}

func (j *jsonSink) w(s string)  { *j.out = append(*j.out, s...) }
func (j *jsonSink) c(c byte)    { *j.out = append(*j.out, c) }
func (j *jsonSink) int(v int64) { *j.out = strconv.AppendInt(*j.out, v, 10) }
func (j *jsonSink) field(name string, v int64) {
	j.w(`,"`)
	j.w(name)
	j.w(`":`)
	j.int(v)
}

// b64 writes b as a base64 string; a big one in pieces, flushed between
// them, so the output never holds all of it.
func (j *jsonSink) b64(b []byte) {
	const piece = 3 << 18 // 768 KiB: whole base64 quanta
	if len(b) <= piece || j.flushFn == nil {
		*j.out = recjson.AppendBase64(*j.out, b)
		return
	}
	j.c('"')
	for len(b) > 0 {
		n := min(len(b), piece)
		*j.out = base64.StdEncoding.AppendEncode(*j.out, b[:n])
		b = b[n:]
		j.flushFn()
	}
	j.c('"')
}

// item starts an element of the open list.
func (j *jsonSink) item() {
	k := len(j.first) - 1
	if !j.first[k] {
		j.c(',')
	}
	j.first[k] = false
}

func (j *jsonSink) beginList(records bool) {
	j.c('[')
	j.first, j.recs = append(j.first, true), append(j.recs, records)
}

func (j *jsonSink) endList() []*tree.Node {
	j.first, j.recs = j.first[:len(j.first)-1], j.recs[:len(j.recs)-1]
	j.c(']')
	return nil
}

func (j *jsonSink) raw(b []byte, _, p, end int) *tree.Node {
	if j.recs[len(j.recs)-1] {
		return nil // a batch's records list records alone
	}
	j.item()
	j.w(`{"_raw":`)
	j.b64(b[p:end])
	j.c('}')
	return nil
}

func (j *jsonSink) truncated(b []byte, _, off, end int, _ int8) *tree.Node {
	j.item()
	j.w(`{"_truncated":`)
	j.b64(b[off:end])
	j.c('}')
	return nil
}

func (j *jsonSink) batch(b []byte, _, off, _ int, ctx *batchCtx) batchNodes {
	j.item()
	j.w(`{"baseOffset":`)
	j.int(ctx.base)
	j.field("partitionLeaderEpoch", be32(b[off+12:]))
	j.field("magic", int64(int8(b[off+16])))
	j.field("crc", int64(uint32(be32(b[off+17:]))))
	j.w(`,"attributes":`)
	*j.out = recjson.AppendAttrs(*j.out, ctx.attrs, 2)
	j.field("lastOffsetDelta", be32(b[off+23:]))
	j.field("baseTimestamp", ctx.baseTS)
	j.field("maxTimestamp", ctx.maxTS)
	j.field("producerId", be64(b[off+43:]))
	j.field("producerEpoch", be16(b[off+51:]))
	j.field("baseSequence", be32(b[off+53:]))
	j.w(`,"records":`)
	return batchNodes{}
}

func (j *jsonSink) inflated(*tree.Node, []byte, int, int) *tree.Node { return nil }

func (j *jsonSink) noRecords() { j.w("null") }

func (j *jsonSink) children(*tree.Node, []*tree.Node) {}

func (j *jsonSink) endBatch(b []byte, off, end int, ctx *batchCtx, warned bool) {
	if ctx.attrs&7 != CodecNone {
		j.w(`,"_compressed":`)
		j.b64(b[off+batchHeader : end])
	}
	if warned {
		j.w(`,"_raw":`)
		j.b64(b[off:end])
	}
	j.c('}')
}

func (j *jsonSink) record(b []byte, _ int, v *recView) *tree.Node {
	r := v.r
	j.item()
	j.w(`{"attributes":`)
	j.int(int64(r.attr))
	j.field("timestampDelta", r.tsd.v)
	j.field("offsetDelta", r.od.v)
	j.field("offset", v.offset)
	j.field("timestamp", v.timestamp)
	j.w(`,"key":`)
	if r.stage >= stKey {
		j.bytes(&r.key)
		*j.out = withPayload(*j.out, &v.key)
	} else {
		j.w("null")
	}
	j.w(`,"value":`)
	if r.stage >= stValue {
		j.bytes(&r.val)
		*j.out = withPayload(*j.out, &v.val)
	} else {
		j.w("null")
	}
	j.w(`,"headers":[`)
	if r.stage >= stHeaders {
		for i := range r.hdrs {
			h := &r.hdrs[i]
			if i > 0 {
				j.c(',')
			}
			j.w(`{"key":`)
			*j.out = recjson.AppendHeaderKey(*j.out, h.key.raw, h.key.null)
			j.w(`,"value":`)
			if h.hasVal {
				j.bytes(&h.val)
			} else {
				j.w("null")
			}
			j.c('}')
		}
	}
	j.c(']')
	if v.control {
		j.w(`,"control":{"keyVersion":`)
		j.int(be16(r.key.raw))
		j.w(`,"type":`)
		*j.out = recjson.AppendControlType(*j.out, v.ctype)
		if cv := &v.cv; cv.ok {
			j.field("valueVersion", cv.version)
			if cv.epoch {
				j.field("coordinatorEpoch", cv.coordinatorEpoch)
			}
			if cv.data {
				j.w(`,"data":`)
				if v.data != nil {
					*j.out = recjson.AppendNode(*j.out, v.data)
				} else {
					j.b64(cv.raw)
				}
			}
		}
		j.c('}')
	}
	j.c('}')
	return nil
}

// bytes writes a key, value or header value: null, or as recjson.AppendBytes.
func (j *jsonSink) bytes(f *varField) {
	if f.null {
		j.w("null")
		return
	}
	*j.out = recjson.AppendBytes(*j.out, f.raw)
}

func (j *jsonSink) message(b []byte, _ int, m *msgParse, shift int64) msgNodes {
	j.item()
	j.w(`{"offset":`)
	j.int(m.offset)
	if shift != 0 {
		j.field("absoluteOffset", m.offset+shift)
	}
	j.field("magic", int64(m.magic))
	j.field("crc", int64(m.crc))
	j.w(`,"attributes":`)
	*j.out = recjson.AppendAttrs(*j.out, m.attrs, int(m.magic))
	if m.magic == 1 {
		j.field("timestamp", m.ts)
	}
	if m.stage >= 1 {
		j.w(`,"key":`)
		j.bytes(&m.key)
		*j.out = withPayload(*j.out, &j.d.mkey)
	}
	if m.stage >= 2 {
		if wrapperOf(m) {
			j.w(`,"messages":`)
		} else {
			j.w(`,"value":`)
			j.bytes(&m.val)
			*j.out = withPayload(*j.out, &j.d.mval)
		}
	}
	return msgNodes{}
}

// wrapperOf reports whether m is a compressed wrapper whose value holds
// a message set.
func wrapperOf(m *msgParse) bool { return m.stage >= 2 && m.attrs&7 != CodecNone && !m.val.null }

func (j *jsonSink) endMessage(b []byte, m *msgParse, warned bool) {
	if wrapperOf(m) {
		j.w(`,"_compressed":`)
		j.b64(m.val.raw)
	}
	if warned {
		j.w(`,"_raw":`)
		j.b64(b[m.off:m.end])
	}
	j.c('}')
}

func (j *jsonSink) buffer(depth int) []byte {
	for len(j.scratch) <= depth {
		j.scratch = append(j.scratch, nil)
	}
	return j.scratch[depth]
}

func (j *jsonSink) keep(depth int, out []byte, _ bool) []byte {
	j.scratch[depth] = out
	return out
}

func (j *jsonSink) flush() {
	if j.flushFn != nil {
		j.flushFn()
	}
}

func (j *jsonSink) payloadSlab() *slab.Slab { return nil }

func (j *jsonSink) dataSlab() *slab.Slab {
	j.data.Reset()
	return &j.data
}
