package codec

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/jsontext"
)

// The tree-less path: the same walk over the same layouts as Decode, with
// the same checks, budget and warnings, but a JSON sink instead of a tree
// builder. Nodes are counted as the tree would make them (so limits stop
// both paths at the same byte) but each is a scratch node, reused as soon
// as its value is written. Records go through records.WriteJSON, one
// record at a time. Output is flushed to a writer between array elements
// and records, so a big frame streams.
//
// Two places differ from writing down a tree: tagged fields appear in the
// JSON at their declared place but travel at the end of their struct, so
// their values are written to a scratch buffer as the section is read and
// put in place after it; and in the few layouts that declare a tagged
// field before an untagged one (FetchRequest, Fetch partitions, ...), the
// tag section is located first by skipping over the struct (prescan), and
// those tagged values are decoded where they are declared, their warnings
// moved to the section's place in document order and their nodes spent
// there, where the tree spends them.

// jsonSink is the tree-less walk's side of the places where the walk
// writes JSON rather than nodes. Only the tree-less entry points
// (AppendJSON, WriteJSON) make one, so a build that never calls them (the
// playground's wasm) links none of this file's writers.
type jsonSink interface {
	structBody(d *decoder, l *schema.Layout)
	array(d *decoder, n *tree.Node, f *schema.Field, count int)
	records(d *decoder, n *tree.Node)
	consumer(d *decoder, n *tree.Node, name string)
	end(d *decoder, b []byte, end int) error
}

type fastSink struct{}

func (fastSink) structBody(d *decoder, l *schema.Layout) { d.structJSON(l) }
func (fastSink) array(d *decoder, n *tree.Node, f *schema.Field, count int) {
	d.arrayJSON(n, f, count)
}
func (fastSink) records(d *decoder, n *tree.Node)               { d.recordsJSON(n) }
func (fastSink) consumer(d *decoder, n *tree.Node, name string) { d.nestDataJSON(n, name) }
func (fastSink) end(d *decoder, b []byte, end int) error        { return d.endJSON(b, end) }

// Info is what the tree-less path learnt about a frame besides its JSON.
type Info struct {
	Response      bool
	APIKey        int16
	Version       int16
	API           *schema.API // nil when the API key is unknown
	CorrelationID int32
	Warnings      []Warning // in document order, as Frame.Warnings
	Guess         *Guess    // how a guessed response was read, or nil
	// ErrorCodes are the non-zero codes of Frame.ErrorCodes (failures
	// only), in the order the walk reads them (tagged fields where their
	// section is), so a filter needs no tree.
	ErrorCodes []int16
	// What the frame spent of its budget.
	Nodes, Decompressed, Work int
}

// jsonOut is where the tree-less walk writes: a buffer, flushed to w (when
// set) once it holds flushAt bytes, at a place where that is allowed.
type jsonOut struct {
	b       []byte
	w       io.Writer
	flushed int64
	err     error
	hold    int // > 0 while output goes to a scratch buffer: no flushing
	// tentative holds the output of a reading that may be dropped (a
	// frame tried as a request), until it grows past flushAt: the reading
	// is then committed to, and flushed as usual.
	tentative, committed bool
}

// flushAt is how much output is kept before it is written away: small
// against any frame worth streaming, big enough that a failed frame of
// ordinary size can be written again from its tree instead.
const flushAt = 1 << 20

func (o *jsonOut) flush(force bool) {
	if o.w == nil || o.hold > 0 || o.err != nil || len(o.b) == 0 || !force && len(o.b) < flushAt {
		return
	}
	if o.tentative {
		o.tentative, o.committed = false, true
	}
	_, o.err = o.w.Write(o.b)
	o.flushed += int64(len(o.b))
	o.b = o.b[:0]
}

func (o *jsonOut) pos() int64 { return o.flushed + int64(len(o.b)) }

// fastState is what the tree-less walk keeps and reuses.
type fastState struct {
	pool     []*tree.Node // scratch nodes
	npool    int
	wrote    bool // the value just read was written by its container
	jo       JSONOptions
	headDone bool
	lastDef  bool // the struct just written holds only default values
	inTagged int  // > 0 inside a tagged value: lastDef is wanted
	tags     []*tagFrame
	bufs     [][]byte // scratch output, a stack
	nbuf     int
	out      *jsonOut
	rscratch records.Scratch
	dataSlab tree.Slab // KRaft values are small trees, one at a time
	flushFn  func()
	codes    []int16 // non-zero error codes read
	info     Info    // what readJSON's last reading learnt
}

// tagFrame is one struct level's tagged fields while its section is read.
type tagFrame struct {
	buf        []byte // their values' JSON
	found      []foundTag
	unknown    []unknownTag
	pre        []preTag // with prescanned: the section's tags, first occurrences
	prescanned bool
}

