package rec

import (
	"cmp"
	"hash/crc32"
	"strconv"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/decompress"
)

// The reader: one walk over a records payload, which checks, charges the
// budget and says every warning once, handing each unit to a sink (the
// tree builder treeSink or the JSON writer jsonSink). A unit is read into
// a small struct first (recParse, msgParse, batchCtx), so both sinks see
// the same values; a record is taken only when all it costs fits.

// sink is what the reader hands its units to. Methods that make a unit
// return its node, or nil when the sink keeps no tree; the reader hangs
// the unit's warnings on it.
type sink interface {
	// beginList opens a list of entries, or of a batch's records; endList
	// closes it and returns its nodes.
	beginList()
	endList() []*tree.Node
	// raw hands over b[p:end], bytes left undecoded in a list, of a
	// batch's records when records (whose JSON lists records alone).
	raw(b []byte, bi, p, end int, records bool) *tree.Node
	// truncated hands over an entry cut short by the end of the input,
	// of which the first fixed header fields are there.
	truncated(b []byte, bi, off, end int, magic int8, fixed int) *tree.Node
	// batch opens the batch in b[off:end], whose header is read; its
	// records follow (records, inflated, or noRecords), then endEntry.
	// Its node's children are batchFields, then the records.
	batch(b []byte, bi, off, end int, ctx *batchCtx) *tree.Node
	// inflated hands over the decompressed bytes of n (buffer idx).
	inflated(n *tree.Node, out []byte, idx, codec int) *tree.Node
	// noRecords says the batch's records or the wrapper's messages
	// could not be decompressed.
	noRecords()
	// record hands over a record read whole.
	record(b []byte, bi int, v *recView) *tree.Node
	// message opens a legacy message; its inner message set (for a
	// wrapper) follows, then endEntry. Its node's children are
	// msgFields (timestamp for magic 1 only), then key and value.
	message(b []byte, bi int, m *msgParse, shift, ts int64) *tree.Node
	// endEntry closes the batch (ctx set) or message whose bytes are
	// entry, compressed the bytes it decompressed (nil: none), warned
	// when the reader said a warning inside it.
	endEntry(entry, compressed []byte, ctx *batchCtx, warned bool)
	// slab is where the sink's nodes go, the payload hook's and a KRaft
	// value's among them (nil: it makes none).
	slab() *slab.Slab
	// buffer lends the buffer a decompression at depth writes into;
	// keep takes back what it made (for the tree, its derived buffer)
	// or, on failure, the buffer to reuse.
	buffer(depth int) []byte
	keep(depth int, out []byte, ok bool) []byte
	// flush says a unit is done: output may be written away.
	flush()
}

// hdrField is a fixed-width field of a batch's or message's header.
type hdrField struct {
	name string
	kind schema.Kind
}

// The fields of a batch's and of a legacy message's header, in the order
// of their bytes: a batch's records follow, a message's key and value.
var (
	batchFields = [...]hdrField{{"baseOffset", schema.Int64}, {"batchLength", schema.Int32},
		{"partitionLeaderEpoch", schema.Int32}, {"magic", schema.Int8}, {"crc", schema.Uint32},
		{"attributes", schema.Int16}, {"lastOffsetDelta", schema.Int32}, {"baseTimestamp", schema.Int64},
		{"maxTimestamp", schema.Int64}, {"producerId", schema.Int64}, {"producerEpoch", schema.Int16},
		{"baseSequence", schema.Int32}, {"recordCount", schema.Int32}}
	msgFields = [...]hdrField{{"offset", schema.Int64}, {"messageSize", schema.Int32}, {"crc", schema.Uint32},
		{"magic", schema.Int8}, {"attributes", schema.Int8}, {"timestamp", schema.Int64}}
)

// The places of the header fields the reader warns on, in the tables and
// among the entry node's children.
const (
	batchCRC     = 4
	batchAttrs   = 5
	batchCount   = 12
	batchRecords = len(batchFields)
	msgCRC       = 2
	msgAttrs     = 4
)

