// Package codec decodes Kafka frames into spanned trees and value JSON, and
// encodes value JSON back into frames, for every API and version Kafka's
// message schemas define. It does no I/O and keeps no global mutable state.
package codec

import (
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// Default limits against hostile input.
const (
	DefaultMaxDepth = 32
	DefaultMaxNodes = 1 << 22
)

// Options say how to read a frame.
type Options struct {
	// Response selects response decoding; APIKey and Version must then be
	// given, since a response header does not carry them.
	Response bool
	APIKey   int16
	Version  int16
	// NoSizePrefix says the frame starts at the header, without the 4-byte size.
	NoSizePrefix bool
	// MaxDepth bounds struct nesting; MaxNodes the number of tree nodes.
	// Zero means the defaults.
	MaxDepth int
	MaxNodes int
	// RawRecords leaves records fields as bytes instead of decoding their
	// batches, and consumer-protocol bytes undecoded.
	RawRecords bool
	// MaxDecompressed bounds the bytes decompression may produce for one
	// frame (default 64 MiB); MaxRecordNesting the depth of compressed
	// message-set wrappers inside wrappers (default 4).
	MaxDecompressed  int
	MaxRecordNesting int
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

	slab    tree.Slab
	records map[*tree.Node]*records.Result // decoded records fields
	data    map[*tree.Node]dataView        // bytes fields decoded as data messages
}

// Records returns the decoded content of a records field node, or nil.
func (f *Frame) Records(n *tree.Node) *records.Result { return f.records[n] }

// Slab is the frame's node allocator, for hooks that add nodes.
func (f *Frame) Slab() *tree.Slab { return &f.slab }

type pathSeg struct {
	name string
	idx  int
}

type decoder struct {
	r        wire.Reader
	f        *Frame
	s        *tree.Slab
	v        int16
	flex     bool
	path     []pathSeg
	depth    int
	maxDepth int
	nodes    int
	maxNodes int
	err      *DecodeError
	nest     bool
	buf      int // the buffer nodes point into
	hooked   []opaqueField
}

func (d *decoder) pathString() string {
	var b []byte
	for i, p := range d.path {
		if p.idx >= 0 {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(p.idx), 10)
			b = append(b, ']')
			continue
		}
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, p.name...)
	}
	return string(b)
}

func (d *decoder) fail(off int, expected, found string) {
	if d.err == nil {
		d.err = &DecodeError{Offset: off, Path: d.pathString(), Expected: expected, Found: found}
	}
}

// check turns a reader failure into a DecodeError at the current path.
func (d *decoder) check() bool {
	if d.err != nil {
		return false
	}
	if e := d.r.Err; e != nil {
		d.fail(e.Offset, e.Expected, e.Found)
		return false
	}
	return true
}

func (d *decoder) node() *tree.Node {
	d.nodes++
	if d.nodes > d.maxNodes && d.err == nil {
		d.fail(d.r.Off, "at most "+strconv.Itoa(d.maxNodes)+" nodes (the MaxNodes limit)", "more")
	}
	n := d.s.New()
	n.Buf = d.buf
	return n
}

// Decode decodes one frame. On malformed input it returns the partial frame
// (its Root covers the input) and a *DecodeError. Warnings for lenient
// readings are attached to the nodes they concern.
func Decode(b []byte, opts Options) (*Frame, error) {
	return decodeInto(&Frame{}, b, opts)
}

// A Decoder decodes frames reusing its memory from one frame to the next,
// for callers that decode many: each Decode invalidates the Frame (and
// every node of it) that the previous call returned.
type Decoder struct {
	f Frame
}

// Decode is Decode reusing the decoder's memory.
func (dec *Decoder) Decode(b []byte, opts Options) (*Frame, error) {
	slab := dec.f.slab
	slab.Reset()
	bufs := dec.f.Buffers[:0]
	dec.f = Frame{slab: slab, Buffers: bufs}
	return decodeInto(&dec.f, b, opts)
}

