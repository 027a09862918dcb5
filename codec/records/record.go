package records

import (
	"hash/crc32"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

type recErr string

const nonMinimal = "non-minimal varint"

// varField is a varint-framed part of a record: [at, at+n) holds the
// varint, and for keys, values and header parts the data follows.
type varField struct {
	at, n int
	v     int64
	canon bool
	null  bool
	raw   []byte
}

func (f *varField) end() int { return f.at + f.n + len(f.raw) }

// recHeader is one parsed record header; hasVal is false when its value
// could not be read.
type recHeader struct {
	key, val varField
	hasVal   bool
}

// recParse is one record read from the bytes before any node or JSON is
// made of it, so both sinks see the same values, warnings and failures.
type recParse struct {
	p, rend int
	length  varField
	stage   int // how many of attributes, timestampDelta, offsetDelta, key, value, headers were read
	attr    int8
	tsd, od varField
	key     varField
	val     varField
	hc      varField
	hdrs    []recHeader // the headers read; with hdrFail, the last may lack its value
	hdrFail bool
	q       int    // where reading stopped
	fail    string // why the record is cut short, or ""
}

const (
	stAttributes = iota + 1
	stTimestamp
	stOffset
	stKey
	stValue
	stHeaders
)

// parseRecord reads the record at p. A broken length framing is returned
// as recErr (the record list ends there); a problem inside the record is
// r.fail, with what was read before it.
func parseRecord(b []byte, p, end int, r *recParse) recErr {
	hdrs := r.hdrs[:0]
	*r = recParse{p: p, hdrs: hdrs}
	l, n, canon := wire.Varint(b[p:end])
	if n == 0 {
		return "the input ends inside the record length"
	}
	if n < 0 {
		return "record length varint too long"
	}
	if l < 0 || int(l) > end-p-n {
		return recErr("record length " + itoa(int(l)) + " does not fit the " + itoa(end-p-n) + " bytes left")
	}
	r.length = varField{at: p, n: n, v: int64(l), canon: canon}
	r.rend = p + n + int(l)
	rend := r.rend
	q := p + n
	r.q = q
	fail := func(msg string) recErr {
		r.fail, r.q = msg, q
		return ""
	}
	if q >= rend {
		return fail("the record ends before its attributes")
	}
	r.attr = int8(b[q])
	r.stage = stAttributes
	q++
	tsd, n, canon := wire.Varlong(b[q:rend])
	if n <= 0 {
		return fail("bad timestampDelta varlong")
	}
	r.tsd = varField{at: q, n: n, v: tsd, canon: canon}
	r.stage = stTimestamp
	q += n
	od, n, canon := wire.Varint(b[q:rend])
	if n <= 0 {
		return fail("bad offsetDelta varint")
	}
	r.od = varField{at: q, n: n, v: int64(od), canon: canon}
	r.stage = stOffset
	q += n
	if msg := varbytes(b, &q, rend, "key", &r.key); msg != "" {
		return fail(msg)
	}
	r.stage = stKey
	if msg := varbytes(b, &q, rend, "value", &r.val); msg != "" {
		return fail(msg)
	}
	r.stage = stValue
	hc, n, canon := wire.Varint(b[q:rend])
	if n <= 0 {
		return fail("bad header count varint")
	}
	if hc < 0 || int(hc) > (rend-q-n)/2 {
		return fail("header count " + itoa(int(hc)) + " does not fit the record")
	}
	r.hc = varField{at: q, n: n, v: int64(hc), canon: canon}
	r.stage = stHeaders
	q += n
	for i := 0; i < int(hc); i++ {
		var h recHeader
		if msg := varbytes(b, &q, rend, "key", &h.key); msg != "" {
			r.hdrFail = true
			return fail("header " + itoa(i) + ": " + msg)
		}
		if msg := varbytes(b, &q, rend, "value", &h.val); msg != "" {
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

// varbytes reads a varint length and that many bytes (-1: null) at *q.
func varbytes(b []byte, q *int, end int, name string, f *varField) string {
	l, n, canon := wire.Varint(b[*q:end])
	if n <= 0 {
		return "bad " + name + " length varint"
	}
	if l < -1 || int(l) > end-*q-n {
		return name + " length " + itoa(int(l)) + " does not fit the " + itoa(end-*q-n) + " bytes left"
	}
	*f = varField{at: *q, n: n, v: int64(l), canon: canon, null: l == -1}
	*q += n
	if l >= 0 {
		f.raw = b[*q : *q+int(l) : *q+int(l)]
		*q += int(l)
	}
	return ""
}

// complete reports whether the record was read to its headers' end, so it
// counts as a record with its own offset and timestamp.
func (r *recParse) complete() bool { return r.stage == stHeaders && !r.hdrFail && r.q >= r.rend }

func (d *decoder) recordList(b []byte, bi, p, end int, ctx *batchCtx, parent *tree.Node) []*tree.Node {
	c := min(max(ctx.count, 0), (end-p)/7, 16)
	kids := d.s.Kids(c + 1)
	mark := d.w.Mark()
	var r recParse
	for p < end {
		if !d.b.NodesLeft() {
			kids = d.recordsCut(kids, b, bi, p, end, ctx)
			break
		}
		if msg := parseRecord(b, p, end, &r); msg != "" {
			d.warnAt(&mark, parent, "", "record "+itoa(len(kids))+" at byte "+itoa(p)+": "+string(msg), false)
			kids = append(kids, d.rawNode(b, bi, p, end))
			break
		}
		cost, after := recordCost(&r, ctx)
		if !d.b.Fits(cost) {
			kids = d.recordsCut(kids, b, bi, p, end, ctx)
			break
		}
		d.push("", len(kids))
		d.dataAfter = after
		kids = append(kids, d.record(b, bi, &r, ctx, len(kids)))
		d.pop()
		ctx.parsed++
		p = r.rend
	}
	return kids
}

// recordsCut ends a record list that the MaxNodes limit cut at p: the
// bytes left as one raw node, with a limit warning.
func (d *decoder) recordsCut(kids []*tree.Node, b []byte, bi, p, end int, ctx *batchCtx) []*tree.Node {
	ctx.cut = true
	return d.nodesOut(kids, b, bi, p, end, "records")
}

// record makes the nodes of a parsed record.
func (d *decoder) record(b []byte, bi int, r *recParse, ctx *batchCtx, idx int) *tree.Node {
	rec := d.leaf("record", schema.Struct, "Record", bi, r.p, r.rend)
	rec.PrefixEnd = r.p + r.length.n
	rec.Index = idx
	if r.fail != "" {
		d.warn(rec, "", r.fail)
	}
	kids := d.s.Kids(8)
	ln := d.varLeaf(&r.length, "length", schema.Int32, "varint", bi)
	ln.Int = r.length.v
	kids = append(kids, ln)
	var key, val *tree.Node
	if r.stage >= stAttributes {
		at := d.leaf("attributes", schema.Int8, "int8", bi, r.length.end(), r.length.end()+1)
		at.Int = int64(r.attr)
		kids = append(kids, at)
	}
	if r.stage >= stTimestamp {
		kids = append(kids, d.varLeaf(&r.tsd, "timestampDelta", schema.Int64, "varlong", bi))
	}
	if r.stage >= stOffset {
		kids = append(kids, d.varLeaf(&r.od, "offsetDelta", schema.Int32, "varint", bi))
	}
	if r.stage >= stKey {
		key = d.bytesLeaf(&r.key, "key", schema.Bytes, "varbytes", bi)
		kids = append(kids, key)
	}
	if r.stage >= stValue {
		control := ctx.control && r.stage >= stHeaders && !r.hdrFail
		if control {
			d.controlKey(b, bi, key)
		}
		val = d.bytesLeaf(&r.val, "value", schema.Bytes, "varbytes", bi)
		if control {
			d.controlValue(b, bi, key, val)
		}
		kids = append(kids, val)
	}
	if r.stage >= stHeaders {
		kids = append(kids, d.headers(r, bi))
	}
	if r.fail != "" && r.q < r.rend {
		kids = append(kids, d.rawNode(b, bi, r.q, r.rend))
	}
	if !ctx.control { // payload hook
		d.payloadNode(b, bi, &r.key, key, true)
		d.payloadNode(b, bi, &r.val, val, false)
	}
	rec.Children = kids
	off, ts := recordTime(r, ctx)
	rec.Int = off
	d.res.Records = append(d.res.Records, RecordInfo{Node: rec, Offset: off, Timestamp: ts})
	return rec
}

// recordTime is a parsed record's absolute offset and timestamp: the
// batch's base plus the record's deltas (the batch's max timestamp under
// log-append time), or the batch's base for a record that failed.
func recordTime(r *recParse, ctx *batchCtx) (offset, timestamp int64) {
	switch {
	case r.fail != "":
		return ctx.base, ctx.baseTS
	case ctx.logAppend:
		return ctx.base + r.od.v, ctx.maxTS
	}
	return ctx.base + r.od.v, ctx.baseTS + r.tsd.v
}

// headers makes a parsed record's headers node and its header children.
func (d *decoder) headers(r *recParse, bi int) *tree.Node {
	hs := d.leaf("headers", schema.Array, "[]Header", bi, r.hc.at, r.hc.at+r.hc.n)
	hs.PrefixEnd = hs.End
	hs.Int = r.hc.v
	if !r.hc.canon {
		d.warn(hs, "headers", nonMinimal)
	}
	if len(r.hdrs) == 0 {
		return hs
	}
	d.push("headers", -1)
	hk := d.s.Kids(len(r.hdrs))
	for i := range r.hdrs {
		x := &r.hdrs[i]
		h := d.leaf("header", schema.Struct, "Header", bi, x.key.at, x.key.at)
		h.Index = i
		d.push("", i)
		k := d.bytesLeaf(&x.key, "key", schema.String, "varstring", bi)
		h.End = k.End
		if x.hasVal {
			v := d.bytesLeaf(&x.val, "value", schema.Bytes, "varbytes", bi)
			h.Children = append(d.s.Kids(2), k, v)
			h.End = v.End
		} else {
			h.Children = append(d.s.Kids(1), k)
		}
		d.pop()
		hk = append(hk, h)
		hs.End = h.End
	}
	d.pop()
	hs.Children = hk
	if r.hdrFail {
		hs.End = r.q
	}
	return hs
}

// varLeaf makes the node of a varint part, warning when it is not minimal.
func (d *decoder) varLeaf(f *varField, name string, k schema.Kind, typ string, bi int) *tree.Node {
	n := d.leaf(name, k, typ, bi, f.at, f.at+f.n)
	n.Int = f.v
	n.Flags |= tree.Varint
	if !f.canon {
		d.warn(n, name, nonMinimal)
	}
	return n
}

// bytesLeaf makes the node of a length-prefixed key, value or header part:
// a varint length in a record, an int32 one (canon, 4 bytes) in a legacy
// message.
func (d *decoder) bytesLeaf(f *varField, name string, k schema.Kind, typ string, bi int) *tree.Node {
	x := d.leaf(name, k, typ, bi, f.at, f.at+f.n)
	x.PrefixEnd = f.at + f.n
	x.Int = f.v
	if !f.canon {
		d.warn(x, name, nonMinimal)
	}
	if f.null {
		x.Null = true
	} else {
		x.Raw = f.raw
		x.End = f.end()
	}
	return x
}

// controlKey decodes the key of a control record: version and type.
func (d *decoder) controlKey(b []byte, bi int, key *tree.Node) {
	if key.Null || len(key.Raw) < 4 {
		d.warn(key, "key", "a control record key needs version int16 and type int16")
		return
	}
	p := key.PrefixEnd
	kk := d.s.Kids(3)
	d.fixed(&kk, "version", schema.Int16, b, bi, &p)
	t := int(d.fixed(&kk, "type", schema.Int16, b, bi, &p).Int)
	if p < key.End {
		r := d.leaf("rest", schema.Bytes, "bytes", bi, p, key.End)
		r.Raw = b[p:key.End]
		kk = append(kk, r)
	}
	key.Children = kk
	if t < 0 || t >= len(controlNames) {
		d.warn(key, "key", "unknown control record type "+itoa(t))
	}
}

// controlValue decodes the value of a control record whose key is known:
// version and coordinatorEpoch for markers, a data message for KRaft.
func (d *decoder) controlValue(b []byte, bi int, key, val *tree.Node) {
	if len(key.Children) < 2 {
		return
	}
	t := int(key.Children[1].Int)
	if t < 0 || t >= len(controlNames) || val.Null || len(val.Raw) < 2 {
		return
	}
	p := val.PrefixEnd
	vk := d.s.Kids(3)
	ver := d.fixed(&vk, "version", schema.Int16, b, bi, &p).Int
	if t <= 1 {
		if val.End-p >= 4 {
			d.fixed(&vk, "coordinatorEpoch", schema.Int32, b, bi, &p)
		}
		if p < val.End {
			r := d.leaf("rest", schema.Bytes, "bytes", bi, p, val.End)
			r.Raw = b[p:val.End]
			vk = append(vk, r)
		}
		val.Children = vk
		return
	}
	var dn *tree.Node
	var err error
	switch {
	case d.opts.Data != nil:
		mark := d.w.Mark()
		dn, err = d.decodeData(controlData[t], int16(ver), b, bi, p, val.End)
		if err != nil {
			d.w.Truncate(mark)
		}
	case d.opts.DecodeData != nil:
		dn, err = d.opts.DecodeData(d.s, controlData[t], int16(ver), b, bi, p, val.End)
	}
	if err != nil {
		dn = nil
		if l, ok := err.(interface{ LimitHit() bool }); ok && l.LimitHit() {
			d.limit(val, "value", "not decoded as "+controlData[t]+": "+err.Error())
		} else {
			d.warn(val, "value", "cannot decode "+controlData[t]+": "+err.Error())
		}
	}
	if dn == nil {
		dn = d.leaf("data", schema.Bytes, controlData[t], bi, p, val.End)
		dn.Raw = b[p:val.End]
	}
	vk = append(vk, dn)
	val.Children = vk
}

// msgParse is a legacy message read from the bytes before its nodes are made.
type msgParse struct {
	off, end   int
	offset     int64
	crc        uint32
	magic      int8
	attrs      int
	ts         int64
	p          int // after the fixed fields
	key, val   varField
	stage      int // 1: key read, 2: value read
	q          int // where reading stopped
	fail       string
	crcWrong   bool
	crcCorrect uint32
}

func parseMessage(b []byte, off, end int, m *msgParse) {
	*m = msgParse{off: off, end: end}
	m.offset = be64(b[off:])
	m.crc = uint32(be32(b[off+12:]))
	m.magic = int8(b[off+16])
	m.attrs = int(b[off+17])
	p := off + 18
	m.ts = -1
	if m.magic == 1 {
		m.ts = be64(b[p:])
		p += 8
	}
	m.p = p
	if c := crc32.ChecksumIEEE(b[off+16 : end]); c != m.crc {
		m.crcWrong, m.crcCorrect = true, c
	}
	if msg := bytes32(b, &p, end, "key", &m.key); msg != "" {
		m.fail, m.q = msg, p
		return
	}
	m.stage = 1
	if msg := bytes32(b, &p, end, "value", &m.val); msg != "" {
		m.fail, m.q = msg, p
		return
	}
	m.stage = 2
	m.q = p
	if p < end {
		m.fail = itoa(end-p) + " bytes after the value"
	}
}

// message decodes a legacy (magic 0 or 1) message in b[off:end].
func (d *decoder) message(b []byte, bi, off, end, depth int, w *wrapper, shift int64) *tree.Node {
	var m msgParse
	parseMessage(b, off, end, &m)
	n := d.leaf("message", schema.Struct, "Message", bi, off, end)
	n.Raw = b[off:end:end]
	if m.fail != "" {
		d.warn(n, "", m.fail)
	}
	kids := d.s.Kids(9)
	p := off
	d.fixed(&kids, "offset", schema.Int64, b, bi, &p)
	d.fixed(&kids, "messageSize", schema.Int32, b, bi, &p)
	crcNode := d.fixed(&kids, "crc", schema.Uint32, b, bi, &p)
	if m.crcWrong {
		d.warn(crcNode, "crc", crcMessage("CRC-32", m.crcCorrect, m.crc))
	}
	d.fixed(&kids, "magic", schema.Int8, b, bi, &p)
	attrNode := d.fixed(&kids, "attributes", schema.Int8, b, bi, &p)
	attrNode.Children = d.bits(attrNode, m.attrs, false)
	if m.attrs&^0x0f != 0 || (m.magic == 0 && m.attrs&8 != 0) {
		d.warn(attrNode, "attributes", "unused attribute bits are set")
	}
	if m.magic == 1 {
		d.fixed(&kids, "timestamp", schema.Int64, b, bi, &p)
	}
	n.Int = m.offset + shift
	info := RecordInfo{Node: n, Offset: m.offset + shift, Timestamp: m.ts}
	if w != nil && w.logAppend && m.magic == 1 {
		info.Timestamp = w.timestamp
	}
	d.res.Records = append(d.res.Records, info)
	if m.stage >= 1 {
		key := d.bytesLeaf(&m.key, "key", schema.Bytes, "bytes", bi)
		kids = append(kids, key)
		d.payloadNode(b, bi, &m.key, key, true) // payload hook
	}
	if m.stage >= 2 {
		val := d.bytesLeaf(&m.val, "value", schema.Bytes, "bytes", bi)
		kids = append(kids, val)
		if codec := m.attrs & 7; codec != CodecNone {
			d.wrapped(n, val, codec, &m, depth)
		} else {
			d.payloadNode(b, bi, &m.val, val, false) // payload hook
		}
	}
	if m.fail != "" && m.q < end {
		kids = append(kids, d.rawNode(b, bi, m.q, end))
	}
	n.Children = kids
	return n
}

// wrapped decompresses the value of a wrapper message and decodes the
// message set inside it.
func (d *decoder) wrapped(n, val *tree.Node, codec int, m *msgParse, depth int) {
	switch {
	case val.Null:
		d.warn(val, "value", "a compressed wrapper message has a null value")
		return
	case depth+1 > d.maxDepth:
		d.limit(val, "value", "not decompressed: wrappers nest deeper than the MaxRecordNesting limit ("+itoa(d.maxDepth)+")")
		return
	}
	inf := d.inflate(val, "value", codec, val.Raw)
	if inf == nil {
		return
	}
	mark := d.w.Mark()
	ib := inf.Raw
	ww := &wrapper{node: n, offset: m.offset, magic: m.magic, logAppend: m.magic == 1 && m.attrs&8 != 0, timestamp: m.ts}
	d.push("messages", -1)
	inner, err := d.set(ib, inf.Buf, 0, len(ib), depth+1, ww)
	if err != nil {
		d.warnAt(&mark, inf, "", "inner message set: "+err.Error(), false)
	}
	d.pop()
	inf.Children = inner
	val.Children = append(d.s.Kids(1), inf)
}

// bytes32 reads an int32 length and that many bytes (-1: null) at *p.
func bytes32(b []byte, p *int, end int, name string, f *varField) string {
	if end-*p < 4 {
		return "the message ends inside the " + name + " length"
	}
	l := be32(b[*p:])
	if l < -1 || l > int64(end-*p-4) {
		return name + " length " + itoa(int(l)) + " does not fit the " + itoa(end-*p-4) + " bytes left"
	}
	*f = varField{at: *p, n: 4, v: l, canon: true, null: l == -1}
	*p += 4
	if l >= 0 {
		f.raw = b[*p : *p+int(l) : *p+int(l)]
		*p += int(l)
	}
	return ""
}

// maxEntryNodes bounds what an entry costs before its records or inner
// messages: a batch's header is 20 nodes, an inflated node and up to two
// warnings (CRC, attribute bits); a legacy message at most 12 nodes, an
// inflated node and four warnings; a truncated entry 4 nodes and one.
// An entry is begun only when this much fits (wire.Budget.Fits).
const maxEntryNodes = 25

// recordCost is what the parsed record r costs, in nodes and warnings
// charged (wire.WarningNodes each), as record and recordJSON charge it;
// after is the part charged after a KRaft control value's data message
// (its headers, the bytes left, the value's data leaf or its warning),
// which that data message must leave room for. The data message's own
// nodes are not counted: it stops at the budget's limit by itself.
func recordCost(r *recParse, ctx *batchCtx) (total, after int) {
	const w = wire.WarningNodes
	n := 2 // record, length
	if r.fail != "" {
		n += w
	}
	if !r.length.canon {
		n += w
	}
	if r.stage >= stAttributes {
		n++
	}
	if r.stage >= stTimestamp {
		n++
		if !r.tsd.canon {
			n += w
		}
	}
	if r.stage >= stOffset {
		n++
		if !r.od.canon {
			n += w
		}
	}
	control := ctx.control && r.stage >= stHeaders && !r.hdrFail
	ctype, keyOK := -1, false
	if r.stage >= stKey {
		n++
		if !r.key.canon {
			n += w
		}
		if control {
			if r.key.null || len(r.key.raw) < 4 {
				n += w
			} else {
				keyOK = true
				ctype = int(be16(r.key.raw[2:]))
				n += 2
				if len(r.key.raw) > 4 {
					n++
				}
				if ctype < 0 || ctype >= len(controlNames) {
					n += w
				}
			}
		}
	}
	if r.stage >= stValue {
		n++
		if !r.val.canon {
			n += w
		}
		if keyOK && ctype >= 0 && ctype < len(controlNames) && !r.val.null && len(r.val.raw) >= 2 {
			n++ // version
			if ctype <= 1 {
				n += 2 // coordinatorEpoch, rest
			} else {
				after += 1 + w // the data leaf when it did not decode, and why
			}
		}
	}
	if r.stage >= stHeaders {
		after++
		if !r.hc.canon {
			after += w
		}
		for i := range r.hdrs {
			h := &r.hdrs[i]
			after += 2
			if !h.key.canon {
				after += w
			}
			if h.hasVal {
				after++
				if !h.val.canon {
					after += w
				}
			}
		}
	}
	if r.fail != "" && r.q < r.rend {
		after++
	}
	return n + after, after
}
