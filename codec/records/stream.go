package records

import (
	"encoding/base64"
	"hash/crc32"
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/jsontext"
)

// WriteJSON decodes payload (placed by opts as for Decode) as Decode does, with the same checks,
// budget, warnings and error, but builds no tree: it appends the Decoded
// JSON form (what AppendJSON writes for Decode's result) to *out as it
// reads, one record at a time, reusing one decompression buffer per
// nesting depth, and calls flush (when not nil) after each record and
// entry so the caller can write the output away. It returns how many
// derived buffers it numbered (as Decode's Result.Derived would hold), and
// Decode's error.
func WriteJSON(out *[]byte, payload []byte, opts Options, flush func()) (int, error) {
	bufIdx, start, end, base := opts.span(payload)
	d := new(decoder)
	if opts.Scratch != nil {
		d = &opts.Scratch.d
	}
	d.init(nil, &opts, end-start)
	d.res.Base = base
	d.out, d.flush, d.nbuf = out, flush, 0
	d.b.Work += end - start
	err := d.setJSON(payload, bufIdx, start, end, 0, nil)
	return d.nbuf, err
}

// Scratch is memory WriteJSON reuses from one call to the next: its
// decompression buffers and record state. A zero Scratch is ready.
type Scratch struct{ d decoder }

// jsonState is the decoder's tree-less side: where JSON goes and what it
// reuses.
type jsonState struct {
	out     *[]byte
	flush   func()
	nbuf    int      // derived buffers numbered so far
	scratch [][]byte // decompressed bytes, one buffer per nesting depth
	rp      recParse
	data    tree.Slab // a KRaft value's data message, one at a time
}

func (d *decoder) w8(s string)  { *d.out = append(*d.out, s...) }
func (d *decoder) wb(c byte)    { *d.out = append(*d.out, c) }
func (d *decoder) wint(v int64) { *d.out = strconv.AppendInt(*d.out, v, 10) }

// wb64 writes b as a base64 string; a big one in pieces, flushed between
// them, so the output never holds all of it.
func (d *decoder) wb64(b []byte) {
	const piece = 3 << 18 // 768 KiB: whole base64 quanta
	if len(b) <= piece || d.flush == nil {
		*d.out = appendB64(*d.out, b)
		return
	}
	*d.out = append(*d.out, '"')
	for len(b) > 0 {
		n := min(len(b), piece)
		*d.out = base64.StdEncoding.AppendEncode(*d.out, b[:n])
		b = b[n:]
		d.flush()
	}
	*d.out = append(*d.out, '"')
}
func (d *decoder) wbytes(f *varField) {
	if f == nil || f.null {
		d.w8("null")
		return
	}
	*d.out = appendBytesValue(*d.out, f.raw)
}

// field writes ,"name":v.
func (d *decoder) field(name string, v int64) {
	d.wb(',')
	d.wb('"')
	d.w8(name)
	d.w8(`":`)
	d.wint(v)
}

func (d *decoder) sep(first *bool) {
	if !*first {
		d.wb(',')
	}
	*first = false
}

func (d *decoder) flushed() {
	if d.flush != nil {
		d.flush()
	}
}

// setJSON is set, writing the entries as a JSON array.
func (d *decoder) setJSON(b []byte, bi, start, end, depth int, w *wrapper) error {
	d.wb('[')
	first := true
	shift := innerShift(b, start, end, w)
	idx := 0
	off := start
	for off < end {
		if !d.b.Fits(maxEntryNodes) {
			d.b.Nodes++
			d.sep(&first)
			d.w8(`{"_raw":`)
			d.wb64(b[off:end])
			d.wb('}')
			d.push("", idx)
			d.limitAt(bi, off, "", "entries from byte "+itoa(off)+" not decoded: the MaxNodes limit ("+itoa(d.b.MaxNodes)+" nodes) is reached")
			d.pop()
			break
		}
		kind, magic, next, err := frameAt(b, off, end)
		if err != nil {
			d.b.Nodes++
			d.sep(&first)
			d.w8(`{"_raw":`)
			d.wb64(b[off:end])
			d.wb('}')
			d.wb(']')
			return err
		}
		d.sep(&first)
		d.push("", idx)
		switch kind {
		case entryTruncated:
			d.truncatedJSON(b, bi, off, end, magic)
		case entryBatch:
			d.batchJSON(b, bi, off, next, depth)
		default:
			d.messageJSON(b, bi, off, next, depth, shift)
		}
		d.pop()
		idx++
		off = next
		d.flushed()
	}
	d.wb(']')
	return nil
}

