// Package records decodes and encodes the bytes of a Kafka records field
// (Produce, Fetch, ShareFetch, FetchSnapshot): record batches (magic 2) and
// the legacy message sets (magic 0 and 1), with their compressed contents,
// as tree nodes that cover every byte.
//
// Node layout (all nodes have Role tree.RoleRecord unless noted):
//
//	batch            Type "RecordBatch", Int = magic (2), Raw = its bytes
//	  baseOffset, batchLength, partitionLeaderEpoch, magic, crc,
//	  attributes     children compression "bits 0-2", timestampType "bit 3",
//	                 transactional "bit 4", control "bit 5",
//	                 deleteHorizon "bit 6" (same span as attributes, Int = the bits)
//	  lastOffsetDelta, baseTimestamp, maxTimestamp, producerId,
//	  producerEpoch, baseSequence, recordCount
//	  records        Kind Records; uncompressed: record children;
//	                 compressed: Raw = the compressed bytes and one child
//	                 "inflated" (Buf = derived buffer, spans all of it)
//	                 holding the record children
//	record           Type "Record", Int = absolute offset, PrefixEnd after length
//	  length, attributes, timestampDelta, offsetDelta,
//	  key, value     Type "varbytes": varint length (-1 = Null), PrefixEnd after it
//	  headers        Type "[]Header", Int = count, PrefixEnd after the count
//	    header       key (Type "varstring"), value ("varbytes")
//	message          (magic 0/1) Type "Message", Int = absolute offset, Raw = its bytes
//	  offset, messageSize, crc, magic, attributes (compression "bits 0-2",
//	  timestampType "bit 3"), timestamp (magic 1), key, value (Type "bytes");
//	  a compressed wrapper's value holds "inflated" with the inner messages.
//
// In a control batch the record key gets children version and type, and the
// value of ABORT/COMMIT markers version and coordinatorEpoch; KRaft control
// values get version and the node returned by Options.DecodeData.
//
// The absolute offset and timestamp of each record / message have no bytes
// of their own: they are in Result.Records (document order) and
// Result.Info(node); the node's Int holds the offset too.
//
// A final entry cut short by the end of the input (brokers cut fetch
// responses at the size limit) is a "batch" (or "message", when the magic
// byte is there and < 2) node with Flags tree.Truncated, Raw = its bytes,
// children baseOffset/batchLength (offset/messageSize) when present and a
// "partial" node (Flags tree.Truncated) for the rest; no error. Broken framing between entries is an error (*wire.Error) and the
// rest of the input becomes a tree.RoleRaw node. Problems inside a
// well-framed batch or message (CRC mismatch, undecodable compressed data,
// malformed records, limits) are warnings on the nodes, with a RoleRaw node
// for bytes left unparsed; decoding goes on.
package records

