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
	// DecodeData decodes a KRaft control record value (after its int16
	// version prefix, which is passed as version) through a data-message
	// schema: "LeaderChangeMessage", "SnapshotHeaderRecord",
	// "SnapshotFooterRecord", "KRaftVersionRecord" or "VotersRecord". The
	// returned node should span [start, end) of buffer bufIdx. nil = keep
	// the raw bytes.
	DecodeData func(s *tree.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error)
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

type decoder struct {
	s      *tree.Slab
	opts   Options
	res    *Result
	budget int
	nodes  int // nodes created
}

// Decode decodes buf[start:end], the payload of a records field. Offsets are
// absolute within buf, which is buffer number bufIdx; derived (decompressed)
// buffers get indexes base, base+1, ... The error, if any, is a *wire.Error;
// the nodes decoded until then are returned with it.
func Decode(s *tree.Slab, buf []byte, bufIdx, start, end, base int, opts Options) (*Result, error) {
	if opts.MaxDecompressed <= 0 {
		opts.MaxDecompressed = defaultMaxDecompressed
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 4
	}
	if opts.MaxNodes <= 0 {
		opts.MaxNodes = 2*max(end-start, 0) + 1<<20
	}
	if start < 0 {
		start = 0
	}
	if end > len(buf) {
		end = len(buf)
	}
	if end < start {
		end = start
	}
	d := &decoder{s: s, opts: opts, res: &Result{Base: base}, budget: opts.MaxDecompressed}
	nodes, err := d.set(buf[:end], bufIdx, start, end, 0, nil)
	d.res.Nodes = nodes
	if err != nil {
		return d.res, err
	}
	return d.res, nil
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
	guess := (end - start) / 64
	if guess > 64 {
		guess = 64
	}
	nodes := make([]*tree.Node, 0, guess+1)
	var direct []int // Records indexes of the messages directly in this set
	off := start
	for off < end {
		ri := len(d.res.Records)
		n, next, err := d.entry(b, bi, off, end, depth, w)
		if n != nil {
			nodes = append(nodes, n)
			if w != nil && n.Name == "message" && n.Flags&tree.Truncated == 0 && ri < len(d.res.Records) {
				direct = append(direct, ri)
			}
		}
		if err != nil {
			raw := d.leaf("raw", schema.Bytes, "bytes", bi, off, end)
			raw.Role = tree.RoleRaw
			raw.Raw = b[off:end]
			if n != nil && n.End > off {
				raw.Start = n.End
				raw.Raw = b[n.End:end]
			}
			if raw.Start < raw.End {
				nodes = append(nodes, raw)
			}
			return nodes, err
		}
		off = next
	}
	if w != nil && w.magic == 1 {
		// Magic 1 inner messages carry offsets relative to the first; the
		// wrapper carries the absolute offset of the last.
		if len(direct) > 0 {
			last := d.res.Records[direct[len(direct)-1]].Offset
			for _, i := range direct {
				ri := &d.res.Records[i]
				ri.Offset = w.offset - last + ri.Offset
				ri.Node.Int = ri.Offset
			}
		}
	}
	return nodes, nil
}

func (d *decoder) leaf(name string, k schema.Kind, typ string, bi, start, end int) *tree.Node {
	d.nodes++
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
	return &wire.Error{Offset: off, Expected: what, Found: wire.Itoa(have) + " bytes left (needed " + wire.Itoa(need) + ")", Err: wire.ErrShort}
}