type foundTag struct {
	f          *schema.Field
	start, end int // in buf; -1: written at its declared place already
}

type unknownTag struct {
	tag uint32
	raw []byte
}

// preTag is a tag the prescan found: where its header and value are.
type preTag struct {
	tag                    uint32
	start, tagEnd, sizeEnd int
	end                    int
	done                   bool      // decoded and written at its declared place
	warnings               []Warning // its value's, for the section's place
	nodes                  int       // what its value spent, for the section's place
}

// takeBuf lends a scratch output buffer; giveBuf takes it back (LIFO).
func (s *fastState) takeBuf() []byte {
	if s.nbuf == len(s.bufs) {
		s.bufs = append(s.bufs, nil)
	}
	b := s.bufs[s.nbuf][:0]
	s.nbuf++
	return b
}

func (s *fastState) giveBuf(b []byte) {
	s.nbuf--
	s.bufs[s.nbuf] = b[:0]
}

func (d *decoder) scratchNode() *tree.Node {
	s := d.fast
	if s.npool == len(s.pool) {
		s.pool = append(s.pool, new(tree.Node))
	}
	n := s.pool[s.npool]
	s.npool++
	// Only what the tree-less walk reads without setting first is reset:
	// the walk sets kind, type, spans and names itself, and reads a value
	// (Int, Float, Raw) only after setting it, or after seeing Null false.
	n.Null = false
	if len(n.Warnings) > 0 {
		n.Warnings = n.Warnings[:0]
	}
	return n
}

// noteCode keeps a non-zero error code just read (an int16 field named
// ...ErrorCode, as Frame.ErrorCodes finds them).
func (d *decoder) noteCode(c *tree.Node, f *schema.Field) {
	if c.Kind == schema.Int16 && c.Int != 0 && strings.HasSuffix(f.Name, "ErrorCode") {
		d.fast.codes = append(d.fast.codes, int16(c.Int))
	}
}

// wroteValue says the value just decoded was written by its container.
func (d *decoder) wroteValue() {
	if d.out != nil {
		d.fast.wrote = true
	}
}

// head writes the envelope's opening once the direction, API and version
// are known.
func (d *decoder) head() {
	if d.out == nil || d.fast.headDone {
		return
	}
	d.fast.headDone = true
	d.out.b = d.f.AppendEnvelopeHead(d.out.b)
}

// endJSON closes the envelope: "guess", "warnings" and the brace.
func (d *decoder) endJSON(b []byte, end int) error {
	if d.err == nil && end < len(b) {
		n := d.scratchNode()
		n.Start = end
		d.push("_trailing")
		d.warn(n, end, "", decimal(len(b)-end)+" bytes after the frame's declared size")
		d.pop()
	}
	d.head()
	err := d.result()
	o, ws := d.out, d.w.List
	if err != nil || len(ws) == 0 {
		o.b = appendEnvelopeTail(o.b, d.f.Guess, ws)
	} else {
		// Warnings can be many (MaxNodes bounds them, not the output
		// buffer): they stream like the value before them. (A frame that
		// failed is not flushed here: unless it already was, it is written
		// again by the tree.)
		if g := d.f.Guess; g != nil {
			o.b = appendGuess(append(o.b, `,"guess":`...), g)
		}
		o.b = append(o.b, `,"warnings":[`...)
		for i := range ws {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = appendWarning(o.b, &ws[i])
			o.flush(false)
		}
		o.b = append(o.b, "]}"...)
	}
	d.f.warnings = ws
	return err
}

