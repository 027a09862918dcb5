package codec

import (
	"slices"

	"github.com/kwire/kwire/codec/internal/read"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// jsonSink writes value JSON as the walk goes, keeping no tree: each node
// is scratch, reused once handed back. Tagged values read in their
// section (small: never records) are kept until their struct ends, then
// written in declared order; those read early are written where they
// stand. Output is flushed between array elements and records.
type jsonSink struct {
	scratch
	f       *Frame // the frame whose envelope it writes
	out     *jsontext.Writer
	kafka   bool   // Kafka's own form (Options.Kafka)
	size    bool   // records fields as their size (RecordsSize)
	quote   bool   // int64 values as strings (Options.Int64Strings)
	data    string // a data message or records field, not a frame (Options.Data)
	bare    bool   // header and body alone, no envelope (guessing's hash)
	head    bool   // the envelope's head is written
	levels  []jsonLevel
	frames  []*tagFrame // tag frames, reused
	nframe  int
	rs      rec.Scratch
	kraft   slab.Slab // KRaft values are small trees, one at a time
	flush   func()    // flushes out, for the records writer
	flushOf *jsonSink // the sink flush was made for
}

// A jsonLevel is an open node: what it writes and where.
type jsonLevel struct {
	out   *jsontext.Writer // where its children go
	mark  jsontext.Mark    // before its key, to drop it whole
	tf    *tagFrame        // a struct's tagged values, when it has any
	l     *schema.Layout   // a struct's layout
	kids  int32            // children handed to it
	start int32            // a tagged value's start in its tag frame
	kind  uint8
}

const (
	levelRoot = iota
	levelObject
	levelArray
	levelSection
)

// tagFrame holds one struct's tagged values while its section is read.
type tagFrame struct {
	w       jsontext.Writer // the values read in the section
	found   []foundTag
	unknown []unknownTag
}

type foundTag struct {
	f          *schema.Field
	start, end int  // in w; early: written where it stands
	early      bool // read at its declared place
}

type unknownTag struct {
	tag int64
	raw []byte
}

func (s *jsonSink) reset(f *Frame, out *jsontext.Writer, o *Options) {
	s.f, s.out, s.bare, s.head = f, out, false, false
	s.kafka, s.size, s.data, s.quote = o.Kafka, o.Records == RecordsSize && !o.Kafka, o.Data, o.Int64Strings
	s.levels, s.nframe, s.n = s.levels[:0], 0, 0
}

// resetBare readies s to write one value alone, in the default form, with
// no envelope, inside an open level of kind (levelObject, levelArray)
// writing to out: a data message for codec/storage, an internal topic's
// record part for kwire log.
func (s *jsonSink) resetBare(f *Frame, out *jsontext.Writer, kind uint8) {
	s.reset(f, out, &Options{})
	s.bare = true
	s.levels = append(s.levels, jsonLevel{kind: kind, out: out})
}

func (s *jsonSink) node() *tree.Node { return s.take() }

// tagFrame returns the tag frame of struct level lv, emptied when new.
func (s *jsonSink) tagFrame(lv *jsonLevel) *tagFrame {
	if lv.tf == nil {
		if s.nframe == len(s.frames) {
			s.frames = append(s.frames, new(tagFrame))
		}
		tf := s.frames[s.nframe]
		s.nframe++
		tf.w.Reset(nil)
		tf.found, tf.unknown = tf.found[:0], tf.unknown[:0]
		lv.tf = tf
	}
	return lv.tf
}

// place readies the writer for n's value inside the open level, and
// returns it: its key, or its place in its struct's tag frame.
func (s *jsonSink) place(n *tree.Node) *jsontext.Writer {
	p := s.top()
	p.kids++
	switch {
	case p.kind == levelSection:
		tf := s.tagFrame(&s.levels[len(s.levels)-2])
		tf.w.Fresh()
		return &tf.w
	case p.kind == levelArray:
		return p.out
	case p.kind == levelRoot: // the header, the body, a data message's or records field's value
		s.envelopeHead()
		if !s.bare {
			p.out.Key(n.Name)
		}
	case n.Field != nil:
		p.out.Key(n.Field.JSON)
	default:
		p.out.Key(n.Name)
	}
	return p.out
}

func (s *jsonSink) begin(n *tree.Node, l *schema.Layout, _ int) {
	switch n.Role {
	case tree.RoleFrame:
		s.levels = append(s.levels, jsonLevel{kind: levelRoot, out: s.out})
		return
	case tree.RoleTags:
		s.levels = append(s.levels, jsonLevel{kind: levelSection, out: s.top().out})
		return
	}
	p := s.top()
	mark := p.out.Mark() // before the key, to drop it whole
	out := s.place(n)
	if out != p.out {
		mark = out.Mark() // in the tag frame's writer
	}
	// The level knows its struct by position: start is where its value
	// starts in whichever writer holds it.
	lv := jsonLevel{kind: levelObject, out: out, mark: mark, l: l, start: int32(len(out.B))}
	if n.Kind == schema.Array {
		lv.kind = levelArray
		out.BeginArray()
	} else {
		out.BeginObject()
	}
	s.levels = append(s.levels, lv)
}

func (s *jsonSink) top() *jsonLevel { return &s.levels[len(s.levels)-1] }

// end closes n's level. n is given back first: nothing here takes a node.
func (s *jsonSink) end(n *tree.Node) {
	s.give(n)
	k := len(s.levels) - 1
	lv := &s.levels[k]
	s.levels = s.levels[:k] // lv stays readable: nothing is appended before it is done with
	switch lv.kind {
	case levelRoot:
		s.envelopeTail()
		return
	case levelSection:
		return
	case levelArray:
		lv.out.EndArray()
	default:
		if n.Flags&tree.Broken != 0 && lv.kids == 0 && (n.Role == tree.RoleField || n.Role == tree.RoleElement) && n.Kind == schema.Struct {
			// A struct that could not be read at all is left out, key and all.
			lv.out.Rollback(lv.mark)
			s.dropFrame(lv)
			return
		}
		if lv.tf != nil {
			s.tagged(lv)
		}
		lv.out.EndObject()
	}
	s.written(n, lv.out, int(lv.start))
}

// written ends n's value, written to out from start. A tagged value is
// noted in its struct's tag frame: written in place (early), or in the
// frame unless the section held the field already (the first counts).
func (s *jsonSink) written(n *tree.Node, out *jsontext.Writer, start int) {
	if n.Flags&tree.Tagged != 0 && len(s.levels) > 0 {
		st := s.top()
		if st.kind == levelSection {
			st = &s.levels[len(s.levels)-2]
		}
		tf := s.tagFrame(st)
		switch {
		case out != &tf.w:
			tf.found = append(tf.found, foundTag{f: n.Field, early: true})
		case slices.ContainsFunc(tf.found, func(t foundTag) bool { return t.f == n.Field }):
			tf.w.B = tf.w.B[:start]
		default:
			tf.found = append(tf.found, foundTag{f: n.Field, start: start, end: len(tf.w.B)})
		}
	}
	if n.Role == tree.RoleElement {
		s.out.Flush(false)
	}
}

// dropFrame gives back the tag frame of a level that is dropped.
func (s *jsonSink) dropFrame(lv *jsonLevel) {
	if lv.tf != nil && s.nframe > 0 && s.frames[s.nframe-1] == lv.tf {
		s.nframe--
	}
}

// tagged writes a struct's tagged values read in its section, in declared
// order, then its unknown tags; and gives its tag frame back.
func (s *jsonSink) tagged(lv *jsonLevel) {
	tf := lv.tf
	defer s.dropFrame(lv)
	w := lv.out
	if lv.l != nil {
		for i := range lv.l.Fields {
			f := &lv.l.Fields[i]
			for _, t := range tf.found {
				if t.f == f && !t.early {
					w.Key(f.JSON)
					w.Raw(tf.w.B[t.start:t.end])
					break
				}
			}
		}
	}
	if len(tf.unknown) == 0 || s.kafka {
		return // Kafka's form has no place for unknown tags
	}
	w.Key("_unknownTaggedFields")
	w.BeginArray()
	for _, u := range tf.unknown {
		w.BeginObject()
		w.Key("tag")
		w.Int(u.tag)
		w.Key("data")
		w.Base64(u.raw)
		w.EndObject()
	}
	w.EndArray()
}

// leaf writes n where it belongs, and gives it back.
func (s *jsonSink) leaf(n *tree.Node) {
	p := s.top()
	switch {
	case n.Flags&(tree.Tagged|tree.Broken) == 0 && p.kind == levelObject && n.Role == tree.RoleField && n.Field != nil:
		// The commonest step, written out: an untagged field's value.
		p.kids++
		p.out.Key(n.Field.JSON)
		s.value(p.out, n)
	case n.Role == tree.RoleSize || n.Role == tree.RoleRaw || n.Role == tree.RoleTrailing || n.Role == tree.RoleTags:
	case n.Role == tree.RoleUnknownTag:
		tf := s.tagFrame(&s.levels[len(s.levels)-2])
		tf.unknown = append(tf.unknown, unknownTag{tag: n.Int, raw: n.Raw})
	case p.kind == levelSection && n.Flags&tree.Tagged == 0:
		// a tag whose header could not be read
	case n.Flags&tree.Broken != 0:
		p.kids++
	default:
		out := s.place(n)
		start := len(out.B)
		s.value(out, n)
		s.written(n, out, start)
	}
	s.give(n)
}

// flatElement writes n, a struct element, at once when its children are
// untagged fields' values and an empty tag section, the commonest element:
// no level is opened for it. false: nothing is written.
func (s *jsonSink) flatElement(n *tree.Node) bool {
	for _, c := range n.Children {
		plain := c.Role == tree.RoleField && c.Flags&tree.Tagged == 0 && c.Field != nil && (c.Kind < schema.Struct || c.Null)
		if !plain && (c.Role != tree.RoleTags || len(c.Children) > 0) {
			return false
		}
	}
	p := s.top()
	p.kids++
	out := p.out
	out.BeginObject()
	for _, c := range n.Children {
		if c.Role == tree.RoleField {
			out.Key(c.Field.JSON)
			s.value(out, c)
		}
	}
	out.EndObject()
	s.out.Flush(false)
	return true
}

// value writes the value of leaf n: the one formatter of each kind.
func (s *jsonSink) value(w *jsontext.Writer, n *tree.Node) {
	if n.Null {
		w.Null()
		return
	}
	switch n.Kind {
	case schema.Bool:
		w.Bool(n.Int != 0)
	case schema.Int64:
		w.Int64(n.Int, s.quote)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32:
		w.Int(n.Int)
	case schema.Float64:
		w.Float(n.Float)
	case schema.UUID:
		w.Base64URL(n.Raw)
	case schema.String:
		w.String(n.Raw)
	case schema.Bytes, schema.Records:
		if s.size && n.Kind == schema.Records {
			w.BeginObject()
			w.Key("sizeInBytes")
			w.Int(int64(len(n.Raw)))
			w.EndObject()
			return
		}
		w.Base64(n.Raw)
	default:
		w.Null()
	}
}

func (s *jsonSink) numbers(n *tree.Node, k schema.Kind, b []byte, count int) {
	w := s.place(n)
	start := len(w.B)
	w.BeginArray()
	size := k.FixedSize()
	for i := 0; i < count; i++ {
		if v := read.Fixed(k, b[i*size:]); k == schema.Int64 {
			w.Int64(v, s.quote)
		} else {
			w.Int(v)
		}
	}
	w.EndArray()
	s.written(n, w, start)
	s.give(n)
}

func (s *jsonSink) records(n *tree.Node, b []byte, o rec.Options) (int, error) {
	defer s.give(n)
	out := s.place(n)
	out.Value()
	o.Scratch = &s.rs
	var flush func()
	if out == s.out {
		if s.flushOf != s {
			// Made once (a closure allocates), again if s was copied.
			s.flush, s.flushOf = func() { s.out.Flush(false) }, s
		}
		flush = s.flush
	}
	return rec.WriteJSON(&out.B, b, o, flush)
}

func (s *jsonSink) attach(h, _ *tree.Node) { s.give(h) }

func (s *jsonSink) mark() sinkMark {
	lv := s.top()
	m := sinkMark{depth: len(s.levels), kids: int(lv.kids), pool: s.n, frames: s.nframe, out: lv.out.Mark(), found: -1} // found -1: no tag frame yet
	if lv.tf != nil {
		m.found, m.unknown = len(lv.tf.found), len(lv.tf.unknown)
	}
	lv.out.Hold()
	return m
}

func (s *jsonSink) commit(sinkMark) { s.top().out.Release() }

func (s *jsonSink) rollback(m sinkMark) {
	s.levels = s.levels[:m.depth]
	lv := s.top()
	lv.out.Release()
	lv.out.Rollback(m.out)
	lv.kids = int32(m.kids)
	s.n, s.nframe = m.pool, m.frames
	if m.found < 0 {
		lv.tf = nil // made since the mark: given back with the frames
	} else {
		lv.tf.found, lv.tf.unknown = lv.tf.found[:m.found], lv.tf.unknown[:m.unknown]
	}
}

func (s *jsonSink) dataSink() sink {
	s.kraft.Reset()
	return &treeSink{slab: &s.kraft, f: &Frame{}}
}

// envelopeHead opens the envelope once the direction, API and version are
// known: {"direction","apiKey","apiName","apiVersion".
func (s *jsonSink) envelopeHead() {
	if s.head || s.bare {
		return
	}
	s.head = true
	f, w := s.f, s.out
	w.BeginObject()
	if s.data != "" {
		w.Key("data")
		w.String([]byte(s.data))
		return
	}
	writeFrameHead(w, f)
}

// writeFrameHead writes what a frame's envelope (value JSON and
// annotated) starts with: "direction","apiKey","apiName","apiVersion"
// (a request's key and version only when its header holds them).
func writeFrameHead(w *jsontext.Writer, f *Frame) {
	w.Key("direction")
	if f.Response {
		w.Text("response")
	} else {
		w.Text("request")
	}
	if f.unread&unreadKey == 0 {
		w.Key("apiKey")
		w.Int(int64(f.APIKey))
	}
	if f.API != nil {
		w.Key("apiName")
		w.String([]byte(f.API.Name))
	}
	if f.unread&unreadVersion == 0 {
		w.Key("apiVersion")
		w.Int(int64(f.Version))
	}
}

// envelopeTail ends the envelope: "guess", "warnings" (streamed: they can
// be many) and the brace.
func (s *jsonSink) envelopeTail() {
	if s.bare {
		return
	}
	s.envelopeHead()
	w := s.out
	if g := s.f.Guess; g != nil {
		w.Key("guess")
		w.Value()
		w.B = appendGuess(w.B, g)
	}
	if ws := s.f.Warnings; len(ws) > 0 {
		if w.W == nil {
			// Unstreamed, warnings can be most of the document (a flood
			// of unknown tags): room for them all at once, not in many
			// steps of growth.
			n := 16
			for i := range ws {
				n += len(ws[i].Path) + len(ws[i].Message) + 64
			}
			w.B = slices.Grow(w.B, n)
		}
		w.Key("warnings")
		w.BeginArray()
		for i := range ws {
			w.Value()
			w.B = appendWarning(w.B, &ws[i])
			w.Flush(false)
		}
		w.EndArray()
	}
	w.EndObject()
}