// warnAt is warn for the tree-less path: no node, the place given.
func (d *decoder) warnAtJSON(mark *int, bi, off int, field, msg string, limit bool) {
	d.chargeWarning(limit)
	if d.w == nil {
		return
	}
	x := warningAt(d.pathString(field), bi, off, msg, limit)
	if mark != nil {
		d.w.Insert(mark, x)
	} else {
		d.w.Add(x)
	}
}

func (d *decoder) limitAt(bi, off int, field, msg string) {
	d.warnAtJSON(nil, bi, off, field, msg, true)
}
func (d *decoder) warnJSON(bi, off int, field, msg string) {
	d.warnAtJSON(nil, bi, off, field, msg, false)
}

func (d *decoder) truncatedJSON(b []byte, bi, off, end int, magic int8) {
	n := 1
	if end-off >= 8 {
		n++
		if end-off >= 12 {
			n++
		}
	}
	p := off
	if end-off >= 8 {
		p += 8
		if end-off >= 12 {
			p += 4
		}
	}
	if p < end {
		n++
	}
	d.b.Nodes += n
	d.warnJSON(bi, off, "", "the input ends inside this entry ("+itoa(end-off)+" bytes present)")
	d.w8(`{"_truncated":`)
	d.wb64(b[off:end])
	d.wb('}')
}

func (d *decoder) batchJSON(b []byte, bi, off, end, depth int) {
	d.b.Nodes += 20 // batch, 13 fixed fields, 5 attribute bits, records
	mark := d.w.Mark()
	crc := uint32(be32(b[off+17:]))
	if c := crc32.Checksum(b[off+21:end], castagnoli); c != crc {
		d.warnJSON(bi, off+17, "crc", crcMessage("CRC-32C", c, crc))
	}
	attrs := int(be16(b[off+21:]))
	if attrs&^0x7f != 0 {
		d.warnJSON(bi, off+21, "attributes", "unused attribute bits 7-15 are set")
	}
	countMark := d.w.Mark()
	d.w8(`{"baseOffset":`)
	d.wint(be64(b[off:]))
	d.field("partitionLeaderEpoch", be32(b[off+12:]))
	d.field("magic", int64(int8(b[off+16])))
	d.field("crc", int64(crc))
	d.w8(`,"attributes":`)
	*d.out = appendAttrs(*d.out, attrs, 2)
	d.field("lastOffsetDelta", be32(b[off+23:]))
	baseTS, maxTS := be64(b[off+27:]), be64(b[off+35:])
	d.field("baseTimestamp", baseTS)
	d.field("maxTimestamp", maxTS)
	d.field("producerId", be64(b[off+43:]))
	d.field("producerEpoch", be16(b[off+51:]))
	d.field("baseSequence", be32(b[off+53:]))
	ctx := batchCtx{base: be64(b[off:]), baseTS: baseTS, maxTS: maxTS, logAppend: attrs&8 != 0, control: attrs&0x20 != 0, count: int(be32(b[off+57:]))}
	p := off + batchHeader
	codec := attrs & 7
	d.w8(`,"records":`)
	d.push("records", -1)
	decoded := codec == CodecNone
	if decoded {
		d.recordListJSON(b, bi, p, end, &ctx)
	} else if ib, ibi, ok := d.inflateJSON(bi, p, "", codec, b[p:end], depth); ok {
		decoded = true
		d.b.Nodes++ // inflated
		d.recordListJSON(ib, ibi, 0, len(ib), &ctx)
	} else {
		d.w8("null")
	}
	d.pop()
	if ctx.parsed != ctx.count && !ctx.cut && decoded {
		d.warnAtJSON(&countMark, bi, off+57, "recordCount", "recordCount is "+itoa(ctx.count)+" but the batch holds "+itoa(ctx.parsed)+" records", false)
	}
	if codec != CodecNone {
		d.w8(`,"_compressed":`)
		d.wb64(b[p:end])
	}
	if d.w.Mark() > mark {
		d.w8(`,"_raw":`)
		d.wb64(b[off:end])
	}
	d.wb('}')
}

