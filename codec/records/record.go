package records

import (
	"hash/crc32"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// uvar reads an unsigned varint of at most max bytes from b[p:end]. n is 0
// when the input ends first, -1 when the varint is too long. canon is false
// for an encoding longer than needed or with bits beyond max*7 significance.
func uvar(b []byte, p, end, max int) (v uint64, n int, canon bool) {
	var shift uint
	for i := 0; i < max; i++ {
		if p+i >= end {
			return 0, 0, false
		}
		c := b[p+i]
		v |= uint64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			n = i + 1
			canon = n == 1 || c != 0
			return v, n, canon
		}
	}
	return 0, -1, false
}

// zz32 decodes a zig-zag varint (5 bytes max); canon also requires that the
// value fits in 32 bits.
func zz32(b []byte, p, end int) (int32, int, bool) {
	v, n, canon := uvar(b, p, end, 5)
	if v > 0xffffffff {
		canon = false
	}
	u := uint32(v)
	return int32(u>>1) ^ -int32(u&1), n, canon
}

func zz64(b []byte, p, end int) (int64, int, bool) {
	v, n, canon := uvar(b, p, end, 10)
	if n == 10 && b[p+9] > 1 {
		canon = false
	}
	return int64(v>>1) ^ -int64(v&1), n, canon
}

type recErr string

func (d *decoder) recordList(b []byte, bi, p, end int, ctx *batchCtx, parent *tree.Node) []*tree.Node {
	c := ctx.count
	if c < 0 {
		c = 0
	}
	if c > (end-p)/7 {
		c = (end - p) / 7
	}
	if room := (d.opts.MaxNodes - d.nodes) / 8; c > room {
		c = max(room, 0)
	}
	kids := d.s.Kids(c + 1)
	for p < end {
		if d.nodes >= d.opts.MaxNodes {
			parent.Warn("records from byte " + itoa(p) + " not decoded: Options.MaxNodes reached")
			raw := d.leaf("raw", schema.Bytes, "bytes", bi, p, end)
			raw.Role = tree.RoleRaw
			raw.Raw = b[p:end]
			kids = append(kids, raw)
			break
		}
		rec, next, msg := d.record(b, bi, p, end, ctx, len(kids))
		if msg != "" {
			parent.Warn("record " + itoa(len(kids)) + " at byte " + itoa(p) + ": " + string(msg))
			raw := d.leaf("raw", schema.Bytes, "bytes", bi, p, end)
			raw.Role = tree.RoleRaw
			raw.Raw = b[p:end]
			kids = append(kids, raw)
			break
		}
		kids = append(kids, rec)
		ctx.parsed++
		p = next
	}
	return kids
}