import (
	"hash/crc32"
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// Options bound and extend decoding. Zero values mean the defaults.
type Options struct {
	MaxDecompressed int // total bytes all decompression in one call may produce (default 64 MiB)
	MaxDepth        int // nesting of compressed wrapper messages (default 4)
	// MaxNodes bounds the nodes one call creates (default 2 per input byte
	// + 1<<20), so decompressed data cannot blow the tree up: records past
	// the limit stay a RoleRaw node with a warning.
	MaxNodes int
	// Budget, when set, is the caller's budget for the whole frame, which
	// this call draws from (nodes up to Budget.NestedNodes, decompressed
	// bytes, work) instead of MaxNodes and MaxDecompressed.
	Budget *wire.Budget
	// Warnings, when set, receives every warning (besides the node it is
	// attached to), with its path under Path, in document order.
	Warnings *wire.Warnings
	Path     string
	// DecodeData decodes a KRaft control record value (after its int16
	// version prefix, which is passed as version) through a data-message
	// schema: "LeaderChangeMessage", "SnapshotHeaderRecord",
	// "SnapshotFooterRecord", "KRaftVersionRecord" or "VotersRecord". The
	// returned node should span [start, end) of buffer bufIdx. nil = keep
	// the raw bytes.
	DecodeData func(s *tree.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error)
	// Data is DecodeData for a caller that keeps its own budget and
	// warnings: path names the value for them. It is used when set.
	Data func(name string, version int16, buf []byte, bufIdx, start, end int, path string) (*tree.Node, error)
	// Payload, when set, reads each record key and value (payload.go);
	// Topic names the topic the records belong to, for it. [payload hook]
	Payload func(dst []byte, p *PayloadIn) ([]byte, []*tree.Node)
	Topic   string
	// Scratch, when set, lends WriteJSON memory kept from call to call.
	Scratch *Scratch
	// Spare, when set, is a buffer Decode decompresses into and leaves
	// there, emptied, when the decompression fails or the frame keeps an
	// exact copy; a result keeps it otherwise (it is then nil). It lets
	// the records fields of one frame share one buffer.
	Spare *[]byte

	// Start, Buffer and Base place the payload for a caller that decodes
	// it where it lies inside bigger bytes (codec, inside a frame): the
	// payload begins at offset Start of the bytes given and runs to their
	// end, node offsets stay absolute within them, and they are buffer
	// number Buffer. Derived (decompressed) buffers are numbered from Base
	// (0 means Buffer+1).
	Start, Buffer, Base int
}

// span is where opts place the payload within buf: [start, end) of buffer
// bi, derived buffers numbered from base.
func (o *Options) span(buf []byte) (bi, start, end, base int) {
	start, end = min(max(o.Start, 0), len(buf)), len(buf)
	base = o.Base
	if base <= 0 {
		base = o.Buffer + 1
	}
	return o.Buffer, start, end, base
}

// RecordInfo holds what a record or message implies but does not store as
// bytes: its absolute offset and its timestamp.
type RecordInfo struct {
	Node      *tree.Node // the "record" or "message" node
	Offset    int64      // absolute offset (also in Node.Int)
	Timestamp int64      // absolute timestamp (-1 for magic 0)
}

// Result is what Decode found.
type Result struct {
	Nodes   []*tree.Node // batches / messages, children of the records field node
	Derived [][]byte     // decompressed buffers, in order; nodes inside have Buf = base+index
	Base    int          // buffer index of Derived[0]
	Records []RecordInfo // one per record / message node, in document order
	infos   map[*tree.Node]int
	// payloads holds the JSON members Options.Payload wrote for a key or
	// value node. [payload hook]
	payloads map[*tree.Node][]byte
}

// Info returns the computed offset and timestamp of a record or message node.
func (r *Result) Info(n *tree.Node) (RecordInfo, bool) {
	if r.infos == nil {
		r.infos = make(map[*tree.Node]int, len(r.Records))
		for i, ri := range r.Records {
			r.infos[ri.Node] = i
		}
	}
	i, ok := r.infos[n]
	if !ok {
		return RecordInfo{}, false
	}
	return r.Records[i], true
}

// Buffer returns the bytes of buffer idx given the input buffer (idx 0 or any
// index below Base).
func (r *Result) Buffer(input []byte, idx int) []byte {
	if i := idx - r.Base; i >= 0 && i < len(r.Derived) {
		return r.Derived[i]
	}
	return input
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// seg is one step of a warning's path below the records field: ".name",
// or "[idx]" when idx >= 0.
type seg struct {
	name string
	idx  int
}

type decoder struct {
	s        *tree.Slab
	opts     Options
	res      *Result
	b        *wire.Budget
	w        *wire.Warnings
	path     []seg
	maxDepth int
	// dataAfter is what the record being made charges after its KRaft
	// data message (recordCost), kept free while that message decodes.
	dataAfter int
	jsonState

	pathBuf  []byte // pathString's buffer
	lastPath string // the path pathString made last
}

// chargeWarning spends a warning's nodes (wire.WarningNodes), so a flood
// of them stops at MaxNodes as nodes do. Both paths charge alike.
func (d *decoder) chargeWarning(limit bool) { d.b.ChargeWarning(limit) }

// warningAt makes a warning at offset off of buffer bi.
func warningAt(path string, bi, off int, msg string, limit bool) wire.Warning {
	return wire.Warning{Offset: off, Buf: bi, Path: path, Message: msg, Limit: limit}
}

// Decode decodes payload, the bytes of a records field, into nodes from s.
// The payload is buffer 0 and its derived (decompressed) buffers get
// indexes 1, 2, ..., unless opts place it elsewhere (Options.Start,
// Buffer, Base). The error, if any, is a *wire.Error; the nodes decoded
// until then are returned with it.
func Decode(s *tree.Slab, payload []byte, opts Options) (*Result, error) {
	bufIdx, start, end, base := opts.span(payload)
	if opts.Spare == nil {
		opts.Spare = new([]byte) // the call's own
	}
	d := newDecoder(s, &opts, end-start)
	d.res.Base = base
	d.b.Work += end - start
	nodes, err := d.set(payload, bufIdx, start, end, 0, nil)
	d.res.Nodes = nodes
	if err != nil {
		return d.res, err
	}
	return d.res, nil
}

func newDecoder(s *tree.Slab, opts *Options, size int) *decoder {
	d := new(decoder)
	d.init(s, opts, size)
	return d
}

// init readies d for a call, keeping what it reuses (its path, its
// tree-less state).
func (d *decoder) init(s *tree.Slab, opts *Options, size int) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 4
	}
	b := opts.Budget
	if b == nil {
		if opts.MaxDecompressed <= 0 {
			opts.MaxDecompressed = defaultMaxDecompressed
		}
		if opts.MaxNodes <= 0 {
			opts.MaxNodes = 2*size + 1<<20
		}
		b = &wire.Budget{MaxNodes: opts.MaxNodes, NestedNodes: opts.MaxNodes, MaxDecompressed: opts.MaxDecompressed, MaxWork: 1 << 62}
	}
	res := d.res
	if res == nil || s != nil {
		res = &Result{}
	} else {
		*res = Result{}
	}
	*d = decoder{s: s, opts: *opts, res: res, b: b, w: opts.Warnings, maxDepth: opts.MaxDepth, path: d.path[:0], jsonState: d.jsonState, pathBuf: d.pathBuf[:0]}
}

