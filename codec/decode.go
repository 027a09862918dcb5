package codec

import (
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// Options say how to read a frame.
type Options struct {
	// Response selects response decoding. A response header does not
	// carry its API and version: APIKey and Version give them, or either
	// is Any and the decoder guesses it (Frame.Guess says how).
	Response bool
	APIKey   int16
	Version  int16
	// Auto reads the frame as a request when it decodes cleanly as one,
	// else as the likeliest response of any API and version (Response,
	// APIKey and Version are then ignored). A size prefix that is negative
	// or larger than the bytes given is an error either way.
	Auto bool
	// NoSizePrefix says the frame starts at the header, without the 4-byte size.
	NoSizePrefix bool
	// RawRecords leaves records fields as bytes instead of decoding their
	// batches, and consumer-protocol bytes undecoded.
	RawRecords bool
	// Limits bound the work and memory of one frame; zero values mean the
	// defaults.
	Limits
	// Payload, when set, reads record keys and values for what they carry
	// (records.Options.Payload), told the topic they belong to. [payload hook]
	Payload func(dst []byte, p *records.PayloadIn) ([]byte, []*tree.Node)

	skipRecords bool // records are written as base64 or size: not decoded
	// sizeFirst makes a size prefix beyond the bytes given an error at
	// "size" before anything else is read: a guess never starts from a
	// frame cut short. Read as given, a cut-short frame's bytes are read
	// and the error says where reading stopped, and why.
	sizeFirst bool
}

// Frame is a decoded request or response.
type Frame struct {
	Response      bool
	API           *schema.API // nil when the API key is unknown
	Message       *schema.Message
	APIKey        int16
	Version       int16 // the version on the wire
	Layout        int16 // the version whose layout was used (differs when Assumed)
	Assumed       bool  // the version is newer than any known; the newest layout was assumed
	HeaderVersion int16
	Flexible      bool
	CorrelationID int32

	Root    *tree.Node // covers the whole input
	Header  *tree.Node
	Body    *tree.Node
	Buffers [][]byte // Buffers[0] is the input; later ones are derived (decompressed) bytes

	// Guess is set when the frame was read as a response whose API and
	// version were guessed (see Read).
	Guess *Guess

	slab     tree.Slab
	warnings []Warning
	spent    wire.Budget                    // what decoding it spent
	records  map[*tree.Node]*records.Result // decoded records fields
	data     map[*tree.Node]dataView        // bytes fields decoded as data messages
}

// Records returns the decoded content of a records field node, or nil.
func (f *Frame) Records(n *tree.Node) *records.Result { return f.records[n] }

// pathSeg is one step of a field path: ".name", "[idx]" when idx >= 0, or
// (idx == absPath) a whole path that replaces what came before it.
type pathSeg struct {
	name string
	idx  int
}

const absPath = -2

type decoder struct {
	r     wire.Reader
	f     *Frame
	s     *tree.Slab
	v     int16
	flex  bool
	path  []pathSeg
	depth int
	lim   Limits
	b     *wire.Budget
	w     *wire.Warnings
	err   *DecodeError
	// nestErr is the first error inside a nested payload (a records field
	// whose batches are framed wrongly): the frame goes on decoding and
	// returns it at the end unless its own fields fail.
	nestErr *DecodeError
	nest    bool // decode records and consumer-protocol bytes
	buf     int  // the buffer nodes point into
	// nested is set while decoding a nested payload: nodes then stop at
	// the budget's NestedNodes, and limitHit says a limit ended it.
	nested   bool
	limitHit bool
	frameEnd int // where the frame's own bytes end, for the nested reserve
	consumer []consumerField
	pt       protocolType
	inHeader bool
	nbufs    int // buffers numbered so far: the input and the derived ones
	// skipRecords leaves records fields undecoded (written as base64 or
	// their size) while consumer-protocol bytes are still decoded.
	skipRecords bool
	sizeFirst   bool // see Options.sizeFirst
	// payload is Options.Payload; topic the last topic name read, which
	// records fields after it belong to. [payload hook]
	payload func(dst []byte, p *records.PayloadIn) ([]byte, []*tree.Node)
	topic   string

	// The tree-less sink: with out set, no tree is built and value JSON is
	// written as the walk goes (see fast.go).
	out  *jsonOut
	fast *fastState
	sink jsonSink

	ws  wire.Warnings // w points here
	own wire.Budget   // b points here when the frame has a budget of its own

	pathBuf  []byte // pathWith's buffer
	lastPath string // the path pathWith made last
	// spare is the records fields' decompression buffer when no frame
	// holds it (records.Options.Spare), kept between frames.
	spare []byte
}

func (d *decoder) pathString() string { return d.pathWith("") }

// pathWith is the current path, plus field when it is not empty. A flood
// of warnings at one place (unknown tags, non-minimal varints) shares one
// string: the path is built in a reused buffer and kept when it is the
// one built last.
func (d *decoder) pathWith(field string) string {
	b := d.pathBuf[:0]
	for i, p := range d.path {
		switch {
		case p.idx == absPath:
			b = append(b[:0], p.name...)
		case p.idx >= 0:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(p.idx), 10)
			b = append(b, ']')
		default:
			if i > 0 && len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, p.name...)
		}
	}
	if field != "" {
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, field...)
	}
	d.pathBuf = b
	if string(b) != d.lastPath {
		d.lastPath = string(b)
	}
	return d.lastPath
}

