package payload

import (
	"strconv"

	"github.com/kwire/kwire/codec/internal/budget"
)

// maxFrameSchemas bounds the distinct schema ids the keys and values of
// one frame may look up. Each lookup may be a request to a registry:
// without a bound a few hundred bytes of records, each naming a new id,
// made a server send thousands of requests one after another. Real frames
// name a handful.
const maxFrameSchemas = 32

// maxFrameTopics bounds the topics (keys and values apart) whose schema
// for unframed payloads one frame looks up: a registry is never asked for
// them (only a folder's files), but a frame may name thousands of topics,
// and keys, mostly unframed, must not spend the ids' lookups.
const maxFrameTopics = 256

// Bounds of what a Decoder keeps across frames: compiled schemas (and
// compile errors, and topics without a schema), at most maxKept of them
// and maxKeptBytes of schema text (a compiled schema takes some times its
// text). What the source failed to answer is never kept past its frame:
// the source decides how long it remembers its own answers.
const (
	maxKept      = 1024
	maxKeptBytes = 16 << 20
)

// frameSchemas is what one frame's payloads looked up, kept on the
// frame's budget (budget.Budget.Payload), so the frame's first
// maxFrameSchemas distinct schemas decode whatever any cache holds.
type frameSchemas struct {
	ids  map[int]*compiled
	subs map[string]*compiled

	warned, warnedTopics bool // past maxFrameSchemas, maxFrameTopics: said

	// JSON Schema validation's steps (jsonschemacost.go): earned by
	// the data validated, spent by validating.
	stepsEarned, stepsSpent int
}

// frameOf returns the frame's lookups, starting them on its budget.
func frameOf(b *budget.Budget) *frameSchemas {
	f, _ := b.Payload.(*frameSchemas)
	if f == nil {
		f = &frameSchemas{}
		b.Payload = f
	}
	return f
}

// room reports whether the frame may look up one more schema; the first
// time it may not, the walker says so once for the frame.
func (f *frameSchemas) room(w *walker, at int, topic bool) bool {
	if !topic && len(f.ids) < maxFrameSchemas {
		return true
	}
	if topic && len(f.subs) < maxFrameTopics {
		return true
	}
	if topic && !f.warnedTopics {
		f.warnedTopics = true
		w.warnAt(at, "payload not read through its topic's schema: the frame's keys and values are of more than "+strconv.Itoa(maxFrameTopics)+
			" topics (the limit of topic schema lookups per frame); this payload and later ones of other topics are read as if their topics had none", true)
	}
	if !topic && !f.warned {
		f.warned = true
		w.warnAt(at, "payload not decoded: the frame's keys and values name more than "+strconv.Itoa(maxFrameSchemas)+
			" schema ids (the limit of schema lookups per frame); this payload and later ones naming other ids stay undecoded", true)
	}
	return false
}

// frameSchema returns the compiled schema for id as the frame's
// lookups hold it, looking it up when the frame may still; nil past the
// limit (said once).
func (d *Decoder) frameSchema(w *walker, id int) *compiled {
	f := frameOf(w.b)
	if c, ok := f.ids[id]; ok {
		return c
	}
	if !f.room(w, w.in.Start+1, false) {
		return nil
	}
	c := d.schema(id)
	if f.ids == nil {
		f.ids = map[int]*compiled{}
	}
	f.ids[id] = c
	return c
}

// topicSchema is forTopic under the frame's limit: nil past it (said
// once), as for a topic with no schema.
func (d *Decoder) topicSchema(w *walker) *compiled {
	if w.in.Topic == "" {
		return nil
	}
	f := frameOf(w.b)
	sub := w.in.Topic + "\x00" + strconv.FormatBool(w.in.Key)
	if c, ok := f.subs[sub]; ok {
		return c
	}
	if !f.room(w, w.in.Start, true) {
		return nil
	}
	c := d.forTopic(w)
	if f.subs == nil {
		f.subs = map[string]*compiled{}
	}
	f.subs[sub] = c
	return c
}

// keepable reports whether c may be kept across frames: not when the
// source failed to answer (compile sets typ; a source's error leaves it
// empty), which the next frame asks again.
func keepable(c *compiled) bool {
	return c == nil || c.err == "" || c.typ != ""
}

// schemaSize is what a schema's text weighs, references included.
func schemaSize(s *Schema) int {
	n := len(s.Text)
	seen := map[*Schema]bool{}
	walkReferences(s, func(r Reference) (bool, error) {
		if seen[r.Schema] {
			return false, nil
		}
		seen[r.Schema] = true
		n += len(r.Schema.Text)
		return true, nil
	})
	return n
}

// trim evicts kept schemas until the Decoder holds at most maxKept of
// them and maxKeptBytes of text. Go's map order picks which. d.mu is held.
func (d *Decoder) trim() {
	over := func() bool { return len(d.byID)+len(d.bySub) > maxKept || d.keptBytes > maxKeptBytes }
	for id, c := range d.byID {
		if !over() {
			return
		}
		d.keptBytes -= c.size
		delete(d.byID, id)
	}
	for sub, c := range d.bySub {
		if !over() {
			return
		}
		if c != nil {
			d.keptBytes -= c.size
		}
		delete(d.bySub, sub)
	}
}