// key writes a member's key, after a comma unless it is the first.
func (d *decoder) key(first *bool, k string) {
	o := d.out
	if !*first {
		o.b = append(o.b, ',')
	}
	*first = false
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

// unkey drops a key whose value failed before writing anything, when it
// is still in the buffer, so the partial JSON stays valid.
func (d *decoder) unkey(keyAt, valAt int64) {
	o := d.out
	if o.pos() == valAt && keyAt >= o.flushed {
		o.b = o.b[:keyAt-o.flushed]
	}
}

// emit writes the value just decoded into c, unless its container did.
func (d *decoder) emit(c *tree.Node, f *schema.Field) {
	s := d.fast
	if s.wrote {
		s.wrote = false
		return
	}
	o := d.out
	switch c.Kind {
	case schema.Bool:
		o.b = strconv.AppendBool(o.b, c.Int != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		o.b = strconv.AppendInt(o.b, c.Int, 10)
	case schema.Float64:
		o.b = appendFloat(o.b, c.Float)
	case schema.UUID:
		o.b = append(o.b, '"')
		o.b = base64.RawURLEncoding.AppendEncode(o.b, c.Raw)
		o.b = append(o.b, '"')
	case schema.String:
		if c.Null {
			o.b = append(o.b, "null"...)
		} else {
			o.b = jsontext.AppendString(o.b, c.Raw)
		}
	case schema.Bytes, schema.Records:
		if len(c.Raw) > 3<<18 && !(c.Kind == schema.Records && s.jo.Records == records.Size) {
			d.base64Pieces(c.Raw)
			return
		}
		o.b = appendBytesField(o.b, c.Kind, c.Null, c.Raw, s.jo.Records)
	default:
		o.b = append(o.b, "null"...)
	}
}

// base64Pieces writes a big bytes value as base64 in pieces, flushed
// between them (when flushing is allowed), so the output never holds all
// of it.
func (d *decoder) base64Pieces(b []byte) {
	const piece = 3 << 18 // 768 KiB: whole base64 quanta
	o := d.out
	o.b = append(o.b, '"')
	for len(b) > 0 {
		n := min(len(b), piece)
		o.b = base64.StdEncoding.AppendEncode(o.b, b[:n])
		b = b[n:]
		o.flush(false)
	}
	o.b = append(o.b, '"')
}

// appendBytesField writes a bytes or records field that was not decoded
// further: null, its size, or base64.
func appendBytesField(dst []byte, k schema.Kind, null bool, raw []byte, mode records.JSONMode) []byte {
	switch {
	case null:
		return append(dst, "null"...)
	case k == schema.Records && mode == records.Size:
		dst = append(dst, `{"sizeInBytes":`...)
		dst = strconv.AppendInt(dst, int64(len(raw)), 10)
		return append(dst, '}')
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, raw)
	return append(dst, '"')
}

// isDefault is isDefaultNode for the tree-less path: an array's count is in
// its node's Int, a struct's default-ness in lastDef.
func (d *decoder) isDefault(c *tree.Node, f *schema.Field) bool {
	switch c.Kind {
	case schema.Array:
		if nullDefault(f, d.v) {
			return c.Null
		}
		return !c.Null && c.Int == 0
	case schema.Struct:
		if nullDefault(f, d.v) {
			return c.Null
		}
		return !c.Null && d.fast.lastDef
	}
	return isDefaultNode(c, f, d.v)
}

// structJSON writes a struct's fields in their declared order.
func (d *decoder) structJSON(l *schema.Layout) {
	o, s := d.out, d.fast
	o.b = append(o.b, '{')
	first, allDef := true, true
	var tf *tagFrame
	if d.flex && hasTagged(l, d.v) {
		tf = d.tagFrame()
		if needsPrescan(l, d.v) {
			tf.prescanned = d.prescan(l, tf)
		}
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(d.v) {
			continue
		}
		if d.flex && f.IsTagged(d.v) {
			if tf != nil && tf.prescanned {
				d.preTagged(f, tf, &first, &allDef)
			}
			continue
		}
		mark := s.npool
		keyAt := o.pos()
		d.key(&first, f.JSON)
		valAt := o.pos()
		c := d.node()
		c.Name, c.Role, c.Field = f.Name, tree.RoleField, f
		d.start(c)
		d.push(f.JSON)
		d.value(c, f, f.Kind)
		d.pop()
		if d.err != nil {
			s.wrote = false
			d.unkey(keyAt, valAt)
			s.npool = mark
			o.b = append(o.b, '}')
			return
		}
		d.emit(c, f)
		if s.inTagged > 0 {
			allDef = allDef && d.isDefault(c, f)
		}
		d.noteCode(c, f)
		d.noteField(c, f)
		s.npool = mark
	}
	if d.flex {
		d.tagsJSON(l, tf, &first, &allDef)
	}
	o.b = append(o.b, '}')
	s.lastDef = allDef
}

// tagFrame returns the tagged-field state of the current depth, emptied.
func (d *decoder) tagFrame() *tagFrame {
	s := d.fast
	for len(s.tags) <= d.depth {
		s.tags = append(s.tags, new(tagFrame))
	}
	tf := s.tags[d.depth]
	tf.buf, tf.found, tf.unknown, tf.pre, tf.prescanned = tf.buf[:0], tf.found[:0], tf.unknown[:0], tf.pre[:0], false
	return tf
}

// arrayJSON writes the elements of an array whose count was read.
func (d *decoder) arrayJSON(n *tree.Node, f *schema.Field, count int) {
	o, s := d.out, d.fast
	r := &d.r
	n.Int = int64(count)
	o.b = append(o.b, '[')
	if d.numbers(f.Elem, count) {
		o.b = append(o.b, ']')
		s.wrote = true
		return
	}
	for i := 0; i < count; i++ {
		mark := s.npool
		elemAt := o.pos()
		if i > 0 {
			o.b = append(o.b, ',')
		}
		valAt := o.pos()
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
			if d.err == nil {
				d.emit(c, f)
			}
		}
		d.pop()
		s.wrote = false
		s.npool = mark
		if d.err != nil {
			d.unkey(elemAt, valAt)
			break
		}
		o.flush(false)
	}
	o.b = append(o.b, ']')
	s.wrote = true
}

// numbers writes an array of fixed-size numbers in one loop: the count was
// checked against the bytes left, so every element is there, and an
// element makes one node and no warning. False for other element kinds.
func (d *decoder) numbers(k schema.Kind, count int) bool {
	r := &d.r
	b := r.B[r.Off:]
	var size int
	switch k {
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		size = k.FixedSize()
	default:
		return false
	}
	if len(b) < size*count {
		return false // (cannot happen: the walk then reads them one by one)
	}
	d.b.Nodes += count
	o := d.out
	for i := 0; i < count; i++ {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		var v int64
		switch k {
		case schema.Int8:
			v = int64(int8(b[0]))
		case schema.Int16:
			v = int64(int16(binary.BigEndian.Uint16(b)))
		case schema.Uint16:
			v = int64(binary.BigEndian.Uint16(b))
		case schema.Int32:
			v = int64(int32(binary.BigEndian.Uint32(b)))
		case schema.Uint32:
			v = int64(binary.BigEndian.Uint32(b))
		default:
			v = int64(binary.BigEndian.Uint64(b))
		}
		o.b = strconv.AppendInt(o.b, v, 10)
		b = b[size:]
	}
	r.Off += size * count
	return true
}

// tagsJSON reads a tag section and writes the tagged fields not written
// yet (at their declared place, which for the layouts without a prescan is
// after every untagged field), then the unknown tags.
func (d *decoder) tagsJSON(l *schema.Layout, tf *tagFrame, first, allDef *bool) {
	o, s := d.out, d.fast
	r := &d.r
	if tf == nil {
		tf = d.tagFrame()
	}
	t := d.node()
	t.Name, t.Role, t.Type = "_tagged", tree.RoleTags, "tagged_fields"
	d.start(t)
	count, ok := d.tagCount(t)
	if !ok {
		return
	}
	last := int64(-1)
	pi := 0 // the next prescanned tag
	for i := 0; i < count && d.err == nil; i++ {
		mark := s.npool
		var pre *preTag
		if pi < len(tf.pre) && tf.pre[pi].start == r.Off {
			pre = &tf.pre[pi]
			pi++
		}
		c := d.node()
		c.Start = r.Off
		f, size, ok := d.tagHeader(c, l, &last)
		if !ok {
			break
		}
		end := r.Off + size
		if f == nil {
			raw := r.Span(size, "tag")
			d.unknownTag(c, size)
			tf.unknown = append(tf.unknown, unknownTag{uint32(c.Tag), raw})
			s.npool = mark
			continue
		}
		if pre != nil && pre.done {
			// Decoded at its declared place: its nodes are spent here, as
			// the tree spends them, and its warnings go here. Spent in one
			// step when they fit (each of the tree's checks is then
			// passed: its count only grows); else the value is read again
			// here, where it meets the limit at the tree's byte and path.
			if d.b.Nodes+pre.nodes <= d.nodeLimit() {
				d.b.Nodes += pre.nodes
				for _, w := range pre.warnings {
					d.w.Add(w)
				}
				r.Off = end
			} else {
				codes := len(s.codes)
				d.taggedValue(c, f, end, tf, allDef, false)
				s.codes = s.codes[:codes] // noted at the declared place
			}
			if d.err == nil {
				tf.found = append(tf.found, foundTag{f: f, start: -1})
			}
			s.npool = mark
			continue
		}
		firstTime := !tf.has(f)
		at := len(tf.buf)
		d.taggedValue(c, f, end, tf, allDef, firstTime)
		if d.err == nil && firstTime {
			tf.found = append(tf.found, foundTag{f: f, start: at, end: len(tf.buf)})
		}
		s.npool = mark
	}
	if !tf.prescanned {
		for i := range l.Fields {
			f := &l.Fields[i]
			if !f.Versions.Contains(d.v) || !f.IsTagged(d.v) {
				continue
			}
			// A tagged field appears exactly when the bytes carry it.
			if j := tf.index(f); j >= 0 {
				d.key(first, f.JSON)
				o.b = append(o.b, tf.buf[tf.found[j].start:tf.found[j].end]...)
			}
		}
	}
	if len(tf.unknown) > 0 {
		*allDef = false
		if s.jo.Kafka {
			return // Kafka's form has no place for them
		}
		if !*first {
			o.b = append(o.b, ',')
		}
		*first = false
		o.b = append(o.b, `"_unknownTaggedFields":[`...)
		for i, u := range tf.unknown {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			o.b = append(o.b, `{"tag":`...)
			o.b = strconv.AppendInt(o.b, int64(u.tag), 10)
			o.b = append(o.b, `,"data":"`...)
			o.b = base64.StdEncoding.AppendEncode(o.b, u.raw)
			o.b = append(o.b, `"}`...)
		}
		o.b = append(o.b, ']')
	}
}

func (tf *tagFrame) has(f *schema.Field) bool { return tf.index(f) >= 0 }

func (tf *tagFrame) index(f *schema.Field) int {
	for i := range tf.found {
		if tf.found[i].f == f {
			return i
		}
	}
	return -1
}

// taggedValue decodes a known tagged field's value (up to end) into the
// tag frame's buffer, with the warnings tags gives it. Only a field's
// first occurrence is kept (as the tree's JSON writes the first).
func (d *decoder) taggedValue(c *tree.Node, f *schema.Field, end int, tf *tagFrame, allDef *bool, keep bool) {
	o := d.out
	r := &d.r
	c.Name, c.Role, c.Field = f.Name, tree.RoleField, f
	c.Flags |= tree.Tagged
	d.push(f.JSON)
	defer d.pop()
	full, saved := r.B, o.b
	r.B = r.B[:end]
	o.b, o.hold = tf.buf, o.hold+1
	mark := d.w.Mark()
	d.fast.inTagged++
	d.value(c, f, f.Kind)
	d.fast.inTagged--
	r.B = full
	if d.err == nil {
		d.emit(c, f)
		d.noteCode(c, f)
	}
	d.fast.wrote = false
	if keep {
		tf.buf = o.b
	}
	o.b, o.hold = saved, o.hold-1
	if d.err != nil {
		return
	}
	mark = d.ownEnd(mark)
	if r.Off < end {
		d.warnAt(&mark, c, r.Off, "", decimal(end-r.Off)+" bytes after the value inside the tagged field", false)
		r.Off = end
	}
	c.End = r.Off
	def := d.isDefault(c, f)
	if def {
		d.warnAt(&mark, c, c.Start, "", "tagged field present with its default value (encoders omit it)", false)
	}
	if keep {
		*allDef = *allDef && def
	}
}

// preTagged writes a tagged field at its declared place in a prescanned
// struct when the section holds it: its value decoded from there, its
// warnings and what it cost kept aside for the section's place. A field
// the section lacks, or whose value fails (the section, read in order,
// meets the failure where the tree does), is left out.
func (d *decoder) preTagged(f *schema.Field, tf *tagFrame, first, allDef *bool) {
	o := d.out
	r := &d.r
	var p *preTag
	for i := range tf.pre {
		if taggedField2(tf.pre[i].tag, f, d.v) {
			p = &tf.pre[i]
			break
		}
	}
	if p == nil || d.err != nil {
		return // absent, or the walk failed before: not written
	}
	keyAt, wasFirst := len(o.b), *first
	d.key(first, f.JSON)
	mark, pool, codes := d.w.Mark(), d.fast.npool, len(d.fast.codes)
	defer func() { d.fast.npool = pool }()
	// Nothing is spent here: what the value costs (its nodes and its
	// warnings' nodes) is measured, given back, and spent when the walk
	// reaches the section, where the tree spends it. (The tagged fields
	// these layouts declare early hold no records or consumer-protocol
	// bytes, whose own limits would see the early count:
	// TestOutOfOrderTaggedNothingNested.)
	spent := *d.b
	c := d.scratchNode() // the section's walk counts the tag's node
	c.Start, c.TagEnd, c.SizeEnd, c.PrefixEnd = p.start, p.tagEnd, p.sizeEnd, p.sizeEnd
	c.Tag = int32(p.tag)
	off, full := r.Off, r.B
	r.Off = p.sizeEnd
	at := len(tf.buf)
	d.taggedValue(c, f, p.end, tf, allDef, true)
	r.Off, r.B = off, full
	p.nodes = d.b.Nodes - spent.Nodes
	*d.b = spent
	tf.buf = tf.buf[:at+len(tf.buf[at:])]
	if d.err != nil {
		// It fails: but a tag before it in the section may fail first.
		// The section, read in order, meets the failure where the tree
		// does; until then the field is left out.
		d.err, r.Err, d.limitHit = nil, nil, false
		d.w.Truncate(mark)
		d.fast.codes = d.fast.codes[:codes]
		tf.buf = tf.buf[:at]
		o.b, *first = o.b[:keyAt], wasFirst
		return
	}
	o.b = append(o.b, tf.buf[at:]...)
	tf.buf = tf.buf[:at]
	p.warnings = append(p.warnings[:0], d.w.List[mark:]...)
	d.w.Truncate(mark)
	p.done = true
}

func taggedField2(tag uint32, f *schema.Field, v int16) bool {
	return f.IsTagged(v) && f.Tag == int32(tag)
}

// hasTagged reports whether layout l has tagged fields at version v.
func hasTagged(l *schema.Layout, v int16) bool {
	for i := range l.Fields {
		if f := &l.Fields[i]; f.Versions.Contains(v) && f.IsTagged(v) {
			return true
		}
	}
	return false
}

// needsPrescan reports whether l declares, at version v, a tagged field
// before an untagged one: its JSON then needs the tag section first.
func needsPrescan(l *schema.Layout, v int16) bool {
	tagged := false
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) {
			continue
		}
		if f.IsTagged(v) {
			tagged = true
		} else if tagged {
			return true
		}
	}
	return false
}

