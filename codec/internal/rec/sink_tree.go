package rec

import (
	"github.com/kwire/kwire/codec/internal/read"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// treeSink builds the records' tree: nodes from a slab, with the spans and
// values the package doc lays out, each record and message listed in
// Result.Records. The reader charges the budget; the sink only makes them.
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

// fields appends the fixed-width fields at p to n's children and returns
// where they end.
func (t *treeSink) fields(n *tree.Node, fields []hdrField, b []byte, bi, p int) int {
	for _, f := range fields {
		c := t.leaf(f.name, f.kind, f.kind.String(), bi, p, p+f.kind.FixedSize())
		c.Int = read.Fixed(f.kind, b[p:])
		n.Children = append(n.Children, c)
		p = c.End
	}
	return p
}

// entry makes the node of the entry b[off:end] of magic (0 or 1: a legacy
// message, else a batch) with the first fixed fields of its header and
// room for more children, and returns where those fields end.
func (t *treeSink) entry(b []byte, bi, off, end int, magic int8, fixed, room int) (*tree.Node, int) {
	n := t.leaf("batch", schema.Struct, "RecordBatch", bi, off, end)
	fields := batchFields[:fixed]
	if magic == 0 || magic == 1 {
		n.Name, n.Type, fields = "message", "Message", msgFields[:fixed]
	}
	n.Raw = b[off:end:end]
	n.Int = int64(magic)
	n.Children = t.s.Kids(fixed + room)
	return n, t.fields(n, fields, b, bi, off)
}

func (t *treeSink) truncated(b []byte, bi, off, end int, magic int8, fixed int) *tree.Node {
	n, p := t.entry(b, bi, off, end, magic, fixed, 1)
	n.Flags |= tree.Truncated
	if p < end {
		rest := t.bytesNode("partial", "bytes", b, bi, p, end)
		rest.Flags |= tree.Truncated
		n.Children = append(n.Children, rest)
	}
	return t.add(n)
}

var bitTypes = [...]string{"bits 0-2", "bit 3", "bit 4", "bit 5", "bit 6"}

// bits makes attr's children, its first num bits (a batch's five, a
// message's two).
func (t *treeSink) bits(attr *tree.Node, num int) {
	attr.Children = t.s.Kids(num)
	for i := range num {
		c := t.leaf(bitNames[i], attr.Kind, bitTypes[i], attr.Buf, attr.Start, attr.End)
		c.Int = (attr.Int >> (i + 2)) & 1
		if i == 0 {
			c.Int = attr.Int & 7
		}
		attr.Children = append(attr.Children, c)
	}
}

func (t *treeSink) batch(b []byte, bi, off, end int, ctx *batchCtx) *tree.Node {
	n, p := t.entry(b, bi, off, end, 2, len(batchFields), 1)
	t.bits(n.Children[batchAttrs], 5)
	recs := t.leaf("records", schema.Records, "records", bi, p, end)
	recs.Raw = b[p:end]
	if ctx.attrs&7 != CodecNone {
		recs.Type = "compressed records"
	}
	n.Children = append(n.Children, recs)
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
	rec.PrefixEnd = r.p + r.part[stLength].n
	rec.Index = v.idx
	rec.Int = v.offset
	kids := t.s.Kids(8)
	for st := range min(r.stage, stValue) + 1 {
		kids = append(kids, t.part(&r.part[st], &recParts[st], bi))
	}
	if v.control { // the key and value were read
		t.control(b, bi, kids[stKey], controlKeyFields[:])
		t.controlValue(b, bi, v, kids[stValue])
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
	t.d.payloads(b, bi, v.hook, kids, stKey)
	t.d.res.Records = append(t.d.res.Records, RecordInfo{Node: rec, Offset: v.offset, Timestamp: v.timestamp})
	return t.add(rec)
}

// headers makes a parsed record's headers node and its header children.
func (t *treeSink) headers(r *recParse, bi int) *tree.Node {
	hs := t.part(&r.part[stHeaders], &recParts[stHeaders], bi)
	if len(r.hdrs) == 0 {
		return hs
	}
	hs.Children = t.s.Kids(len(r.hdrs))
	for i := range r.hdrs {
		x := &r.hdrs[i]
		h := t.leaf("header", schema.Struct, "Header", bi, x.key.at, x.key.at)
		h.Index = i
		h.Children = append(t.s.Kids(2), t.part(&x.key, &hdrParts[hdrKey], bi))
		if x.hasVal {
			h.Children = append(h.Children, t.part(&x.val, &hdrParts[hdrValue], bi))
		}
		h.End = h.Children[len(h.Children)-1].End
		hs.Children = append(hs.Children, h)
	}
	hs.End = r.q // after the last header, or where reading one failed
	return hs
}

// part makes the node of a part read into f: a varint alone, a length
// then the bytes (raw, nil when null), or the attributes' byte.
func (t *treeSink) part(f *varField, p *recPart, bi int) *tree.Node {
	n := t.leaf(p.name, p.kind, p.typ, bi, f.at, f.end())
	n.Int, n.Null, n.Raw = f.v, f.null, f.raw
	switch {
	case p.varint:
		n.Flags |= tree.Varint
	case p.kind.FixedSize() == 0: // a length, then the bytes
		n.PrefixEnd = f.at + f.n
	}
	return n
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
	switch {
	case !v.readValue:
	case v.ctype > 1:
		dn := v.data
		if dn == nil {
			dn = t.bytesNode("data", controlData[v.ctype], b, bi, val.PrefixEnd, val.End)
		}
		val.Children = append(t.s.Kids(1), dn)
	case v.epoch:
		t.control(b, bi, val, markerFields[:])
	default:
		t.control(b, bi, val, markerFields[:1])
	}
}

// control makes the children of a control record's key or value n: the
// fields read of it, then the bytes after them ("rest"), if any.
func (t *treeSink) control(b []byte, bi int, n *tree.Node, fields []hdrField) {
	n.Children = t.s.Kids(3)
	if p := t.fields(n, fields, b, bi, n.PrefixEnd); p < n.End {
		n.Children = append(n.Children, t.bytesNode("rest", "bytes", b, bi, p, n.End))
	}
}

func (t *treeSink) message(b []byte, bi int, m *msgParse, shift, ts int64) *tree.Node {
	n, _ := t.entry(b, bi, m.off, m.end, m.magic, m.fixed(), 3)
	n.Int = m.offset + shift
	t.bits(n.Children[msgAttrs], 2)
	for i, f := range []*varField{&m.key, &m.val}[:m.stage] {
		n.Children = append(n.Children, t.part(f, &msgParts[i], bi))
	}
	t.d.payloads(b, bi, m.hook, n.Children, m.fixed())
	if m.fail != "" && m.q < m.end {
		n.Children = append(n.Children, t.rawNode(b, bi, m.q, m.end))
	}
	t.d.res.Records = append(t.d.res.Records, RecordInfo{Node: n, Offset: n.Int, Timestamp: ts})
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
