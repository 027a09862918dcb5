package codec

import (
	"bytes"
	"slices"

	"github.com/kwire/kwire/codec/internal/read"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// jsonSink writes value JSON as the walk goes, keeping no tree: each node
// is scratch, reused once handed back. A struct's members are written in
// the order the walk hands them, and put in declared order when it ends
// if they are not (levelPlaces). Output is flushed between array elements
// and records, so a big frame streams.
type jsonSink struct {
	scratch
	w       *walker
	out     *jsontext.Writer
	kafka   bool   // Kafka's own form (Options.Kafka)
	size    bool   // records fields as their size (RecordsSize)
	quote   bool   // int64 values as strings (Options.Int64Strings)
	data    string // a data message or records field, not a frame (Options.Data)
	bare    bool   // header and body alone, no envelope (guessing's hash)
	head    bool   // the envelope's head is written
	levels  []jsonLevel
	members []member     // the members of open levelPlaces structs
	unknown []unknownTag // their unknown tags
	tail    []byte       // members cut out, to be written again in order
	rs      rec.Scratch
	kraft   slab.Slab // KRaft values are small trees, one at a time
	flush   func()    // flushes out, for the records writer
	flushOf *jsonSink // the sink flush was made for
}

// A jsonLevel is an open node.
type jsonLevel struct {
	mark    jsontext.Mark  // before its key, to drop it whole
	l       *schema.Layout // a struct's layout
	kids    int32          // children handed to it
	first   int32          // levelPlaces: its first member in members
	unknown int32          // levelPlaces: its first unknown tag in unknown
	kind    uint8
}

const (
	levelRoot = iota
	levelObject
	// levelPlaces is a struct whose members may come out of declared
	// order: its layout declares a tagged field before an untagged one
	// (keepPlaces), or its tag section has begun. Its members' places are
	// kept, and its writer held so that they stay in the buffer.
	levelPlaces
	levelArray
	levelSection
)

// member is where a member of a levelPlaces struct starts in its writer.
type member struct {
	f  *schema.Field
	at int           // in the writer's B
	m  jsontext.Mark // before its key
}

type unknownTag struct {
	tag int64
	raw []byte
}

func (s *jsonSink) reset(w *walker, out *jsontext.Writer, o *Options) {
	s.w, s.out, s.bare, s.head = w, out, false, false
	s.kafka, s.size, s.data, s.quote = o.Kafka, o.Records == RecordsSize && !o.Kafka, o.Data, o.Int64Strings
	s.levels, s.members, s.unknown, s.n = s.levels[:0], s.members[:0], s.unknown[:0], 0
}

// resetBare readies s to write one value alone, in the default form, with
// no envelope and no head, inside an open level of kind (levelObject,
// levelArray) writing to out: a data message for codec/storage, an
// internal topic's record part for kwire log.
func (s *jsonSink) resetBare(w *walker, out *jsontext.Writer, kind uint8) {
	s.reset(w, out, &Options{})
	s.bare, s.head = true, true
	s.levels = append(s.levels, jsonLevel{kind: kind})
}

func (s *jsonSink) node() *tree.Node { return s.take() }

// place writes n's key inside the open level (none in an array), readying
// s.out for its value.
func (s *jsonSink) place(n *tree.Node) {
	p := &s.levels[len(s.levels)-1]
	p.kids++
	switch {
	case p.kind == levelArray:
	case p.kind == levelRoot: // the header, the body, a data message's or records field's value
		s.envelopeHead()
		if !s.bare {
			s.out.Key(n.Name)
		}
	case n.Field == nil:
		s.out.Key(n.Name)
	case p.kind == levelObject:
		s.out.Key(n.Field.JSON)
	default: // levelPlaces, or its section
		s.members = append(s.members, member{n.Field, len(s.out.B), s.out.Mark()})
		s.out.Key(n.Field.JSON)
	}
}

func (s *jsonSink) begin(n *tree.Node, l *schema.Layout, _ int) {
	switch n.Role {
	case tree.RoleFrame:
		s.levels = append(s.levels, jsonLevel{kind: levelRoot})
		return
	case tree.RoleTags: // its values are its struct's last members
		if s.top().kind != levelPlaces {
			s.keepPlaces()
		}
		s.levels = append(s.levels, jsonLevel{kind: levelSection})
		return
	}
	p, out := s.top(), s.out
	mark := out.Mark() // before the key, to drop it whole
	if p.kind == levelArray {
		p.kids++ // an element: no key
	} else {
		s.place(n)
	}
	lv := jsonLevel{kind: levelObject, mark: mark, l: l}
	if n.Kind == schema.Array {
		lv.kind = levelArray
		out.BeginArray()
	} else {
		out.BeginObject()
	}
	s.levels = append(s.levels, lv)
}

// keepPlaces makes the struct open last a levelPlaces.
func (s *jsonSink) keepPlaces() {
	lv := s.top()
	lv.kind, lv.first, lv.unknown = levelPlaces, int32(len(s.members)), int32(len(s.unknown))
	s.out.Hold()
}

func (s *jsonSink) top() *jsonLevel { return &s.levels[len(s.levels)-1] }

func (s *jsonSink) end(n *tree.Node) {
	s.close(n)
	s.give(n)
}

// close ends the open level of n.
func (s *jsonSink) close(n *tree.Node) {
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
		s.out.EndArray()
	default:
		// A struct that could not be read at all is left out, key and all.
		drop := n.Flags&tree.Broken != 0 && lv.kids == 0 && (n.Role == tree.RoleField || n.Role == tree.RoleElement) && n.Kind == schema.Struct
		if lv.kind == levelPlaces {
			s.out.Release()
			if !drop {
				s.inOrder(lv)
			}
			s.members, s.unknown = s.members[:lv.first], s.unknown[:lv.unknown]
		}
		if drop {
			s.out.Rollback(lv.mark)
			return
		}
		s.out.EndObject()
	}
	s.written(n)
}