func decodeInto(f *Frame, b []byte, opts Options) (*Frame, error) {
	f.Response = opts.Response
	f.Buffers = append(f.Buffers[:0], b)
	d := newDecoder(f, &opts)
	d.r.B = b
	root := d.node()
	root.Name, root.Role, root.Type = "frame", tree.RoleFrame, "frame"
	root.End = len(b)
	f.Root = root
	kids := d.s.Kids(4)
	end := len(b)

	if !opts.NoSizePrefix {
		n := d.node()
		n.Name, n.Role, n.Kind, n.Type = "size", tree.RoleSize, schema.Int32, "int32"
		d.path = append(d.path, pathSeg{"size", -1})
		size := d.r.Int32()
		d.check()
		d.path = d.path[:0]
		n.Int, n.End = int64(size), d.r.Off
		kids = append(kids, n)
		switch {
		case d.err != nil:
		case size < 0:
			d.fail(0, "a non-negative frame size", strconv.Itoa(int(size)))
		case int(size) > len(b)-4:
			n.Warn("the size says " + strconv.Itoa(int(size)) + " bytes follow; " + strconv.Itoa(len(b)-4) + " do")
			n.Flags |= tree.Truncated
		default:
			end = 4 + int(size)
		}
	}
	if d.err == nil {
		d.r.B = b[:end]
		if opts.Response {
			d.response(opts, &kids)
		} else {
			d.request(&kids)
		}
		d.r.B = b
		if d.err == nil && d.r.Off < end {
			d.fail(d.r.Off, "the end of the message", strconv.Itoa(end-d.r.Off)+" more bytes inside the frame")
		}
	}
	if d.err != nil && d.r.Off < len(b) {
		// What could not be read stays visible as raw bytes.
		n := d.node()
		n.Name, n.Role, n.Kind, n.Type = "_undecoded", tree.RoleRaw, schema.Bytes, "bytes"
		n.Start, n.End = d.r.Off, len(b)
		if d.err.Offset > n.Start && d.err.Offset <= len(b) {
			n.Start = d.err.Offset
		}
		n.PrefixEnd, n.SizeEnd, n.TagEnd = n.Start, n.Start, n.Start
		n.Raw = b[n.Start:]
		if n.Start < n.End {
			kids = append(kids, n)
		}
	} else if d.err == nil && end < len(b) {
		n := d.node()
		n.Name, n.Role, n.Kind, n.Type = "_trailing", tree.RoleTrailing, schema.Bytes, "bytes"
		n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd, n.End = end, end, end, end, len(b)
		n.Raw = b[end:]
		n.Warn(strconv.Itoa(len(b)-end) + " bytes after the frame's declared size")
		kids = append(kids, n)
	}
	root.Children = kids
	if d.err != nil {
		return f, d.err
	}
	if d.nest {
		if err := d.nestOpaque(&opts); err != nil {
			return f, err
		}
	}
	return f, nil
}

func newDecoder(f *Frame, o *Options) *decoder {
	d := &decoder{f: f, s: &f.slab, maxDepth: o.MaxDepth, maxNodes: o.MaxNodes, nest: !o.RawRecords}
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth
	}
	if d.maxNodes <= 0 {
		d.maxNodes = DefaultMaxNodes
	}
	if o.MaxDecompressed <= 0 {
		o.MaxDecompressed = 64 << 20
	}
	return d
}

func (d *decoder) request(kids *[]*tree.Node) {
	f := d.f
	start := d.r.Off
	if d.r.Remaining() < 4 {
		d.fail(start, "a request header (api key and version)", strconv.Itoa(d.r.Remaining())+" bytes")
		return
	}
	f.APIKey = int16(uint16(d.r.B[start])<<8 | uint16(d.r.B[start+1]))
	f.Version = int16(uint16(d.r.B[start+2])<<8 | uint16(d.r.B[start+3]))
	f.API = schema.ByKey(f.APIKey)
	hdr := schema.RequestHeader()
	hv := int16(1)
	if f.API != nil {
		f.Message = f.API.Request
		d.pickVersion()
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
		d.fail(start, "a known API key (0-"+strconv.Itoa(int(schema.APIs()[len(schema.APIs())-1].Key))+")", strconv.Itoa(int(f.APIKey)))
		return
	}
	if f.Message == nil {
		return
	}
	if h := f.Header.Child("CorrelationId"); h != nil {
		f.CorrelationID = int32(h.Int)
	}
	d.body(kids)
}