// prescan skips over the struct at the reader (reading no value, making no
// node or warning) to its tag section and lists the tags there, in tf.pre.
// False when the struct does not read that far: its tagged fields are then
// not written at their declared place (the walk meets the failure itself).
func (d *decoder) prescan(l *schema.Layout, tf *tagFrame) bool {
	r := d.r
	sk := skipper{r: &r, v: d.v, flex: d.flex, depth: d.depth, max: d.lim.MaxDepth}
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(d.v) || f.IsTagged(d.v) {
			continue
		}
		if !sk.value(f, f.Kind) {
			return false
		}
	}
	count := r.Uvarint()
	if r.Err != nil || int(count) > r.Remaining()/2 || count > 1<<20 {
		return false
	}
	pre := tf.pre[:0]
	for i := 0; i < int(count); i++ {
		p := preTag{start: r.Off}
		p.tag = r.Uvarint()
		p.tagEnd = r.Off
		size := r.Uvarint()
		p.sizeEnd = r.Off
		if r.Err != nil || int(size) > r.Remaining() || size > 1<<30 {
			return false
		}
		p.end = r.Off + int(size)
		r.Off = p.end
		pre = append(pre, p)
	}
	// Only a tag's first occurrence is written; drop the others.
	kept := pre[:0]
	for _, p := range pre {
		dup := false
		for _, k := range kept {
			if k.tag == p.tag {
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, p)
		}
	}
	tf.pre = kept
	return true
}