// knownAttrs are the attribute bits an entry of magic 0, 1 and 2 gives a
// meaning: the compression codec, then the timestamp type, then a batch's
// transactional, control and delete-horizon bits.
var knownAttrs = [...]int{0x07, 0x0f, 0x7f}

// bitNames name the attribute bits in their order: the codec (bits 0-2),
// then one bit each.
var bitNames = [...]string{"compression", "timestampType", "transactional", "control", "deleteHorizon"}

// kid is n's child i, or nil when the sink keeps no tree.
func kid(n *tree.Node, i int) *tree.Node {
	if n == nil {
		return nil
	}
	return n.Children[i]
}

// entries reads the entries (batches, messages) in b[start:end] of buffer
// bi, the message set of wrapper message w at depth (nil: the payload's
// own).
func (d *decoder) entries(b []byte, bi, start, end, depth int, w *msgParse) ([]*tree.Node, error) {
	d.s.beginList()
	shift := innerShift(b, start, end, w)
	for idx, off := 0, start; off < end; idx++ {
		if !d.b.Fits(maxEntryNodes) {
			d.cut(b, bi, off, end, idx, "entries")
			break
		}
		magic, next, whole, err := frameAt(b, off, end)
		if err != nil {
			d.b.Nodes++
			d.s.raw(b, bi, off, end, false)
			return d.s.endList(), err
		}
		d.push("", idx)
		switch {
		case !whole:
			d.truncated(b, bi, off, end, magic)
		case magic == 2:
			d.batch(b, bi, off, next, depth)
		default:
			d.message(b, bi, off, next, depth, w, shift)
		}
		d.pop()
		off = next
		d.s.flush()
	}
	return d.s.endList(), nil
}

// truncated reads an entry cut short by the end of the input: its offset
// and length when there (fixed of them: 8 and 4 bytes), the rest as bytes.
func (d *decoder) truncated(b []byte, bi, off, end int, magic int8) {
	fixed, p := 0, off
	for _, size := range [...]int{8, 4} {
		if end-p < size {
			break
		}
		fixed, p = fixed+1, p+size
	}
	d.b.Nodes += 1 + fixed + min(end-p, 1) // the entry, its fixed fields, the rest
	u := d.s.truncated(b, bi, off, end, magic, fixed)
	d.note(nil, u, bi, off, "", "the input ends inside this entry ("+itoa(end-off)+" bytes present)")
}

const batchHeader = 61

// batchCtx is what a batch's header says about its records.
type batchCtx struct {
	base, baseTS, maxTS int64
	lastDelta           int64 // lastOffsetDelta
	attrs               int
	logAppend, control  bool
	parsed              int  // the records read
	cut                 bool // the MaxNodes limit ended the record list
	inflated            int  // the decompressed records' length (-1: not decompressed)
}

func (d *decoder) batch(b []byte, bi, off, end, depth int) {
	d.b.Nodes += 20 // batch, 13 fixed fields, 5 attribute bits, records
	attrs := int(be16(b[off+21:]))
	// The decoder's own: a batch holds no batch, and the sinks take it
	// by pointer (a local would be allocated for each batch).
	ctx := &d.bctx
	*ctx = batchCtx{base: be64(b[off:]), baseTS: be64(b[off+27:]), maxTS: be64(b[off+35:]), lastDelta: be32(b[off+batchLastOffsetDeltaAt:]), attrs: attrs,
		logAppend: attrs&8 != 0, control: attrs&0x20 != 0, inflated: -1}
	u := d.s.batch(b, bi, off, end, ctx)
	warned := d.warned
	if crc, c := uint32(be32(b[off+17:])), crc32.Checksum(b[off+21:end], castagnoli); c != crc {
		d.note(nil, kid(u, batchCRC), bi, off+17, "crc", crcMessage("CRC-32C", c, crc))
	}
	if attrs&^knownAttrs[2] != 0 {
		d.note(nil, kid(u, batchAttrs), bi, off+21, "attributes", "unused attribute bits 7-15 are set")
	}
	countMark := d.w.Mark()
	p, codec := off+batchHeader, attrs&7
	d.push("records", -1)
	var zipped []byte
	if codec == CodecNone {
		d.recordList(b, bi, p, end, ctx, kid(u, batchRecords))
	} else {
		zipped = b[p:end]
		if inf, ib, ibi, ok := d.inflate(kid(u, batchRecords), bi, p, "", codec, 2, zipped, depth); ok {
			ctx.inflated = len(ib)
			d.recordList(ib, ibi, 0, len(ib), ctx, inf)
		}
	}
	d.pop()
	if count := int(be32(b[off+57:])); ctx.parsed != count && !ctx.cut && (codec == CodecNone || ctx.inflated >= 0) {
		d.note(&countMark, kid(u, batchCount), bi, off+57, "recordCount", "recordCount is "+itoa(count)+" but the batch holds "+itoa(ctx.parsed)+" records")
	}
	d.s.endEntry(b[off:end], zipped, ctx, d.warned > warned)
}