// record decodes one record at p; msg is set when its length framing is broken.
func (d *decoder) record(b []byte, bi, p, end int, ctx *batchCtx, idx int) (*tree.Node, int, recErr) {
	l, n, canon := zz32(b, p, end)
	if n == 0 {
		return nil, 0, "the input ends inside the record length"
	}
	if n < 0 {
		return nil, 0, "record length varint too long"
	}
	if l < 0 || int(l) > end-p-n {
		return nil, 0, recErr("record length " + itoa(int(l)) + " does not fit the " + itoa(end-p-n) + " bytes left")
	}
	rend := p + n + int(l)
	rec := d.leaf("record", schema.Struct, "Record", bi, p, rend)
	rec.PrefixEnd = p + n
	rec.Index = idx
	kids := d.s.Kids(8)
	ln := d.leaf("length", schema.Int32, "varint", bi, p, p+n)
	ln.Int = int64(l)
	ln.Flags |= tree.Varint
	if !canon {
		ln.Warn("non-minimal varint")
	}
	kids = append(kids, ln)
	q := p + n
	fail := func(msg string) (*tree.Node, int, recErr) {
		rec.Warn(msg)
		raw := d.leaf("raw", schema.Bytes, "bytes", bi, q, rend)
		raw.Role = tree.RoleRaw
		raw.Raw = b[q:rend]
		if q < rend {
			kids = append(kids, raw)
		}
		rec.Children = kids
		d.res.Records = append(d.res.Records, RecordInfo{Node: rec, Offset: ctx.base, Timestamp: ctx.baseTS})
		rec.Int = ctx.base
		return rec, rend, ""
	}
	if q >= rend {
		return fail("the record ends before its attributes")
	}
	at := d.leaf("attributes", schema.Int8, "int8", bi, q, q+1)
	at.Int = int64(int8(b[q]))
	kids = append(kids, at)
	q++
	tsd, n, canon := zz64(b, q, rend)
	if n <= 0 {
		return fail("bad timestampDelta varlong")
	}
	tn := d.leaf("timestampDelta", schema.Int64, "varlong", bi, q, q+n)
	tn.Int, tn.Flags = tsd, tree.Varint
	if !canon {
		tn.Warn("non-minimal varint")
	}
	kids = append(kids, tn)
	q += n
	od, n, canon := zz32(b, q, rend)
	if n <= 0 {
		return fail("bad offsetDelta varint")
	}
	on := d.leaf("offsetDelta", schema.Int32, "varint", bi, q, q+n)
	on.Int, on.Flags = int64(od), tree.Varint
	if !canon {
		on.Warn("non-minimal varint")
	}
	kids = append(kids, on)
	q += n
	key, msg := d.varbytes(b, bi, &q, rend, "key", schema.Bytes, "varbytes")
	if msg != "" {
		return fail(msg)
	}
	kids = append(kids, key)
	val, msg := d.varbytes(b, bi, &q, rend, "value", schema.Bytes, "varbytes")
	if msg != "" {
		return fail(msg)
	}
	kids = append(kids, val)
	hc, n, canon := zz32(b, q, rend)
	if n <= 0 {
		return fail("bad header count varint")
	}
	if hc < 0 || int(hc) > (rend-q-n)/2 {
		return fail("header count " + itoa(int(hc)) + " does not fit the record")
	}
	hs := d.leaf("headers", schema.Array, "[]Header", bi, q, q+n)
	hs.PrefixEnd = q + n
	hs.Int = int64(hc)
	if !canon {
		hs.Warn("non-minimal varint")
	}
	kids = append(kids, hs)
	q += n
	if hc > 0 {
		hk := d.s.Kids(int(hc))
		for i := 0; i < int(hc); i++ {
			h := d.leaf("header", schema.Struct, "Header", bi, q, q)
			h.Index = i
			k, msg := d.varbytes(b, bi, &q, rend, "key", schema.String, "varstring")
			if msg != "" {
				hs.Children = hk
				hs.End = q
				return fail("header " + itoa(i) + ": " + msg)
			}
			v, msg := d.varbytes(b, bi, &q, rend, "value", schema.Bytes, "varbytes")
			if msg != "" {
				h.Children = append(d.s.Kids(1), k)
				h.End = k.End
				hk = append(hk, h)
				hs.Children = hk
				hs.End = q
				return fail("header " + itoa(i) + ": " + msg)
			}
			h.Children = append(d.s.Kids(2), k, v)
			h.End = q
			hk = append(hk, h)
		}
		hs.Children = hk
		hs.End = q
	}
	if ctx.control {
		d.control(b, bi, key, val)
	}
	if q < rend {
		return fail(itoa(rend-q) + " bytes after the headers")
	}
	rec.Children = kids
	off := ctx.base + int64(od)
	ts := ctx.baseTS + tsd
	if ctx.logAppend {
		ts = ctx.maxTS
	}
	rec.Int = off
	d.res.Records = append(d.res.Records, RecordInfo{Node: rec, Offset: off, Timestamp: ts})
	return rec, rend, ""
}

func (d *decoder) varbytes(b []byte, bi int, q *int, end int, name string, k schema.Kind, typ string) (*tree.Node, string) {
	l, n, canon := zz32(b, *q, end)
	if n <= 0 {
		return nil, "bad " + name + " length varint"
	}
	if l < -1 || int(l) > end-*q-n {
		return nil, name + " length " + itoa(int(l)) + " does not fit the " + itoa(end-*q-n) + " bytes left"
	}
	x := d.leaf(name, k, typ, bi, *q, *q+n)
	x.PrefixEnd = *q + n
	x.Int = int64(l)
	if !canon {
		x.Warn("non-minimal varint")
	}
	*q += n
	if l == -1 {
		x.Null = true
	} else {
		x.Raw = b[*q : *q+int(l) : *q+int(l)]
		*q += int(l)
		x.End = *q
	}
	return x, ""
}