func (d *decoder) push(name string) { d.path = append(d.path, pathSeg{name, -1}) }
func (d *decoder) pop()             { d.path = d.path[:len(d.path)-1] }

// fail records the walk's first error: the bytes at off are there but
// wrong.
func (d *decoder) fail(off int, expected, found string) { d.failWith(off, expected, found, nil) }

// short is fail for bytes that are missing: a length, count or size that
// runs past the end of the input. The error's cause is wire.ErrShort.
func (d *decoder) short(off int, expected, found string) {
	d.failWith(off, expected, found, wire.ErrShort)
}

func (d *decoder) failWith(off int, expected, found string, cause error) {
	if d.err == nil {
		d.err = newDecodeError(off, d.buf, d.pathString(), expected, found, cause)
	}
}

// shortIf is wire.ErrShort when missing says bytes are missing, else nil.
func shortIf(missing bool) error {
	if missing {
		return wire.ErrShort
	}
	return nil
}

// check turns a reader failure into a DecodeError at the current path,
// keeping the reader's error (and through it wire.ErrShort or
// wire.ErrVarint) as its cause.
func (d *decoder) check() bool {
	if d.err != nil {
		return false
	}
	if e := d.r.Err; e != nil {
		d.err = wireDecodeError(e, d.buf, d.pathString())
		return false
	}
	return true
}

// warn attaches msg to n and lists it at the current path (plus field, when
// not ""), at offset off.
func (d *decoder) warn(n *tree.Node, off int, field, msg string) {
	d.warnAt(nil, n, off, field, msg, false)
}

// warnAt is warn for a warning learnt after n's children were read (it
// goes to the mark taken when n was opened; nil: at the end), or for a
// limit hit.
func (d *decoder) warnAt(mark *int, n *tree.Node, off int, field, msg string, limit bool) {
	n.Warn(msg)
	// Warnings are charged as nodes, so a flood of them stops at MaxNodes.
	d.b.ChargeWarning(limit)
	x := Warning{Offset: off, Buf: d.buf, Path: d.pathWith(field), Message: msg, Limit: limit}
	if mark != nil {
		d.w.Insert(mark, x)
	} else {
		d.w.Add(x)
	}
}

func (d *decoder) node() *tree.Node {
	d.b.Nodes++
	if max := d.b.MaxNodes; d.nested {
		if d.b.Nodes > d.b.NestedNodes && d.err == nil {
			d.limitHit = true
			d.failWith(d.r.Off, "at most "+decimal(max)+" nodes (the MaxNodes limit)", "more", wire.ErrLimit)
		}
	} else if d.b.Nodes > max && d.err == nil {
		d.limitHit = true
		d.failWith(d.r.Off, "at most "+decimal(max)+" nodes (the MaxNodes limit)", "more", wire.ErrLimit)
	}
	if d.out != nil {
		return d.scratchNode()
	}
	n := d.s.New()
	n.Buf = d.buf
	return n
}

// Decode decodes one frame. On malformed input it returns the partial frame
// (its Root covers the input) and a *DecodeError. Warnings for lenient
// readings and limit hits are attached to the nodes they concern and
// listed by Frame.Warnings.
func Decode(b []byte, opts Options) (*Frame, error) {
	var dec Decoder
	return dec.Decode(b, opts)
}

// A Decoder decodes frames reusing its memory from one frame to the next,
// for callers that decode many: each Decode invalidates the Frame (and
// every node of it) that the previous call returned.
type Decoder struct {
	f Frame // the tree's

	// The tree-less path's: a frame for what it learns, its scratch, its
	// output.
	jf   Frame
	fast fastState
	out  jsonOut

	td, jd decoder     // the walks' state, kept between frames
	budget wire.Budget // the tree-less path's frame budget
}