// inflate decompresses src (node n's value, at field below the path, at
// bi, at; compressed by an entry of magic) into a derived buffer handed
// to the sink: the node holding it, its bytes and number; or false after
// a warning, the sink told noRecords.
func (d *decoder) inflate(n *tree.Node, bi, at int, field string, codec int, magic int8, src []byte, depth int) (*tree.Node, []byte, int, bool) {
	limit, which := d.b.MaxDecompressed-d.b.Decompressed, "MaxDecompressed"
	if w := d.b.MaxWork - d.b.Work; w < limit {
		limit, which = w, "MaxWork"
	}
	if limit <= 0 {
		d.leftCompressed(n, bi, at, field, "not decompressed: the "+which+" limit is used up")
		return nil, nil, 0, false
	}
	out, warn, done, err := d.inflateOnce(d.s.buffer(depth), codec, src, limit)
	if warn != "" {
		d.note(nil, n, bi, at, field, warn)
	}
	if codec == CodecLZ4 {
		// Which header checksum is right depends on the magic.
		if w := decompress.LZ4ChecksumWarning(src, magic); w != "" {
			d.note(nil, n, bi, at, field, w)
		}
	}
	// The work is done whether or not it fails: a flood of decompressions
	// that fail stops at MaxWork.
	d.b.Work += done
	if err != nil {
		d.s.keep(depth, out, false) // the buffer serves the next one
		if err == decompress.ErrLimit {
			d.leftCompressed(n, bi, at, field, "not decompressed: it holds more than the "+itoa(limit)+" bytes left of the "+which+" limit")
		} else {
			d.note(nil, n, bi, at, field, "cannot decompress "+cmp.Or(CodecName(codec), "codec "+itoa(codec))+": "+err.Error())
			d.s.noRecords()
		}
		return nil, nil, 0, false
	}
	if !d.replayed {
		out = d.s.keep(depth, out, true)
	}
	d.kept(out)
	d.b.Decompressed += len(out)
	d.b.Nodes++ // inflated
	d.nbuf++
	ibi := d.res.Base + d.nbuf - 1
	return d.s.inflated(n, out, ibi, codec), out, ibi, true
}

// leftCompressed says node n's compressed records (a batch's, or a
// wrapper's value: field "value") stay compressed, a limit being reached,
// and tells the sink. The frame's first such warning tells every one after
// it (fold): 50 MB of snappy batches passed the 32 MiB MaxDecompressed
// limit in some thirty batches, a warning each.
func (d *decoder) leftCompressed(n *tree.Node, bi, at int, field, msg string) {
	kind := "batches"
	if field != "" {
		kind = "messages"
	}
	d.fold(n, bi, at, field, msg, "not decompressed", kind, tellCompressed)
	d.s.noRecords()
}