func (d *decoder) response(opts Options, kids *[]*tree.Node) {
	f := d.f
	f.APIKey, f.Version = opts.APIKey, opts.Version
	f.API = schema.ByKey(f.APIKey)
	if f.API == nil {
		d.fail(d.r.Off, "a known API key as the hint for a response", strconv.Itoa(int(f.APIKey)))
		return
	}
	f.Message = f.API.Response
	d.pickVersion()
	if f.Message == nil {
		return
	}
	f.HeaderVersion = f.Message.HeaderVersion(f.Layout)
	d.header(schema.ResponseHeader(), f.HeaderVersion, kids)
	if d.err != nil {
		return
	}
	if h := f.Header.Child("CorrelationId"); h != nil {
		f.CorrelationID = int32(h.Int)
	}
	d.body(kids)
}

// pickVersion chooses the layout for f.Version, assuming the newest for
// versions beyond it.
func (d *decoder) pickVersion() {
	f := d.f
	m := f.Message
	f.Layout = f.Version
	switch {
	case f.Version > m.Valid.Hi:
		f.Layout, f.Assumed = m.Valid.Hi, true
	case f.Version < m.Valid.Lo:
		d.fail(d.r.Off+2, m.Name+" version "+m.Valid.String(), "version "+strconv.Itoa(int(f.Version)))
		f.Message = nil
		return
	}
	f.Flexible = m.Flexible(f.Layout)
}

func (d *decoder) header(hdr *schema.Message, hv int16, kids *[]*tree.Node) {
	n := d.node()
	n.Name, n.Role, n.Kind, n.Type = "header", tree.RoleHeader, schema.Struct, hdr.Name+" v"+strconv.Itoa(int(hv))
	d.f.Header = n
	*kids = append(*kids, n)
	d.v, d.flex = hv, hdr.Flexible(hv)
	d.path = append(d.path[:0], pathSeg{"header", -1})
	d.start(n)
	d.structBody(n, hdr.At(hv).Root)
	n.End = d.r.Off
	d.path = d.path[:0]
}

func (d *decoder) body(kids *[]*tree.Node) {
	f := d.f
	m := f.Message
	n := d.node()
	n.Name, n.Role, n.Kind = "body", tree.RoleBody, schema.Struct
	n.Type = m.Name + " v" + strconv.Itoa(int(f.Version))
	f.Body = n
	*kids = append(*kids, n)
	if f.Assumed {
		n.Flags |= tree.Assumed
		n.Warn("version " + strconv.Itoa(int(f.Version)) + " is newer than any known; decoded with the v" + strconv.Itoa(int(f.Layout)) + " layout")
	}
	d.v, d.flex = f.Layout, f.Flexible
	d.path = append(d.path[:0], pathSeg{"body", -1})
	d.start(n)
	d.structBody(n, m.At(f.Layout).Root)
	n.End = d.r.Off
	d.path = d.path[:0]
}

func (d *decoder) start(n *tree.Node) {
	n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd = d.r.Off, d.r.Off, d.r.Off, d.r.Off
}

func (d *decoder) structBody(n *tree.Node, l *schema.Layout) {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > d.maxDepth {
		d.fail(d.r.Off, "nesting of at most "+strconv.Itoa(d.maxDepth)+" (the MaxDepth limit)", "deeper")
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
		d.path = append(d.path, pathSeg{f.JSON, -1})
		d.value(c, f, f.Kind)
		d.path = d.path[:len(d.path)-1]
		kids = append(kids, c)
		if d.err != nil {
			c.Flags |= tree.Broken
			n.Flags |= tree.Broken
			n.Children = kids
			return
		}
	}
	if d.flex {
		kids = append(kids, d.tags(l))
	}
	n.Children = kids
}