// Decode is Decode reusing the decoder's memory.
func (dec *Decoder) Decode(b []byte, opts Options) (*Frame, error) {
	if opts.guessing() {
		opts.Limits = opts.Limits.Resolve(len(b))
		err := dec.read(b, opts, opts.Limits.budget(), readTree)
		return &dec.f, err
	}
	f := dec.reset()
	dec.td.init(f, &opts, len(b), nil)
	return f, dec.td.frame(b, &opts)
}

func (dec *Decoder) reset() *Frame {
	slab := dec.f.slab
	slab.Reset()
	bufs := dec.f.Buffers[:0]
	clear(dec.f.warnings)
	dec.f = Frame{slab: slab, Buffers: bufs, warnings: dec.f.warnings[:0]}
	return &dec.f
}

func newDecoder(f *Frame, o *Options, n int, b *wire.Budget) *decoder {
	d := new(decoder)
	d.init(f, o, n, b)
	return d
}

// init readies d (kept by a Decoder, so a frame costs no allocation of
// it) for frame f of n bytes: its own budget unless b is given.
func (d *decoder) init(f *Frame, o *Options, n int, b *wire.Budget) {
	lim := o.Limits.Resolve(n)
	if b == nil {
		d.own = lim.budgetValue()
		b = &d.own
	}
	path := d.path[:0]
	*d = decoder{f: f, s: &f.slab, lim: lim, b: b, nest: !o.RawRecords, skipRecords: o.skipRecords, sizeFirst: o.sizeFirst, path: path, own: d.own, pathBuf: d.pathBuf[:0], spare: d.spare, payload: o.Payload}
	if b != &d.own {
		d.own = wire.Budget{}
	}
	d.ws.List = f.warnings[:0]
	d.w = &d.ws
}

func decodeInto(f *Frame, b []byte, opts Options, budget *wire.Budget) (*Frame, error) {
	d := newDecoder(f, &opts, len(b), budget)
	return f, d.frame(b, &opts)
}

// frame walks one frame, building the tree or writing JSON.
func (d *decoder) frame(b []byte, opts *Options) error {
	f := d.f
	f.Response = opts.Response
	f.Buffers = append(f.Buffers[:0], b)
	d.nbufs = 1
	d.r.B = b
	root := d.node()
	root.Name, root.Role, root.Type = "frame", tree.RoleFrame, "frame"
	root.End = len(b)
	f.Root = root
	kids := d.s.Kids(4)
	end, cut := len(b), -1

	if !opts.NoSizePrefix {
		n := d.node()
		n.Name, n.Role, n.Kind, n.Type = "size", tree.RoleSize, schema.Int32, "int32"
		d.push("size")
		size := d.r.Int32()
		d.check()
		n.Int, n.End = int64(size), d.r.Off
		kids = append(kids, n)
		switch {
		case d.err != nil:
		case size < 0:
			d.fail(0, "a non-negative frame size", decimal(int(size)))
		case int(size) > len(b)-4 && d.sizeFirst:
			d.sizeBeyond(len(b), int(size))
		case int(size) > len(b)-4:
			// A frame cut short: the bytes that are there are still read,
			// so the partial tree shows them and the error says where
			// reading stopped, and why (below).
			cut = int(size)
		default:
			end = 4 + int(size)
		}
		d.path = d.path[:0]
	}
	d.frameEnd = end
	if d.err == nil {
		d.r.B = b[:end]
		if opts.Response {
			d.response(*opts, &kids)
		} else {
			d.request(&kids)
		}
		d.r.B = b
		switch {
		case cut >= 0 && d.err == nil:
			// Everything given read cleanly, yet the size says more follows.
			d.push("size")
			d.sizeBeyond(len(b), cut)
			d.path = d.path[:0]
		case cut >= 0:
			d.err.Found += " (the frame is cut short: its size says " + decimal(cut) + " bytes follow, " + decimal(len(b)-4) + " do)"
		case d.err == nil && d.r.Off < end:
			d.fail(d.r.Off, "the end of the message", decimal(end-d.r.Off)+" more bytes inside the frame")
		}
	}
	d.b.Work += d.r.Off
	if d.sink != nil {
		return d.sink.end(d, b, end)
	}
	return d.finish(root, kids, b, end)
}

// sizeBeyond fails at the size prefix of an n-byte input that declares
// size bytes after it, more than there are.
func (d *decoder) sizeBeyond(n, size int) {
	d.short(0, "a size of at most "+decimal(n-4)+" (the bytes given after it)", decimal(size))
}

