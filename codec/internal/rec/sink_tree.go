package rec

import (
	"github.com/kwire/kwire/codec/internal/read"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// treeSink builds the records' tree: nodes from a slab, with the spans and
// values the package doc lays out. The reader charges the budget for
// them; the sink only makes them.
type treeSink struct {
	d     *decoder
	s     *slab.Slab
	lists [][]*tree.Node // the open lists' nodes
	spare *[]byte        // the buffer decompressions write into (Decode's Spare, never nil)
}

func (t *treeSink) beginList() { t.lists = append(t.lists, t.s.Kids(16)) }

func (t *treeSink) endList() []*tree.Node {
	k := len(t.lists) - 1
	l := t.lists[k]
	t.lists = t.lists[:k]
	return l
}

func (t *treeSink) add(n *tree.Node) *tree.Node {
	k := len(t.lists) - 1
	t.lists[k] = append(t.lists[k], n)
	return n
}

// leaf makes a node of buffer bi spanning [start, end).
func (t *treeSink) leaf(name string, k schema.Kind, typ string, bi, start, end int) *tree.Node {
	n := t.s.New()
	n.Name, n.Role, n.Kind, n.Type, n.Buf = name, tree.RoleRecord, k, typ, bi
	n.Start, n.PrefixEnd, n.End = start, start, end
	return n
}

// bytesNode makes a node of the bytes b[p:end] of buffer bi.
func (t *treeSink) bytesNode(name, typ string, b []byte, bi, p, end int) *tree.Node {
	n := t.leaf(name, schema.Bytes, typ, bi, p, end)
	n.Raw = b[p:end:end]
	return n
}

func (t *treeSink) rawNode(b []byte, bi, p, end int) *tree.Node {
	n := t.bytesNode("raw", "bytes", b, bi, p, end)
	n.Role = tree.RoleRaw
	return n
}

func (t *treeSink) raw(b []byte, bi, p, end int, _ bool) *tree.Node {
	return t.add(t.rawNode(b, bi, p, end))
}

// header adds the fixed-width fields at *p to kids.
func (t *treeSink) header(kids *[]*tree.Node, fields []hdrField, b []byte, bi int, p *int) {
	for i := range fields {
		k := fields[i].kind
		n := t.leaf(fields[i].name, k, k.String(), bi, *p, *p+k.FixedSize())
		n.Int = read.Fixed(k, b[*p:])
		*p = n.End
		*kids = append(*kids, n)
	}
}

func (t *treeSink) truncated(b []byte, bi, off, end int, magic int8, fixed int) *tree.Node {
	n := t.leaf("batch", schema.Struct, "RecordBatch", bi, off, end)
	fields := batchFields[:]
	if magic == 0 || magic == 1 {
		n.Name, n.Type = "message", "Message"
		fields = msgFields[:]
	}
	n.Flags |= tree.Truncated
	n.Raw = b[off:end]
	n.Int = int64(magic)
	kids := t.s.Kids(3)
	p := off
	t.header(&kids, fields[:fixed], b, bi, &p)
	if p < end {
		rest := t.bytesNode("partial", "bytes", b, bi, p, end)
		rest.Flags |= tree.Truncated
		kids = append(kids, rest)
	}
	n.Children = kids
	return t.add(n)
}

var bitTypes = [...]string{"bits 0-2", "bit 3", "bit 4", "bit 5", "bit 6"}

// bits makes the first num attribute bits of attr (a batch's five, a
// message's two).
func (t *treeSink) bits(attr *tree.Node, num int) []*tree.Node {
	kids := t.s.Kids(num)
	for i := 0; i < num; i++ {
		c := t.leaf(bitNames[i], attr.Kind, bitTypes[i], attr.Buf, attr.Start, attr.End)
		c.Int = (attr.Int >> (i + 2)) & 1
		if i == 0 {
			c.Int = attr.Int & 7
		}
		kids = append(kids, c)
	}
	return kids
}

func (t *treeSink) batch(b []byte, bi, off, end int, ctx *batchCtx) *tree.Node {
	n := t.leaf("batch", schema.Struct, "RecordBatch", bi, off, end)
	n.Int = 2
	n.Raw = b[off:end:end]
	kids := t.s.Kids(14)
	p := off
	t.header(&kids, batchFields[:], b, bi, &p)
	kids[batchAttrs].Children = t.bits(kids[batchAttrs], 5)
	recs := t.leaf("records", schema.Records, "records", bi, p, end)
	recs.Raw = b[p:end]
	if ctx.attrs&7 != CodecNone {
		recs.Type = "compressed records"
	}
	n.Children = append(kids, recs)
	return t.add(n)
}

func (t *treeSink) inflated(n *tree.Node, out []byte, idx, codec int) *tree.Node {
	inf := t.leaf("inflated", schema.Bytes, CodecName(codec)+" inflated", idx, 0, len(out))
	inf.Raw = out
	inf.Int = int64(codec)
	n.Children = append(t.s.Kids(1), inf)
	return inf
}

func (t *treeSink) noRecords() {}

func (t *treeSink) endEntry([]byte, []byte, *batchCtx, bool) {}

func (t *treeSink) record(b []byte, bi int, v *recView) *tree.Node {
	r := v.r
	rec := t.leaf("record", schema.Struct, "Record", bi, r.p, r.rend)
	rec.PrefixEnd = r.p + r.length.n
	rec.Index = v.idx
	rec.Int = v.offset
	kids := t.s.Kids(8)
	kids = append(kids, t.varLeaf(&r.length, "length", schema.Int32, "varint", bi))
	var key, val *tree.Node
	if r.stage >= stAttributes {
		at := t.leaf("attributes", schema.Int8, "int8", bi, r.length.end(), r.length.end()+1)
		at.Int = int64(r.attr)
		kids = append(kids, at)
	}
	if r.stage >= stTimestamp {
		kids = append(kids, t.varLeaf(&r.tsd, "timestampDelta", schema.Int64, "varlong", bi))
	}
	if r.stage >= stOffset {
		kids = append(kids, t.varLeaf(&r.od, "offsetDelta", schema.Int32, "varint", bi))
	}
	if r.stage >= stKey {
		key = t.bytesLeaf(&r.key, "key", schema.Bytes, "varbytes", bi)
		kids = append(kids, key)
		if v.control {
			t.control(b, bi, key, controlKeyFields[:])
		}
	}
	if r.stage >= stValue {
		val = t.bytesLeaf(&r.val, "value", schema.Bytes, "varbytes", bi)
		t.controlValue(b, bi, v, val)
		kids = append(kids, val)
	}
	if r.stage >= stHeaders {
		kids = append(kids, t.headers(r, bi))
	}
	if r.fail != "" && r.q < r.rend {
		kids = append(kids, t.rawNode(b, bi, r.q, r.rend))
	}
	rec.Children = kids
	for _, w := range v.warns {
		n := rec
		switch {
		case w.hdr >= 0:
			n = kids[stHeaders].Children[w.hdr].Children[w.part]
		case w.part >= 0:
			n = kids[w.part]
		}
		n.Warnings = append(n.Warnings, w.msg)
	}
	t.d.payloads(b, bi, v.hook, key, val)
	t.d.res.Records = append(t.d.res.Records, RecordInfo{Node: rec, Offset: v.offset, Timestamp: v.timestamp})
	return t.add(rec)
}

// headers makes a parsed record's headers node and its header children.
func (t *treeSink) headers(r *recParse, bi int) *tree.Node {
	hs := t.bytesLeaf(&r.hc, "headers", schema.Array, "[]Header", bi)
	if len(r.hdrs) == 0 {
		return hs
	}
	hs.Children = t.s.Kids(len(r.hdrs))
	for i := range r.hdrs {
		x := &r.hdrs[i]
		h := t.leaf("header", schema.Struct, "Header", bi, x.key.at, x.key.at)
		h.Index = i
		h.Children = append(t.s.Kids(2), t.bytesLeaf(&x.key, "key", schema.String, "varstring", bi))
		if x.hasVal {
			h.Children = append(h.Children, t.bytesLeaf(&x.val, "value", schema.Bytes, "varbytes", bi))
		}
		h.End = h.Children[len(h.Children)-1].End
		hs.Children = append(hs.Children, h)
	}
	hs.End = r.q // after the last header, or where reading one failed
	return hs
}

// varLeaf makes the node of a varint part.
func (t *treeSink) varLeaf(f *varField, name string, k schema.Kind, typ string, bi int) *tree.Node {
	n := t.leaf(name, k, typ, bi, f.at, f.at+f.n)
	n.Int = f.v
	n.Flags |= tree.Varint
	return n
}

// bytesLeaf makes the node of a length-prefixed key, value or header part:
// a varint length in a record, an int32 one in a legacy message.
func (t *treeSink) bytesLeaf(f *varField, name string, k schema.Kind, typ string, bi int) *tree.Node {
	x := t.leaf(name, k, typ, bi, f.at, f.at+f.n)
	x.PrefixEnd = f.at + f.n
	x.Int = f.v
	if f.null {
		x.Null = true
	} else {
		x.Raw = f.raw
		x.End = f.end()
	}
	return x
}

// The fields of a control record's key, and of a marker's value (a
// coordinatorEpoch when there are its bytes).
var (
	controlKeyFields = [...]hdrField{{"version", schema.Int16}, {"type", schema.Int16}}
	markerFields     = [...]hdrField{{"version", schema.Int16}, {"coordinatorEpoch", schema.Int32}}
)

// controlValue makes the children of a control record's value: version
// and coordinatorEpoch for markers, the data message (or its bytes) for
// KRaft, whose own Version field is its first.
func (t *treeSink) controlValue(b []byte, bi int, v *recView, val *tree.Node) {
	switch cv := &v.cv; {
	case cv.data:
		dn := v.data
		if dn == nil {
			dn = t.bytesNode("data", controlData[v.ctype], b, bi, val.PrefixEnd, val.End)
		}
		val.Children = append(t.s.Kids(1), dn)
	case cv.epoch:
		t.control(b, bi, val, markerFields[:])
	case cv.ok:
		t.control(b, bi, val, markerFields[:1])
	}
}

// control makes the children of a control record's key or value n: the
// fields read of it, then the bytes after them ("rest"), if any.
func (t *treeSink) control(b []byte, bi int, n *tree.Node, fields []hdrField) {
	p := n.PrefixEnd
	kids := t.s.Kids(3)
	t.header(&kids, fields, b, bi, &p)
	if p < n.End {
		kids = append(kids, t.bytesNode("rest", "bytes", b, bi, p, n.End))
	}
	n.Children = kids
}

func (t *treeSink) message(b []byte, bi int, m *msgParse, shift, _ int64) *tree.Node {
	n := t.leaf("message", schema.Struct, "Message", bi, m.off, m.end)
	n.Raw = b[m.off:m.end:m.end]
	n.Int = m.offset + shift
	kids := t.s.Kids(9)
	p := m.off
	t.header(&kids, msgFields[:m.fixed()], b, bi, &p)
	kids[msgAttrs].Children = t.bits(kids[msgAttrs], 2)
	var key, val *tree.Node
	if m.stage >= 1 {
		key = t.bytesLeaf(&m.key, "key", schema.Bytes, "bytes", bi)
		kids = append(kids, key)
	}
	if m.stage >= 2 {
		val = t.bytesLeaf(&m.val, "value", schema.Bytes, "bytes", bi)
		kids = append(kids, val)
	}
	t.d.payloads(b, bi, m.hook, key, val)
	if m.fail != "" && m.q < m.end {
		kids = append(kids, t.rawNode(b, bi, m.q, m.end))
	}
	n.Children = kids
	return t.add(n)
}

func (t *treeSink) buffer(int) []byte {
	dst := *t.spare
	*t.spare = nil
	return dst
}

func (t *treeSink) keep(_ int, out []byte, ok bool) []byte {
	if !ok {
		*t.spare = out
		return nil
	}
	if cap(out)-len(out) > len(out)/4+4096 {
		// The buffer grew in steps past what it holds: the frame keeps
		// an exact copy, the buffer serves the next decompression.
		exact := make([]byte, len(out))
		copy(exact, out)
		*t.spare, out = out[:0], exact
	}
	t.d.res.Derived = append(t.d.res.Derived, out)
	return out
}

func (t *treeSink) flush() {}

func (t *treeSink) slab() *slab.Slab { return t.s }