// fold says the limit warning msg of node n at bi, at (field below the
// path), told in the frame's first of key when there is one (budget's
// Fold) as one more place of kind.
func (d *decoder) fold(n *tree.Node, bi, at int, field, msg, key, kind string, tell func(first budget.Warning, more map[string]int, last budget.Warning) string) {
	d.chargeWarning(true)
	var ws *[]string
	if n != nil {
		ws = &n.Warnings
	}
	d.w.Fold(key, ws, budget.Warning{Offset: at, Buf: bi, Path: d.pathString(field), Limit: true, Message: msg}, kind, tell)
}

// tellCompressed and tellCuts write the message of a folded warning:
// the first's, then the places after it by kind and the last of them,
// as in "...; 29 more batches after it were not decompressed either, the
// last at byte 48234112" and "...; so were the entries of 2470 more
// records fields after it, the last from byte 1076266".
func tellCompressed(first budget.Warning, more map[string]int, last budget.Warning) string {
	b, m := more["batches"], more["messages"]
	return first.Message + ";" + both(b, count(b, "more batch", "more batches"), m, count(m, "more compressed wrapper message", "more compressed wrapper messages")) +
		" after it were not decompressed either, the last at byte " + place(last)
}

func tellCuts(first budget.Warning, more map[string]int, last budget.Warning) string {
	e, r := more["entries"], more["records"]
	return first.Message + "; so were" + both(e, "the entries of "+itoa(e)+" more records fields", r, "the records of "+itoa(r)+" more batches") +
		" after it, the last from byte " + place(last)
}

// both is " a and b", or the one of them whose count (n, m) is not 0.
func both(n int, a string, m int, b string) string {
	if n == 0 {
		return " " + b
	}
	if m == 0 {
		return " " + a
	}
	return " " + a + " and " + b
}

// place is where warning w is: its offset, and its buffer when derived.
func place(w budget.Warning) string {
	if w.Buf != 0 {
		return itoa(w.Offset) + " of buffer " + itoa(w.Buf)
	}
	return itoa(w.Offset)
}

// count is n and what it counts, in the singular for 1.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

// recordList reads the records in b[p:end] of buffer bi, a batch's (the
// children of node owner), until they end, one fails to read (the rest
// stays bytes) or the MaxNodes limit cuts the list.
func (d *decoder) recordList(b []byte, bi, p, end int, ctx *batchCtx, owner *tree.Node) {
	d.s.beginList()
	mark, start := d.w.Mark(), p
	r := &d.rp
	for idx := 0; p < end; idx++ {
		if !d.b.NodesLeft() {
			ctx.cut = true
			d.cut(b, bi, p, end, idx, "records")
			break
		}
		if msg := parseRecord(b, p, end, r); msg != "" {
			d.note(&mark, owner, bi, start, "", "record "+itoa(idx)+" at byte "+itoa(p)+": "+msg)
			d.b.Nodes++
			d.s.raw(b, bi, p, end, true)
			break
		}
		v := &d.rv
		*v = recView{r: r, idx: idx, warns: v.warns[:0]}
		if !d.b.Fits(d.recordParts(r, ctx, v)) {
			ctx.cut = true
			d.cut(b, bi, p, end, idx, "records")
			break
		}
		d.push("", idx)
		d.record(b, bi, v, ctx)
		d.pop()
		ctx.parsed++
		p = r.rend
		d.s.flush()
	}
	if list := d.s.endList(); owner != nil {
		owner.Children = list
	}
}