// control decodes the key and value of a control record.
func (d *decoder) control(b []byte, bi int, key, val *tree.Node) {
	if key.Null || len(key.Raw) < 4 {
		key.Warn("a control record key needs version int16 and type int16")
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
		key.Warn("unknown control record type " + itoa(t))
		return
	}
	if val.Null || len(val.Raw) < 2 {
		return
	}
	p = val.PrefixEnd
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
	if d.opts.DecodeData != nil {
		var err error
		dn, err = d.opts.DecodeData(d.s, controlData[t], int16(ver), b, bi, p, val.End)
		if err != nil {
			val.Warn("cannot decode " + controlData[t] + ": " + err.Error())
		}
	}
	if dn == nil {
		dn = d.leaf("data", schema.Bytes, controlData[t], bi, p, val.End)
		dn.Raw = b[p:val.End]
	}
	vk = append(vk, dn)
	val.Children = vk
}

// message decodes a legacy (magic 0 or 1) message in b[off:end].
func (d *decoder) message(b []byte, bi, off, end, depth int, w *wrapper) *tree.Node {
	n := d.leaf("message", schema.Struct, "Message", bi, off, end)
	n.Raw = b[off:end:end]
	kids := d.s.Kids(9)
	p := off
	offset := d.fixed(&kids, "offset", schema.Int64, b, bi, &p).Int
	d.fixed(&kids, "messageSize", schema.Int32, b, bi, &p)
	crcNode := d.fixed(&kids, "crc", schema.Uint32, b, bi, &p)
	magic := int8(d.fixed(&kids, "magic", schema.Int8, b, bi, &p).Int)
	attrNode := d.fixed(&kids, "attributes", schema.Int8, b, bi, &p)
	attrs := int(attrNode.Int) & 0xff
	attrNode.Children = d.bits(attrNode, attrs, false)
	if attrs&^0x0f != 0 || (magic == 0 && attrs&8 != 0) {
		attrNode.Warn("unused attribute bits are set")
	}
	ts := int64(-1)
	if magic == 1 {
		ts = d.fixed(&kids, "timestamp", schema.Int64, b, bi, &p).Int
	}
	n.Int = offset
	info := RecordInfo{Node: n, Offset: offset, Timestamp: ts}
	if w != nil && w.logAppend && magic == 1 {
		info.Timestamp = w.timestamp
	}
	d.res.Records = append(d.res.Records, info)
	if c := crc32.ChecksumIEEE(b[off+16 : end]); c != uint32(crcNode.Int) {
		crcWarn(crcNode, "CRC-32", c, uint32(crcNode.Int))
	}
	fail := func(msg string) *tree.Node {
		n.Warn(msg)
		if p < end {
			raw := d.leaf("raw", schema.Bytes, "bytes", bi, p, end)
			raw.Role = tree.RoleRaw
			raw.Raw = b[p:end]
			kids = append(kids, raw)
		}
		n.Children = kids
		return n
	}
	key, msg := d.bytes32(b, bi, &p, end, "key")
	if msg != "" {
		return fail(msg)
	}
	kids = append(kids, key)
	val, msg := d.bytes32(b, bi, &p, end, "value")
	if msg != "" {
		return fail(msg)
	}
	kids = append(kids, val)
	if codec := attrs & 7; codec != CodecNone {
		switch {
		case val.Null:
			val.Warn("a compressed wrapper message has a null value")
		case depth+1 > d.opts.MaxDepth:
			val.Warn("not decompressed: wrapper messages nested deeper than Options.MaxDepth")
		default:
			if inf := d.inflate(val, codec, val.Raw); inf != nil {
				ib := inf.Raw
				ww := &wrapper{node: n, offset: offset, magic: magic, logAppend: magic == 1 && attrs&8 != 0, timestamp: ts}
				inner, err := d.set(ib, inf.Buf, 0, len(ib), depth+1, ww)
				if err != nil {
					inf.Warn("inner message set: " + err.Error())
				}
				inf.Children = inner
				val.Children = append(d.s.Kids(1), inf)
			}
		}
	}
	if p < end {
		return fail(itoa(end-p) + " bytes after the value")
	}
	n.Children = kids
	return n
}

func (d *decoder) bytes32(b []byte, bi int, p *int, end int, name string) (*tree.Node, string) {
	if end-*p < 4 {
		return nil, "the message ends inside the " + name + " length"
	}
	l := be32(b[*p:])
	if l < -1 || l > int64(end-*p-4) {
		return nil, name + " length " + itoa(int(l)) + " does not fit the " + itoa(end-*p-4) + " bytes left"
	}
	x := d.leaf(name, schema.Bytes, "bytes", bi, *p, *p+4)
	x.PrefixEnd = *p + 4
	x.Int = l
	*p += 4
	if l == -1 {
		x.Null = true
	} else {
		x.Raw = b[*p : *p+int(l) : *p+int(l)]
		*p += int(l)
		x.End = *p
	}
	return x, ""
}