// inflateJSON is inflate into the buffer kept for depth: the bytes, the
// derived buffer's index, and whether it worked (else a warning is out).
func (d *decoder) inflateJSON(bi, at int, field string, codec int, src []byte, depth int) ([]byte, int, bool) {
	limit, which := d.b.MaxDecompressed-d.b.Decompressed, "MaxDecompressed"
	if w := d.b.MaxWork - d.b.Work; w < limit {
		limit, which = w, "MaxWork"
	}
	if limit <= 0 {
		d.limitAt(bi, at, field, "not decompressed: the "+which+" limit is used up")
		return nil, 0, false
	}
	for len(d.scratch) <= depth {
		d.scratch = append(d.scratch, nil)
	}
	out, warn, done, err := inflateInto(d.scratch[depth], codec, src, limit)
	if warn != "" {
		d.warnJSON(bi, at, field, warn)
	}
	if err != nil {
		d.b.Work += done // as inflate: the work was done all the same
		d.scratch[depth] = out
		if err == errLimit {
			d.limitAt(bi, at, field, "not decompressed: it holds more than the "+itoa(limit)+" bytes left of the "+which+" limit")
			return nil, 0, false
		}
		name := CodecName(codec)
		if name == "" {
			name = "codec " + itoa(codec)
		}
		d.warnJSON(bi, at, field, "cannot decompress "+name+": "+err.Error())
		return nil, 0, false
	}
	d.scratch[depth] = out
	d.b.Decompressed += len(out)
	d.b.Work += done
	d.nbuf++
	return out, d.res.Base + d.nbuf - 1, true
}

// recordListJSON is recordList, writing the records (not the bytes left
// undecoded) as a JSON array.
func (d *decoder) recordListJSON(b []byte, bi, p, end int, ctx *batchCtx) {
	d.wb('[')
	first := true
	mark := d.w.Mark()
	r := &d.rp
	idx, start := 0, p
	cut := func() {
		ctx.cut = true
		d.b.Nodes++
		d.push("", idx)
		d.limitAt(bi, p, "", "records from byte "+itoa(p)+" not decoded: the MaxNodes limit ("+itoa(d.b.MaxNodes)+" nodes) is reached")
		d.pop()
	}
	for p < end {
		if !d.b.NodesLeft() {
			cut()
			break
		}
		if msg := parseRecord(b, p, end, r); msg != "" {
			d.warnAtJSON(&mark, bi, start, "", "record "+itoa(idx)+" at byte "+itoa(p)+": "+string(msg), false)
			d.b.Nodes++
			break
		}
		cost, after := recordCost(r, ctx)
		if !d.b.Fits(cost) {
			cut()
			break
		}
		d.sep(&first)
		d.push("", idx)
		d.dataAfter = after
		d.recordJSON(b, bi, r, ctx)
		d.pop()
		idx++
		ctx.parsed++
		p = r.rend
		d.flushed()
	}
	d.wb(']')
}