// cut ends a list of entries or records (what) the MaxNodes limit cut at
// p, item idx: the bytes left as one raw node, with a limit warning,
// folded into the frame's first (fold): past the limit every records field
// may be cut (a Fetch response of 5,000 partitions, at the browser's
// limit, was 2,471 warnings alike).
func (d *decoder) cut(b []byte, bi, p, end, idx int, what string) {
	d.b.Nodes++
	raw := d.s.raw(b, bi, p, end, what == "records")
	d.push("", idx)
	msg := what + " from byte " + itoa(p) + " not decoded: the MaxNodes limit (" + itoa(d.b.MaxNodes) + " nodes) is reached"
	if d.b.NestedNodes < d.b.MaxNodes {
		// The frame's walk keeps a share of the limit for its own fields
		// after the records (codec's reserveNested), so the frame ends with
		// fewer nodes than the limit: said, or a count beside it puzzles.
		if d.b.NestedNodes > 0 {
			msg += " for records (they may take " + itoa(d.b.NestedNodes) + " nodes; the rest is kept for the frame's own fields after them and a margin)"
		} else {
			msg += " for records: it leaves them no room after what is kept for the frame's own fields after them and a margin (" + itoa(d.b.MaxNodes-d.b.NestedNodes) + " nodes)"
		}
	}
	d.fold(raw, bi, p, "", msg, "records cut", what, tellCuts)
	d.pop()
}

// recView is a record read whole, with what it implies and what it said:
// the unit a sink takes.
type recView struct {
	r                 *recParse
	idx               int
	offset, timestamp int64
	control           bool // a control record whose key reads
	ctype             int
	// A control value to read (controlValue): its version, then a
	// marker's coordinatorEpoch (epoch: there) or, for the KRaft types
	// (ctype > 1), its data message (data, when it read).
	readValue                 bool
	version, coordinatorEpoch int64
	epoch                     bool
	data                      *tree.Node
	hook                      hooked // what Options.Payload reads
	// The nodes up to the value and after it; the warnings, the headers'
	// from split on.
	nodes, after, split int
	warns               []recWarning
}

// recWarning is a warning of a record at byte at and the part it is on:
// the record (partRecord), the part read at stage part (the record node's
// child of that index), or in header hdr (>= 0) its hdrKey or hdrValue.
type recWarning struct {
	part, hdr, at int
	field, msg    string
}

const (
	partRecord = -1
	hdrKey     = 0
	hdrValue   = 1
)

// record takes the record v: its warnings said and its nodes charged in
// the order of its parts, the control value read in the value's place,
// then the sink takes it.
func (d *decoder) record(b []byte, bi int, v *recView, ctx *batchCtx) {
	r := v.r
	// Its absolute offset and timestamp: the batch's base plus its deltas
	// (the batch's maxTimestamp under log-append time), or the batch's
	// base for a record that failed.
	switch {
	case r.fail != "":
		v.offset, v.timestamp = ctx.base, ctx.baseTS
	case ctx.logAppend:
		v.offset, v.timestamp = ctx.base+r.part[stOffset].v, ctx.maxTS
	default:
		v.offset, v.timestamp = ctx.base+r.part[stOffset].v, ctx.baseTS+r.part[stTimestamp].v
	}
	if len(v.warns) == 0 && !v.readValue { // most records
		d.b.Nodes += v.nodes + v.after
	} else {
		d.say(bi, v.warns[:v.split])
		d.b.Nodes += v.nodes
		hdrEnd := len(v.warns)
		if v.readValue {
			// Its data message's warnings come in the value's place.
			d.controlValue(b, bi, v)
		}
		d.say(bi, v.warns[v.split:hdrEnd])
		d.b.Nodes += v.after
	}
	if d.opts.Payload != nil && !ctx.control && r.stage >= stKey {
		v.hook.key = &r.part[stKey]
		if r.stage >= stValue {
			v.hook.val = &r.part[stValue]
		}
	}
	d.s.record(b, bi, v)
}

// say says the warnings ws of the record being read.
func (d *decoder) say(bi int, ws []recWarning) {
	for _, w := range ws {
		d.note(nil, nil, bi, w.at, w.field, w.msg)
	}
}