// finish ends the tree of a frame (or a body alone) whose bytes end at end
// and whose input is b: what could not be read becomes "_undecoded", what
// follows the frame "_trailing", so every byte belongs to a node.
func (d *decoder) finish(root *tree.Node, kids []*tree.Node, b []byte, end int) error {
	f := d.f
	if d.err != nil && d.r.Off < len(b) {
		// What could not be read stays visible as raw bytes.
		n := d.s.New()
		n.Name, n.Role, n.Kind, n.Type = "_undecoded", tree.RoleRaw, schema.Bytes, "bytes"
		n.Start, n.End = d.r.Off, len(b)
		if d.err.Offset > n.Start && d.err.Offset <= len(b) && d.err.Buf == 0 {
			n.Start = d.err.Offset
		}
		n.PrefixEnd, n.SizeEnd, n.TagEnd = n.Start, n.Start, n.Start
		n.Raw = b[n.Start:]
		if n.Start < n.End {
			kids = append(kids, n)
		}
	} else if d.err == nil && end < len(b) {
		n := d.s.New()
		n.Name, n.Role, n.Kind, n.Type = "_trailing", tree.RoleTrailing, schema.Bytes, "bytes"
		n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd, n.End = end, end, end, end, len(b)
		n.Raw = b[end:]
		d.push("_trailing")
		d.warn(n, end, "", decimal(len(b)-end)+" bytes after the frame's declared size")
		d.pop()
		kids = append(kids, n)
	}
	root.Children = kids
	f.warnings = d.w.List
	f.spent = *d.b
	return d.result()
}

// result is the frame's error: its own fields' first, else a nested one's.
func (d *decoder) result() error {
	if d.err != nil {
		return d.err
	}
	if d.nestErr != nil {
		return d.nestErr
	}
	return nil
}

func (d *decoder) request(kids *[]*tree.Node) {
	f := d.f
	start := d.r.Off
	left := d.r.Remaining()
	if left < 2 {
		d.path = append(d.path[:0], pathSeg{"header.requestApiKey", absPath})
		d.short(start, "2 bytes for int16 (the request's API key)", decimal(left)+" bytes left")
		d.path = d.path[:0]
		return
	}
	f.APIKey = int16(uint16(d.r.B[start])<<8 | uint16(d.r.B[start+1]))
	if left < 4 {
		// The key but no version: the header is read as far as it goes,
		// so the key is in the tree and the error is at the version,
		// where it starts, as the reader's are.
		f.API = schema.ByKey(f.APIKey)
		d.header(schema.RequestHeader(), 1, kids)
		return
	}
	f.Version = int16(uint16(d.r.B[start+2])<<8 | uint16(d.r.B[start+3]))
	f.API = schema.ByKey(f.APIKey)
	d.head()
	hdr := schema.RequestHeader()
	hv := int16(1)
	if f.API != nil {
		f.Message = f.API.Request
		d.path = append(d.path[:0], pathSeg{"header.requestApiVersion", absPath})
		d.pickVersion(start + 2)
		d.path = d.path[:0]
		if f.Message != nil {
			hv = f.Message.HeaderVersion(f.Layout)
		}
	}
	f.HeaderVersion = hv
	d.header(hdr, hv, kids)
	if d.err != nil {
		return
	}
	if f.API == nil {
		d.path = append(d.path[:0], pathSeg{"header.requestApiKey", absPath})
		d.fail(start, "a known API key (0-"+decimal(int(schema.APIs()[len(schema.APIs())-1].Key))+")", decimal(int(f.APIKey)))
		d.path = d.path[:0]
		return
	}
	if f.Message == nil {
		return
	}
	d.body(kids)
}

func (d *decoder) response(opts Options, kids *[]*tree.Node) {
	f := d.f
	f.APIKey, f.Version = opts.APIKey, opts.Version
	f.API = schema.ByKey(f.APIKey)
	d.head()
	if f.API == nil {
		d.fail(d.r.Off, "a known API key as the hint for a response", decimal(int(f.APIKey)))
		return
	}
	f.Message = f.API.Response
	d.pickVersion(d.r.Off)
	if f.Message == nil {
		return
	}
	f.HeaderVersion = f.Message.HeaderVersion(f.Layout)
	d.header(schema.ResponseHeader(), f.HeaderVersion, kids)
	if d.err != nil {
		return
	}
	d.body(kids)
}

// pickVersion chooses the layout for f.Version, assuming the newest for
// versions beyond it; at is the version's offset, for the error.
func (d *decoder) pickVersion(at int) {
	f := d.f
	m := f.Message
	f.Layout = f.Version
	switch {
	case f.Version > m.Valid.Hi:
		f.Layout, f.Assumed = m.Valid.Hi, true
	case f.Version < m.Valid.Lo:
		d.fail(at, m.Name+" version "+m.Valid.String(), "version "+decimal(int(f.Version)))
		f.Message = nil
		return
	}
	f.Flexible = m.Flexible(f.Layout)
	d.consumer = consumerFieldsOf(f.APIKey, f.Response)
}

