// Package payload reads what Kafka records carry: printable text, JSON,
// and the schema registry's wire format (a zero magic byte, a 4-byte
// schema id, for Protobuf a list of message indexes, then the data) with
// Avro, Protobuf and JSON Schema data decoded through the schema the
// record names.
//
// It is pure: schemas come from a Source the caller gives, and the
// package does no I/O. A Source is two methods (SchemaByID, SchemaFor):
// a program implements them over its own schema registry client, a map
// of schemas it holds, or files it reads; kwire's own sources (a
// Confluent-compatible registry client and a folder of schema files) are
// internal to the kwire command and cannot be imported. Without a Source
// (nil), text and JSON are still read, and framed payloads keep their
// schema id.
// Each payload is decoded twice over at once: into value JSON, appended
// to the caller's buffer, and, when a slab is given, into tree nodes
// whose [Start, End) spans cover every byte of the payload, so a view can
// show which bytes are the amount field of an Avro record.
//
// Value JSON: Decoder.Decode appends members to a key or value object
// that the caller opened with its bytes ({"text":...} or {"base64":...}):
//
//	"format":"json","decoded":<the JSON itself>      plain JSON text
//	"schemaId":7                                      registry framing, schema unknown
//	"schemaId":7,"format":"avro","decoded":<Avro JSON encoding>
//	"schemaId":7,"format":"protobuf","messageIndexes":[0],"message":"pkg.Order","decoded":<protojson>
//	"schemaId":7,"format":"jsonschema","decoded":<the JSON itself>
//
// Avro values are written in Avro's own JSON encoding (the form Avro's
// JsonEncoder and kcat print, which any Avro library reads back): unions
// as null or {"branch type":value}, bytes and fixed as strings of code
// points U+0000-U+00FF, logical types as their underlying values (the
// tree shows them read: dates, timestamps, decimals, UUIDs), longs as
// strings of their digits when In.Int64Strings asks (as the frame's own
// int64 values are). Protobuf values are protojson's canonical form. A payload that cannot be
// decoded (no schema, a schema that does not parse, bytes that do not
// match it, a limit) keeps its framing members and has no "decoded"; a
// warning says why, at the byte where reading stopped.
//
// Tree nodes (Role tree.RoleRecord, elements tree.RoleElement) under the
// key or value node: "magic" (int8), "schemaId" (int32), "messageIndexes"
// (varint elements), then one node for the data: "avro", "protobuf" or
// "json", whose children are the fields with their own spans; Get and
// Lookup find it as value JSON names it, "decoded" (the key's or value's
// child of a format's type), its Name saying its format. Types read
// "avro record Order", "protobuf int64", "json object" and so on. A
// container's own bytes after or between its members (a JSON closing
// bracket "end", an Avro array's or map's block counts "count" and
// "end") are nodes of role tree.RoleFraming, on the container's path.
package payload

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Schema types as the registry names them.
const (
	TypeAvro     = "AVRO"
	TypeProtobuf = "PROTOBUF"
	TypeJSON     = "JSON"
)

// Schema is a schema as a registry holds it, with its references
// resolved.
type Schema struct {
	ID   int
	Type string // TypeAvro (also when empty), TypeProtobuf or TypeJSON
	Text string
	// References are the schemas this one names: Protobuf imports by file
	// name, Avro named types, JSON Schema documents by URL. Each may have
	// references of its own.
	References []Reference
	// Avro, when set, keeps what parsing Avro references found for the
	// schemas that share them (NewAvroRefs), so each is parsed once for
	// all of them; without it, or for references it was not made for,
	// they are parsed for this schema alone, with the same result.
	Avro *AvroRefs
}

// Reference is one schema that another imports, under the name the
// importing schema uses for it.
type Reference struct {
	Name    string
	Subject string
	Version int
	Schema  *Schema
}