// recordParts goes through the parts of the parsed record r in order,
// the one place that knows what a record costs: it puts into v its
// control key, its warnings (unsaid) and its nodes, and returns what
// taking it costs at most. d.dataAfter is what is charged after a KRaft
// control value's data message, which that message must leave room for;
// its own nodes are not counted: it stops at the budget's limit itself.
func (d *decoder) recordParts(r *recParse, ctx *batchCtx, v *recView) int {
	v.nodes = 2 + min(r.stage, stValue) // record, length, and the parts read up to the value
	bound, data := 0, 0                 // what a control value may cost beyond: nodes, and after its data message
	if r.fail != "" {
		v.warn(partRecord, -1, r.p, "", r.fail)
	}
	for st := range min(r.stage, stValue) + 1 {
		f := &r.part[st]
		v.minimal(st, -1, f, recParts[st].name) // the attributes' byte is no varint: always minimal
		switch st {
		case stOffset:
			// The record's offset lies outside the batch's, below its
			// baseOffset or past its last offset, where the next batch's
			// offsets begin. Kafka's log cleaner keeps a batch's
			// lastOffsetDelta, so a compacted batch's records lie inside it.
			if od := f.v; od < 0 {
				v.warn(stOffset, -1, f.at, "offsetDelta", "offsetDelta "+strconv.FormatInt(od, 10)+" is negative: the record's offset is below the batch's baseOffset")
			} else if od > ctx.lastDelta {
				v.warn(stOffset, -1, f.at, "offsetDelta", "offsetDelta "+strconv.FormatInt(od, 10)+" is past the batch's lastOffsetDelta "+strconv.FormatInt(ctx.lastDelta, 10))
			}
		case stKey:
			switch val := &r.part[stValue]; {
			case !ctx.control || r.stage < stHeaders || r.hdrFail:
			case f.null || len(f.raw) < 4:
				v.warn(stKey, -1, f.at, "key", "a control record key needs version int16 and type int16")
			default:
				v.control, v.ctype = true, int(be16(f.raw[2:]))
				v.nodes += 2 + min(len(f.raw)-4, 1) // version, type, the bytes after them
				if v.ctype < 0 || v.ctype >= len(controlData) {
					v.warn(stKey, -1, f.at, "key", "unknown control record type "+itoa(v.ctype))
				} else {
					v.readValue = !val.null && len(val.raw) >= 2
				}
			}
		case stValue:
			switch {
			case !v.readValue:
			case v.ctype <= 1:
				bound = 3 // version, coordinatorEpoch, rest
			default:
				bound, data = 1, 1+budget.WarningNodes // version; the data leaf when it did not decode, and why
			}
		}
	}
	v.split = len(v.warns)
	if r.stage >= stHeaders {
		v.after++
		v.minimal(stHeaders, -1, &r.part[stHeaders], "headers")
		for i := range r.hdrs {
			h := &r.hdrs[i]
			v.after += 2 // header, key
			v.minimal(hdrKey, i, &h.key, "key")
			if h.key.null {
				v.warn(hdrKey, i, h.key.at, "key", nullHeaderKey)
			}
			if h.hasVal {
				v.after++
				v.minimal(hdrValue, i, &h.val, "value")
			}
		}
	}
	if r.fail != "" && r.q < r.rend {
		v.after++ // the bytes left
	}
	d.dataAfter = v.after + (len(v.warns)-v.split)*budget.WarningNodes + data
	return v.nodes + bound + d.dataAfter + v.split*budget.WarningNodes
}

// nullHeaderKey is the warning of a record header whose key is null
// (length -1): Kafka's record format has none, and the encoder refuses
// one, so the frame comes back through its entry's _raw.
const nullHeaderKey = "header key is null (Kafka writes none; encoding refuses it)"

// warn keeps a warning of v's part, said when v is taken; field is a
// header's part in header hdr.
func (v *recView) warn(part, hdr, at int, field, msg string) {
	if hdr >= 0 {
		field = "headers[" + itoa(hdr) + "]." + field
	}
	v.warns = append(v.warns, recWarning{part, hdr, at, field, msg})
}

// minimal keeps the warning of a part whose varint f is not minimal.
func (v *recView) minimal(part, hdr int, f *varField, field string) {
	if !f.canon {
		v.warn(part, hdr, f.at, field, nonMinimal)
	}
}