// skipper reads over values without decoding them, with the walk's checks
// (never stricter, so what it refuses the walk refuses too).
type skipper struct {
	r          *wire.Reader
	v          int16
	flex       bool
	depth, max int
}

func (sk *skipper) length(compact bool, k schema.Kind) (int, bool) {
	r := sk.r
	if compact {
		u := r.Uvarint()
		return int(u) - 1, r.Err == nil
	}
	if k == schema.String {
		return int(r.Int16()), r.Err == nil
	}
	return int(r.Int32()), r.Err == nil
}

func (sk *skipper) value(f *schema.Field, k schema.Kind) bool {
	r := sk.r
	compact := f.CompactAt(sk.v, sk.flex)
	if n := k.FixedSize(); n > 0 {
		r.Span(n, "value")
		return r.Err == nil
	}
	switch k {
	case schema.String, schema.Bytes, schema.Records:
		l, ok := sk.length(compact, k)
		if !ok || l < -1 || l > r.Remaining() {
			return false
		}
		if l > 0 {
			r.Off += l
		}
		return true
	case schema.Array:
		count, ok := sk.length(compact, schema.Array)
		if !ok || count < -1 || count > r.Remaining()/max(f.Elem.FixedSize(), 1) {
			return false
		}
		for i := 0; i < count; i++ {
			if f.Elem == schema.Struct {
				if !sk.structBody(f.Struct) {
					return false
				}
			} else if !sk.value(f, f.Elem) {
				return false
			}
		}
		return true
	case schema.Struct:
		if f.Nullable.Contains(sk.v) {
			if r.Int8() < 0 || r.Err != nil {
				return r.Err == nil
			}
		}
		return sk.structBody(f.Struct)
	}
	return false
}