// walkReferences calls visit for each schema s references, directly or
// through the ones it references, each before its own references, at most
// 32 deep; the references of one visit declines (false) are not visited.
// The three compilers gather a schema's references with it.
func walkReferences(s *Schema, visit func(Reference) (bool, error)) error {
	var walk func(s *Schema, depth int) error
	walk = func(s *Schema, depth int) error {
		if depth > 32 {
			return errors.New("references nest deeper than 32")
		}
		for _, r := range s.References {
			if r.Schema == nil {
				continue
			}
			follow, err := visit(r)
			if err != nil {
				return err
			}
			if !follow {
				continue
			}
			if err := walk(r.Schema, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(s, 0)
}

// Source finds schemas. Its methods may be called from several
// goroutines; a Decoder asks once per id and remembers the answer, except
// an error with a method Temporary() bool that returns true (a registry
// that is down), for which it asks again the next time.
type Source interface {
	// SchemaByID returns the schema registered under id.
	SchemaByID(id int) (*Schema, error)
	// SchemaFor returns the schema for payloads of topic without the
	// registry's framing (keys when key is set), or nil, nil when there
	// is none.
	SchemaFor(topic string, key bool) (*Schema, error)
}

// Config sets what a Decoder does beyond reading.
type Config struct {
	// Validate checks JSON Schema payloads against their schema.
	Validate bool
	// MaxDepth bounds the nesting of decoded values (default 32).
	MaxDepth int
}

// Decoder decodes payloads with schemas from a Source, compiling each
// schema once. It is safe for use by several goroutines.
type Decoder struct {
	src Source
	cfg Config

	mu    sync.Mutex
	byID  map[int]*compiled
	bySub map[string]*compiled
	// keptBytes is the schema text byID and bySub hold (lookups.go bounds
	// both).
	keptBytes int
}

// NewDecoder returns a Decoder over src (nil: no schemas; text, JSON and
// the framing are still read).
func NewDecoder(src Source, cfg Config) *Decoder {
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 32
	}
	return &Decoder{src: src, cfg: cfg, byID: map[int]*compiled{}, bySub: map[string]*compiled{}}
}

// In is one payload to decode: a record key or value as the codec hands
// it to Options.Payload (codec.PayloadIn).
type In = rec.PayloadIn

// DecodeBytes decodes p alone, outside any frame, as a record value (a
// key when key) of topic: its JSON members, its nodes (offsets in p) and
// its warnings (codec.Warning, offsets in p), within the limits the codec
// gives a frame of 1 MiB.
func (d *Decoder) DecodeBytes(p []byte, key bool, topic string) ([]byte, []*tree.Node, []codec.Warning) {
	js, nodes, _, ws := d.decodeBytes(p, key, topic, new(slab.Slab))
	return js, nodes, ws
}

// DecodeBytesJSON is DecodeBytes without the nodes, and with the decoded
// value apart: members are the JSON members but "decoded" (each after
// its comma, as Decode writes them: "" for a payload that is text or
// bytes with nothing more to say), value the decoded value's JSON, nil
// when the payload did not decode to one (the warnings say why, when
// there is a why). It is what a list of many records wants: the nodes are
// most of the work (a framed Avro value of 80 bytes took 8.8 µs with
// them, 22 allocations), and a list shows the value apart from its
// framing. Decode's members are members then ,"decoded":value.
func (d *Decoder) DecodeBytesJSON(p []byte, key bool, topic string) (members, value []byte, ws []codec.Warning) {
	js, _, at, ws := d.decodeBytes(p, key, topic, nil)
	if at == 0 { // no value; a limit that cut one took its key out too
		return js, nil, ws
	}
	return js[:at-len(`,"decoded":`)], js[at:], ws
}

// decodeBytes is DecodeBytes, and where in its members the decoded
// value starts (0: none).
func (d *Decoder) decodeBytes(p []byte, key bool, topic string, s *slab.Slab) ([]byte, []*tree.Node, int, []codec.Warning) {
	var ws budget.Warnings
	b := budget.Budget{MaxNodes: 1 << 20, NestedNodes: 1 << 20, MaxWork: 1 << 30}
	path := func() string { return "value" }
	if key {
		path = func() string { return "key" }
	}
	in := In{B: p, End: len(p), Key: key, Topic: topic, Path: path, Slab: s, Budget: &b, Warnings: &ws}
	js, nodes, at := d.decode(nil, &in)
	return js, nodes, at, ws.List
}

// plain is Decode's commonest cases with no walker, where no schema is
// asked for and no tree wanted: a key or value without a schema's framing
// that is not JSON (text, bytes: nothing to add), or JSON text, checked
// and written in one pass when it fits the budget (at: where the decoded
// value starts in out, 0 for none). ok is false, with nothing changed,
// for any other payload or when a limit is met: Decode's walk then reads
// it.
func (d *Decoder) plain(dst []byte, in *In) (out []byte, at int, ok bool) {
	b := in.Budget
	if in.Slab != nil || d.src != nil || b == nil || !b.WorkLeft(in.End-in.Start) {
		return dst, 0, false
	}
	p := in.B[in.Start:in.End]
	if _, framed := readFraming(p); framed {
		return dst, 0, false
	}
	if !isJSONStart(p) {
		b.Work += in.End - in.Start
		return dst, 0, true
	}
	head := append(dst, `,"format":"json","decoded":`...)
	at = len(head)
	if out, ok = checkCompact(head, p, d.cfg.MaxDepth, d.cfg.MaxDepth, b); !ok {
		return dst, 0, false
	}
	b.Work += in.End - in.Start
	return out, at, true
}

// Decode appends the payload's JSON members to dst (see the package doc)
// and returns the nodes that go under the key or value node (nil without
// a slab, or when the payload is bytes with no structure).
func (d *Decoder) Decode(dst []byte, in *In) ([]byte, []*tree.Node) {
	out, nodes, _ := d.decode(dst, in)
	return out, nodes
}

// decode is Decode, and where in its answer the member "decoded"'s value
// starts (0: the payload has none).
func (d *Decoder) decode(dst []byte, in *In) ([]byte, []*tree.Node, int) {
	if in.Start < 0 || in.End > len(in.B) || in.Start >= in.End {
		return dst, nil, 0
	}
	if out, at, ok := d.plain(dst, in); ok {
		return out, nil, at
	}
	w := walker{in: in, s: in.Slab, b: in.Budget, maxDepth: d.cfg.MaxDepth, out: dst}
	if w.b == nil {
		w.b = &budget.Budget{MaxNodes: 1 << 20, NestedNodes: 1 << 20, MaxWork: 1 << 30}
	}
	if !w.b.WorkLeft(in.End - in.Start) {
		w.warnAt(in.Start, "payload not decoded: the MaxWork limit ("+strconv.Itoa(w.b.MaxWork)+" bytes) is reached", true)
		return dst, nil, 0
	}
	w.b.Work += in.End - in.Start
	p := in.B[in.Start:in.End]
	var topic *compiled // the topic's schema for data without framing
	if d.src != nil {
		topic = d.topicSchema(&w)
	}
	if f, ok := readFraming(p); ok && (topic == nil || topic.typ == "" || !d.readsAs(&w, topic) || d.readsFramed(&w, f)) {
		// With a schema for the topic's unframed data (one the source
		// gave: typ is set), bytes that start as the framing does (a zero
		// byte: Avro's int 0, false, an empty string, a union's first
		// branch) are the topic's data when they read as it and their
		// schema id is not found, or its schema does not read the rest;
		// else they are the framing (framed data whose schema is
		// missing: its warning says so).
		d.framed(&w, f)
		return w.out, w.kids, w.valueAt
	}
	if topic != nil {
		d.unframed(&w, topic)
		return w.out, w.kids, w.valueAt
	}
	if isJSONStart(p) {
		switch ok, deep := checkJSON(p, d.cfg.MaxDepth); {
		case ok:
			w.member(`"format":"json"`)
			w.jsonValue(in.Start, in.End, "json")
		case deep >= 0:
			w.warnAt(in.Start+deep, jsonTooDeep(d.cfg.MaxDepth), true)
		}
	}
	return w.out, w.kids, w.valueAt
}

// jsonTooDeep says that text that may be JSON is not read as JSON for
// the MaxDepth limit.
func jsonTooDeep(maxDepth int) string {
	return "payload not decoded as JSON: values nest deeper than the MaxDepth limit (" + strconv.Itoa(maxDepth) + ")"
}

// compiled is a schema made ready to decode with, or why it cannot be.
type compiled struct {
	id   int
	typ  string
	avro *avroType
	pb   *protoSchema
	js   *jsonSchema
	err  string
	size int // the schema's text, references included
}

// schema returns the compiled schema for id, asking the source once.
func (d *Decoder) schema(id int) *compiled {
	d.mu.Lock()
	c := d.byID[id]
	d.mu.Unlock()
	if c != nil {
		return c
	}
	c = &compiled{id: id}
	if d.src == nil {
		c.err = "no schema source is given (--schema-registry or --schemas)"
	} else if s, err := d.src.SchemaByID(id); err != nil {
		c.err = bounded(err.Error())
		if temporary(err) {
			// The source may have it later (a registry that is down):
			// ask it again next time, not keep this answer.
			return c
		}
	} else if s == nil {
		c.err = "the schema source has no schema " + strconv.Itoa(id)
	} else {
		d.compile(c, s)
	}
	d.mu.Lock()
	if old := d.byID[id]; old != nil {
		c = old
	} else if keepable(c) {
		d.byID[id] = c
		d.keptBytes += c.size
		d.trim()
	}
	d.mu.Unlock()
	return c
}

// temporary says whether err, or an error it wraps, says of itself that
// a later try may work (a Temporary method that returns true).
func temporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// forTopic returns the schema for unframed payloads of the topic, or nil.
func (d *Decoder) forTopic(w *walker) *compiled {
	if w.in.Topic == "" {
		return nil
	}
	sub := w.in.Topic + "-value"
	if w.in.Key {
		sub = w.in.Topic + "-key"
	}
	d.mu.Lock()
	c, ok := d.bySub[sub]
	d.mu.Unlock()
	if ok {
		return c
	}
	s, err := d.src.SchemaFor(w.in.Topic, w.in.Key)
	switch {
	case err != nil:
		c = &compiled{id: -1, err: bounded(err.Error())}
	case s != nil:
		c = &compiled{id: -1}
		d.compile(c, s)
	}
	d.mu.Lock()
	if _, had := d.bySub[sub]; !had && keepable(c) {
		d.bySub[sub] = c
		if c != nil {
			d.keptBytes += c.size
		}
		d.trim()
	}
	d.mu.Unlock()
	return c
}

func (d *Decoder) compile(c *compiled, s *Schema) {
	c.typ, c.size = s.Type, schemaSize(s)
	if c.typ == "" {
		c.typ = TypeAvro
	}
	var err error
	switch c.typ {
	case TypeAvro:
		c.avro, err = compileAvro(s)
	case TypeProtobuf:
		c.pb, err = compileProto(s)
	case TypeJSON:
		c.js, err = compileJSONSchema(s, d.cfg.Validate)
	default:
		c.err = "schema type " + strconv.Quote(bounded(s.Type)) + " is not AVRO, PROTOBUF or JSON"
		return
	}
	if err != nil {
		c.err = "the " + c.typ + " schema does not parse: " + bounded(err.Error())
	}
}

// framing is the registry's header of a payload.
type framing struct {
	id int
}

// readFraming reports whether p starts with the registry's framing: a
// zero magic byte and a 4-byte schema id. A payload of exactly those five
// bytes is framing too (an empty Protobuf message, say).
func readFraming(p []byte) (framing, bool) {
	if len(p) < 5 || p[0] != 0 {
		return framing{}, false
	}
	// Registries number schemas from 1.
	id := int(int32(uint32(p[1])<<24 | uint32(p[2])<<16 | uint32(p[3])<<8 | uint32(p[4])))
	if id <= 0 {
		return framing{}, false
	}
	return framing{id: id}, true
}

// framed decodes a payload with the registry's framing. Once the
// framing has its nodes, the bytes after the last node made (all of them
// when a limit stopped the data's first node) are a raw node "data".
func (d *Decoder) framed(w *walker, f framing) {
	s := w.in.Start
	if !w.charge(s, 2) {
		return
	}
	if n := w.leaf("magic", "int8", schema.Int8, s, s+1); n != nil {
		n.Int = 0
	}
	if n := w.leaf("schemaId", "int32", schema.Int32, s+1, s+5); n != nil {
		n.Int = int64(f.id)
	}
	w.member(`"schemaId":`)
	w.out = jsontext.AppendInt(w.out, int64(f.id))
	d.framedData(w, f)
	w.rest(w.topEnd, "data")
}

// framedData decodes what follows the framing, through the schema it
// names when there are schemas.
func (d *Decoder) framedData(w *walker, f framing) {
	s := w.in.Start
	if d.src == nil {
		// No schemas asked for: the framing is shown, quietly (binary
		// data that merely starts with a zero byte looks the same).
		return
	}
	c := d.frameSchema(w, f.id)
	if c == nil {
		return
	}
	if c.err != "" {
		w.warnAt(s+1, "schema "+strconv.Itoa(f.id)+" not read: "+c.err, false)
		return
	}
	d.decodeWith(w, c, s+5)
}

// readsAs reports whether the payload reads whole as data of schema c,
// trying it with no output, no warnings and a copy of the budget.
func (d *Decoder) readsAs(w *walker, c *compiled) bool {
	if c.err != "" {
		return false
	}
	in := *w.in
	in.Slab, in.Warnings, in.Node = nil, nil, nil
	b := *w.b
	dry := walker{in: &in, b: &b, maxDepth: w.maxDepth}
	d.decodeWith(&dry, c, in.Start)
	return !dry.stopped
}

// readsFramed reports whether the payload reads whole as framing f
// says: its schema id found, and the data after the framing read through
// it.
func (d *Decoder) readsFramed(w *walker, f framing) bool {
	c := d.frameSchema(w, f.id)
	if c == nil || c.err != "" {
		return false
	}
	in := *w.in
	in.Slab, in.Warnings, in.Node = nil, nil, nil
	b := *w.b
	dry := walker{in: &in, b: &b, maxDepth: w.maxDepth}
	d.decodeWith(&dry, c, in.Start+5)
	return !dry.stopped
}

// unframed decodes a payload with no framing through the topic's schema.
func (d *Decoder) unframed(w *walker, c *compiled) {
	if c.err != "" {
		w.warnAt(w.in.Start, "the schema for topic "+strconv.Quote(w.in.Topic)+": "+c.err, false)
		return
	}
	w.byTopic = true
	d.decodeWith(w, c, w.in.Start)
}

// decodeWith decodes the data at p with the compiled schema c.
func (d *Decoder) decodeWith(w *walker, c *compiled, p int) {
	switch c.typ {
	case TypeAvro:
		w.member(`"format":"avro"`)
		w.avroPayload(c.avro, p)
	case TypeProtobuf:
		w.member(`"format":"protobuf"`)
		w.protoPayload(c.pb, p, c.id >= 0)
	case TypeJSON:
		w.member(`"format":"jsonschema"`)
		w.jsonSchemaPayload(c.js, p, d.cfg.Validate)
	}
}

// Check reads s (and its references) as a Decoder reads a schema it is
// given: nil, or why the schema cannot be used, a position in s's text
// said in the file name (the Protobuf compiler's). JSON Schema is checked
// as JSON only, as a Decoder that does not validate reads it.
func Check(s *Schema, name string) error {
	var c compiled
	new(Decoder).compile(&c, s)
	if c.err != "" {
		return errors.New(strings.ReplaceAll(c.err, mainFile+":", name+":"))
	}
	return nil
}
