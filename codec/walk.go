package codec

import (
	"encoding/binary"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/read"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// The walk: one interpreter over the schema layouts that reads a frame's
// bytes and hands every structural step to a sink, which only keeps
// (treeSink) or writes down (jsonSink) what it is given.

// pathSeg is one step of a field path: ".name", "[idx]" when idx >= 0, or
// a whole path that replaces what came before it: name (absPath) or, asked
// for only when a path is named, w.lazy's (lazyPath: the records reader's
// place of a key or value).
type pathSeg struct {
	name string
	idx  int
}

const (
	absPath  = -2
	lazyPath = -3
)

// walker is the state of one walk. A Decoder keeps two (one per sink
// kind), so a frame costs no allocation of it.
type walker struct {
	r     read.Reader
	f     *Frame
	s     sink
	v     int16 // the layout's version
	flex  bool
	path  []pathSeg
	depth int
	lim   Limits
	b     *budget.Budget
	own   budget.Budget // b points here when the frame has a budget of its own
	w     budget.Warnings
	err   *DecodeError
	// nestErr is the first error inside a nested payload: the frame goes
	// on and returns it at the end unless its own fields fail.
	nestErr *DecodeError
	// From Options: nest decodes records and consumer-protocol bytes, but
	// records fields when skipRecords; see also sizeFirst, Payload,
	// InternalTopicsAsBytes (topicsRaw) and Int64Strings (int64s).
	nest, skipRecords, sizeFirst bool
	payload                      rec.PayloadFunc
	topicsRaw, int64s            bool
	// buf is the buffer nodes point into; nbufs the buffers numbered so
	// far, the input and the derived ones.
	buf, nbufs int
	// nested is set while decoding a nested payload: nodes then stop at
	// the budget's NestedNodes, and limitHit says a limit ended it.
	nested, limitHit bool
	frameEnd         int // where the frame's own bytes end, for the nested reserve
	consumer         []consumerField
	pt               protocolType
	topic            string     // the last topic name read, which the records fields after it belong to
	topics           *topicWalk // the names of topic ids, internal topics' records (walk_topics.go)
	inHeader         bool
	lazy             func() string // the path of a lazyPath segment
	// dry is set while the walk reads ahead to find a tag section
	// (prescan): nothing nested is decoded and nothing read early. The
	// default-ness of values (lastDef) is wanted inside inTagged of them.
	dry, lastDef bool
	inTagged     int
	pre          [][]preTag // the prescanned tag sections, by depth
	null         nullSink   // what the walk reading ahead writes to
	// quiet walks keep no warnings (only their cost): the walk again of a
	// frame whose warnings are known (Frame.AppendJSON). guessing walks (a
	// guess's readings) keep a node's warnings, which weigh its reading,
	// but list none (a flood of them would cost a path each in every
	// reading tried), and count them in warned.
	quiet, guessing bool
	warned          int
	codes           []ErrorCode // the non-zero error codes read, when wantCodes
	wantCodes       bool
	pathText        budget.PathText // pathWith's buffer and the path it made last
	// inflations keeps the outcome of each decompression (a tree's walk)
	// or reads them back (the walk again of the same frame).
	inflations *rec.Inflations
	spare      []byte // the records' decompression buffer when no frame holds it
	// deep is set once the walk reads a nested payload or a tagged value
	// early: then a tree's JSON is its walk again, not its replay.
	deep bool
	// preL and preV are the layout and version needsPrescan answered
	// preNeed for last: an array's elements ask it again and again.
	preL    *schema.Layout
	preV    int16
	preNeed bool
	types   [8]msgType // the display types of messages read last
	names   [8]string  // the topic names read last (topicName)
	recPath int        // how much of path is the records field's being read
	// bound is the walk's hooks for the records reader, made once: a
	// method value costs an allocation each time it is made.
	bound walkHooks
}

// walkHooks holds w's methods the records reader calls back, bound once.
type walkHooks struct {
	self  *walker
	data  func(name string, version int16, buf []byte, bufIdx, start, end int, path string) (*tree.Node, error)
	topic rec.PayloadFunc
	path  func() string
}

// hooks returns w's bound hooks, binding them again if w has moved.
func (w *walker) hooks() *walkHooks {
	if w.bound.self != w {
		w.bound = walkHooks{self: w, data: w.dataHook, topic: w.topicHook, path: w.recordsPath}
	}
	return &w.bound
}

// init readies w for frame f of n bytes, written to s: its own budget
// unless b is given. What w reuses (path, buffers) is kept.
func (w *walker) init(f *Frame, s sink, o *Options, n int, b *budget.Budget) {
	lim := o.Limits.resolve(n)
	own := budget.Budget{}
	if b == nil {
		own = lim.budgetValue()
		b = &w.own
	}
	*w = walker{f: f, s: s, lim: lim, b: b, nest: o.nest(), skipRecords: o.skipRecords, sizeFirst: o.sizeFirst,
		path: w.path[:0], own: own, pathText: budget.PathText{Buf: w.pathText.Buf[:0]}, spare: w.spare, pre: w.pre, codes: w.codes[:0], null: w.null, payload: o.Payload,
		int64s: o.Int64Strings, guessing: o.raw, topics: w.topics.reset(o.TopicNames), topicsRaw: o.InternalTopicsAsBytes, bound: w.bound, types: w.types, names: w.names}
	w.w.List = f.Warnings[:0]
}

func (w *walker) pathString() string { return w.pathWith("") }

// pathWith is the current path, plus field when it is not empty; a path
// said again is the same string (budget.PathText).
func (w *walker) pathWith(field string) string {
	b := w.pathText.Buf[:0]
	for i, p := range w.path {
		switch {
		case p.idx == absPath:
			b = append(b[:0], p.name...)
		case p.idx == lazyPath:
			b = append(b[:0], w.lazy()...)
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
	return w.pathText.Intern(b)
}

func (w *walker) push(name string) { w.path = append(w.path, pathSeg{name, -1}) }
func (w *walker) pop()             { w.path = w.path[:len(w.path)-1] }

// at makes p the whole path (a header field, say) until the next reset.
func (w *walker) at(p string) { w.path = append(w.path[:0], pathSeg{p, absPath}) }

// fail records the walk's first error: the bytes at off are wrong.
func (w *walker) fail(off int, expected, found string) { w.failWith(off, expected, found, nil) }

// short is fail for bytes that are missing: a length, count or size that
// runs past the end of the input. The error's cause is wire.ErrShort.
func (w *walker) short(off int, expected, found string) {
	w.failWith(off, expected, found, wire.ErrShort)
}

func (w *walker) failWith(off int, expected, found string, cause error) {
	if w.err == nil {
		w.err = newDecodeError(off, w.buf, w.pathString(), expected, found, cause)
	}
}

// overLimit fails at off for the MaxNodes limit; found is what more was wanted.
func (w *walker) overLimit(off int, found string) {
	if w.err == nil {
		w.limitHit = true
		w.failWith(off, "at most "+decimal(w.b.MaxNodes)+" nodes (the MaxNodes limit)", found, budget.ErrLimit)
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
// the reader's error (wire.ErrShort, wire.ErrVarint) its cause.
func (w *walker) check() bool {
	if w.err == nil && w.r.Err == nil {
		return true
	}
	return w.readFailed()
}

// readFailed is check's slow path: an error already, or the reader's.
func (w *walker) readFailed() bool {
	if w.err == nil {
		w.err = wireDecodeError(w.r.Err, w.buf, w.pathString())
	}
	return false
}

// warn attaches msg to n and lists it at offset off and the current path
// (plus field, when not "").
func (w *walker) warn(n *tree.Node, off int, field, msg string) {
	w.warnAt(nil, n, off, field, msg, false)
}

// warnAt is warn for a warning learnt after n's children were read (it
// goes to the mark taken when n was opened; nil: at the end), or for a
// limit hit.
func (w *walker) warnAt(mark *int, n *tree.Node, off int, field, msg string, limit bool) {
	// Warnings are charged as nodes, so a flood of them stops at MaxNodes.
	w.b.ChargeWarning(limit)
	if w.quiet {
		return
	}
	n.Warnings = append(n.Warnings, msg)
	if w.guessing {
		w.warned++
		return
	}
	x := Warning{Offset: off, Buf: w.buf, Path: w.pathWith(field), Message: msg, Limit: limit}
	if mark != nil {
		w.w.Insert(mark, x)
	} else {
		w.w.Add(x)
	}
}

// charge spends one node of the budget, failing at the limit of this
// level (NestedNodes inside a nested payload, else MaxNodes).
func (w *walker) charge() {
	w.b.Nodes++
	if w.b.Nodes > w.nodeLimit() {
		w.overLimit(w.r.Off, "more")
	}
}

// node charges a node and returns it from the sink, in the current buffer.
func (w *walker) node() *tree.Node {
	w.b.Nodes++ // charge, written out: this is the walk's commonest step
	if w.b.Nodes > w.nodeLimit() {
		w.overLimit(w.r.Off, "more")
	}
	var n *tree.Node
	switch s := w.s.(type) { // the two sinks' nodes without a call through sink
	case *jsonSink:
		n = s.take()
	case *treeSink:
		n = s.slab.New()
	default:
		n = w.s.node()
	}
	n.Buf = w.buf
	return n
}

// nodeLimit is where node counting stops at this level.
func (w *walker) nodeLimit() int {
	if w.nested {
		return w.b.NestedNodes
	}
	return w.b.MaxNodes
}

func (w *walker) start(n *tree.Node) {
	n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd = w.r.Off, w.r.Off, w.r.Off, w.r.Off
}

// frame walks one frame whose first bytes are b: size prefix, header and
// body (a request's, or a response's of opts' API and version).
func (w *walker) frame(b []byte, opts *Options) error {
	w.f.Response = opts.Response
	// A request's key and version are unread until request reads them; a
	// response read with no API or version (nothing fits it) has none in
	// its envelope rather than Any's -1.
	w.f.unread = 0
	if !opts.Response || opts.APIKey == Any {
		w.f.unread |= unreadKey
	}
	if !opts.Response || opts.Version == Any {
		w.f.unread |= unreadVersion
	}
	root := w.begin(b)
	end, cut := len(b), -1
	if !opts.NoSizePrefix {
		end, cut = w.sizePrefix(len(b))
	}
	w.frameEnd = end
	if w.err == nil {
		w.r.B = b[:end]
		if opts.Response {
			w.response(opts)
		} else {
			w.request()
		}
		w.r.B = b
		switch {
		case cut >= 0 && w.err == nil:
			// Everything given read cleanly, yet the size says more follows.
			w.at("size")
			w.sizeBeyond(len(b), cut)
		case cut >= 0:
			w.err.Found += " (the frame is cut short: its size says " + counted(cut, "byte follows", "bytes follow") + ", " + counted(len(b)-4, "does", "do") + ", " + counted(cut-(len(b)-4), "is missing", "are missing") + ")"
		case w.err == nil && w.r.Off < end:
			w.fail(w.r.Off, "the end of the message", counted(end-w.r.Off, "more byte", "more bytes")+" inside the frame")
		}
		w.path = w.path[:0]
	}
	if opts.NoSizePrefix && !w.guessing {
		if msg := sizeFits(b); msg != "" {
			w.warn(root, 0, "", msg)
		}
	}
	w.b.Work += w.r.Off
	return w.finish(root, b, end)
}

// sizePrefix reads the 4-byte size of an n-byte input: where the frame
// ends, and (when >= 0) the size it declares past the bytes given.
func (w *walker) sizePrefix(n int) (end, cut int) {
	end, cut = n, -1
	s := w.node()
	s.Name, s.Role, s.Kind, s.Type = "size", tree.RoleSize, schema.Int32, "int32"
	w.push("size")
	size := w.r.Int32()
	w.check()
	s.Int, s.End = int64(size), w.r.Off
	w.s.leaf(s)
	switch {
	case w.err != nil:
	case size < 0:
		w.fail(0, "a non-negative frame size", decimal(int(size)))
	case int(size) > n-4 && w.sizeFirst:
		w.sizeBeyond(n, int(size))
	case int(size) > n-4:
		// A frame cut short: the bytes that are there are still read, so
		// the partial tree shows them and the error says where and why
		// reading stopped.
		cut = int(size)
	default:
		end = 4 + int(size)
	}
	w.path = w.path[:0]
	return end, cut
}

// sizeBeyond fails at the size prefix of an n-byte input that declares
// size bytes after it, more than there are.
func (w *walker) sizeBeyond(n, size int) {
	w.short(0, "a size of at most "+decimal(n-4)+" (the bytes given after it)", decimal(size))
}

// finish ends a frame (or a body alone) whose bytes end at end and whose
// input is b: what could not be read becomes "_undecoded", what follows
// the frame "_trailing", so every byte belongs to a node.
func (w *walker) finish(root *tree.Node, b []byte, end int) error {
	f := w.f
	if w.err != nil && w.err.Buf == 0 && end >= 4 && end < len(b) && errors.Is(w.err, wire.ErrShort) {
		// Short of bytes inside a frame the input holds more bytes after:
		// its size prefix is what is short (it lies, or the frame is not
		// the only one).
		w.err.Expected += " within the " + decimal(end-4) + " bytes its size prefix declares, though " + decimal(len(b)-4) + " follow it"
	}
	start, name, role := end, "_trailing", tree.RoleTrailing
	if w.err != nil {
		start, name, role = w.r.Off, "_undecoded", tree.RoleRaw
		if w.err.Offset > start && w.err.Offset <= len(b) && w.err.Buf == 0 {
			start = w.err.Offset
		}
	}
	if start < len(b) {
		n := w.s.node()
		n.Name, n.Role, n.Kind, n.Type, n.Raw = name, role, schema.Bytes, "bytes", b[start:]
		n.Start, n.PrefixEnd, n.SizeEnd, n.TagEnd, n.End = start, start, start, start, len(b)
		if w.err == nil {
			w.push(name)
			w.warn(n, end, "", counted(len(b)-end, "byte", "bytes")+" after the frame's declared size")
			w.pop()
		}
		w.s.leaf(n)
	}
	if !w.quiet {
		f.Warnings = w.w.List
	}
	f.plain = !w.deep && w.err == nil && w.nestErr == nil && !w.limitHit
	f.Spent = Limits{MaxNodes: w.b.Nodes, MaxDecompressed: w.b.Decompressed, MaxWork: w.b.Work}
	w.s.end(root)
	// The frame's error: its own fields' first, else a nested one's.
	if w.err != nil {
		return w.err
	}
	if w.nestErr != nil {
		return w.nestErr
	}
	return nil
}

// The parts of a request's header Frame.unread marks as not read.
const (
	unreadKey uint8 = 1 << iota
	unreadVersion
)

func (w *walker) request() {
	f := w.f
	start := w.r.Off
	left := w.r.Remaining()
	if left < 2 {
		w.at("header.requestApiKey")
		w.short(start, "2 bytes for int16 (the request's API key)", counted(left, "byte left", "bytes left"))
		return
	}
	f.APIKey = int16(uint16(w.r.B[start])<<8 | uint16(w.r.B[start+1]))
	f.API = schema.ByKey(f.APIKey)
	f.unread = unreadVersion
	f.HeaderVersion = 1
	// With the key but no version the header is read as far as it goes
	// (and fails there), so the key is in the tree and the error is at
	// the version, where it starts, as the reader's are.
	if left >= 4 {
		f.Version = int16(uint16(w.r.B[start+2])<<8 | uint16(w.r.B[start+3]))
		f.unread = 0
		if f.API != nil {
			f.Message = f.API.Request
			w.at("header.requestApiVersion")
			w.pickVersion(start + 2)
			if f.Message != nil {
				f.HeaderVersion = f.Message.HeaderVersion(f.LayoutVersion)
			}
		}
	}
	f.Header = w.part(tree.RoleHeader, schema.RequestHeader(), f.HeaderVersion, f.HeaderVersion)
	switch {
	case w.err != nil:
	case f.API == nil:
		w.at("header.requestApiKey")
		w.fail(start, "a known API key (0-"+decimal(int(schema.APIs()[len(schema.APIs())-1].Key))+")", decimal(int(f.APIKey)))
	case f.Message != nil:
		w.body()
	}
}

func (w *walker) response(opts *Options) {
	f := w.f
	f.APIKey, f.Version = opts.APIKey, opts.Version
	if f.API = schema.ByKey(f.APIKey); f.API == nil {
		w.fail(w.r.Off, "a known API key as the hint for a response", decimal(int(f.APIKey)))
		return
	}
	f.Message = f.API.Response
	w.pickVersion(w.r.Off)
	if f.Message == nil {
		return
	}
	f.HeaderVersion = f.Message.HeaderVersion(f.LayoutVersion)
	f.Header = w.part(tree.RoleHeader, schema.ResponseHeader(), f.HeaderVersion, f.HeaderVersion)
	if w.err == nil {
		w.body()
	}
}

// pickVersion chooses the layout for f.Version, assuming the newest for
// versions beyond it; at is the version's offset, for the error.
func (w *walker) pickVersion(at int) {
	f := w.f
	m := f.Message
	f.LayoutVersion = f.Version
	switch {
	case f.Version > m.Valid.Hi:
		f.LayoutVersion, f.Assumed = m.Valid.Hi, true
	case f.Version < m.Valid.Lo:
		w.fail(at, m.Name+" version "+m.Valid.String(), "version "+decimal(int(f.Version)))
		f.Message = nil
		return
	}
	f.Flexible = m.Flexible(f.LayoutVersion)
	w.consumer = consumerFieldsOf(f.APIKey, f.Response)
}

func (w *walker) body() {
	f := w.f
	f.Body = w.part(tree.RoleBody, f.Message, f.Version, f.LayoutVersion)
}

// msgType is a message's display type at a version: "ProduceRequest v9".
type msgType struct {
	m *schema.Message
	v int16
	s string
}

// typeName is m's display type at version v, made once for the few
// messages and versions a decoder meets, not once per frame; "" for a
// guess's readings, whose sink keeps no type (a guess tries some 370
// messages and versions, every one anew).
func (w *walker) typeName(m *schema.Message, v int16) string {
	if w.guessing {
		return ""
	}
	for i := range w.types {
		if c := &w.types[i]; c.m == m && c.v == v {
			return c.s
		}
	}
	s := m.Name + " v" + decimal(int(v))
	copy(w.types[1:], w.types[:len(w.types)-1])
	w.types[0] = msgType{m, v, s}
	return s
}

// part reads the frame's header or body (role): message m at version v,
// read with the layout of version lv, opened and closed in the sink.
func (w *walker) part(role tree.Role, m *schema.Message, v, lv int16) *tree.Node {
	n := w.node()
	n.Name, n.Role, n.Kind, n.Type = "header", role, schema.Struct, w.typeName(m, v)
	if role == tree.RoleBody {
		n.Name = "body"
	}
	l := m.At(lv).Root
	w.v, w.flex = lv, m.Flexible(lv)
	w.path = append(w.path[:0], pathSeg{n.Name, -1})
	w.start(n)
	w.s.begin(n, l, len(l.Fields)+1)
	if role == tree.RoleBody && w.f.Assumed {
		n.Flags |= tree.Assumed
		w.warn(n, n.Start, "", "version "+decimal(int(w.f.Version))+" is newer than any known; decoded with the v"+decimal(int(lv))+" layout")
	}
	w.inHeader = role == tree.RoleHeader
	w.structBody(n, l)
	w.inHeader = false
	n.End = w.r.Off
	w.s.end(n)
	w.path = w.path[:0]
	return n
}

// structBody reads the fields of layout l into n, whose sink level is
// open: its untagged fields in order (with tagged ones declared among
// them read early, when the layout needs it), then its tag section.
func (w *walker) structBody(n *tree.Node, l *schema.Layout) {
	w.depth++
	defer w.leave()
	if w.depth > w.lim.MaxDepth {
		w.failWith(w.r.Off, "nesting of at most "+decimal(w.lim.MaxDepth)+" (the MaxDepth limit)", "deeper", budget.ErrLimit)
		return
	}
	var pre []preTag
	if w.flex && !w.dry {
		if l != w.preL || w.v != w.preV {
			w.preL, w.preV, w.preNeed = l, w.v, needsPrescan(l, w.v)
		}
		if w.preNeed {
			pre = w.prescan(l)
			w.deep = true
		}
	}
	allDef := true
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(w.v) {
			continue
		}
		if w.flex && f.IsTagged(w.v) {
			if pre != nil && !w.earlyTag(f, pre) {
				allDef = false
			}
			continue
		}
		c := w.node()
		c.Name, c.Role, c.Field = f.Name, tree.RoleField, f
		w.start(c)
		w.push(f.JSON)
		w.value(c, f, f.Kind)
		w.pop()
		if w.err != nil {
			n.Flags |= tree.Broken
			return
		}
		if w.inTagged > 0 {
			allDef = allDef && w.isDefault(c, f)
		}
		if w.inHeader || w.wantCodes || f.Kind == schema.String || f.Kind == schema.UUID {
			w.noteField(c, f) // what it can keep, and nothing else, costs no call
		}
	}
	if w.flex && !w.tags(l, pre) {
		allDef = false
	}
	w.lastDef = allDef
}

// noteField keeps what later fields depend on: the correlation id, the
// group's protocol type; and, when wanted, the error codes.
func (w *walker) noteField(c *tree.Node, f *schema.Field) {
	switch f.Kind {
	case schema.Int32:
		if w.inHeader && f.Name == "CorrelationId" {
			w.f.CorrelationID = int32(c.Int)
		}
	case schema.String:
		switch {
		case f.JSON == "protocolType": // ProtocolType; protocolType in GroupMetadataValue
			w.pt = protocolType{name: string(c.Raw), known: !c.Null, depth: w.depth}
		case f.EntityType == "topicName":
			w.noteTopic(c, f)
		}
	case schema.UUID:
		if f.Name == "TopicId" {
			w.noteTopic(c, f)
		}
	case schema.Int16:
		if w.wantCodes && c.Int != 0 && isErrorCode(f) {
			w.noteCode(c, w.pathWith(f.JSON))
		}
	}
}

// noteCode keeps error code c at path for Frame.ErrorCodes.
func (w *walker) noteCode(c *tree.Node, path string) {
	code := int16(c.Int)
	w.codes = append(w.codes, ErrorCode{Path: path, Code: code, Name: schema.ErrorName(code)})
}

// leave ends a struct: its depth, and the protocol type it declared.
func (w *walker) leave() {
	if w.pt.depth == w.depth {
		w.pt = protocolType{}
	}
	w.depth--
}

// value reads one value of kind k for field f into n, whose Start (and,
// for tagged fields, TagEnd and SizeEnd) the caller has set, and hands it
// to the sink: as a leaf, or opened and closed around its children.
func (w *walker) value(n *tree.Node, f *schema.Field, k schema.Kind) {
	r := &w.r
	n.Kind, n.Type = k, k.String()                      // a fixed-width kind's type is its name
	nullable := k == f.Kind && f.Nullable.Contains(w.v) // an array's elements never are
	compact := f.CompactAt(w.v, w.flex)
	if compact {
		n.Flags |= tree.Compact
	}
	switch k {
	case schema.Bool:
		n.Int = int64(r.Uint8()) // 0 when the byte is missing
		if n.Int > 1 {
			w.warn(n, n.Start, "", "bool byte is "+decimal(int(n.Int))+", read as true")
		}
	case schema.Int8:
		n.Int = int64(r.Int8())
	case schema.Int16:
		n.Int = int64(r.Int16())
	case schema.Uint16:
		n.Int = int64(r.Uint16())
	case schema.Int32:
		n.Int = int64(r.Int32())
	case schema.Uint32:
		n.Int = int64(r.Uint32())
	case schema.Int64:
		n.Int = r.Int64()
	case schema.Float64:
		if n.Float = r.Float64(); n.Float != n.Float {
			w.nan(n)
		}
	case schema.UUID:
		n.Raw = r.Span(16, "uuid")
	case schema.String, schema.Bytes, schema.Records:
		w.lengthPrefixed(n, f, k, nullable, compact)
		return
	case schema.Array:
		w.array(n, f, nullable, compact)
		return
	case schema.Struct:
		n.Type = f.Type
		w.structValue(n, f.Struct, nullable)
		return
	}
	w.check()
	n.PrefixEnd = n.SizeEnd
	w.leaf(n)
}

// nan warns about NaN n, just read, unless its bits are Java's Double.NaN
// (javaNaN): JSON says "NaN" for every NaN and encoding writes that one,
// so another NaN's bits would not come back.
func (w *walker) nan(n *tree.Node) {
	bits := binary.BigEndian.Uint64(w.r.B[w.r.Off-8:])
	if bits == javaNaN {
		return
	}
	h := strconv.AppendUint(append(make([]byte, 0, 18), "0x"...), bits, 16)
	w.warn(n, w.r.Off-8, "", "NaN with bits "+string(h)+", not Java's Double.NaN 0x7ff8000000000000, which encoding writes")
}

// leaf ends n (a value read, or not) and hands it to the sink.
func (w *walker) leaf(n *tree.Node) {
	n.End = w.r.Off
	if w.err != nil {
		n.Flags |= tree.Broken
	}
	w.s.leaf(n)
}

// close ends n, opened in the sink, and closes it there.
func (w *walker) close(n *tree.Node) {
	n.End = w.r.Off
	if w.err != nil {
		n.Flags |= tree.Broken
	}
	w.s.end(n)
}

// structValue reads struct l into n, after its presence byte if nullable.
func (w *walker) structValue(n *tree.Node, l *schema.Layout, nullable bool) {
	if nullable {
		marker := w.r.Int8()
		if !w.check() {
			w.leaf(n)
			return
		}
		n.PrefixEnd = w.r.Off
		if marker != 1 && marker != -1 {
			w.warn(n, n.Start, "", "struct presence byte is "+decimal(int(marker))+", not 1 or -1")
		}
		if marker < 0 {
			n.Null = true
			w.leaf(n)
			return
		}
	}
	w.s.begin(n, l, len(l.Fields)+1)
	w.structBody(n, l)
	w.close(n)
}

// lengthTypes are the display types of the length-prefixed kinds, by
// compact (+2) and nullable (+1): constants, so naming allocates nothing.
var lengthTypes = [...][4]string{
	schema.String:  {"string", "nullable_string", "compact_string", "compact_nullable_string"},
	schema.Bytes:   {"bytes", "nullable_bytes", "compact_bytes", "compact_nullable_bytes"},
	schema.Records: {"records", "nullable_records", "compact_records", "compact_nullable_records"},
}

// maxString is the longest string Kafka reads or writes, compact or not
// (its generated code refuses a longer one).
const maxString = 0x7fff

// nonMinimal says what a varint of n bytes holding v is.
func nonMinimal(n int, v uint64) string {
	return "non-minimal varint: " + decimal(n) + " bytes for a value that needs " + decimal(wire.UvarintLen(v))
}

// prefix reads the length or count (what) starting n, a string, bytes,
// records or array value (warning on a compact one not minimal); false
// when n is finished already, handed to the sink as a leaf: null (a
// warning where the schema says non-nullable), negative or unreadable.
func (w *walker) prefix(n *tree.Node, compact bool, k schema.Kind, nullable bool, what string) (int, bool) {
	r := &w.r
	pstart := r.Off
	var l int
	switch {
	case compact:
		u, minimal := r.UvarintMinimal()
		if w.check() && !minimal {
			w.warn(n, pstart, "", nonMinimal(r.Off-pstart, uint64(u)))
		}
		l = int(u) - 1
	case k == schema.String:
		l = int(r.Int16())
	default:
		l = int(r.Int32())
	}
	n.PrefixEnd = r.Off
	switch {
	case !w.check():
	case l == -1:
		n.Null = true
		if !nullable {
			w.warn(n, n.Start, "", "null where the schema says non-nullable at v"+decimal(int(w.v)))
		}
	case l < -1:
		w.fail(pstart, "a "+what+" of -1 or more", decimal(l))
	default:
		return l, true
	}
	w.leaf(n)
	return 0, false
}

func (w *walker) lengthPrefixed(n *tree.Node, f *schema.Field, k schema.Kind, nullable, compact bool) {
	r := &w.r
	i := 0
	if compact {
		i += 2
	}
	if nullable {
		i++
	}
	n.Type = lengthTypes[k][i]
	pstart := r.Off
	l, ok := w.prefix(n, compact, k, nullable, "length")
	if !ok {
		return
	}
	if l > r.Remaining() {
		w.short(pstart, "a length of at most "+decimal(r.Remaining())+" (the bytes left)", decimal(l))
		w.leaf(n)
		return
	}
	n.Raw = r.Span(l, k.String())
	if k == schema.String && !utf8.Valid(n.Raw) {
		w.warn(n, n.Start, "", "string is not valid UTF-8")
	}
	if k == schema.String && l > maxString { // a compact length can say more
		w.warn(n, n.Start, "", "string of "+decimal(l)+" bytes is longer than 32767, which Kafka's reader refuses")
	}
	n.End = r.Off
	switch {
	case !w.nest || w.dry:
	case k == schema.Records && !w.skipRecords:
		w.records(n)
		return
	case k == schema.Bytes && len(w.consumer) > 0:
		for _, c := range w.consumer {
			if c.field == f.Name {
				w.consumerData(n, c.data)
				return
			}
		}
	}
	w.leaf(n)
}

func (w *walker) array(n *tree.Node, f *schema.Field, nullable, compact bool) {
	r := &w.r
	n.Type = f.Type
	pstart := r.Off
	count, ok := w.prefix(n, compact, schema.Array, nullable, "count")
	if !ok {
		return
	}
	// Each element takes at least one byte (a struct in flexible versions
	// at least its tag count); fixed-size elements more.
	least := max(f.Elem.FixedSize(), 1)
	if count > r.Remaining()/least {
		w.short(pstart, "a count of at most "+decimal(r.Remaining()/least)+" (what the bytes left can hold)", decimal(count))
		w.leaf(n)
		return
	}
	if w.b.Nodes+count > w.nodeLimit() {
		w.overLimit(pstart, decimal(count)+" more elements")
		w.leaf(n)
		return
	}
	n.Int = int64(count) // the count, for default checks and sinks that want it
	if size := numbersSize(f); size > 0 {
		// Fixed-size integers: the count was checked against the bytes
		// left, so every element is there, and an element makes one node
		// and no warning. The sink takes the array in one step.
		w.b.Nodes += count
		b := r.B[r.Off : r.Off+size*count]
		r.Off += size * count
		n.End = r.Off
		w.s.numbers(n, f.Elem, b, count)
		return
	}
	// The list starts with the count as its capacity only when small, so
	// memory follows what is read.
	w.s.begin(n, nil, min(count, 32))
	for i := 0; i < count; i++ {
		c := w.node()
		c.Role, c.Index = tree.RoleElement, i
		w.start(c)
		w.path = append(w.path, pathSeg{"", i})
		if f.Elem == schema.Struct {
			c.Kind, c.Type = schema.Struct, f.Struct.Name
			w.structValue(c, f.Struct, false)
		} else {
			w.value(c, f, f.Elem)
		}
		w.pop()
		if w.err != nil {
			break
		}
	}
	w.close(n)
}

// numbersSize is the element size of array field f when its elements are
// fixed-size integers, which sinks take in one step (numbers); else 0.
func numbersSize(f *schema.Field) int {
	if f == nil || f.Elem == schema.UUID || f.Elem == schema.Float64 || f.Elem == schema.Bool {
		return 0
	}
	return f.Elem.FixedSize()
}

// isDefault reports whether c, a value of f just read inside a tagged
// value, holds f's default: an array's count is in c.Int, a struct's
// default-ness in lastDef.
func (w *walker) isDefault(c *tree.Node, f *schema.Field) bool {
	switch {
	case c.Kind != schema.Array && c.Kind != schema.Struct:
		return isDefaultValue(c, f, w.v)
	case nullDefault(f, w.v):
		return c.Null
	case c.Kind == schema.Array:
		return !c.Null && c.Int == 0
	}
	return !c.Null && w.lastDef
}