func (d *decoder) push(name string, idx int) { d.path = append(d.path, seg{name, idx}) }
func (d *decoder) pop()                      { d.path = d.path[:len(d.path)-1] }

// pathString names the current place, with field appended when not "".
func (d *decoder) pathString(field string) string {
	b := append(d.pathBuf[:0], d.opts.Path...)
	for _, p := range d.path {
		if p.idx >= 0 {
			b = append(b, '[')
			b = append(b, itoa(p.idx)...)
			b = append(b, ']')
		} else {
			b = append(b, '.')
			b = append(b, p.name...)
		}
	}
	if field != "" {
		b = append(b, '.')
		b = append(b, field...)
	}
	// Warnings at one place share one string (see codec's pathWith).
	d.pathBuf = b
	if string(b) != d.lastPath {
		d.lastPath = string(b)
	}
	return d.lastPath
}

// warn attaches msg to n and lists it under the current path (plus field).
func (d *decoder) warn(n *tree.Node, field string, msg string) {
	d.warnAt(nil, n, field, msg, false)
}

// limit is warn for a limit that cut decoding short.
func (d *decoder) limit(n *tree.Node, field string, msg string) {
	d.warnAt(nil, n, field, msg, true)
}

// warnAt is warn for a warning learnt after n's children were read: it
// goes to the mark taken when n was opened (nil: at the end).
func (d *decoder) warnAt(mark *int, n *tree.Node, field string, msg string, limit bool) {
	if n != nil {
		n.Warn(msg)
	}
	d.chargeWarning(limit)
	if d.w == nil {
		return
	}
	x := wire.Warning{Path: d.pathString(field), Message: msg, Limit: limit}
	if n != nil {
		x.Offset, x.Buf = n.Start, n.Buf
	}
	if mark != nil {
		d.w.Insert(mark, x)
	} else {
		d.w.Add(x)
	}
}