// written ends n's value: output may flush after an array element.
func (s *jsonSink) written(n *tree.Node) {
	if n.Role == tree.RoleElement {
		s.out.Flush(false)
	}
}

// inOrder puts the members of levelPlaces struct lv in declared order,
// each field's first (the section, last in the bytes, may repeat a tag):
// when they are not, they are cut out and written again. Its unknown
// tags follow.
func (s *jsonSink) inOrder(lv *jsonLevel) {
	w, ms, fields := s.out, s.members[lv.first:], lv.l.Fields
	j := 0
	for i := range fields {
		if j < len(ms) && ms[j].f == &fields[i] {
			j++
		}
	}
	if j < len(ms) {
		base := ms[0].at
		s.tail = append(s.tail[:0], w.B[base:]...)
		w.Rollback(ms[0].m)
		for i := range fields {
			k := slices.IndexFunc(ms, func(m member) bool { return m.f == &fields[i] })
			if k < 0 {
				continue
			}
			end := len(s.tail)
			if k+1 < len(ms) {
				end = ms[k+1].at - base
			}
			if m := s.tail[ms[k].at-base : end]; len(m) > 0 { // empty: a struct left out
				w.Raw(bytes.TrimPrefix(m, []byte(","))) // "key":value
			}
		}
	}
	if u := s.unknown[lv.unknown:]; len(u) > 0 && !s.kafka { // Kafka's form has no place for them
		w.Key("_unknownTaggedFields")
		w.BeginArray()
		for _, t := range u {
			w.BeginObject()
			w.Key("tag")
			w.Int(t.tag)
			w.Key("data")
			w.Base64(t.raw)
			w.EndObject()
		}
		w.EndArray()
	}
}

func (s *jsonSink) leaf(n *tree.Node) {
	p := &s.levels[len(s.levels)-1]
	switch {
	case n.Flags&(tree.Tagged|tree.Broken) != 0:
		s.write(n)
	case p.kind == levelObject && n.Role == tree.RoleField && n.Field != nil:
		// The commonest steps, written out: an untagged field's value,
		p.kids++
		s.out.Key(n.Field.JSON)
		s.value(s.out, n)
	case p.kind == levelArray && n.Role == tree.RoleElement:
		// and an element's.
		p.kids++
		s.value(s.out, n)
		s.out.Flush(false)
	default:
		s.write(n)
	}
	s.give(n)
}

// flatElement writes n, a struct element, at once when its children are
// untagged fields' values and an empty tag section, the commonest element:
// no level is opened for it. false: nothing is written.
func (s *jsonSink) flatElement(n *tree.Node) bool {
	for _, c := range n.Children {
		if !plainField(c) && (c.Role != tree.RoleTags || len(c.Children) > 0) {
			return false
		}
	}
	p := s.top()
	p.kids++
	out := s.out
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

// write writes leaf n where it belongs.
func (s *jsonSink) write(n *tree.Node) {
	p := s.top()
	switch {
	case n.Role == tree.RoleSize || n.Role == tree.RoleRaw || n.Role == tree.RoleTrailing || n.Role == tree.RoleTags:
		return
	case n.Role == tree.RoleUnknownTag:
		s.unknown = append(s.unknown, unknownTag{tag: n.Int, raw: n.Raw})
		return
	case p.kind == levelSection && n.Flags&tree.Tagged == 0:
		return // a tag whose header could not be read
	case n.Flags&tree.Broken != 0:
		p.kids++
		return
	}
	s.place(n)
	s.value(s.out, n)
	s.written(n)
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
	s.place(n)
	w := s.out
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
	s.written(n)
	s.give(n)
}

func (s *jsonSink) records(n *tree.Node, b []byte, o rec.Options) (int, error) {
	defer s.give(n)
	s.place(n)
	out := s.out
	out.Value()
	o.Scratch = &s.rs
	if s.flushOf != s {
		// Made once (a closure allocates), again if s was copied.
		s.flush, s.flushOf = func() { s.out.Flush(false) }, s
	}
	return rec.WriteJSON(&out.B, b, o, s.flush)
}

func (s *jsonSink) mark() sinkMark {
	lv := s.top()
	s.out.Hold()
	return sinkMark{depth: len(s.levels), kids: int(lv.kids), pool: s.n, members: len(s.members), unknown: len(s.unknown), out: s.out.Mark()}
}

func (s *jsonSink) commit(sinkMark) { s.out.Release() }

func (s *jsonSink) rollback(m sinkMark) {
	for _, lv := range s.levels[m.depth:] {
		if lv.kind == levelPlaces {
			s.out.Release()
		}
	}
	s.levels, s.members, s.unknown, s.n = s.levels[:m.depth], s.members[:m.members], s.unknown[:m.unknown], m.pool
	lv := s.top()
	s.out.Release()
	s.out.Rollback(m.out)
	lv.kids = int32(m.kids)
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
	f, w := s.w.f, s.out
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
	if g := s.w.f.Guess; g != nil {
		w.Key("guess")
		w.Value()
		w.B = appendGuess(w.B, g)
	}
	if ws := s.w.f.Warnings; len(ws) > 0 {
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