func (d *decoder) header(hdr *schema.Message, hv int16, kids *[]*tree.Node) {
	n := d.node()
	n.Name, n.Role, n.Kind, n.Type = "header", tree.RoleHeader, schema.Struct, hdr.Name+" v"+decimal(int(hv))
	d.f.Header = n
	*kids = append(*kids, n)
	d.v, d.flex = hv, hdr.Flexible(hv)
	d.path = append(d.path[:0], pathSeg{"header", -1})
	d.start(n)
	if d.out != nil {
		d.out.b = append(d.out.b, `,"header":`...)
	}
	d.inHeader = true
	d.structBody(n, hdr.At(hv).Root)
	d.inHeader = false
	n.End = d.r.Off
	d.path = d.path[:0]
}

func (d *decoder) body(kids *[]*tree.Node) {
	f := d.f
	m := f.Message
	n := d.node()
	n.Name, n.Role, n.Kind = "body", tree.RoleBody, schema.Struct
	n.Type = m.Name + " v" + decimal(int(f.Version))
	f.Body = n
	*kids = append(*kids, n)
	d.v, d.flex = f.Layout, f.Flexible
	d.path = append(d.path[:0], pathSeg{"body", -1})
	d.start(n)
	if d.out != nil {
		d.out.b = append(d.out.b, `,"body":`...)
	}
	if f.Assumed {
		n.Flags |= tree.Assumed
		d.warn(n, n.Start, "", "version "+decimal(int(f.Version))+" is newer than any known; decoded with the v"+decimal(int(f.Layout))+" layout")
	}
	d.structBody(n, m.At(f.Layout).Root)
	n.End = d.r.Off
	d.path = d.path[:0]
}

func (d *decoder) start(n *tree.Node) {
	n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd = d.r.Off, d.r.Off, d.r.Off, d.r.Off
}

func (d *decoder) structBody(n *tree.Node, l *schema.Layout) {
	d.depth++
	defer d.leave()
	if d.depth > d.lim.MaxDepth {
		d.failWith(d.r.Off, "nesting of at most "+decimal(d.lim.MaxDepth)+" (the MaxDepth limit)", "deeper", wire.ErrLimit)
		return
	}
	if d.sink != nil {
		d.sink.structBody(d, l)
		return
	}
	kids := d.s.Kids(len(l.Fields) + 1)
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(d.v) || (d.flex && f.IsTagged(d.v)) {
			continue
		}
		c := d.node()
		c.Name, c.Role, c.Field = f.Name, tree.RoleField, f
		d.start(c)
		d.push(f.JSON)
		d.value(c, f, f.Kind)
		d.pop()
		kids = append(kids, c)
		if d.err != nil {
			c.Flags |= tree.Broken
			n.Flags |= tree.Broken
			n.Children = kids
			return
		}
		d.noteField(c, f)
	}
	if d.flex {
		kids = append(kids, d.tags(l))
	}
	n.Children = kids
}

// noteField keeps what later fields depend on: the correlation id, the
// group's protocol type.
func (d *decoder) noteField(c *tree.Node, f *schema.Field) {
	switch {
	case d.inHeader && f.Name == "CorrelationId":
		d.f.CorrelationID = int32(c.Int)
	case f.Kind == schema.String && f.Name == "ProtocolType":
		d.pt = protocolType{name: string(c.Raw), known: !c.Null, depth: d.depth}
	case d.payload != nil && f.EntityType == "topicName" && f.Kind == schema.String: // payload hook
		d.topic = string(c.Raw)
	}
}

// leave ends a struct: its depth, and the protocol type it declared.
func (d *decoder) leave() {
	if d.pt.depth == d.depth {
		d.pt = protocolType{}
	}
	d.depth--
}