// wrapper describes the compressed message whose value holds a message set.
type wrapper struct {
	node      *tree.Node
	offset    int64
	magic     int8
	logAppend bool
	timestamp int64
}

// set decodes entries (batches or messages) in b[start:end].
func (d *decoder) set(b []byte, bi, start, end, depth int, w *wrapper) ([]*tree.Node, error) {
	var nodes []*tree.Node
	shift := innerShift(b, start, end, w)
	off := start
	for off < end {
		if !d.b.Fits(maxEntryNodes) {
			nodes = d.nodesOut(nodes, b, bi, off, end, "entries")
			break
		}
		d.push("", len(nodes))
		n, next, err := d.entry(b, bi, off, end, depth, w, shift)
		d.pop()
		if n != nil {
			nodes = append(nodes, n)
		}
		if err != nil {
			p := off
			if n != nil && n.End > off {
				p = n.End
			}
			if p < end {
				nodes = append(nodes, d.rawNode(b, bi, p, end))
			}
			return nodes, err
		}
		off = next
	}
	return nodes, nil
}

// nodesOut ends a list of nodes at the MaxNodes limit: b[p:end] becomes a
// raw node with a limit warning saying what it holds ("entries",
// "records").
func (d *decoder) nodesOut(list []*tree.Node, b []byte, bi, p, end int, what string) []*tree.Node {
	raw := d.rawNode(b, bi, p, end)
	list = append(list, raw)
	d.push("", len(list)-1)
	d.limit(raw, "", what+" from byte "+itoa(p)+" not decoded: the MaxNodes limit ("+itoa(d.b.MaxNodes)+" nodes) is reached")
	d.pop()
	return list
}

// rawNode covers b[p:end], bytes left undecoded.
func (d *decoder) rawNode(b []byte, bi, p, end int) *tree.Node {
	raw := d.leaf("raw", schema.Bytes, "bytes", bi, p, end)
	raw.Role = tree.RoleRaw
	raw.Raw = b[p:end]
	return raw
}

func (d *decoder) leaf(name string, k schema.Kind, typ string, bi, start, end int) *tree.Node {
	d.b.Nodes++
	n := d.s.New()
	n.Name = name
	n.Role = tree.RoleRecord
	n.Kind = k
	n.Type = typ
	n.Buf = bi
	n.Start = start
	n.PrefixEnd = start
	n.End = end
	return n
}

func be16(b []byte) int64 { return int64(int16(uint16(b[0])<<8 | uint16(b[1]))) }
func be32(b []byte) int64 {
	return int64(int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])))
}
func be64(b []byte) int64 {
	return int64(uint64(be32(b))<<32 | uint64(uint32(be32(b[4:]))))
}

// fixed adds a fixed-width integer child at *p.
func (d *decoder) fixed(kids *[]*tree.Node, name string, k schema.Kind, b []byte, bi int, p *int) *tree.Node {
	sz := k.FixedSize()
	n := d.leaf(name, k, k.String(), bi, *p, *p+sz)
	switch sz {
	case 1:
		n.Int = int64(int8(b[*p]))
	case 2:
		n.Int = be16(b[*p:])
	case 4:
		n.Int = be32(b[*p:])
		if k == schema.Uint32 {
			n.Int = int64(uint32(n.Int))
		}
	case 8:
		n.Int = be64(b[*p:])
	}
	*p += sz
	*kids = append(*kids, n)
	return n
}

