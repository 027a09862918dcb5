package rec

import (
	"encoding/base64"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
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
	scratch [][]byte // decompressed bytes, one buffer per nesting depth
}

func (j *jsonSink) w(s string) { *j.out = append(*j.out, s...) }
func (j *jsonSink) c(c byte)   { *j.out = append(*j.out, c) }

// field writes the member name, after sep ('{' or ','), with v, of kind
// k: an int64 field's (Kafka's int64 or varlong) as a string of its
// digits with Options.Int64Strings.
func (j *jsonSink) field(sep byte, name string, k schema.Kind, v int64) {
	*j.out = append(*j.out, sep, '"')
	j.w(name)
	j.w(`":`)
	*j.out = jsontext.AppendInt64(*j.out, v, k == schema.Int64 && j.d.opts.Int64Strings)
}

// b64 writes b as a base64 string; a big one in pieces, flushed between
// them, so the output never holds all of it.
func (j *jsonSink) b64(b []byte) {
	const piece = 3 << 18 // 768 KiB: whole base64 quanta
	j.c('"')
	for len(b) > piece {
		*j.out = base64.StdEncoding.AppendEncode(*j.out, b[:piece])
		b = b[piece:]
		j.flush()
	}
	*j.out = append(base64.StdEncoding.AppendEncode(*j.out, b), '"')
}

// item starts an element of the open list.
func (j *jsonSink) item() {
	k := len(j.first) - 1
	if !j.first[k] {
		j.c(',')
	}
	j.first[k] = false
}

func (j *jsonSink) beginList() {
	j.c('[')
	j.first = append(j.first, true)
}

func (j *jsonSink) endList() []*tree.Node {
	j.first = j.first[:len(j.first)-1]
	j.c(']')
	return nil
}

func (j *jsonSink) raw(b []byte, _, p, end int, records bool) *tree.Node {
	if !records { // a batch's records list records alone
		j.bytesEntry(`{"_raw":`, b[p:end])
	}
	return nil
}

func (j *jsonSink) truncated(b []byte, _, off, end int, _ int8, _ int) *tree.Node {
	j.bytesEntry(`{"_truncated":`, b[off:end])
	return nil
}

// bytesEntry writes an entry of the list that is bytes alone, opened by
// head.
func (j *jsonSink) bytesEntry(head string, b []byte) {
	j.item()
	j.w(head)
	j.b64(b)
	j.c('}')
}

func (j *jsonSink) batch(b []byte, _, off, _ int, ctx *batchCtx) *tree.Node {
	j.item()
	j.field('{', "baseOffset", schema.Int64, ctx.base)
	j.field(',', "partitionLeaderEpoch", schema.Int32, be32(b[off+12:]))
	j.field(',', "magic", schema.Int8, int64(int8(b[off+16])))
	j.field(',', "crc", schema.Uint32, int64(uint32(be32(b[off+17:]))))
	*j.out = appendAttrs(*j.out, ctx.attrs, 2)
	j.field(',', "lastOffsetDelta", schema.Int32, be32(b[off+23:]))
	j.field(',', "baseTimestamp", schema.Int64, ctx.baseTS)
	j.field(',', "maxTimestamp", schema.Int64, ctx.maxTS)
	j.field(',', "producerId", schema.Int64, be64(b[off+43:]))
	j.field(',', "producerEpoch", schema.Int16, be16(b[off+51:]))
	j.field(',', "baseSequence", schema.Int32, be32(b[off+53:]))
	j.w(`,"records":`)
	return nil
}

func (j *jsonSink) inflated(*tree.Node, []byte, int, int) *tree.Node { return nil }

func (j *jsonSink) noRecords() { j.w("null") }

func (j *jsonSink) endEntry(entry, compressed []byte, ctx *batchCtx, warned bool) {
	if compressed != nil {
		j.w(`,"_compressed":`)
		j.b64(compressed)
	}
	if ctx != nil {
		*j.out = appendBatchSize(*j.out, len(entry), len(entry)-batchHeader, ctx.inflated)
	}
	if warned {
		j.w(`,"_raw":`)
		j.b64(entry)
	}
	j.c('}')
}