// controlValue reads the value of a control record whose key reads, of a
// known type, with at least a version: its version and coordinatorEpoch
// (markers), or its KRaft data message, decoded through the Data hook
// within the frame's budget.
func (d *decoder) controlValue(b []byte, bi int, v *recView) {
	t, val := v.ctype, &v.r.part[stValue]
	p := val.at + val.n
	vend := p + len(val.raw)
	// A marker (ABORT, COMMIT) is an int16 version and the coordinator
	// epoch. The KRaft types (2-6) are their message alone, which Kafka
	// reads at version 0 (ControlRecordUtils): its own int16 Version field
	// comes first, and there is no version before it.
	v.version = be16(b[p:])
	if t <= 1 {
		p += 2
		if v.epoch = vend-p >= 4; v.epoch {
			v.coordinatorEpoch = be32(b[p:])
			p += 4
			d.b.Nodes++
		}
		d.b.Nodes += 1 + min(vend-p, 1) // version, the rest
		return
	}
	var err error
	switch {
	case d.opts.Data != nil:
		mark := d.w.Mark()
		d.b.NestedNodes -= d.dataAfter
		v.data, err = d.opts.Data(controlData[t], int16(v.version), b, bi, p, vend, d.pathString("control.data"))
		d.b.NestedNodes += d.dataAfter
		if err != nil {
			d.w.Truncate(mark)
		}
	case d.opts.DecodeData != nil:
		s := d.s.slab()
		if s == nil { // no tree: the value's nodes are made to be counted and dropped
			s = &d.dataSlab
			s.Reset()
		}
		v.data, err = d.opts.DecodeData(s, controlData[t], int16(v.version), b, bi, p, vend)
	}
	if err != nil {
		v.data = nil
		msg, limit := "cannot decode "+controlData[t]+": "+err.Error(), false
		if l, ok := err.(interface{ LimitHit() bool }); ok && l.LimitHit() {
			msg, limit = "not decoded as "+controlData[t]+": "+err.Error(), true
		}
		d.warnAt(nil, nil, bi, val.at, "value", msg, limit)
		v.warn(stValue, -1, val.at, "value", msg)
	}
	if v.data == nil {
		d.b.Nodes++ // the data leaf
	}
}

// message reads a legacy (magic 0 or 1) message in b[off:end], and the
// message set inside it when it is a compressed wrapper.
func (d *decoder) message(b []byte, bi, off, end, depth int, w *msgParse, shift int64) {
	for len(d.mp) <= depth {
		d.mp = append(d.mp, new(msgParse)) // one per depth: a wrapper's inner messages come before its end
	}
	m := d.mp[depth]
	parseMessage(b, off, end, m)
	d.b.Nodes += 3 + m.fixed() + m.stage // message, its header's fields, 2 attribute bits, key and value as read
	if m.fail != "" && m.q < end {
		d.b.Nodes++ // the bytes left
	}
	ts := m.ts
	if w != nil && w.magic == 1 && w.attrs&8 != 0 && m.magic == 1 { // the wrapper's log-append time
		ts = w.ts
	}
	if d.opts.Payload != nil && m.stage >= 1 {
		m.hook.key = &m.key
		if m.stage >= 2 && m.attrs&7 == CodecNone {
			m.hook.val = &m.val
		}
	}
	u := d.s.message(b, bi, m, shift, ts)
	warned := d.warned
	if m.fail != "" {
		d.note(nil, u, bi, off, "", m.fail)
	}
	if c := crc32.ChecksumIEEE(b[off+16 : end]); c != m.crc {
		d.note(nil, kid(u, msgCRC), bi, off+12, "crc", crcMessage("CRC-32", c, m.crc))
	}
	if m.attrs&^knownAttrs[m.magic] != 0 {
		d.note(nil, kid(u, msgAttrs), bi, off+17, "attributes", "unused attribute bits are set")
	}
	if m.attrs&7 == CodecZstd {
		d.note(nil, kid(u, msgAttrs), bi, off+17, "attributes", "zstd needs magic 2: Kafka refuses a magic "+itoa(int(m.magic))+" message compressed with it")
	}
	var zipped []byte
	if m.attrs&7 != CodecNone && m.stage >= 2 {
		d.wrapped(kid(u, m.fixed()+1), bi, m, depth)
		zipped = m.val.raw // nil when null
	}
	d.s.endEntry(b[off:end], zipped, nil, d.warned > warned)
}

