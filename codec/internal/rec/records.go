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
package rec

import (
	"hash/crc32"
	"math"
	"strconv"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/tree"
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
	Budget *budget.Budget
	// Warnings, when set, receives every warning (besides the node it is
	// attached to), with its path under Path's, in document order.
	Warnings *budget.Warnings
	// Path names the place of the records (nil: none), asked for only
	// when a warning or a payload names a place: most records have
	// neither, and a path made per records field was an allocation each.
	Path func() string
	// DecodeData decodes a KRaft control record value (after its int16
	// version prefix, which is passed as version) through a data-message
	// schema: "LeaderChangeMessage", "SnapshotHeaderRecord",
	// "SnapshotFooterRecord", "KRaftVersionRecord" or "VotersRecord". The
	// returned node should span [start, end) of buffer bufIdx. nil = keep
	// the raw bytes.
	DecodeData func(s *slab.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error)
	// Data is DecodeData for a caller that keeps its own budget and
	// warnings: path names the value for them. It is used when set.
	Data func(name string, version int16, buf []byte, bufIdx, start, end int, path string) (*tree.Node, error)
	// DataJSON writes the value JSON of a KRaft control value that
	// DecodeData or Data read: the data message name at version in
	// buf[start:end], its own Version field first (the codec's walk
	// writes it). nil writes its bytes as base64.
	DataJSON DataJSONFunc
	// Payload, when set, reads each record key and value for what it
	// carries (payload.go); Topic names the topic the records belong to.
	Payload PayloadFunc
	Topic   string
	// Int64Strings writes int64 values (offsets, timestamps, producer
	// ids, timestamp deltas) as JSON strings of their digits.
	Int64Strings bool
	// Scratch, when set, lends WriteJSON memory kept from call to call.
	Scratch *Scratch
	// Inflations, when set, keeps the outcome of each decompression, in
	// order; when it holds outcomes already (an earlier walk of the same
	// bytes kept them), they are read instead of decompressing again.
	Inflations *Inflations
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
	s        sink
	opts     Options
	res      *Result
	b        *budget.Budget
	w        *budget.Warnings
	path     []seg
	maxDepth int
	nbuf     int  // derived buffers numbered so far
	warned   int  // warnings made so far
	replayed bool // the last decompression was an outcome read again
	// dataAfter is what the record being made charges after its KRaft
	// data message (recordParts), kept free while that message decodes.
	dataAfter int
	rp        recParse
	rv        recView
	bctx      batchCtx // the batch being read
	mp        []*msgParse
	tree      treeSink
	json      jsonSink
	dataSlab  slab.Slab // a KRaft value's nodes when the sink makes none

	// The payload hook's JSON members for the tree sink (which keeps its
	// nodes, not them), its argument and node, reused from part to part.
	pay      []byte
	payIn    PayloadIn
	payAt    tree.Node
	payPath  func() string // payIn.Path: the place of payField
	payField string

	pathText budget.PathText // pathString's buffer and the path it made last

	// The budget when the options give none, and WriteJSON's result:
	// kept here so that a Scratch's calls allocate neither.
	budget  budget.Budget
	jsonRes Result
}

// chargeWarning spends a warning's nodes (budget.WarningNodes), so a flood
// of them stops at MaxNodes as nodes do, and counts it (warned), whether
// or not the caller lists warnings. Both paths charge alike.
func (d *decoder) chargeWarning(limit bool) {
	d.b.ChargeWarning(limit)
	d.warned++
}

// Decode decodes payload, the bytes of a records field, into nodes from s.
// The payload is buffer 0 and its derived (decompressed) buffers get
// indexes 1, 2, ..., unless opts place it elsewhere (Options.Start,
// Buffer, Base). The error, if any, is a *wire.Error; the nodes decoded
// until then are returned with it.
func Decode(s *slab.Slab, payload []byte, opts Options) (*Result, error) {
	bufIdx, start, end, base := opts.span(payload)
	if opts.Spare == nil {
		opts.Spare = new([]byte) // the call's own
	}
	d := new(decoder)
	d.init(&opts, end-start)
	d.res = &Result{}
	d.tree = treeSink{d: d, s: s, spare: opts.Spare}
	d.s = &d.tree
	d.res.Base = base
	d.b.Work += end - start
	nodes, err := d.entries(payload, bufIdx, start, end, 0, nil)
	d.res.Nodes = nodes
	return d.res, err
}