// entry decodes one batch or message at off.
func (d *decoder) entry(b []byte, bi, off, end, depth int, w *wrapper) (*tree.Node, int, error) {
	left := end - off
	if left < 17 {
		return d.truncated(b, bi, off, end, -1), end, nil
	}
	size := int(be32(b[off+8:]))
	magic := int8(b[off+16])
	switch {
	case magic > 2 || magic < 0:
		return nil, off, &wire.Error{Offset: off + 16, Expected: "magic 0, 1 or 2", Found: "magic " + itoa(int(magic))}
	case magic == 2 && size < batchHeader-12:
		return nil, off, &wire.Error{Offset: off + 8, Expected: "a batchLength of at least 49", Found: itoa(size)}
	case magic < 2 && size < msgMin(magic):
		return nil, off, &wire.Error{Offset: off + 8, Expected: "a messageSize of at least " + itoa(msgMin(magic)), Found: itoa(size)}
	}
	if size > left-12 {
		return d.truncated(b, bi, off, end, magic), end, nil
	}
	if magic == 2 {
		return d.batch(b, bi, off, off+12+size, depth), off + 12 + size, nil
	}
	return d.message(b, bi, off, off+12+size, depth, w), off + 12 + size, nil
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
	n.Warn("the input ends inside this entry (" + itoa(end-off) + " bytes present)")
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

func itoa(i int) string { return wire.Itoa(i) }

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

func crcWarn(n *tree.Node, kind string, computed, found uint32) {
	n.Warn(kind + " mismatch: computed " + hex32(computed) + ", found " + hex32(found))
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
	attrNode := d.fixed(&kids, "attributes", schema.Int16, b, bi, &p)
	attrs := int(attrNode.Int)
	attrNode.Children = d.bits(attrNode, attrs, true)
	if attrs&^0x7f != 0 {
		attrNode.Warn("unused attribute bits 7-15 are set")
	}
	d.fixed(&kids, "lastOffsetDelta", schema.Int32, b, bi, &p)
	baseTS := d.fixed(&kids, "baseTimestamp", schema.Int64, b, bi, &p).Int
	maxTS := d.fixed(&kids, "maxTimestamp", schema.Int64, b, bi, &p).Int
	d.fixed(&kids, "producerId", schema.Int64, b, bi, &p)
	d.fixed(&kids, "producerEpoch", schema.Int16, b, bi, &p)
	d.fixed(&kids, "baseSequence", schema.Int32, b, bi, &p)
	countNode := d.fixed(&kids, "recordCount", schema.Int32, b, bi, &p)
	if c := crc32.Checksum(b[off+21:end], castagnoli); c != uint32(crcNode.Int) {
		crcWarn(crcNode, "CRC-32C", c, uint32(crcNode.Int))
	}
	recs := d.leaf("records", schema.Records, "records", bi, p, end)
	recs.Raw = b[p:end]
	kids = append(kids, recs)
	n.Children = kids
	ctx := batchCtx{base: base, baseTS: baseTS, maxTS: maxTS, logAppend: attrs&8 != 0, control: attrs&0x20 != 0, count: int(countNode.Int)}
	codec := attrs & 7
	if codec == CodecNone {
		recs.Children = d.recordList(b, bi, p, end, &ctx, recs)
	} else {
		recs.Type = "compressed records"
		if inf := d.inflate(recs, codec, b[p:end]); inf != nil {
			ib := inf.Raw
			inf.Children = d.recordList(ib, inf.Buf, 0, len(ib), &ctx, inf)
			recs.Children = append(d.s.Kids(1), inf)
		}
	}
	if ctx.parsed != ctx.count && (codec == CodecNone || len(recs.Children) > 0) {
		countNode.Warn("recordCount is " + itoa(ctx.count) + " but the batch holds " + itoa(ctx.parsed) + " records")
	}
	return n
}

// inflate decompresses src for node n into a new derived buffer and returns
// the "inflated" node spanning it, or nil after a warning.
func (d *decoder) inflate(n *tree.Node, codec int, src []byte) *tree.Node {
	if d.budget <= 0 {
		n.Warn("not decompressed: Options.MaxDecompressed is used up")
		return nil
	}
	out, warn, err := inflate(codec, src, d.budget, d.opts.MaxDecompressed)
	if warn != "" {
		n.Warn(warn)
	}
	if err != nil {
		name := CodecName(codec)
		if name == "" {
			name = "codec " + itoa(codec)
		}
		n.Warn("cannot decompress " + name + ": " + err.Error())
		if err == errLimit {
			d.budget = 0
		}
		return nil
	}
	d.budget -= len(out)
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
}