func (sk *skipper) structBody(l *schema.Layout) bool {
	sk.depth++
	defer func() { sk.depth-- }()
	if sk.depth > sk.max {
		return false
	}
	r := sk.r
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(sk.v) || (sk.flex && f.IsTagged(sk.v)) {
			continue
		}
		if !sk.value(f, f.Kind) {
			return false
		}
	}
	if !sk.flex {
		return true
	}
	count := r.Uvarint()
	if r.Err != nil || int(count) > r.Remaining()/2 || count > 1<<20 {
		return false
	}
	for i := 0; i < int(count); i++ {
		r.Uvarint()
		size := r.Uvarint()
		if r.Err != nil || int(size) > r.Remaining() || size > 1<<30 {
			return false
		}
		r.Off += int(size)
	}
	return true
}

// recordsJSON writes a records field's batches, decoding them record by
// record with records.WriteJSON, or leaves it to emit (base64 or size).
func (d *decoder) recordsJSON(n *tree.Node) {
	s := d.fast
	if n.Null || d.r.Off <= n.PrefixEnd {
		return
	}
	size := d.r.Off - n.PrefixEnd
	if !d.b.WorkLeft(size) {
		d.warnAt(nil, n, n.Start, "", "records not decoded: the MaxWork limit ("+decimal(d.b.MaxWork)+" bytes) is reached", true)
		return
	}
	d.reserveNested()
	path := d.pathString()
	ro := records.Options{MaxDepth: d.lim.MaxRecordNesting, Budget: d.b, Warnings: d.w, Path: path, Data: d.dataHook, Payload: d.payload, Topic: d.topic, Scratch: &s.rscratch,
		Start: n.PrefixEnd, Buffer: d.buf, Base: d.nbufs}
	nb, err := records.WriteJSON(&d.out.b, d.r.B[:d.r.Off], ro, s.flushFn)
	d.nbufs += nb
	s.wrote = true
	if err != nil && d.nestErr == nil {
		var we *wire.Error
		if errors.As(err, &we) {
			d.nestErr = wireDecodeError(we, n.Buf, path)
		} else {
			d.nestErr = newDecodeError(n.PrefixEnd, n.Buf, path, "a record batch or message set", err.Error(), err)
		}
	}
}