// recordJSON writes a parsed record, counting the nodes record would make
// and raising the warnings it would, in the same order.
func (d *decoder) recordJSON(b []byte, bi int, r *recParse, ctx *batchCtx) {
	nodes := 2 // record, length
	if r.fail != "" {
		d.warnJSON(bi, r.p, "", r.fail)
	}
	if !r.length.canon {
		d.warnJSON(bi, r.length.at, "length", nonMinimal)
	}
	if r.stage >= stAttributes {
		nodes++
	}
	if r.stage >= stTimestamp {
		nodes++
		if !r.tsd.canon {
			d.warnJSON(bi, r.tsd.at, "timestampDelta", nonMinimal)
		}
	}
	if r.stage >= stOffset {
		nodes++
		if !r.od.canon {
			d.warnJSON(bi, r.od.at, "offsetDelta", nonMinimal)
		}
	}
	control := ctx.control && r.stage >= stHeaders && !r.hdrFail
	ctype, keyOK := -1, false
	if r.stage >= stKey {
		nodes++
		if !r.key.canon {
			d.warnJSON(bi, r.key.at, "key", nonMinimal)
		}
		if control {
			if r.key.null || len(r.key.raw) < 4 {
				d.warnJSON(bi, r.key.at, "key", "a control record key needs version int16 and type int16")
			} else {
				keyOK = true
				ctype = int(be16(r.key.raw[2:]))
				nodes += 2
				if len(r.key.raw) > 4 {
					nodes++
				}
				if ctype < 0 || ctype >= len(controlNames) {
					d.warnJSON(bi, r.key.at, "key", "unknown control record type "+itoa(ctype))
				}
			}
		}
	}
	// The control value is decoded before the record is written: its
	// data message's warnings come in the value's place.
	var dn *tree.Node
	var cv controlVal
	if r.stage >= stValue {
		nodes++
		if !r.val.canon {
			d.warnJSON(bi, r.val.at, "value", nonMinimal)
		}
		if control && keyOK {
			d.b.Nodes += nodes
			nodes = 0
			cv, dn = d.controlValueJSON(b, bi, ctype, &r.val)
		}
	}
	if r.stage >= stHeaders {
		nodes++
		if !r.hc.canon {
			d.warnJSON(bi, r.hc.at, "headers", nonMinimal)
		}
		if len(r.hdrs) > 0 {
			d.push("headers", -1)
			for i := range r.hdrs {
				h := &r.hdrs[i]
				nodes += 2
				d.push("", i)
				if !h.key.canon {
					d.warnJSON(bi, h.key.at, "key", nonMinimal)
				}
				if h.hasVal {
					nodes++
					if !h.val.canon {
						d.warnJSON(bi, h.val.at, "value", nonMinimal)
					}
				}
				d.pop()
			}
			d.pop()
		}
	}
	if r.fail != "" && r.q < r.rend {
		nodes++
	}
	d.b.Nodes += nodes

	off, ts := recordTime(r, ctx)
	d.w8(`{"attributes":`)
	d.wint(int64(r.attr))
	d.field("timestampDelta", r.tsd.v)
	d.field("offsetDelta", r.od.v)
	d.field("offset", off)
	d.field("timestamp", ts)
	d.w8(`,"key":`)
	if r.stage >= stKey && !ctx.control {
		d.wbytesPayload(b, bi, &r.key, true) // payload hook
	} else if r.stage >= stKey {
		d.wbytes(&r.key)
	} else {
		d.w8("null")
	}
	d.w8(`,"value":`)
	if r.stage >= stValue && !ctx.control {
		d.wbytesPayload(b, bi, &r.val, false) // payload hook
	} else if r.stage >= stValue {
		d.wbytes(&r.val)
	} else {
		d.w8("null")
	}
	d.w8(`,"headers":[`)
	if r.stage >= stHeaders {
		for i := range r.hdrs {
			h := &r.hdrs[i]
			if i > 0 {
				d.wb(',')
			}
			d.w8(`{"key":`)
			switch {
			case h.key.null:
				d.w8("null")
			case utf8.Valid(h.key.raw):
				*d.out = jsontext.AppendString(*d.out, h.key.raw)
			default:
				d.w8(`{"base64":`)
				d.wb64(h.key.raw)
				d.wb('}')
			}
			d.w8(`,"value":`)
			if h.hasVal {
				d.wbytes(&h.val)
			} else {
				d.w8("null")
			}
			d.wb('}')
		}
	}
	d.wb(']')
	if keyOK {
		d.w8(`,"control":{"keyVersion":`)
		d.wint(be16(r.key.raw))
		d.w8(`,"type":`)
		if name := ControlTypeName(ctype); name != "" {
			d.wb('"')
			d.w8(name)
			d.wb('"')
		} else {
			d.wint(int64(ctype))
		}
		if cv.ok {
			d.field("valueVersion", cv.version)
			if cv.epoch {
				d.field("coordinatorEpoch", cv.coordinatorEpoch)
			}
			if cv.data {
				d.w8(`,"data":`)
				if dn != nil {
					*d.out = appendNodeJSON(*d.out, dn)
				} else {
					d.wb64(cv.raw)
				}
			}
		}
		d.wb('}')
	}
	d.wb('}')
}

// controlVal is what controlValue finds in a control record's value.
type controlVal struct {
	ok               bool // the value has its version (and the node children)
	version          int64
	epoch            bool
	coordinatorEpoch int64
	data             bool   // a KRaft data message: dn, or raw when it did not decode
	raw              []byte // the data message's bytes
}