// value decodes one value of kind k for field f into n, whose Start (and,
// for tagged fields, TagEnd and SizeEnd) the caller has set.
func (d *decoder) value(n *tree.Node, f *schema.Field, k schema.Kind) {
	r := &d.r
	n.Kind = k
	defer func() { n.End = r.Off }()
	nullable := f.Nullable.Contains(d.v)
	compact := d.flex && (!f.FlexSet || f.Flexible.Contains(d.v))
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
			n.Warn("bool byte is " + strconv.Itoa(int(b)) + ", read as true")
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
				n.Warn("struct presence byte is " + strconv.Itoa(int(marker)) + ", not 1 or -1")
			}
			if marker < 0 {
				n.Null = true
				return
			}
		}
		d.structBody(n, f.Struct)
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

func (d *decoder) length(compact bool, k schema.Kind) (int, bool) {
	r := &d.r
	if compact {
		u := r.Uvarint()
		if !d.check() {
			return 0, false
		}
		return int(u) - 1, true
	}
	if k == schema.String {
		return int(r.Int16()), d.check()
	}
	return int(r.Int32()), d.check()
}

func (d *decoder) lengthPrefixed(n *tree.Node, f *schema.Field, k schema.Kind, nullable, compact bool) {
	r := &d.r
	n.Type = typeName(k, compact, nullable)
	pstart := r.Off
	l, ok := d.length(compact, k)
	n.PrefixEnd = r.Off
	if !ok {
		return
	}
	switch {
	case l == -1:
		n.Null = true
		if !nullable {
			n.Warn("null where the schema says non-nullable at v" + strconv.Itoa(int(d.v)))
		}
		return
	case l < -1:
		d.fail(pstart, "a length of -1 or more", strconv.Itoa(l))
		return
	case l > r.Remaining():
		d.fail(pstart, "a length of at most "+strconv.Itoa(r.Remaining())+" (the bytes left)", strconv.Itoa(l))
		return
	}
	n.Raw = r.Span(l, k.String())
	if k == schema.String && !utf8.Valid(n.Raw) {
		n.Warn("string is not valid UTF-8")
	}
	if k == schema.Records && d.nest {
		d.hooked = append(d.hooked, opaqueField{n, d.pathString()})
	}
}

func (d *decoder) array(n *tree.Node, f *schema.Field, nullable, compact bool) {
	r := &d.r
	n.Type = f.Type
	pstart := r.Off
	count, ok := d.length(compact, schema.Array)
	n.PrefixEnd = r.Off
	if !ok {
		return
	}
	switch {
	case count == -1:
		n.Null = true
		if !nullable {
			n.Warn("null where the schema says non-nullable at v" + strconv.Itoa(int(d.v)))
		}
		return
	case count < -1:
		d.fail(pstart, "a count of -1 or more", strconv.Itoa(count))
		return
	}
	// Each element takes at least one byte (a struct in flexible versions
	// at least its tag count); fixed-size elements more.
	min := max(f.Elem.FixedSize(), 1)
	if count > r.Remaining()/min {
		d.fail(pstart, "a count of at most "+strconv.Itoa(r.Remaining()/min)+" (what the bytes left can hold)", strconv.Itoa(count))
		return
	}
	if d.nodes+count > d.maxNodes {
		d.fail(pstart, "at most "+strconv.Itoa(d.maxNodes)+" nodes (the MaxNodes limit)", strconv.Itoa(count)+" more elements")
		return
	}
	kids := d.s.Kids(count)
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
		d.path = d.path[:len(d.path)-1]
		kids = append(kids, c)
		if d.err != nil {
			c.Flags |= tree.Broken
			break
		}
	}
	n.Children = kids
}