// nestDataJSON is nestData writing {"version":N,...} (or leaving the bytes
// to emit when they are not the data message).
func (d *decoder) nestDataJSON(n *tree.Node, name string) {
	if n.Null || (d.pt.known && d.pt.name != "consumer") || len(n.Raw) < 2 {
		return
	}
	o := d.out
	buf, at, end := d.r.B, n.PrefixEnd, d.r.Off
	if !d.b.WorkLeft(end - at) {
		d.warnAt(nil, n, n.Start, "", "not decoded as "+name+": the MaxWork limit ("+decimal(d.b.MaxWork)+" bytes) is reached; kept as bytes", true)
		return
	}
	d.reserveNested()
	version := int16(uint16(buf[at])<<8 | uint16(buf[at+1]))
	mark := d.w.Mark()
	vn := d.nestedNode()
	saved := o.b
	o.b, o.hold = d.fast.takeBuf(), o.hold+1
	var err *DecodeError
	if vn != nil {
		_, err = d.dataMessage(name, version, buf, d.buf, at+2, end)
	}
	inner := o.b
	o.b, o.hold = saved, o.hold-1
	defer d.fast.giveBuf(inner)
	d.fast.wrote = false
	if err != nil || vn == nil {
		d.w.Truncate(mark)
		switch {
		case d.limitHit || vn == nil:
			d.limitHit = false
			d.warnAt(nil, n, n.Start, "", "not decoded as "+name+": the MaxNodes limit ("+decimal(d.b.MaxNodes)+" nodes) is reached; kept as bytes", true)
		case d.pt.known:
			msg := "not a valid " + name
			if err != nil {
				msg += ": " + err.Error()
			}
			d.warn(n, n.Start, "", msg+"; kept as bytes")
		}
		return
	}
	o.b = append(o.b, `{"version":`...)
	o.b = strconv.AppendInt(o.b, int64(version), 10)
	if len(inner) > 2 {
		o.b = append(o.b, ',')
		o.b = append(o.b, inner[1:len(inner)-1]...)
	}
	o.b = append(o.b, '}')
	d.fast.wrote = true
}

// AppendJSON appends the value JSON of frame b to dst, byte for byte what
// Decode(b, o) and then Frame.AppendJSON(dst, jo) would give, without
// building a tree: one pass from the bytes to JSON, records and nested
// payloads included, the same limits (the tree's nodes are counted, not
// made), the warnings collected in Info. With o.Auto, or a response whose
// APIKey or Version is Any, the frame is read (and guessed) as Decode
// reads it. jo.Records set to base64 or size leaves records undecoded.
//
// A frame that fails is written by the tree, whose partial JSON is the
// reference. Info (its Warnings) is valid until the decoder's next call.
func (dec *Decoder) AppendJSON(dst, b []byte, o Options, jo JSONOptions) ([]byte, Info, error) {
	dec.out = jsonOut{b: dst}
	info, err := dec.json(b, o, jo, &dec.out)
	dst = dec.out.b
	dec.out = jsonOut{}
	return dst, info, err
}

// WriteJSON writes what AppendJSON would append to w, streaming: output is
// written away as it grows past 1 MiB, between array elements and records,
// so a frame of any size costs little more than its own bytes. A frame
// that fails before any output was written away is written by the tree,
// as AppendJSON does; one that fails later ends with valid JSON that
// stops where the failure is.
func (dec *Decoder) WriteJSON(w io.Writer, b []byte, o Options, jo JSONOptions) (Info, error) {
	dec.out = jsonOut{b: dec.out.b[:0], w: w}
	info, err := dec.json(b, o, jo, &dec.out)
	dec.out.flush(true)
	if werr := dec.out.err; werr != nil && err == nil {
		err = werr
	}
	dec.out = jsonOut{b: dec.out.b[:0]}
	return info, err
}