// controlValueJSON is controlValue without nodes: the value's version and
// epoch, or its data message decoded (as a small tree, dropped after the
// record is written) through the Data hook.
func (d *decoder) controlValueJSON(b []byte, bi, t int, val *varField) (controlVal, *tree.Node) {
	var cv controlVal
	if t < 0 || t >= len(controlNames) || val.null || len(val.raw) < 2 {
		return cv, nil
	}
	cv.ok = true
	d.b.Nodes++ // version
	p := val.at + val.n
	vend := p + len(val.raw)
	cv.version = be16(b[p:])
	p += 2
	if t <= 1 {
		if vend-p >= 4 {
			d.b.Nodes++
			cv.epoch, cv.coordinatorEpoch = true, be32(b[p:])
			p += 4
		}
		if p < vend {
			d.b.Nodes++
		}
		return cv, nil
	}
	cv.data, cv.raw = true, b[p:vend]
	var dn *tree.Node
	var err error
	switch {
	case d.opts.Data != nil:
		mark := d.w.Mark()
		d.data.Reset()
		dn, err = d.decodeData(controlData[t], int16(cv.version), b, bi, p, vend)
		if err != nil {
			d.w.Truncate(mark)
		}
	case d.opts.DecodeData != nil:
		d.data.Reset()
		dn, err = d.opts.DecodeData(&d.data, controlData[t], int16(cv.version), b, bi, p, vend)
	}
	if err != nil {
		dn = nil
		if l, ok := err.(interface{ LimitHit() bool }); ok && l.LimitHit() {
			d.limitAt(bi, val.at, "value", "not decoded as "+controlData[t]+": "+err.Error())
		} else {
			d.warnJSON(bi, val.at, "value", "cannot decode "+controlData[t]+": "+err.Error())
		}
	}
	if dn == nil {
		d.b.Nodes++ // the data leaf
	}
	return cv, dn
}

func (d *decoder) messageJSON(b []byte, bi, off, end, depth int, shift int64) {
	var m msgParse
	parseMessage(b, off, end, &m)
	mark := d.w.Mark()
	nodes := 8 // message, offset, messageSize, crc, magic, attributes and its 2 bits
	if m.magic == 1 {
		nodes++
	}
	if m.fail != "" {
		d.warnJSON(bi, off, "", m.fail)
	}
	if m.crcWrong {
		d.warnJSON(bi, off+12, "crc", crcMessage("CRC-32", m.crcCorrect, m.crc))
	}
	if m.attrs&^0x0f != 0 || (m.magic == 0 && m.attrs&8 != 0) {
		d.warnJSON(bi, off+17, "attributes", "unused attribute bits are set")
	}
	if m.stage >= 1 {
		nodes++
	}
	if m.stage >= 2 {
		nodes++
	}
	if m.fail != "" && m.q < end {
		nodes++
	}
	d.b.Nodes += nodes
	d.w8(`{"offset":`)
	d.wint(m.offset)
	if shift != 0 {
		d.field("absoluteOffset", m.offset+shift)
	}
	d.field("magic", int64(m.magic))
	d.field("crc", int64(m.crc))
	d.w8(`,"attributes":`)
	*d.out = appendAttrs(*d.out, m.attrs, int(m.magic))
	if m.magic == 1 {
		d.field("timestamp", m.ts)
	}
	if m.stage >= 1 {
		d.w8(`,"key":`)
		d.wbytesPayload(b, bi, &m.key, true) // payload hook
	}
	if m.stage >= 2 {
		codec := m.attrs & 7
		if codec != CodecNone && !m.val.null {
			d.w8(`,"messages":`)
			d.wrappedJSON(b, bi, codec, &m, depth)
			d.w8(`,"_compressed":`)
			d.wb64(m.val.raw)
		} else {
			if codec != CodecNone {
				d.warnJSON(bi, m.val.at, "value", "a compressed wrapper message has a null value")
			}
			d.w8(`,"value":`)
			if codec == CodecNone {
				d.wbytesPayload(b, bi, &m.val, false) // payload hook
			} else {
				d.wbytes(&m.val)
			}
		}
	}
	if d.w.Mark() > mark {
		d.w8(`,"_raw":`)
		d.wb64(b[off:end])
	}
	d.wb('}')
}

// wrappedJSON is wrapped: the inner message set of a wrapper, or null.
func (d *decoder) wrappedJSON(b []byte, bi, codec int, m *msgParse, depth int) {
	if depth+1 > d.maxDepth {
		d.limitAt(bi, m.val.at, "value", "not decompressed: wrappers nest deeper than the MaxRecordNesting limit ("+itoa(d.maxDepth)+")")
		d.w8("null")
		return
	}
	ib, ibi, ok := d.inflateJSON(bi, m.val.at, "value", codec, m.val.raw, depth)
	if !ok {
		d.w8("null")
		return
	}
	d.b.Nodes++ // inflated
	mark := d.w.Mark()
	ww := &wrapper{offset: m.offset, magic: m.magic, logAppend: m.magic == 1 && m.attrs&8 != 0, timestamp: m.ts}
	d.push("messages", -1)
	if err := d.setJSON(ib, ibi, 0, len(ib), depth+1, ww); err != nil {
		d.warnAtJSON(&mark, ibi, 0, "", "inner message set: "+err.Error(), false)
	}
	d.pop()
}