// wrapped decompresses the value of a wrapper message and reads the
// message set inside it.
func (d *decoder) wrapped(val *tree.Node, bi int, m *msgParse, depth int) {
	switch {
	case m.val.null:
		d.note(nil, val, bi, m.val.at, "value", "a compressed wrapper message has a null value")
		return
	case depth+1 > d.maxDepth:
		d.warnAt(nil, val, bi, m.val.at, "value", "not decompressed: wrappers nest deeper than the MaxRecordNesting limit ("+itoa(d.maxDepth)+")", true)
		d.s.noRecords()
		return
	}
	inf, ib, ibi, ok := d.inflate(val, bi, m.val.at, "value", m.attrs&7, m.magic, m.val.raw, depth)
	if !ok {
		return
	}
	mark := d.w.Mark()
	d.push("messages", -1)
	inner, err := d.entries(ib, ibi, 0, len(ib), depth+1, m)
	if err != nil {
		d.note(&mark, inf, ibi, 0, "", "inner message set: "+err.Error())
	}
	d.pop()
	if inf != nil {
		inf.Children = inner
	}
}

// frameAt reads the framing of the entry at off: its magic byte (-1 when
// not there; 2: a batch), where it ends, and whether it is whole (else
// cut short by the end of the input), or a framing error.
func frameAt(b []byte, off, end int) (magic int8, next int, whole bool, err error) {
	left := end - off
	if left < 17 {
		return -1, end, false, nil
	}
	size := int(be32(b[off+8:]))
	magic = int8(b[off+16])
	switch {
	case magic > 2 || magic < 0:
		return magic, off, false, &wire.Error{Offset: off + 16, Expected: "magic 0, 1 or 2", Found: "magic " + itoa(int(magic))}
	case magic == 2 && size < batchHeader-12:
		return magic, off, false, &wire.Error{Offset: off + 8, Expected: "a batchLength of at least 49", Found: itoa(size)}
	case magic < 2 && size < msgMin[magic]:
		return magic, off, false, &wire.Error{Offset: off + 8, Expected: "a messageSize of at least " + itoa(msgMin[magic]), Found: itoa(size)}
	case size > left-12:
		return magic, end, false, nil
	}
	return magic, off + 12 + size, true, nil
}

// msgMin is a legacy message's least messageSize, by magic.
var msgMin = [...]int{14, 22}

// Framing reads the framing of the entries in a records payload, not
// the entries: how many it holds whole, whether the last one runs past
// the end (a Fetch response's last batch may), or the first framing
// error. A response guess weighs a reading by it.
func Framing(b []byte) (whole int, cut bool, err error) {
	for off := 0; off < len(b); {
		_, next, ok, err := frameAt(b, off, len(b))
		if err != nil || !ok {
			return whole, err == nil, err
		}
		whole++
		off = next
	}
	return whole, false, nil
}

// innerShift is what turns the offsets stored in the messages of a magic 1
// wrapper's set (relative, the first 0) into absolute ones: the wrapper
// carries the absolute offset of the set's last message. A wrapper offset
// of 0 says none (a producer's, as librdkafka's and kafka-python's write
// it; Kafka reads the inner offsets as they are then, as this does).
func innerShift(b []byte, start, end int, w *msgParse) int64 {
	if w == nil || w.magic != 1 || w.offset == 0 {
		return 0
	}
	last, found := int64(0), false
	for off := start; off < end; {
		magic, next, whole, err := frameAt(b, off, end)
		if err != nil || !whole {
			break
		}
		if magic < 2 {
			last, found = be64(b[off:]), true
		}
		off = next
	}
	if !found {
		return 0
	}
	return w.offset - last
}