// value decodes one value of kind k for field f into n, whose Start (and,
// for tagged fields, TagEnd and SizeEnd) the caller has set.
func (d *decoder) value(n *tree.Node, f *schema.Field, k schema.Kind) {
	r := &d.r
	n.Kind = k
	defer func() { n.End = r.Off }()
	nullable := f.Nullable.Contains(d.v)
	compact := f.CompactAt(d.v, d.flex)
	if compact {
		n.Flags |= tree.Compact
	}
	switch k {
	case schema.Bool:
		n.Type = "bool"
		b := r.Uint8()
		if !d.check() {
			return
		}
		n.Int = int64(b)
		if b > 1 {
			d.warn(n, n.Start, "", "bool byte is "+decimal(int(b))+", read as true")
		}
	case schema.Int8:
		n.Type, n.Int = "int8", int64(r.Int8())
	case schema.Int16:
		n.Type, n.Int = "int16", int64(r.Int16())
	case schema.Uint16:
		n.Type, n.Int = "uint16", int64(r.Uint16())
	case schema.Int32:
		n.Type, n.Int = "int32", int64(r.Int32())
	case schema.Uint32:
		n.Type, n.Int = "uint32", int64(r.Uint32())
	case schema.Int64:
		n.Type, n.Int = "int64", r.Int64()
	case schema.Float64:
		n.Type, n.Float = "float64", r.Float64()
	case schema.UUID:
		n.Type, n.Raw = "uuid", r.Span(16, "uuid")
	case schema.String, schema.Bytes, schema.Records:
		d.lengthPrefixed(n, f, k, nullable, compact)
		return
	case schema.Array:
		d.array(n, f, nullable, compact)
		return
	case schema.Struct:
		n.Type = f.Type
		if nullable {
			marker := r.Int8()
			if !d.check() {
				return
			}
			n.PrefixEnd = r.Off
			if marker != 1 && marker != -1 {
				d.warn(n, n.Start, "", "struct presence byte is "+decimal(int(marker))+", not 1 or -1")
			}
			if marker < 0 {
				n.Null = true
				return
			}
		}
		d.structBody(n, f.Struct)
		d.wroteValue()
		return
	}
	d.check()
	n.PrefixEnd = n.SizeEnd
}

func typeName(k schema.Kind, compact, nullable bool) string {
	s := k.String()
	if nullable {
		s = "nullable_" + s
	}
	if compact {
		s = "compact_" + s
	}
	return s
}

// length reads a length or count prefix, warning on n when a compact one
// is not minimal.
func (d *decoder) length(n *tree.Node, compact bool, k schema.Kind) (int, bool) {
	r := &d.r
	if compact {
		at := r.Off
		u, minimal := r.UvarintMinimal()
		if !d.check() {
			return 0, false
		}
		if !minimal {
			d.warn(n, at, "", nonMinimal(r.Off-at, uint64(u)))
		}
		return int(u) - 1, true
	}
	if k == schema.String {
		return int(r.Int16()), d.check()
	}
	return int(r.Int32()), d.check()
}

// nonMinimal says what a varint of n bytes holding v is.
func nonMinimal(n int, v uint64) string {
	return "non-minimal varint: " + decimal(n) + " bytes for a value that needs " + decimal(wire.UvarintLen(v))
}

func (d *decoder) lengthPrefixed(n *tree.Node, f *schema.Field, k schema.Kind, nullable, compact bool) {
	r := &d.r
	n.Type = typeName(k, compact, nullable)
	pstart := r.Off
	l, ok := d.length(n, compact, k)
	n.PrefixEnd = r.Off
	if !ok {
		return
	}
	switch {
	case l == -1:
		n.Null = true
		if !nullable {
			d.warn(n, n.Start, "", "null where the schema says non-nullable at v"+decimal(int(d.v)))
		}
		return
	case l < -1:
		d.fail(pstart, "a length of -1 or more", decimal(l))
		return
	case l > r.Remaining():
		d.short(pstart, "a length of at most "+decimal(r.Remaining())+" (the bytes left)", decimal(l))
		return
	}
	n.Raw = r.Span(l, k.String())
	if k == schema.String && !utf8.Valid(n.Raw) {
		d.warn(n, n.Start, "", "string is not valid UTF-8")
	}
	if !d.nest {
		return
	}
	switch {
	case k == schema.Records && d.skipRecords:
	case k == schema.Records:
		if d.sink != nil {
			d.sink.records(d, n)
		} else {
			d.records(n)
		}
		d.nestedOver()
	case k == schema.Bytes && len(d.consumer) > 0:
		for _, c := range d.consumer {
			if c.field == f.Name {
				n.End = r.Off
				if d.sink != nil {
					d.sink.consumer(d, n, c.data)
				} else {
					d.nestData(n, c.data)
				}
				d.nestedOver()
				break
			}
		}
	}
}

// nestedOver fails the frame when a nested payload ended past MaxNodes:
// that happens only when the frame's own fields left it no room even for
// the node that keeps its bytes, so the frame's own fields did not fit.
func (d *decoder) nestedOver() {
	if !d.nested && d.b.Nodes > d.b.MaxNodes && d.err == nil {
		d.limitHit = true
		d.failWith(d.r.Off, "at most "+decimal(d.b.MaxNodes)+" nodes (the MaxNodes limit)", "more", wire.ErrLimit)
	}
}