// WriteJSON decodes payload (placed by opts as for Decode) as Decode does,
// with the same checks, budget, warnings and error, but builds no tree: it
// appends the records' JSON to *out as it reads, one record at a time,
// reusing one decompression buffer per nesting depth, and calls flush
// (when not nil) after each record and entry so the caller can write the
// output away. It returns how many derived buffers it numbered (as
// Decode's Result.Derived would hold), and Decode's error.
//
// The JSON is an array with one object per entry:
//
//	Batch (magic 2): {"baseOffset","partitionLeaderEpoch","magic":2,"crc",
//	  "attributes":{"compression":"none|gzip|snappy|lz4|zstd" (or a number),
//	    "timestampType":"CreateTime|LogAppendTime","transactional","control",
//	    "deleteHorizon", "otherBits" (only when bits 7-15 are set)},
//	  "lastOffsetDelta","baseTimestamp","maxTimestamp","producerId",
//	  "producerEpoch","baseSequence","records":[...] (null if undecodable),
//	  "_compressed":"<base64 of the compressed records bytes>" (compressed only),
//	  "_raw":"<base64 of the whole batch>" (only when it decoded with warnings)}
//	Record: {"attributes","timestampDelta","offsetDelta","offset","timestamp",
//	  "key","value","headers":[{"key","value"}],
//	  "control":{...} (control batches: "keyVersion","type" name or number,
//	    "valueVersion", "coordinatorEpoch" (markers) or "data" (KRaft: the message, its own version first))}
//	Message (magic 0/1): {"offset","magic","crc","attributes":{"compression",
//	  "timestampType" (magic 1)},"timestamp" (magic 1),"key","value"} where a
//	  compressed wrapper has "messages":[...] and "_compressed" instead of
//	  "value"; inner messages whose absolute offset differs from the stored
//	  one add "absoluteOffset", and those of a wrapper stamped with its
//	  log-append time add it, "logAppendTime" (their timestamp as Kafka
//	  reads it); "_raw" as for batches.
//	A final entry cut short: {"_truncated":"<base64>"}; undecodable bytes
//	  after a framing error: {"_raw":"<base64>"}.
//
// Keys, values and header values are null, {"text":"..."} when the bytes
// are valid UTF-8 of printable characters (and tab, CR, LF), else
// {"base64":"..."}. Header keys are a plain string when valid UTF-8, else
// {"base64":"..."}, or null. "crc", "offset", "timestamp",
// "absoluteOffset", "logAppendTime" and "control" are informational:
// Encode recomputes or ignores them.
func WriteJSON(out *[]byte, payload []byte, opts Options, flush func()) (int, error) {
	bufIdx, start, end, base := opts.span(payload)
	// With a Scratch, a call allocates nothing of its own: the decoder,
	// its budget and its result are the Scratch's, reset.
	var d *decoder
	if opts.Scratch != nil {
		d = &opts.Scratch.d
	} else {
		d = new(decoder)
	}
	res := &d.jsonRes
	*res = Result{}
	d.init(&opts, end-start)
	d.res = res
	d.json.out, d.json.flushFn = out, flush
	d.s = &d.json
	d.res.Base = base
	d.b.Work += end - start
	_, err := d.entries(payload, bufIdx, start, end, 0, nil)
	return d.nbuf, err
}

// Scratch is memory WriteJSON reuses from one call to the next: its
// decompression buffers and record state. A zero Scratch is ready.
type Scratch struct{ d decoder }

// DataJSONFunc is Options.DataJSON.
type DataJSONFunc = func(dst []byte, name string, version int16, buf []byte, start, end int) []byte

// JSONMode selects how a records field is shown in value JSON.
type JSONMode int

const (
	Decoded JSONMode = iota // the decoded form: an array of batches / messages
	Base64                  // the whole records field as one base64 string
	Size                    // {"sizeInBytes":N}
)