func (j *jsonSink) record(b []byte, bi int, v *recView) *tree.Node {
	r := v.r
	q := j.d.opts.Int64Strings
	j.item()
	// Everything up to the key's value fits recordHeadRoom: one check of
	// room, then literals and numbers stored in place.
	dst := *j.out
	if cap(dst)-len(dst) < recordHeadRoom {
		dst = slices.Grow(dst, recordHeadRoom)
	}
	buf, n := dst[:cap(dst)], len(dst)
	n = litAttributes.put(buf, n)
	n = jsontext.PutInt(buf, n, r.part[stAttributes].v)
	n = litTimestampDelta.put(buf, n)
	n = jsontext.PutInt64(buf, n, r.part[stTimestamp].v, q)
	n = litOffsetDelta.put(buf, n)
	n = jsontext.PutInt(buf, n, r.part[stOffset].v)
	n = litOffset.put(buf, n)
	n = jsontext.PutInt64(buf, n, v.offset, q)
	n = litTimestamp.put(buf, n)
	n = jsontext.PutInt64(buf, n, v.timestamp, q)
	n = litKey.put(buf, n)
	// The hook's fields are nil for parts not read.
	dst = appendVarBytes(buf[:n], &r.part[stKey], r.stage >= stKey)
	dst = j.d.payloadJSON(dst, b, bi, v.hook.key, true, nil)
	dst = litValue.append(dst)
	dst = appendVarBytes(dst, &r.part[stValue], r.stage >= stValue)
	dst = j.d.payloadJSON(dst, b, bi, v.hook.val, false, v.hook.recordKey())
	dst = litHeaders.append(dst)
	for i := range r.hdrs { // none before stHeaders
		h := &r.hdrs[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = litHeaderKey.append(dst)
		dst = appendHeaderKey(dst, h.key.raw, h.key.null)
		dst = litValue.append(dst)
		dst = appendVarBytes(dst, &h.val, h.hasVal)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	*j.out = dst
	if v.control {
		j.w(`,"control":`)
		j.field('{', "keyVersion", schema.Int16, be16(r.part[stKey].raw))
		j.w(`,"type":`)
		*j.out = appendName(*j.out, ControlTypeName, v.ctype)
		switch {
		case !v.readValue:
		case v.ctype > 1:
			j.w(`,"data":`)
			if data := r.part[stValue].raw; v.data != nil && j.d.opts.DataJSON != nil {
				*j.out = j.d.opts.DataJSON(*j.out, controlData[v.ctype], int16(v.version), data, 0, len(data))
			} else {
				j.b64(data)
			}
		default:
			j.field(',', "valueVersion", schema.Int16, v.version)
			if v.epoch {
				j.field(',', "coordinatorEpoch", schema.Int32, v.coordinatorEpoch)
			}
		}
		j.c('}')
	}
	j.c('}')
	return nil
}

// recordHeadRoom bounds a record's JSON up to its key's value: a comma,
// the literals (77 bytes), five numbers (at most 81 bytes: an int64 is
// 20 with its sign, 22 quoted), and the 32 bytes a literal's store takes
// however short it is: 191.
const recordHeadRoom = 256

// lit is a literal of the JSON writer, padded to 32 bytes: put and append
// store all 32 at once (two 16-byte moves, no call to memmove as a copy
// of a string's bytes costs) and move on by its length; the bytes after
// it are written over by what follows.
type lit struct {
	b [32]byte
	n int
}

func mkLit(s string) *lit {
	l := &lit{n: len(s)}
	if copy(l.b[:], s) != len(s) {
		panic("rec: literal longer than 32 bytes: " + s)
	}
	return l
}

var (
	litAttributes     = mkLit(`{"attributes":`)
	litTimestampDelta = mkLit(`,"timestampDelta":`)
	litOffsetDelta    = mkLit(`,"offsetDelta":`)
	litOffset         = mkLit(`,"offset":`)
	litTimestamp      = mkLit(`,"timestamp":`)
	litKey            = mkLit(`,"key":`)
	litValue          = mkLit(`,"value":`)
	litHeaders        = mkLit(`,"headers":[`)
	litHeaderKey      = mkLit(`{"key":`)
)

// put stores l at buf[n:], which has 32 bytes of room, and returns where
// it ends.
func (l *lit) put(buf []byte, n int) int {
	*(*[32]byte)(buf[n:]) = l.b
	return n + l.n
}

// append appends l to dst.
func (l *lit) append(dst []byte) []byte {
	if cap(dst)-len(dst) < len(l.b) {
		dst = slices.Grow(dst, len(l.b))
	}
	n := len(dst)
	return dst[:l.put(dst[:cap(dst)], n)]
}

// appendVarBytes writes a key, value or header value: null when not read
// or null, else as jsontext.AppendTextOrBase64.
func appendVarBytes(dst []byte, f *varField, read bool) []byte {
	if !read || f.null {
		return append(dst, "null"...)
	}
	return jsontext.AppendTextOrBase64(dst, f.raw)
}

func (j *jsonSink) message(b []byte, bi int, m *msgParse, shift, ts int64) *tree.Node {
	j.item()
	j.field('{', "offset", schema.Int64, m.offset)
	if shift != 0 {
		j.field(',', "absoluteOffset", schema.Int64, m.offset+shift)
	}
	j.field(',', "magic", schema.Int8, int64(m.magic))
	j.field(',', "crc", schema.Uint32, int64(m.crc))
	*j.out = appendAttrs(*j.out, m.attrs, int(m.magic))
	if m.magic == 1 {
		j.field(',', "timestamp", schema.Int64, m.ts)
		if ts != m.ts {
			j.field(',', "logAppendTime", schema.Int64, ts)
		}
	}
	if m.stage >= 1 {
		j.w(`,"key":`)
		*j.out = appendVarBytes(*j.out, &m.key, true)
		*j.out = j.d.payloadJSON(*j.out, b, bi, m.hook.key, true, nil)
	}
	if m.stage >= 2 {
		if m.attrs&7 != CodecNone && !m.val.null { // a wrapper: its messages follow
			j.w(`,"messages":`)
		} else {
			j.w(`,"value":`)
			*j.out = appendVarBytes(*j.out, &m.val, true)
			*j.out = j.d.payloadJSON(*j.out, b, bi, m.hook.val, false, m.hook.recordKey())
		}
	}
	return nil
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

func (j *jsonSink) slab() *slab.Slab { return nil }

// appendName writes v's name as name gives it, or v when it has none.
func appendName(dst []byte, name func(int) string, v int) []byte {
	if s := name(v); s != "" {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	return jsontext.AppendInt(dst, int64(v))
}

// appendHeaderKey writes a record header's key: null, a string when it is
// valid UTF-8, else {"base64":...}.
func appendHeaderKey(dst []byte, raw []byte, null bool) []byte {
	switch {
	case null:
		return append(dst, "null"...)
	case jsontext.Plain(raw):
		// What AppendString writes for it, without its checks.
		dst = append(dst, '"')
		dst = append(dst, raw...)
		return append(dst, '"')
	case utf8.Valid(raw):
		return jsontext.AppendString(dst, raw)
	}
	dst = append(dst, `{"base64":`...)
	dst = jsontext.AppendBase64(dst, raw)
	return append(dst, '}')
}

// appendBatchSize writes a batch's annotations of size (as Wireshark shows
// them; issue 24): "_sizeInBytes", the whole batch's bytes, and for a
// compressed batch whose records were decompressed, "_uncompressedBytes"
// and "_compressionRatio" (uncompressed over compressed records bytes, to
// two places). inflated is -1 for a batch not decompressed.
func appendBatchSize(dst []byte, size, compressed, inflated int) []byte {
	dst = append(dst, `,"_sizeInBytes":`...)
	dst = jsontext.AppendInt(dst, int64(size))
	if inflated < 0 {
		return dst
	}
	dst = append(dst, `,"_uncompressedBytes":`...)
	dst = jsontext.AppendInt(dst, int64(inflated))
	dst = append(dst, `,"_compressionRatio":`...)
	return strconv.AppendFloat(dst, float64(inflated)/float64(max(compressed, 1)), 'f', 2, 64)
}

// appendAttrs writes the attributes member of an entry of the magic given.
func appendAttrs(dst []byte, attrs int, magic int) []byte {
	dst = append(dst, `,"attributes":{"compression":`...)
	dst = appendName(dst, CodecName, attrs&7)
	if magic >= 1 {
		dst = append(dst, `,"timestampType":`...)
		dst = append(dst, [2]string{`"CreateTime"`, `"LogAppendTime"`}[attrs>>3&1]...)
	}
	if magic == 2 {
		for i, f := range bitNames[2:] {
			dst = append(dst, `,"`...)
			dst = append(dst, f...)
			dst = append(dst, `":`...)
			dst = strconv.AppendBool(dst, attrs&(0x10<<i) != 0)
		}
	}
	if o := attrs &^ knownAttrs[magic]; o != 0 {
		dst = append(dst, `,"otherBits":`...)
		dst = jsontext.AppendInt(dst, int64(o))
	}
	return append(dst, '}')
}