func (d *decoder) array(n *tree.Node, f *schema.Field, nullable, compact bool) {
	r := &d.r
	n.Type = f.Type
	pstart := r.Off
	count, ok := d.length(n, compact, schema.Array)
	n.PrefixEnd = r.Off
	if !ok {
		return
	}
	switch {
	case count == -1:
		n.Null = true
		if !nullable {
			d.warn(n, n.Start, "", "null where the schema says non-nullable at v"+decimal(int(d.v)))
		}
		return
	case count < -1:
		d.fail(pstart, "a count of -1 or more", decimal(count))
		return
	}
	// Each element takes at least one byte (a struct in flexible versions
	// at least its tag count); fixed-size elements more.
	min := max(f.Elem.FixedSize(), 1)
	if count > r.Remaining()/min {
		d.short(pstart, "a count of at most "+decimal(r.Remaining()/min)+" (what the bytes left can hold)", decimal(count))
		return
	}
	if limit := d.nodeLimit(); d.b.Nodes+count > limit {
		d.limitHit = true
		d.failWith(pstart, "at most "+decimal(d.b.MaxNodes)+" nodes (the MaxNodes limit)", decimal(count)+" more elements", wire.ErrLimit)
		return
	}
	if d.sink != nil {
		d.sink.array(d, n, f, count)
		return
	}
	// The count is a claim: memory follows the elements actually read.
	kids := d.s.Kids(smallCap(count))
	for i := 0; i < count; i++ {
		c := d.node()
		c.Role, c.Index = tree.RoleElement, i
		d.start(c)
		d.path = append(d.path, pathSeg{"", i})
		if f.Elem == schema.Struct {
			c.Kind, c.Type = schema.Struct, f.Struct.Name
			d.structBody(c, f.Struct)
			c.End = r.Off
		} else {
			d.value(c, f, f.Elem)
		}
		d.pop()
		kids = append(kids, c)
		if d.err != nil {
			c.Flags |= tree.Broken
			break
		}
	}
	n.Children = kids
}

// nodeLimit is where node counting stops at this level.
func (d *decoder) nodeLimit() int {
	if d.nested {
		return d.b.NestedNodes
	}
	return d.b.MaxNodes
}

// smallCap is the capacity to start a list of a declared count with:
// the count itself only when small, so memory follows what is read.
func smallCap(count int) int { return min(count, 32) }

func (d *decoder) tags(l *schema.Layout) *tree.Node {
	r := &d.r
	t := d.node()
	t.Name, t.Role, t.Type = "_tagged", tree.RoleTags, "tagged_fields"
	d.start(t)
	defer func() { t.End = r.Off }()
	count, ok := d.tagCount(t)
	if !ok {
		return t
	}
	kids := d.s.Kids(smallCap(count))
	last := int64(-1)
	for i := 0; i < count; i++ {
		c := d.node()
		c.Start = r.Off
		f, size, ok := d.tagHeader(c, l, &last)
		kids = append(kids, c)
		if !ok {
			break
		}
		end := r.Off + size
		if f == nil {
			c.Name, c.Role, c.Kind, c.Type = "_unknown", tree.RoleUnknownTag, schema.Bytes, "unknown tag"
			c.Int = int64(c.Tag)
			c.Raw = r.Span(size, "tag")
			c.End = r.Off
			d.unknownTag(c, size)
			continue
		}
		c.Name, c.Role, c.Field = f.Name, tree.RoleField, f
		c.Flags |= tree.Tagged
		d.push(f.JSON)
		full := r.B
		r.B = r.B[:end]
		mark := d.w.Mark()
		d.value(c, f, f.Kind)
		r.B = full
		if d.err != nil {
			d.pop()
			c.Flags |= tree.Broken
			c.End = r.Off
			break
		}
		mark = d.ownEnd(mark)
		if r.Off < end {
			d.warnAt(&mark, c, r.Off, "", decimal(end-r.Off)+" bytes after the value inside the tagged field", false)
			r.Off = end
		}
		c.End = r.Off
		if isDefaultNode(c, f, d.v) {
			d.warnAt(&mark, c, c.Start, "", "tagged field present with its default value (encoders omit it)", false)
		}
		d.pop()
	}
	t.Children = kids
	return t
}

// ownEnd is where warnings learnt after a value was read go: after the
// value's own warnings (listed from mark, with the value's path; a value
// reads its prefixes first), before its children's.
func (d *decoder) ownEnd(mark int) int {
	p := d.pathString()
	for mark < len(d.w.List) && d.w.List[mark].Path == p {
		mark++
	}
	return mark
}