// init readies d for a call, keeping what it reuses; the caller sets
// d.res.
func (d *decoder) init(opts *Options, size int) {
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
		b = &d.budget
	}
	*d = decoder{opts: *opts, b: b, w: opts.Warnings, maxDepth: opts.MaxDepth, path: d.path[:0],
		rp: d.rp, rv: d.rv, mp: d.mp, json: jsonSink{d: d, scratch: d.json.scratch, first: d.json.first[:0]}, pathText: budget.PathText{Buf: d.pathText.Buf[:0]}, pay: d.pay[:0], payPath: d.payPath,
		jsonRes: d.jsonRes}
	if opts.Budget == nil {
		d.budget = budget.Budget{MaxNodes: opts.MaxNodes, NestedNodes: opts.MaxNodes, MaxDecompressed: opts.MaxDecompressed, MaxWork: math.MaxInt >> 1}
	}
}

func (d *decoder) push(name string, idx int) { d.path = append(d.path, seg{name, idx}) }
func (d *decoder) pop()                      { d.path = d.path[:len(d.path)-1] }

// pathString names the current place, with field appended when not "".
func (d *decoder) pathString(field string) string {
	b := d.pathText.Buf[:0]
	if d.opts.Path != nil {
		b = append(b, d.opts.Path()...)
	}
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
	return d.pathText.Intern(b)
}

// note says a warning at offset at of buffer bi, on node n when the sink
// makes nodes, at the current path plus field; mark is where a warning
// learnt late goes (nil: at the end).
func (d *decoder) note(mark *int, n *tree.Node, bi, at int, field, msg string) {
	d.warnAt(mark, n, bi, at, field, msg, false)
}

func (d *decoder) warnAt(mark *int, n *tree.Node, bi, at int, field, msg string, limit bool) {
	if n != nil {
		n.Warnings = append(n.Warnings, msg)
	}
	d.chargeWarning(limit)
	if d.w == nil {
		return
	}
	x := budget.Warning{Offset: at, Buf: bi, Path: d.pathString(field), Message: msg, Limit: limit}
	if mark != nil {
		d.w.Insert(mark, x)
	} else {
		d.w.Add(x)
	}
}

func be16(b []byte) int64 { return int64(int16(uint16(b[0])<<8 | uint16(b[1]))) }
func be32(b []byte) int64 {
	return int64(int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])))
}
func be64(b []byte) int64 {
	return int64(uint64(be32(b))<<32 | uint64(uint32(be32(b[4:]))))
}

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

// Inflations are the outcomes of a frame's decompressions, in the order
// the walk meets them: one walk keeps them, a walk again over the same
// bytes reads them back instead of decompressing anew (same bytes, same
// work counted, same warnings).
type Inflations struct {
	list []inflation
	next int // the next outcome to read back; -1: keep them
}

type inflation struct {
	out  []byte // what it made (nil when it failed)
	warn string
	done int
	err  error
}

// Keep readies i to keep the outcomes of a walk.
func (i *Inflations) Keep() { *i = Inflations{next: -1} }

// Replay returns a reader of the outcomes i kept.
func (i *Inflations) Replay() *Inflations { return &Inflations{list: i.list} }

// inflateOnce is inflateInto, or the outcome an earlier walk kept.
func (d *decoder) inflateOnce(dst []byte, codec int, src []byte, limit int) (out []byte, warn string, done int, err error) {
	in := d.opts.Inflations
	d.replayed = false
	if in != nil && in.next >= 0 && in.next < len(in.list) {
		x := in.list[in.next]
		in.next++
		d.replayed = true
		if x.err != nil {
			return dst[:0], x.warn, x.done, x.err
		}
		return x.out, x.warn, x.done, nil
	}
	out, warn, done, err = inflateInto(dst, codec, src, limit)
	if in != nil && in.next < 0 {
		x := inflation{warn: warn, done: done, err: err}
		if err == nil {
			x.out = out
		}
		in.list = append(in.list, x)
	}
	return out, warn, done, err
}

// kept updates the last outcome kept to the buffer the frame keeps.
func (d *decoder) kept(out []byte) {
	if in := d.opts.Inflations; in != nil && in.next < 0 && len(in.list) > 0 {
		in.list[len(in.list)-1].out = out
	}
}
