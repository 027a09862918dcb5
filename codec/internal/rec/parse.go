package rec

import (
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

const nonMinimal = "non-minimal varint"

// varField is a varint-framed part of a record: [at, at+n) holds the
// varint, and for keys, values and header parts the data follows.
type varField struct {
	at, n       int
	v           int64
	canon, null bool
	raw         []byte
}

func (f *varField) end() int { return f.at + f.n + len(f.raw) }

// recHeader is one parsed record header; hasVal is false when its value
// could not be read.
type recHeader struct {
	key, val varField
	hasVal   bool
}

// recParse is one record read from the bytes before any node or JSON is
// made of it.
type recParse struct {
	p, rend int
	stage   int                     // how many of attributes, timestampDelta, offsetDelta, key, value, headers were read
	part    [stHeaders + 1]varField // the parts read, by stage; the headers' is their count
	hdrs    []recHeader             // the headers read; with hdrFail, the last may lack its value
	hdrFail bool
	q       int    // where reading stopped
	fail    string // why the record is cut short, or ""
}

// The stages of a record: what was read, in order, the index of its part
// in recParse.part and recParts, and of its node among the record's
// children.
const (
	stLength = iota
	stAttributes
	stTimestamp
	stOffset
	stKey
	stValue
	stHeaders
)

// recPart describes a part of a record, a record header or a legacy
// message: its node's name, kind and type, and whether its bytes are a
// varint alone (else a length then the bytes, or the attributes' byte).
type recPart struct {
	name   string
	kind   schema.Kind
	typ    string
	varint bool
}

// The parts of a record by stage, of a record header (hdrKey, hdrValue)
// and of a legacy message's key and value.
var (
	recParts = [...]recPart{{"length", schema.Int32, "varint", true}, {"attributes", schema.Int8, "int8", false},
		{"timestampDelta", schema.Int64, "varlong", true}, {"offsetDelta", schema.Int32, "varint", true},
		{"key", schema.Bytes, "varbytes", false}, {"value", schema.Bytes, "varbytes", false},
		{"headers", schema.Array, "[]Header", false}}
	hdrParts = [...]recPart{{"key", schema.String, "varstring", false}, {"value", schema.Bytes, "varbytes", false}}
	msgParts = [...]recPart{{"key", schema.Bytes, "bytes", false}, {"value", schema.Bytes, "bytes", false}}
)

// parseRecord reads the record at p. A broken length framing is returned
// (the record list ends there); a problem inside the record is r.fail,
// with what was read before it.
func parseRecord(b []byte, p, end int, r *recParse) string {
	*r = recParse{p: p, hdrs: r.hdrs[:0]}
	l, n, canon := varint(b, p, end)
	if n == 0 {
		return "the input ends inside the record length"
	}
	if n < 0 {
		return "record length varint too long"
	}
	if l < 0 || int(l) > end-p-n {
		return "record length " + itoa(int(l)) + " does not fit the " + count(end-p-n, "byte left", "bytes left")
	}
	r.part[stLength] = varField{at: p, n: n, v: int64(l), canon: canon}
	r.rend = p + n + int(l)
	rend := r.rend
	q := p + n
	fail := func(msg string) string {
		r.fail, r.q = msg, q
		return ""
	}
	if q >= rend {
		return fail("the record ends before its attributes")
	}
	r.part[stAttributes] = varField{at: q, n: 1, v: int64(int8(b[q])), canon: true}
	r.stage = stAttributes
	q++
	tsd, n, canon := varlong(b, q, rend)
	if n <= 0 {
		return fail("bad timestampDelta varlong")
	}
	r.part[stTimestamp] = varField{at: q, n: n, v: tsd, canon: canon}
	r.stage = stTimestamp
	q += n
	od, n, canon := varint(b, q, rend)
	if n <= 0 {
		return fail("bad offsetDelta varint")
	}
	r.part[stOffset] = varField{at: q, n: n, v: int64(od), canon: canon}
	r.stage = stOffset
	q += n
	if msg := varbytes(b, &q, rend, "key", &r.part[stKey], false); msg != "" {
		return fail(msg)
	}
	r.stage = stKey
	if msg := varbytes(b, &q, rend, "value", &r.part[stValue], false); msg != "" {
		return fail(msg)
	}
	r.stage = stValue
	hc, n, canon := varint(b, q, rend)
	if n <= 0 {
		return fail("bad header count varint")
	}
	if hc < 0 || int(hc) > (rend-q-n)/2 {
		return fail("header count " + itoa(int(hc)) + " does not fit the record")
	}
	r.part[stHeaders] = varField{at: q, n: n, v: int64(hc), canon: canon}
	r.stage = stHeaders
	q += n
	for i := 0; i < int(hc); i++ {
		var h recHeader
		if msg := varbytes(b, &q, rend, "key", &h.key, false); msg != "" {
			r.hdrFail = true
			return fail("header " + itoa(i) + ": " + msg)
		}
		if msg := varbytes(b, &q, rend, "value", &h.val, false); msg != "" {
			r.hdrs, r.hdrFail = append(r.hdrs, h), true
			return fail("header " + itoa(i) + ": " + msg)
		}
		h.hasVal = true
		r.hdrs = append(r.hdrs, h)
	}
	r.q = q
	if q < rend {
		r.fail = itoa(rend-q) + " bytes after the headers"
	}
	return ""
}

// varbytes reads a length and that many bytes (-1: null) at *q: a varint
// length, or an int32 one (int32Len: a legacy message's).
func varbytes(b []byte, q *int, end int, name string, f *varField, int32Len bool) string {
	at := *q
	l, n, canon := int32(0), 4, true
	switch {
	case int32Len && end-at < 4:
		return "the message ends inside the " + name + " length"
	case int32Len:
		l = int32(be32(b[at:]))
	default:
		if l, n, canon = varint(b, at, end); n <= 0 {
			return "bad " + name + " length varint"
		}
	}
	if l < -1 || int(l) > end-at-n {
		return name + " length " + itoa(int(l)) + " does not fit the " + count(end-at-n, "byte left", "bytes left")
	}
	p := at + n
	f.at, f.n, f.v, f.canon, f.null, f.raw = at, n, int64(l), canon, l == -1, nil
	if l >= 0 {
		f.raw = b[p : p+int(l) : p+int(l)]
		p += int(l)
	}
	*q = p
	return ""
}

// varint and varlong read a zig-zag varint of at most 5 and 10 bytes at
// b[p:end], as wire.Varint and wire.Varlong do: those of one byte (-64 to
// 63: most counts, deltas and short lengths) and of two (a record's
// length, a value's of up to 8 KiB, a timestampDelta within 8 s) without
// their loop (short).
func varint(b []byte, p, end int) (v int32, n int, minimal bool) {
	if u, n, minimal := short(b, p, end); n > 0 {
		return int32(u>>1) ^ -int32(u&1), n, minimal
	}
	return wire.Varint(b[p:end])
}

func varlong(b []byte, p, end int) (v int64, n int, minimal bool) {
	if u, n, minimal := short(b, p, end); n > 0 {
		return int64(u>>1) ^ -int64(u&1), n, minimal
	}
	return wire.Varlong(b[p:end])
}

// short reads the unsigned varint of one or two bytes at b[p:end] (n 0:
// a longer one, or none).
func short(b []byte, p, end int) (u uint32, n int, minimal bool) {
	if p < end && p >= 0 && end <= len(b) {
		if c := b[p]; c < 0x80 {
			return uint32(c), 1, true
		} else if p+1 < end && b[p+1] < 0x80 {
			return uint32(c&0x7f) | uint32(b[p+1])<<7, 2, b[p+1] != 0
		}
	}
	return 0, 0, false
}

// msgParse is a legacy message read from the bytes before its nodes are made.
type msgParse struct {
	off, end int
	offset   int64
	crc      uint32
	magic    int8
	attrs    int
	ts       int64
	key, val varField
	stage    int // 1: key read, 2: value read
	q        int // where reading stopped
	fail     string
	hook     hooked // what Options.Payload reads (set by the reader)
}

// fixed is how many of msgFields m has: the timestamp, the last, only at
// magic 1 (a message's magic is 0 or 1).
func (m *msgParse) fixed() int { return len(msgFields) - 1 + int(m.magic) }

func parseMessage(b []byte, off, end int, m *msgParse) {
	*m = msgParse{off: off, end: end, offset: be64(b[off:]), crc: uint32(be32(b[off+12:])),
		magic: int8(b[off+16]), attrs: int(b[off+17]), ts: -1}
	p := off + 18
	if m.magic == 1 {
		m.ts = be64(b[p:])
		p += 8
	}
	if m.fail = varbytes(b, &p, end, "key", &m.key, true); m.fail == "" {
		m.stage = 1
		if m.fail = varbytes(b, &p, end, "value", &m.val, true); m.fail == "" {
			m.stage = 2
			if p < end {
				m.fail = itoa(end-p) + " bytes after the value"
			}
		}
	}
	m.q = p
}

// maxEntryNodes bounds what an entry costs before its records or inner
// messages: a batch's header is 20 nodes, an inflated node and up to two
// warnings (CRC, attribute bits); a legacy message at most 12 nodes, an
// inflated node and four warnings; a truncated entry 4 nodes and one.
// An entry is begun only when this much fits (budget.Budget.Fits).
const maxEntryNodes = 25