// DecodeBody decodes a request or response body alone (no size prefix, no
// header), as a proxy or broker that has already parsed the header would.
// Its tree spans every byte as Decode's does: bytes after the body, or
// after a failure, are "_undecoded".
func DecodeBody(b []byte, apiKey, version int16, response bool, opts Options) (*Frame, error) {
	f := &Frame{Response: response, APIKey: apiKey, Version: version, Buffers: [][]byte{b}}
	d := newDecoder(f, &opts, len(b), nil)
	d.r.B = b
	d.frameEnd = len(b)
	d.nbufs = 1
	root := d.node()
	root.Name, root.Role, root.Type, root.End = "frame", tree.RoleFrame, "frame", len(b)
	f.Root = root
	kids := d.s.Kids(2)
	if f.API = schema.ByKey(apiKey); f.API == nil {
		d.path = append(d.path[:0], pathSeg{"body", -1})
		d.fail(0, "a known API key", decimal(int(apiKey)))
		d.path = d.path[:0]
	} else {
		f.Message = f.API.Request
		if response {
			f.Message = f.API.Response
		}
		d.path = append(d.path[:0], pathSeg{"body", -1})
		d.pickVersion(0)
		d.path = d.path[:0]
		if f.Message != nil {
			f.HeaderVersion = f.Message.HeaderVersion(f.Layout)
			d.body(&kids)
			if d.err == nil && d.r.Off < len(b) {
				d.fail(d.r.Off, "the end of the body", decimal(len(b)-d.r.Off)+" more bytes")
			}
		}
	}
	d.b.Work += d.r.Off
	return f, d.finish(root, kids, b, len(b))
}

// tagCount reads the count of the tagged-field section t (whose Start is
// set), warning when it is not minimal; false when the bytes fail or
// cannot hold that many fields. Both sinks read a section this way.
func (d *decoder) tagCount(t *tree.Node) (int, bool) {
	r := &d.r
	count, minimal := r.UvarintMinimal()
	if !d.check() {
		return 0, false
	}
	t.PrefixEnd = r.Off
	if !minimal {
		d.warn(t, t.Start, "_tagged", nonMinimal(r.Off-t.Start, uint64(count)))
	}
	if int(count) > r.Remaining()/2 || count > 1<<20 {
		d.failWith(t.Start, "a tagged-field count of at most "+decimal(r.Remaining()/2)+" (what the bytes left can hold)", strconv.FormatUint(uint64(count), 10), shortIf(int(count) > r.Remaining()/2))
		return 0, false
	}
	return int(count), true
}

// tagHeader reads one tagged field's tag and size into c (whose Start is
// set) and finds its field in l at this version (nil: an unknown tag),
// with the warnings both sinks give: a tag or size not minimal, a tag out
// of order (last is the one before, updated). false, with c.End set, when
// the bytes fail or the size passes them.
func (d *decoder) tagHeader(c *tree.Node, l *schema.Layout, last *int64) (*schema.Field, int, bool) {
	r := &d.r
	tag, tagMin := r.UvarintMinimal()
	c.TagEnd = r.Off
	size, sizeMin := r.UvarintMinimal()
	c.SizeEnd, c.PrefixEnd = r.Off, r.Off
	c.Tag = int32(tag)
	if !d.check() {
		c.End = r.Off
		return nil, 0, false
	}
	if int(size) > r.Remaining() || size > 1<<30 {
		d.failWith(c.TagEnd, "a tagged-field size of at most "+decimal(r.Remaining())+" (the bytes left)", strconv.FormatUint(uint64(size), 10), shortIf(int(size) > r.Remaining()))
		c.End = r.Off
		return nil, 0, false
	}
	f := taggedField(l, d.v, tag)
	name := "_unknownTaggedFields"
	if f != nil {
		name = f.JSON
	}
	if !tagMin {
		d.warn(c, c.Start, name, nonMinimal(c.TagEnd-c.Start, uint64(tag))+" (the tag number)")
	}
	if !sizeMin {
		d.warn(c, c.TagEnd, name, nonMinimal(c.SizeEnd-c.TagEnd, uint64(size))+" (the tagged field's size)")
	}
	if int64(tag) <= *last {
		d.warn(c, c.Start, name, "tag "+strconv.FormatUint(uint64(tag), 10)+" is out of order (tags must ascend)")
	}
	*last = int64(tag)
	return f, int(size), true
}

// unknownTag warns of the unknown tag c, whose size bytes are kept.
func (d *decoder) unknownTag(c *tree.Node, size int) {
	d.warn(c, c.Start, "_unknownTaggedFields", "unknown tag "+strconv.FormatUint(uint64(uint32(c.Tag)), 10)+" at v"+decimal(int(d.v))+" ("+decimal(size)+" bytes kept)")
}

// taggedField is the field of l tagged tag at version v, or nil.
func taggedField(l *schema.Layout, v int16, tag uint32) *schema.Field {
	for j := range l.Fields {
		if x := &l.Fields[j]; x.Versions.Contains(v) && x.IsTagged(v) && x.Tag == int32(tag) {
			return x
		}
	}
	return nil
}