func shortErr(off, need, have int, what string) *wire.Error {
	return &wire.Error{Offset: off, Expected: what, Found: itoa(have) + " bytes left (needed " + itoa(need) + ")", Err: wire.ErrShort}
}

// The kinds of entry frameAt finds.
const (
	entryTruncated = iota // cut short by the end of the input
	entryBatch
	entryMessage
)

// frameAt reads the framing of the entry at off: what it is, its magic
// byte (-1 when not there) and where it ends, or a framing error.
func frameAt(b []byte, off, end int) (kind int, magic int8, next int, err error) {
	left := end - off
	if left < 17 {
		return entryTruncated, -1, end, nil
	}
	size := int(be32(b[off+8:]))
	magic = int8(b[off+16])
	switch {
	case magic > 2 || magic < 0:
		return 0, magic, off, &wire.Error{Offset: off + 16, Expected: "magic 0, 1 or 2", Found: "magic " + itoa(int(magic))}
	case magic == 2 && size < batchHeader-12:
		return 0, magic, off, &wire.Error{Offset: off + 8, Expected: "a batchLength of at least 49", Found: itoa(size)}
	case magic < 2 && size < msgMin(magic):
		return 0, magic, off, &wire.Error{Offset: off + 8, Expected: "a messageSize of at least " + itoa(msgMin(magic)), Found: itoa(size)}
	}
	if size > left-12 {
		return entryTruncated, magic, end, nil
	}
	if magic == 2 {
		return entryBatch, magic, off + 12 + size, nil
	}
	return entryMessage, magic, off + 12 + size, nil
}

// innerShift is what turns the offsets stored in the messages of a magic 1
// wrapper's set (relative, the first 0) into absolute ones: the wrapper
// carries the absolute offset of the set's last message.
func innerShift(b []byte, start, end int, w *wrapper) int64 {
	if w == nil || w.magic != 1 {
		return 0
	}
	last, found := int64(0), false
	for off := start; off < end; {
		kind, _, next, err := frameAt(b, off, end)
		if err != nil || kind == entryTruncated {
			break
		}
		if kind == entryMessage {
			last, found = be64(b[off:]), true
		}
		off = next
	}
	if !found {
		return 0
	}
	return w.offset - last
}

// entry decodes one batch or message at off.
func (d *decoder) entry(b []byte, bi, off, end, depth int, w *wrapper, shift int64) (*tree.Node, int, error) {
	kind, magic, next, err := frameAt(b, off, end)
	switch {
	case err != nil:
		return nil, off, err
	case kind == entryTruncated:
		return d.truncated(b, bi, off, end, magic), end, nil
	case kind == entryBatch:
		return d.batch(b, bi, off, next, depth), next, nil
	}
	return d.message(b, bi, off, next, depth, w, shift), next, nil
}

func msgMin(magic int8) int {
	if magic == 1 {
		return 22
	}
	return 14
}

func (d *decoder) truncated(b []byte, bi, off, end int, magic int8) *tree.Node {
	n := d.leaf("batch", schema.Struct, "RecordBatch", bi, off, end)
	first, second := "baseOffset", "batchLength"
	if magic == 0 || magic == 1 {
		n.Name, n.Type = "message", "Message"
		first, second = "offset", "messageSize"
	}
	n.Flags |= tree.Truncated
	n.Raw = b[off:end]
	n.Int = int64(magic)
	d.warn(n, "", "the input ends inside this entry ("+itoa(end-off)+" bytes present)")
	kids := d.s.Kids(3)
	p := off
	if end-off >= 8 {
		d.fixed(&kids, first, schema.Int64, b, bi, &p)
		if end-off >= 12 {
			d.fixed(&kids, second, schema.Int32, b, bi, &p)
		}
	}
	if p < end {
		rest := d.leaf("partial", schema.Bytes, "bytes", bi, p, end)
		rest.Raw = b[p:end:end]
		rest.Flags |= tree.Truncated
		kids = append(kids, rest)
	}
	n.Children = kids
	return n
}