func (d *decoder) tags(l *schema.Layout) *tree.Node {
	r := &d.r
	t := d.node()
	t.Name, t.Role, t.Type = "_tagged", tree.RoleTags, "tagged_fields"
	d.start(t)
	defer func() { t.End = r.Off }()
	count := r.Uvarint()
	if !d.check() {
		return t
	}
	t.PrefixEnd = r.Off
	if int(count) > r.Remaining()/2 || count > 1<<20 {
		d.fail(t.Start, "a tagged-field count of at most "+strconv.Itoa(r.Remaining()/2)+" (what the bytes left can hold)", strconv.FormatUint(uint64(count), 10))
		return t
	}
	kids := d.s.Kids(int(count))
	last := int64(-1)
	for i := 0; i < int(count); i++ {
		c := d.node()
		c.Start = r.Off
		tag := r.Uvarint()
		c.TagEnd = r.Off
		size := r.Uvarint()
		c.SizeEnd, c.PrefixEnd = r.Off, r.Off
		c.Tag = int32(tag)
		kids = append(kids, c)
		if !d.check() {
			c.End = r.Off
			break
		}
		if int(size) > r.Remaining() || size > 1<<30 {
			d.fail(c.TagEnd, "a tagged-field size of at most "+strconv.Itoa(r.Remaining())+" (the bytes left)", strconv.FormatUint(uint64(size), 10))
			c.End = r.Off
			break
		}
		end := r.Off + int(size)
		var f *schema.Field
		for j := range l.Fields {
			if x := &l.Fields[j]; x.Versions.Contains(d.v) && x.IsTagged(d.v) && x.Tag == int32(tag) {
				f = x
				break
			}
		}
		if int64(tag) <= last {
			c.Warn("tag " + strconv.FormatUint(uint64(tag), 10) + " is out of order (tags must ascend)")
		}
		last = int64(tag)
		if f == nil {
			c.Name, c.Role, c.Kind, c.Type = "_unknown", tree.RoleUnknownTag, schema.Bytes, "unknown tag"
			c.Int = int64(tag)
			c.Raw = r.Span(int(size), "tag")
			c.End = r.Off
			c.Warn("unknown tag " + strconv.FormatUint(uint64(tag), 10) + " at v" + strconv.Itoa(int(d.v)) + " (" + strconv.Itoa(int(size)) + " bytes kept)")
			continue
		}
		c.Name, c.Role, c.Field = f.Name, tree.RoleField, f
		c.Flags |= tree.Tagged
		d.path = append(d.path, pathSeg{f.JSON, -1})
		full := r.B
		r.B = r.B[:end]
		d.value(c, f, f.Kind)
		r.B = full
		d.path = d.path[:len(d.path)-1]
		if d.err != nil {
			c.Flags |= tree.Broken
			c.End = r.Off
			break
		}
		if r.Off < end {
			c.Warn(strconv.Itoa(end-r.Off) + " bytes after the value inside the tagged field")
			r.Off = end
		}
		c.End = r.Off
		if isDefaultNode(c, f, d.v) {
			c.Warn("tagged field present with its default value (encoders omit it)")
		}
	}
	t.Children = kids
	return t
}

// DecodeBody decodes a request or response body alone (no size prefix, no
// header), as a proxy or broker that has already parsed the header would.
func DecodeBody(b []byte, apiKey, version int16, response bool, opts Options) (*Frame, error) {
	f := &Frame{Response: response, APIKey: apiKey, Version: version, Buffers: [][]byte{b}}
	d := newDecoder(f, &opts)
	d.r.B = b
	root := d.node()
	root.Name, root.Role, root.Type, root.End = "frame", tree.RoleFrame, "frame", len(b)
	f.Root = root
	kids := d.s.Kids(2)
	if f.API = schema.ByKey(apiKey); f.API == nil {
		return f, &DecodeError{Path: "body", Expected: "a known API key", Found: strconv.Itoa(int(apiKey))}
	}
	f.Message = f.API.Request
	if response {
		f.Message = f.API.Response
	}
	d.pickVersion()
	if f.Message != nil {
		f.HeaderVersion = f.Message.HeaderVersion(f.Layout)
		d.body(&kids)
		if d.err == nil && d.r.Off < len(b) {
			d.fail(d.r.Off, "the end of the body", strconv.Itoa(len(b)-d.r.Off)+" more bytes")
		}
	}
	root.Children = kids
	if d.err != nil {
		return f, d.err
	}
	if d.nest {
		if err := d.nestOpaque(&opts); err != nil {
			return f, err
		}
	}
	return f, nil
}
