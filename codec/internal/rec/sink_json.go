package rec

import (
	"encoding/base64"
	"strconv"

	"github.com/kwire/kwire/codec/internal/rec/recjson"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// jsonSink writes the records' JSON (the form WriteJSON's doc lays out)
// through a jsontext.Writer as the reader goes, one unit at a time,
// keeping one decompression buffer per nesting depth. Leaves are
// recjson's.
type jsonSink struct {
	d       *decoder
	w       *jsontext.Writer
	own     jsontext.Writer // WriteJSON's, over its caller's buffer
	out     *[]byte         // WriteJSON's caller's buffer, and its flush
	hook    func()
	recs    []bool   // per open list: a batch's records
	scratch [][]byte // decompressed bytes, one buffer per nesting depth
	data    slab.Slab
}

// num writes the member key with the number v.
func (j *jsonSink) num(key string, v int64) {
	j.w.Key(key)
	j.w.Int(v)
}

// num64 writes the member key with the value of an int64 field (Kafka's
// int64 or varlong): a number, or a string of its digits with
// Options.Int64Strings.
func (j *jsonSink) num64(key string, v int64) {
	if !j.d.opts.Int64Strings {
		j.num(key, v)
		return
	}
	j.w.Key(key)
	j.w.Value()
	j.w.B = append(j.w.B, '"')
	j.w.B = strconv.AppendInt(j.w.B, v, 10)
	j.w.B = append(j.w.B, '"')
}

// b64 writes the member key with b as a base64 string, a big one in
// pieces flushed between them (Writer.Base64; through WriteJSON's hook
// for its caller).
func (j *jsonSink) b64(key string, b []byte) {
	const piece = 3 << 18 // 768 KiB: whole base64 quanta
	j.w.Key(key)
	if j.hook == nil || len(b) <= piece {
		j.w.Base64(b)
		return
	}
	j.w.Value()
	j.w.B = append(j.w.B, '"')
	for len(b) > 0 {
		n := min(len(b), piece)
		j.w.B = base64.StdEncoding.AppendEncode(j.w.B, b[:n])
		b = b[n:]
		j.flush()
	}
	j.w.B = append(j.w.B, '"')
}

func (j *jsonSink) beginList(records bool) {
	j.w.BeginArray()
	j.recs = append(j.recs, records)
}

func (j *jsonSink) endList() []*tree.Node {
	j.recs = j.recs[:len(j.recs)-1]
	j.w.EndArray()
	return nil
}

// bytesAt writes an entry that is bytes alone: {"<key>":"<base64>"}.
func (j *jsonSink) bytesAt(key string, b []byte) {
	j.w.BeginObject()
	j.b64(key, b)
	j.w.EndObject()
}

func (j *jsonSink) raw(b []byte, _, p, end int) *tree.Node {
	if !j.recs[len(j.recs)-1] { // a batch's records list records alone
		j.bytesAt("_raw", b[p:end])
	}
	return nil
}

func (j *jsonSink) truncated(b []byte, _, off, end int, _ int8) *tree.Node {
	j.bytesAt("_truncated", b[off:end])
	return nil
}

func (j *jsonSink) batch(b []byte, _, off, _ int, ctx *batchCtx) batchNodes {
	j.w.BeginObject()
	for _, f := range batchFields {
		switch v := fixedAt(f.kind, b[off+f.at:]); {
		case !f.json:
		case f.name == "attributes":
			j.w.Key(f.name)
			recjson.Attrs(j.w, ctx.attrs, 2)
		case f.kind == schema.Int64:
			j.num64(f.name, v)
		default:
			j.num(f.name, v)
		}
	}
	j.w.Key("records")
	return batchNodes{}
}

func (j *jsonSink) inflated(*tree.Node, []byte, int, int) *tree.Node { return nil }

func (j *jsonSink) noRecords() { j.w.Null() }

func (j *jsonSink) children(*tree.Node, []*tree.Node) {}

func (j *jsonSink) endBatch(b []byte, off, end int, ctx *batchCtx, warned bool) {
	if ctx.attrs&7 != CodecNone {
		j.b64("_compressed", b[off+batchHeader:end])
	}
	recjson.BatchSize(j.w, end-off, end-off-batchHeader, ctx.inflated)
	if warned {
		j.b64("_raw", b[off:end])
	}
	j.w.EndObject()
}

func (j *jsonSink) record(b []byte, _ int, v *recView) *tree.Node {
	r, w := v.r, j.w
	w.BeginObject()
	j.num("attributes", int64(r.attr))
	j.num64("timestampDelta", r.tsd.v)
	j.num("offsetDelta", r.od.v)
	j.num64("offset", v.offset)
	j.num64("timestamp", v.timestamp)
	j.payload("key", &r.key, r.stage >= stKey, &v.key)
	j.payload("value", &r.val, r.stage >= stValue, &v.val)
	w.Key("headers")
	w.BeginArray()
	if r.stage >= stHeaders {
		for i := range r.hdrs {
			h := &r.hdrs[i]
			w.BeginObject()
			w.Key("key")
			recjson.HeaderKey(w, h.key.raw, h.key.null)
			j.payload("value", &h.val, h.hasVal, nil)
			w.EndObject()
		}
	}
	w.EndArray()
	if v.control {
		j.control(r, v)
	}
	w.EndObject()
	return nil
}

// payload writes the member key with a key or value (null when not
// read, or, read, null or as recjson.Bytes) and what the payload hook
// made of it (p, when not nil).
func (j *jsonSink) payload(key string, f *varField, read bool, p *payloadOut) {
	j.w.Key(key)
	recjson.Bytes(j.w, f.raw, f.null || !read)
	if p != nil {
		j.w.B = withPayload(j.w.B, p)
	}
}

// control writes a control record's "control" object.
func (j *jsonSink) control(r *recParse, v *recView) {
	w := j.w
	w.Key("control")
	w.BeginObject()
	j.num("keyVersion", be16(r.key.raw))
	w.Key("type")
	recjson.Name(w, ControlTypeName, v.ctype)
	if cv := &v.cv; cv.ok {
		if !cv.data {
			j.num("valueVersion", cv.version)
		}
		if cv.epoch {
			j.num("coordinatorEpoch", cv.coordinatorEpoch)
		}
		switch {
		case cv.data && v.data != nil:
			w.Key("data")
			recjson.Node(w, v.data)
		case cv.data:
			j.b64("data", cv.raw)
		}
	}
	w.EndObject()
}

func (j *jsonSink) message(b []byte, _ int, m *msgParse, shift int64) msgNodes {
	w := j.w
	w.BeginObject()
	j.num64("offset", m.offset)
	if shift != 0 {
		j.num64("absoluteOffset", m.offset+shift)
	}
	j.num("magic", int64(m.magic))
	j.num("crc", int64(m.crc))
	w.Key("attributes")
	recjson.Attrs(w, m.attrs, int(m.magic))
	if m.magic == 1 {
		j.num64("timestamp", m.ts)
	}
	if m.stage >= 1 {
		j.payload("key", &m.key, true, &j.d.mkey)
	}
	if wrapperOf(m) {
		w.Key("messages")
	} else if m.stage >= 2 {
		j.payload("value", &m.val, true, &j.d.mval)
	}
	return msgNodes{}
}

// wrapperOf reports whether m is a compressed wrapper whose value holds
// a message set.
func wrapperOf(m *msgParse) bool { return m.stage >= 2 && m.attrs&7 != CodecNone && !m.val.null }

func (j *jsonSink) endMessage(b []byte, m *msgParse, warned bool) {
	if wrapperOf(m) {
		j.b64("_compressed", m.val.raw)
	}
	if warned {
		j.b64("_raw", b[m.off:m.end])
	}
	j.w.EndObject()
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

// flush says a unit is done: the Writer may write its output away, or
// WriteJSON's caller through its hook.
func (j *jsonSink) flush() {
	if j.hook == nil {
		j.w.Flush(false)
		return
	}
	*j.out = j.w.B
	j.hook()
	j.w.B = *j.out
}

func (j *jsonSink) payloadSlab() *slab.Slab { return nil }

func (j *jsonSink) dataSlab() *slab.Slab {
	j.data.Reset()
	return &j.data
}