// json writes frame b's value JSON to out; a failed frame is written by
// the tree when none of its output has been written away yet.
func (dec *Decoder) json(b []byte, o Options, jo JSONOptions, out *jsonOut) (Info, error) {
	if jo.Kafka {
		// Every bytes field as base64: nothing nested is decoded.
		o.RawRecords, jo.Records = true, records.Base64
	}
	o.skipRecords = jo.Records != records.Decoded
	start := len(out.b)
	info, err := dec.readJSON(b, o, jo, out)
	if err != nil && out.flushed == 0 && out.err == nil {
		out.b = out.b[:start]
		f, ferr := dec.Decode(b, o)
		out.b = f.AppendJSON(out.b, jo)
		return f.info(), ferr
	}
	return info, err
}

// info is what a decoded frame tells about itself.
func (f *Frame) info() Info {
	var codes []int16
	for _, c := range f.ErrorCodes() {
		if c.Code != 0 {
			codes = append(codes, c.Code)
		}
	}
	return Info{Response: f.Response, APIKey: f.APIKey, Version: f.Version, API: f.API, CorrelationID: f.CorrelationID, Warnings: f.warnings, Guess: f.Guess, ErrorCodes: codes}
}

// readJSON is Decode's reading of a frame for the tree-less path, read
// writing JSON to out when there is something to guess.
func (dec *Decoder) readJSON(b []byte, o Options, jo JSONOptions, out *jsonOut) (Info, error) {
	o.Limits = o.Limits.Resolve(len(b))
	dec.budget = o.Limits.budgetValue()
	if !o.guessing() {
		return dec.walk(b, o, jo, &dec.budget, out, nil)
	}
	s := &dec.fast
	s.jo, s.out = jo, out
	err := dec.read(b, o, &dec.budget, readFast)
	info := s.info
	s.info = Info{}
	return info, err
}

// readFast is the tree-less path's readFn: a reading written to
// dec.fast.out with dec.fast.jo, what it learnt left in dec.fast.info.
func readFast(dec *Decoder, b []byte, o Options, budget *wire.Budget, g *Guess, what readFor) (bool, error) {
	s := &dec.fast
	out := s.out
	switch what {
	case readFailed:
		// Nothing is written: json writes a failed frame by the tree.
		s.info = Info{Response: o.Response, APIKey: o.APIKey, Version: o.Version, Guess: g}
		return false, nil
	case readRequest:
		// The request's output is held until it is big: a frame whose
		// request reading writes that much and then fails is a broken
		// request, not a response to guess.
		at := len(out.b)
		out.tentative = true
		info, err := dec.walk(b, o, s.jo, budget, out, g)
		committed := out.committed
		out.tentative, out.committed = false, false
		if err == nil || committed {
			s.info = info
			return true, err
		}
		out.b = out.b[:at]
		return false, err
	}
	var err error
	s.info, err = dec.walk(b, o, s.jo, budget, out, g)
	return err == nil, err
}

// walk runs the tree-less walk over frame b, writing to out.
func (dec *Decoder) walk(b []byte, o Options, jo JSONOptions, budget *wire.Budget, out *jsonOut, g *Guess) (Info, error) {
	d, err := dec.walkWith(b, o, jo, budget, out, g)
	info := Info{Response: d.f.Response, APIKey: d.f.APIKey, Version: d.f.Version, API: d.f.API, CorrelationID: d.f.CorrelationID, Warnings: d.f.warnings, Guess: d.f.Guess, ErrorCodes: d.fast.codes}
	info.Nodes, info.Decompressed, info.Work = budget.Nodes, budget.Decompressed, budget.Work
	return info, err
}

// walkWith runs the walk, the guess (when any) set on the frame first,
// and returns the decoder for what it learnt.
func (dec *Decoder) walkWith(b []byte, o Options, jo JSONOptions, budget *wire.Budget, out *jsonOut, g *Guess) (*decoder, error) {
	f := &dec.jf
	slab := f.slab
	slab.Reset()
	ws := f.warnings
	clear(ws)
	*f = Frame{slab: slab, Buffers: f.Buffers[:0], warnings: ws[:0], Guess: g}
	d := &dec.jd
	d.init(f, &o, len(b), budget)
	s := &dec.fast
	s.npool, s.nbuf, s.wrote, s.headDone, s.lastDef, s.inTagged = 0, 0, false, false, false, 0
	s.codes = s.codes[:0]
	s.jo, s.out = jo, out
	if s.flushFn == nil {
		s.flushFn = func() { s.out.flush(false) }
	}
	d.out, d.fast, d.sink = out, s, fastSink{}
	err := d.frame(b, &o)
	return d, err
}