const batchHeader = 61

var controlNames = [...]string{"ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER", "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS"}
var controlData = [...]string{"", "", "LeaderChangeMessage", "SnapshotHeaderRecord", "SnapshotFooterRecord", "KRaftVersionRecord", "VotersRecord"}

// ControlTypeName names a control record type ("ABORT", "COMMIT",
// "LEADER_CHANGE", ...), or "" if unknown.
func ControlTypeName(t int) string {
	if t >= 0 && t < len(controlNames) {
		return controlNames[t]
	}
	return ""
}

// itoa formats an int for warning and error texts; like wire's, it is not
// inlined at its many cold call sites.
//
//go:noinline
func itoa(i int) string { return strconv.Itoa(i) }

func hex32(v uint32) string {
	const digits = "0123456789abcdef"
	var b [10]byte
	b[0], b[1] = '0', 'x'
	for i := 0; i < 8; i++ {
		b[9-i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

func crcMessage(kind string, computed, found uint32) string {
	return kind + " mismatch: computed " + hex32(computed) + ", found " + hex32(found)
}

func (d *decoder) batch(b []byte, bi, off, end, depth int) *tree.Node {
	n := d.leaf("batch", schema.Struct, "RecordBatch", bi, off, end)
	n.Int = 2
	n.Raw = b[off:end:end]
	kids := d.s.Kids(14)
	p := off
	base := d.fixed(&kids, "baseOffset", schema.Int64, b, bi, &p).Int
	d.fixed(&kids, "batchLength", schema.Int32, b, bi, &p)
	d.fixed(&kids, "partitionLeaderEpoch", schema.Int32, b, bi, &p)
	d.fixed(&kids, "magic", schema.Int8, b, bi, &p)
	crcNode := d.fixed(&kids, "crc", schema.Uint32, b, bi, &p)
	if c := crc32.Checksum(b[off+21:end], castagnoli); c != uint32(crcNode.Int) {
		d.warn(crcNode, "crc", crcMessage("CRC-32C", c, uint32(crcNode.Int)))
	}
	attrNode := d.fixed(&kids, "attributes", schema.Int16, b, bi, &p)
	attrs := int(attrNode.Int)
	attrNode.Children = d.bits(attrNode, attrs, true)
	if attrs&^0x7f != 0 {
		d.warn(attrNode, "attributes", "unused attribute bits 7-15 are set")
	}
	d.fixed(&kids, "lastOffsetDelta", schema.Int32, b, bi, &p)
	baseTS := d.fixed(&kids, "baseTimestamp", schema.Int64, b, bi, &p).Int
	maxTS := d.fixed(&kids, "maxTimestamp", schema.Int64, b, bi, &p).Int
	d.fixed(&kids, "producerId", schema.Int64, b, bi, &p)
	d.fixed(&kids, "producerEpoch", schema.Int16, b, bi, &p)
	d.fixed(&kids, "baseSequence", schema.Int32, b, bi, &p)
	countNode := d.fixed(&kids, "recordCount", schema.Int32, b, bi, &p)
	countMark := d.w.Mark()
	recs := d.leaf("records", schema.Records, "records", bi, p, end)
	recs.Raw = b[p:end]
	kids = append(kids, recs)
	n.Children = kids
	ctx := batchCtx{base: base, baseTS: baseTS, maxTS: maxTS, logAppend: attrs&8 != 0, control: attrs&0x20 != 0, count: int(countNode.Int)}
	codec := attrs & 7
	d.push("records", -1)
	if codec == CodecNone {
		recs.Children = d.recordList(b, bi, p, end, &ctx, recs)
	} else {
		recs.Type = "compressed records"
		if inf := d.inflate(recs, "", codec, b[p:end]); inf != nil {
			ib := inf.Raw
			inf.Children = d.recordList(ib, inf.Buf, 0, len(ib), &ctx, inf)
			recs.Children = append(d.s.Kids(1), inf)
		}
	}
	d.pop()
	if ctx.parsed != ctx.count && !ctx.cut && (codec == CodecNone || len(recs.Children) > 0) {
		d.warnAt(&countMark, countNode, "recordCount", "recordCount is "+itoa(ctx.count)+" but the batch holds "+itoa(ctx.parsed)+" records", false)
	}
	return n
}

// inflate decompresses src for node n (at field below the current path)
// into a new derived buffer and returns the "inflated" node spanning it, or
// nil after a warning.
func (d *decoder) inflate(n *tree.Node, field string, codec int, src []byte) *tree.Node {
	limit, which := d.b.MaxDecompressed-d.b.Decompressed, "MaxDecompressed"
	if w := d.b.MaxWork - d.b.Work; w < limit {
		limit, which = w, "MaxWork"
	}
	if limit <= 0 {
		d.limit(n, field, "not decompressed: the "+which+" limit is used up")
		return nil
	}
	var dst []byte
	if d.opts.Spare != nil {
		dst, *d.opts.Spare = *d.opts.Spare, nil
	}
	out, warn, done, err := inflateInto(dst, codec, src, limit)
	if warn != "" {
		d.warn(n, field, warn)
	}
	if err != nil {
		// The work was done all the same: a flood of decompressions that
		// fail stops at MaxWork. Their buffer serves the next one.
		d.b.Work += done
		if d.opts.Spare != nil {
			*d.opts.Spare = out
		}
		if err == errLimit {
			d.limit(n, field, "not decompressed: it holds more than the "+itoa(limit)+" bytes left of the "+which+" limit")
			return nil
		}
		name := CodecName(codec)
		if name == "" {
			name = "codec " + itoa(codec)
		}
		d.warn(n, field, "cannot decompress "+name+": "+err.Error())
		return nil
	}
	if d.opts.Spare != nil && cap(out)-len(out) > len(out)/4+4096 {
		// The buffer grew in steps past what it holds: the frame keeps
		// an exact copy, the buffer serves the next decompression.
		exact := make([]byte, len(out))
		copy(exact, out)
		*d.opts.Spare, out = out[:0], exact
	}
	d.b.Decompressed += len(out)
	d.b.Work += done
	d.res.Derived = append(d.res.Derived, out)
	idx := d.res.Base + len(d.res.Derived) - 1
	inf := d.leaf("inflated", schema.Bytes, CodecName(codec)+" inflated", idx, 0, len(out))
	inf.Raw = out
	inf.Int = int64(codec)
	return inf
}

var bitNames = [...]string{"compression", "timestampType", "transactional", "control", "deleteHorizon"}
var bitTypes = [...]string{"bits 0-2", "bit 3", "bit 4", "bit 5", "bit 6"}

func (d *decoder) bits(attr *tree.Node, v int, v2 bool) []*tree.Node {
	num := 5
	if !v2 {
		num = 2
	}
	kids := d.s.Kids(num)
	for i := 0; i < num; i++ {
		c := d.leaf(bitNames[i], attr.Kind, bitTypes[i], attr.Buf, attr.Start, attr.End)
		if i == 0 {
			c.Int = int64(v & 7)
		} else {
			c.Int = int64(v>>(i+2)) & 1
		}
		kids = append(kids, c)
	}
	return kids
}

type batchCtx struct {
	base, baseTS, maxTS int64
	logAppend, control  bool
	count, parsed       int
	cut                 bool // the MaxNodes limit ended the record list
}

// decodeData decodes a KRaft control value through Options.Data, keeping free
// what the record charges after it (d.dataAfter).
func (d *decoder) decodeData(name string, version int16, b []byte, bi, start, end int) (*tree.Node, error) {
	d.b.NestedNodes -= d.dataAfter
	defer func() { d.b.NestedNodes += d.dataAfter }()
	return d.opts.Data(name, version, b, bi, start, end, d.pathString("control.data"))
}
